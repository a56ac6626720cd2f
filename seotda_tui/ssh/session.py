"""One SSH session channel: checks, then one Textual app, then a tidy goodbye.

Only an interactive shell with a PTY is served. Everything that can go wrong
for one player (a refused nickname, a crash in their app, a dropped
connection) ends that session only. What an SSH session shares with a browser's
(:mod:`seotda_tui.web.session`) is in :class:`~.player.PlayerSession`: the input cap, the
idle timeout, the app on the driver, the goodbye; this module is asyncssh's side of it.
"""

from __future__ import annotations

import asyncio
import functools
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any

import asyncssh

from .. import i18n
from ..i18n import N_
from ..sanitize import split_login
from .auth import MSG_STORE_FULL, Proof
from .browser_links import link_base
from .player import KICK_TIMEOUT, MAX_PENDING_OUTPUT, PlayerSession, crlf
from .state import DisconnectReason, SessionContext, SessionHost
from .store import StoreFull

__all__ = ["KICK_TIMEOUT", "MAX_PENDING_OUTPUT", "REFUSED", "GameSession", "crlf"]

PASSWORD_TIMEOUT = 60.0
PASSWORD_TRIES = 3

# What a session says itself (msgids, in the session's language: see ``GameSession.say``).
NO_PTY_MESSAGE = N_(
    "섯다는 터미널(PTY)이 있는 대화형 접속에서만 할 수 있어요. "
    "명령 없이 'ssh -p <포트> 닉네임@서버' 로 접속해 주세요 (필요하면 -t 옵션).\n"
)

PASSWORD_PROMPT = N_("서버 비밀번호: ")
PASSWORD_WRONG = N_("비밀번호가 맞지 않아요. 다시 입력해 주세요.")
PASSWORD_GAVE_UP = N_("비밀번호가 맞지 않아 접속을 끊어요.")
REFUSED = N_("접속할 수 없어요.")


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


class GameSession(PlayerSession, asyncssh.SSHServerSession[bytes]):
    """asyncssh session callbacks for one channel, plus the task that runs its app."""

    def __init__(
        self,
        state: SessionHost,
        username: str,
        key_fp: str | None,
        peer_ip: str,
        *,
        client_version: str = "",
        proof: Proof | None = None,
        on_refused: Callable[..., None] | None = None,
    ):
        super().__init__(state, username, peer_ip, client=client_version)
        self._key_fp = key_fp
        self._proof = proof  # the nickname passphrase this connection proved, if any
        #: Its connection's count of refused requests (logs the first few, closes past a cap).
        self._on_refused = on_refused or functools.partial(self._log, "refused")
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._prompt: _PasswordPrompt | None = None

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
        # The command itself is not logged: it may contain anything, secrets included.
        self._on_refused(reason="exec", command_length=len(command))
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        self._on_refused(reason="subsystem", what=subsystem[:64])
        return False

    def session_started(self) -> None:
        self.start()

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if datatype is None:
            self.received(data)

    def _keyboard(self, data: bytes) -> None:
        if self._prompt is not None:
            self._prompt.feed(data)
        else:
            self._link.feed(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.resized(width, height)

    def eof_received(self) -> bool:
        # The client's stdin ended: finish the session ourselves (so the
        # client still gets any message and an exit status), don't just drop it.
        self._end(DisconnectReason.CLIENT_LEFT)
        return True

    def break_received(self, msec: int) -> bool:
        return True  # accepted and ignored

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost()

    # -- the channel ------------------------------------------------------------------

    def _transport_write(self, data: bytes) -> None:
        if self._chan is not None:
            self._chan.write(data)

    def _pending_output(self) -> int:
        return self._chan.get_write_buffer_size() if self._chan is not None else 0

    def _transport_closing(self) -> bool:
        return self._chan is None or self._chan.is_closing()

    def _abort(self) -> None:
        if self._chan is not None:
            self._chan.abort()

    def _close(self, status: int) -> None:
        if self._chan is not None:
            self._chan.exit(status)

    def _end(self, reason: DisconnectReason) -> None:
        if self._prompt is not None:
            self._prompt.cancel()
        super()._end(reason)

    # -- admission ---------------------------------------------------------------------

    async def _admit(self) -> SessionContext | None:
        """Run every check before the app; return its context, or None if refused."""
        chan = self._chan
        assert chan is not None
        env = dict(chan.get_environment())
        asked = i18n.from_environment(env)
        if asked is not None:
            self.language.set(asked)
        if self._term is None:
            await self._refuse(self.say(NO_PTY_MESSAGE), "no_pty")
            return None
        policy = self._state.policy
        admission = policy.admit(self._username, self._key_fp, self._peer_ip, self._proof)
        if admission.identity is None:
            message = admission.refusal or self.say(REFUSED)
            await self._refuse(message, admission.code or "refused")
            return None
        identity = admission.identity
        if admission.needs_password and not await self._ask_password():
            if self._reason is None:
                await self._refuse(self.say(PASSWORD_GAVE_UP), "password")
            return None
        try:
            refusal = policy.bind(identity)
        except StoreFull:
            await self._refuse(self.say(MSG_STORE_FULL), "store_full")
            return None
        if refusal:
            await self._refuse(refusal, "nickname_taken")
            return None
        ctx = await self._enter(identity, env, split_login(self._username)[1])
        if ctx is not None and identity.key_fingerprint is not None:  # (it proved its key)
            ctx.browser_link = functools.partial(self._browser_link, identity.nickname)
        return ctx

    def _browser_link(self, nickname: str) -> tuple[str, str]:
        """A one-time link that lets ``nickname`` into the browser page (the lobby asks)."""
        settings = self._state.settings
        local = self._chan.get_extra_info("sockname") if self._chan is not None else None
        base = link_base(
            settings.web_port,
            settings.web_host,
            settings.host,
            settings.web_allowed_origins,
            str(local[0]) if local else "",
        )
        if base is None:
            return "off", ""
        token = self._state.browser_link(nickname)
        if token is None:
            return "away", ""
        self._log("browser_link")  # (never the token: it is the credential)
        return "ok", f"{base}?link={token}"

    async def _ask_password(self) -> bool:
        """In --password mode, a not-yet-registered key also has to know the password."""
        for attempt in range(PASSWORD_TRIES):
            self._prompt = _PasswordPrompt(self._write)
            self._write(self.say(PASSWORD_PROMPT).encode())
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
            if self._state.auth_failed(self._peer_ip, self._username, "session-password"):
                return False
            await asyncio.sleep(0.3)
            if attempt < PASSWORD_TRIES - 1:
                self._write((self.say(PASSWORD_WRONG) + "\r\n").encode())
        return False
