"""The asyncssh server: one Textual app per SSH session, all in one event loop.

Auth decisions live in :mod:`seotda_tui.auth`, the per-channel life in
:mod:`seotda_tui.session`; this module wires them to asyncssh, keeps the
registry of who is connected, and starts/stops the listener.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
from textual.app import App

from .auth import AuthPolicy, Identity
from .hostkey import fingerprint, load_or_create_host_key
from .session import DisconnectReason, GameSession, SessionContext
from .store import NicknameStore

log = logging.getLogger("seotda.server")

AppFactory = Callable[[Identity, SessionContext], App[Any]]

_AUTH_FAIL_DELAY = 0.3  # seconds; slows down password guessing
_MAX_PASSWORD_FAILURES = 6  # per connection, then it is dropped
_PASSWORD_PROMPT = "서버 비밀번호 (password): "


@dataclass(kw_only=True)
class ServerConfig:
    """Everything start_server needs; mirrors the seotda-server command-line flags."""

    app_factory: AppFactory
    host: str = "0.0.0.0"
    port: int = 2222  # 0 picks a free port (see ServerHandle.port)
    hostkey_dir: Path = Path("hostkeys")
    data_dir: Path = Path("data")
    password: str | None = None
    authorized_keys: Path | None = None
    reconnect_grace: float = 60.0  # for the room manager; the server itself doesn't use it


class SessionRegistry:
    """Live sessions by nickname, so a second login can replace the first."""

    def __init__(self) -> None:
        self._by_name: dict[str, GameSession] = {}

    async def claim(self, nickname: str, session: GameSession) -> None:
        """Make ``session`` the holder of ``nickname``; end (and await) any previous one."""
        previous = self._by_name.get(nickname)
        self._by_name[nickname] = session
        if previous is not None and previous is not session:
            log.info("같은 닉네임으로 다시 접속해서 이전 연결을 닫아요: %s", nickname)
            await previous.kick(DisconnectReason.REPLACED)

    def release(self, nickname: str, session: GameSession) -> None:
        if self._by_name.get(nickname) is session:
            del self._by_name[nickname]

    def nicknames(self) -> list[str]:
        return sorted(self._by_name)


@dataclass(eq=False)
class ServerState:
    """Shared by every connection of one listener."""

    policy: AuthPolicy
    app_factory: AppFactory
    registry: SessionRegistry = field(default_factory=SessionRegistry)
    sessions: set[GameSession] = field(default_factory=set)
    connections: set[asyncssh.SSHServerConnection] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


class _PlayerConnection(asyncssh.SSHServer):
    """asyncssh callbacks for one TCP connection: auth, then session channels only."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._conn: asyncssh.SSHServerConnection | None = None
        self._peer_ip = ""
        # Fingerprint of the key that proved itself, reset whenever another
        # method is tried: a failed signature must not leave its key behind.
        self._key_fp: str | None = None
        self._failures = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self._peer_ip = str(peer[0]) if peer else ""
        self._state.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._state.connections.discard(self._conn)

    def begin_auth(self, username: str) -> bool:
        self._key_fp = None
        return True  # always ask, so a client that has a key offers it

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if not self._state.policy.key_acceptable(username, key, self._peer_ip):
            self._key_fp = None
            return False
        self._key_fp = key.get_fingerprint("sha256")
        return True

    def kbdint_auth_supported(self) -> bool:
        return self._state.policy.keyless_allowed

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> Any:
        self._key_fp = None
        if self._state.policy.password is None:
            return True  # open mode: in without a prompt
        return "", "", "", [(_PASSWORD_PROMPT, False)]

    async def validate_kbdint_response(self, username: str, responses: Any) -> bool:
        self._key_fp = None
        return await self._password_result(
            len(responses) == 1 and self._state.policy.check_password(responses[0])
        )

    def password_auth_supported(self) -> bool:
        return self._state.policy.keyless_allowed

    async def validate_password(self, username: str, password: str) -> bool:
        self._key_fp = None
        return await self._password_result(self._state.policy.check_password(password))

    async def _password_result(self, ok: bool) -> bool:
        """Slow down wrong guesses, and drop a connection that keeps guessing."""
        if ok:
            return True
        self._failures += 1
        await asyncio.sleep(_AUTH_FAIL_DELAY)
        if self._failures >= _MAX_PASSWORD_FAILURES and self._conn is not None:
            log.info("비밀번호를 %d번 틀려서 연결을 끊어요 (%s)", self._failures, self._peer_ip)
            self._conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                                  "Too many wrong passwords")
        return False

    def session_requested(self) -> GameSession:
        assert self._conn is not None
        username = self._conn.get_extra_info("username") or ""
        return GameSession(self._state, username, self._key_fp, self._peer_ip)

    # Forwarding of any kind is refused.
    def connection_requested(self, *args: Any) -> bool:
        return False

    def server_requested(self, *args: Any) -> bool:
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        return False


@dataclass(eq=False)
class ServerHandle:
    """A running server: its port and host-key fingerprint, and how to stop it."""

    port: int
    fingerprint: str
    state: ServerState
    _acceptor: asyncssh.SSHAcceptor
    _store: NicknameStore

    def nicknames(self) -> list[str]:
        """Nicknames with a live session right now."""
        return self.state.registry.nicknames()

    async def close(self) -> None:
        """Stop listening, tell every player, end every app, then drop the connections."""
        self._acceptor.close()
        sessions = list(self.state.sessions)
        await asyncio.gather(
            *(s.kick(DisconnectReason.SERVER_SHUTDOWN) for s in sessions), return_exceptions=True
        )
        conns = list(self.state.connections)
        for conn in conns:
            conn.close()
        if conns:
            await asyncio.wait([asyncio.ensure_future(c.wait_closed()) for c in conns], timeout=5)
        if self.state.tasks:
            await asyncio.wait(list(self.state.tasks), timeout=5)
        await self._acceptor.wait_closed()
        self._store.close()
        log.info("서버를 멈췄어요.")


async def start_server(config: ServerConfig) -> ServerHandle:
    """Load/create the host key, open the store and listen; returns once accepting."""
    host_key = load_or_create_host_key(config.hostkey_dir)
    store = NicknameStore(config.data_dir)
    try:
        policy = AuthPolicy(store, config.password, config.authorized_keys)
        state = ServerState(policy=policy, app_factory=config.app_factory)
        acceptor = await asyncssh.create_server(
            lambda: _PlayerConnection(state),
            config.host,
            config.port,
            server_host_keys=[host_key],
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            login_timeout=60,
            keepalive_interval=15,
            keepalive_count_max=4,
        )
    except BaseException:
        store.close()
        raise
    handle = ServerHandle(acceptor.get_port(), fingerprint(host_key), state, acceptor, store)
    mode = "비밀번호" if config.password else "열린 접속"
    if config.authorized_keys:
        mode += f", 허용 키 목록 {config.authorized_keys}"
    log.info(
        "섯다 서버가 %s:%d 에서 기다려요 (%s). 호스트 키 지문: %s",
        config.host, handle.port, mode, handle.fingerprint,
    )
    return handle
