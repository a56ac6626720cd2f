"""One SSH session channel: checks, then one Textual app, then a tidy goodbye.

Only an interactive shell with a PTY is served. Everything that can go wrong
for one player (a refused nickname, a crash in their app, a dropped
connection) ends that session only.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from codecs import getincrementaldecoder
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import asyncssh
from textual.app import App

from .auth import Identity
from .driver import ChannelLink, color_system_for, prepare_app, run_app

if TYPE_CHECKING:
    from .server import ServerState

log = logging.getLogger("seotda.session")

KICK_TIMEOUT = 5.0
PASSWORD_TIMEOUT = 60.0
PASSWORD_TRIES = 3
# Output queued for a client that stopped reading; past this it is dropped.
MAX_PENDING_OUTPUT = 8 * 1024 * 1024

NO_PTY_MESSAGE = (
    "섯다는 터미널(PTY)이 있는 대화형 접속에서만 할 수 있어요. "
    "명령 없이 'ssh -p <포트> 닉네임@서버' 로 접속해 주세요 (필요하면 -t 옵션).\n"
)


class DisconnectReason(StrEnum):
    """Why a session ended; handed to disconnect callbacks."""

    CLIENT_LEFT = "client_left"  # connection closed or dropped by the player's side
    REPLACED = "replaced"  # the same nickname connected again elsewhere
    APP_EXITED = "app_exited"  # the app ended itself (e.g. the player quit)
    APP_CRASHED = "app_crashed"  # an exception escaped the app
    SERVER_SHUTDOWN = "server_shutdown"


_GOODBYES: dict[DisconnectReason, str] = {
    DisconnectReason.REPLACED: "다른 곳에서 같은 닉네임으로 접속해서 이 연결은 닫을게요.",
    DisconnectReason.APP_CRASHED: "문제가 생겨 게임 화면을 닫았어요. 잠시 후 다시 접속해 주세요.",
    DisconnectReason.SERVER_SHUTDOWN: "서버가 종료돼요. 잠시 후 다시 접속해 주세요.",
}

DisconnectCallback = Callable[[DisconnectReason], Awaitable[None] | None]


@dataclass(eq=False)
class SessionContext:
    """What the app layer may know about its session (passed to the app factory)."""

    identity: Identity
    term_type: str
    color_system: str | None  # "truecolor" | "256" | "standard" | None
    size: tuple[int, int]  # at connect time; the app's own size tracks resizes
    env: Mapping[str, str]  # variables the client sent: untrusted
    reason: DisconnectReason | None = None
    _callbacks: list[DisconnectCallback] = field(default_factory=list, repr=False)

    def add_disconnect_callback(self, callback: DisconnectCallback) -> None:
        """Call ``callback(reason)`` once, after this session's app has finished.

        For a replaced session it runs before the replacing app starts.
        """
        self._callbacks.append(callback)

    async def _fire(self, reason: DisconnectReason) -> None:
        self.reason = reason
        for callback in self._callbacks:
            try:
                result = callback(reason)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("연결 종료 콜백에서 오류가 났어요 (%s)", self.identity.nickname)


class _PasswordPrompt:
    """A minimal masked line editor, used before any app runs."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._decode = getincrementaldecoder("utf-8")(errors="ignore").decode
        self._chars: list[str] = []
        self.result: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    def feed(self, data: bytes) -> None:
        if self.result.done() or b"\x1b" in data:  # ignore arrow keys and the like
            return
        for ch in self._decode(data):
            if ch in "\r\n":
                self._write(b"\r\n")
                self.result.set_result("".join(self._chars))
                return
            if ch in "\x03\x04":
                self.result.set_result(None)
                return
            if ch in "\x7f\x08":
                if self._chars:
                    self._chars.pop()
                    self._write(b"\b \b")
            elif ch.isprintable() and len(self._chars) < 256:
                self._chars.append(ch)
                self._write(b"*")

    def cancel(self) -> None:
        if not self.result.done():
            self.result.set_result(None)


class GameSession(asyncssh.SSHServerSession[bytes]):
    """asyncssh session callbacks for one channel, plus the task that runs its app."""

    def __init__(self, state: ServerState, username: str, key_fp: str | None, peer_ip: str):
        self._state = state
        self._username = username
        self._key_fp = key_fp
        self._peer_ip = peer_ip
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term: str | None = None
        self._link = ChannelLink(self._write, (80, 24))
        self._prompt: _PasswordPrompt | None = None
        self._app: App[Any] | None = None
        self._reason: DisconnectReason | None = None
        self._closed = False  # the channel is gone
        self._done = asyncio.Event()
        self.identity: Identity | None = None

    # -- asyncssh callbacks ------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def pty_requested(self, term_type: str, term_size: Any, term_modes: Any) -> bool:
        self._term = term_type or ""
        self._link.resize(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        log.info("명령 실행 요청 거절 (%s@%s)", self._username, self._peer_ip)
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("서브시스템 %r 요청 거절 (%s@%s)", subsystem, self._username, self._peer_ip)
        return False

    def session_started(self) -> None:
        self._state.sessions.add(self)
        task = asyncio.get_running_loop().create_task(self._run(), name=f"ssh:{self._username}")
        self._state.tasks.add(task)
        task.add_done_callback(self._state.tasks.discard)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if datatype is not None:
            return
        if self._prompt is not None:
            self._prompt.feed(data)
        else:
            self._link.feed(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._link.resize(width, height)

    def eof_received(self) -> bool:
        # The client's stdin ended: finish the session ourselves (so the
        # client still gets any message and an exit status), don't just drop it.
        self._end(DisconnectReason.CLIENT_LEFT)
        return True

    def break_received(self, msec: int) -> bool:
        return True  # accepted and ignored

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self._end(DisconnectReason.CLIENT_LEFT)

    # -- ending -------------------------------------------------------------------

    def _end(self, reason: DisconnectReason) -> None:
        """Ask whatever is running to stop; the first reason given wins."""
        if self._reason is None:
            self._reason = reason
        if self._prompt is not None:
            self._prompt.cancel()
        if self._app is not None:
            self._app.exit()

    async def kick(self, reason: DisconnectReason) -> None:
        """End this session (replaced / shutdown) and wait until it is fully over."""
        self._end(reason)
        try:
            await asyncio.wait_for(self._done.wait(), KICK_TIMEOUT)
        except TimeoutError:
            log.warning("세션이 제때 끝나지 않아 강제로 닫아요: %s", self._username)
            if self._chan is not None:
                self._chan.abort()

    def _write(self, data: bytes) -> None:
        chan = self._chan
        if self._closed or chan is None or chan.is_closing():
            return
        if chan.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            log.warning("클라이언트가 출력을 읽지 않아 연결을 끊어요: %s", self._username)
            self._closed = True
            self._end(DisconnectReason.CLIENT_LEFT)
            chan.abort()
            return
        chan.write(data)

    def _say(self, message: str) -> None:
        if self._term is None:
            self._write((message.rstrip("\n") + "\n").encode())
        else:  # after an app the cursor may be mid-line: start a fresh one
            self._write(("\r\n" + message.rstrip("\n") + "\r\n").encode())

    def _finish_channel(self, status: int) -> None:
        chan = self._chan
        if chan is not None and not self._closed and not chan.is_closing():
            chan.exit(status)

    # -- the session's life ---------------------------------------------------------

    async def _run(self) -> None:
        ctx: SessionContext | None = None
        status = 1
        try:
            ctx = await self._admit()
            if ctx is not None:
                status = await self._play(ctx)
        except Exception:
            log.exception("세션 처리 중 오류 (%s@%s)", self._username, self._peer_ip)
            self._end(DisconnectReason.APP_CRASHED)
        finally:
            if self.identity is not None:
                self._state.registry.release(self.identity.nickname, self)
            reason = self._reason or DisconnectReason.APP_EXITED
            if ctx is not None:
                await ctx._fire(reason)
            goodbye = _GOODBYES.get(reason)
            if goodbye:
                self._say(goodbye)
                status = 1
            self._finish_channel(status)
            self._state.sessions.discard(self)
            self._done.set()

    async def _refuse(self, message: str) -> None:
        log.info("접속 거절 (%s@%s): %s", self._username, self._peer_ip, message)
        self._say(message)
        self._finish_channel(1)

    async def _admit(self) -> SessionContext | None:
        """Run every check before the app; return its context, or None if refused."""
        chan = self._chan
        assert chan is not None
        if self._term is None:
            await self._refuse(NO_PTY_MESSAGE)
            return None
        policy = self._state.policy
        admission = policy.admit(self._username, self._key_fp, self._peer_ip)
        if admission.identity is None:
            await self._refuse(admission.refusal or "접속할 수 없어요.")
            return None
        identity = admission.identity
        if admission.needs_password and not await self._ask_password():
            if self._reason is None:
                await self._refuse("비밀번호가 맞지 않아 접속을 끊어요.")
            return None
        refusal = policy.bind(identity)
        if refusal:
            await self._refuse(refusal)
            return None
        self.identity = identity
        await self._state.registry.claim(identity.nickname, self)
        if self._reason is not None:  # dropped or replaced while waiting
            return None
        env = dict(chan.get_environment())
        return SessionContext(
            identity=identity,
            term_type=self._term,
            color_system=color_system_for(self._term, env),
            size=self._link.size,
            env=env,
        )

    async def _ask_password(self) -> bool:
        """In --password mode, a not-yet-registered key also has to know the password."""
        for attempt in range(PASSWORD_TRIES):
            self._prompt = _PasswordPrompt(self._write)
            self._write("서버 비밀번호: ".encode())
            try:
                answer = await asyncio.wait_for(self._prompt.result, PASSWORD_TIMEOUT)
            except TimeoutError:
                answer = None
            finally:
                self._prompt = None
            if answer is None or self._reason is not None:
                return False
            if self._state.policy.check_password(answer):
                return True
            await asyncio.sleep(0.3)
            if attempt < PASSWORD_TRIES - 1:
                self._write("비밀번호가 맞지 않아요. 다시 입력해 주세요.\r\n".encode())
        return False

    async def _play(self, ctx: SessionContext) -> int:
        """Build and run this player's app; return the channel's exit status."""
        app = self._state.app_factory(ctx.identity, ctx)
        prepare_app(app, self._link, ctx.color_system)
        self._app = app
        log.info("입장: %s (%s, %s, %s)", ctx.identity.nickname, self._peer_ip, ctx.term_type,
                 ctx.color_system or "흑백")
        try:
            await run_app(app, self._link)
        finally:
            self._app = None
        crashed = bool(app.return_code)
        self._end(DisconnectReason.APP_CRASHED if crashed else DisconnectReason.APP_EXITED)
        log.info("퇴장: %s (%s)", ctx.identity.nickname, self._reason)
        return 1 if crashed else 0
