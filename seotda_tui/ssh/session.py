"""One SSH session channel: checks, then one Textual app, then a tidy goodbye.

Only an interactive shell with a PTY is served. Everything that can go wrong
for one player (a refused nickname, a crash in their app, a dropped
connection) ends that session only.

Per-session limits (from the server's :class:`~seotda_tui.config.Settings`):

* input: at most ``input_rate`` bytes/s with bursts of ``input_burst``; the rest is
  dropped on arrival (a 1 MiB paste costs next to nothing and never queues up);
* idle: no input for ``idle_timeout`` seconds ends the session, with an in-app warning
  (``app.notify``) ``idle_warning`` seconds before. The app can make its player exempt
  while that makes sense (e.g. seated at a table) through
  :attr:`SessionContext.idle_exempt`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import Any

import asyncssh
from textual.app import App

from .. import i18n, metrics
from ..clock import Cancellable
from ..i18n import N_
from ..logs import log_event
from ..sanitize import split_login
from ..ui.driver import TERMINAL_RESET, ChannelLink, color_system_for, prepare_app, run_app
from .auth import MSG_STORE_FULL, Identity, Proof
from .limits import InputLimiter
from .state import DisconnectReason, SessionContext, SessionHost
from .store import StoreFull

log = logging.getLogger("seotda.session")

KICK_TIMEOUT = 5.0
PASSWORD_TIMEOUT = 60.0
PASSWORD_TRIES = 3
# Output queued for a client that stopped reading; past this it is dropped.
MAX_PENDING_OUTPUT = 8 * 1024 * 1024

# What a session says itself (msgids, in the session's language: see ``GameSession.say``).
NO_PTY_MESSAGE = N_(
    "섯다는 터미널(PTY)이 있는 대화형 접속에서만 할 수 있어요. "
    "명령 없이 'ssh -p <포트> 닉네임@서버' 로 접속해 주세요 (필요하면 -t 옵션).\n"
)


_GOODBYES: dict[DisconnectReason, str] = {
    DisconnectReason.REPLACED: N_("다른 곳에서 같은 닉네임으로 접속해서 이 연결은 닫을게요."),
    DisconnectReason.APP_CRASHED: N_(
        "문제가 생겨 게임 화면을 닫았어요. 잠시 후 다시 접속해 주세요."
    ),
    DisconnectReason.SERVER_SHUTDOWN: N_(
        "서버 점검으로 잠시 후 종료돼요. 조금 뒤에 다시 접속해 주세요."
    ),
    DisconnectReason.IDLE: N_(
        "{idle} 동안 입력이 없어서 연결을 끊었어요. 언제든 다시 접속해 주세요."
    ),
}


def crlf(text: str) -> str:
    """``text`` with every line ending CR LF: a PTY's terminal is raw, so a bare LF only moves
    down and the next line (e.g. a refusal's English under its Korean) starts mid-screen."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _duration_text(seconds: float, language: i18n.Language) -> str:
    """30분, 1분, 45초 (30 min, 1 min, 45 s): how long, in the session's language."""
    if seconds >= 60:
        return language.gettext(N_("{n:.0f}분")).format(n=seconds / 60)
    return language.gettext(N_("{n:.0f}초")).format(n=max(1.0, seconds))


IDLE_WARNING = N_("{left} 뒤에 자동으로 접속이 끊겨요 (입력 없음). 아무 키나 누르면 계속돼요.")
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


class GameSession(asyncssh.SSHServerSession[bytes]):
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
        self._state = state
        self._username = username
        self._key_fp = key_fp
        self._peer_ip = peer_ip
        self._client_version = client_version
        self._proof = proof  # the nickname passphrase this connection proved, if any
        #: Its connection's count of refused requests (logs the first few, closes past a cap).
        self._on_refused = on_refused or functools.partial(self._log, "refused")
        settings = state.settings
        self._input = InputLimiter(settings.input_rate, settings.input_burst, state.clock)
        self._input_logged = False
        self._idle_timeout = settings.idle_timeout
        self._idle_warning = min(settings.idle_warning, settings.idle_timeout)
        self._last_input = 0.0
        self._warned = False
        self._idle_handle: Cancellable | None = None
        self._ctx: SessionContext | None = None
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._term: str | None = None
        self._link = ChannelLink(self._write, (80, 24))
        self._prompt: _PasswordPrompt | None = None
        #: This session's language (shared with its app, which ``L`` switches): the remembered
        #: choice of the identity, else the client's LANG/LC_ALL, else ``default_language``.
        self.language = i18n.Language(settings.default_language)
        self._app: App[Any] | None = None
        self._reason: DisconnectReason | None = None
        self._closed = False  # the channel is gone
        self._done = asyncio.Event()
        self.identity: Identity | None = None

    @property
    def peer_ip(self) -> str:
        return self._peer_ip

    @property
    def finished(self) -> bool:
        """True once the session has fully ended (app over, goodbye sent)."""
        return self._done.is_set()

    @property
    def ended(self) -> bool:
        """True once the session is over or its channel is gone (e.g. a refused exec)."""
        return self._done.is_set() or self._closed

    @property
    def channel_closed(self) -> bool:
        return self._closed

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
        self._state.sessions.add(self)
        task = asyncio.get_running_loop().create_task(self._run(), name=f"ssh:{self._username}")
        self._state.tasks.add(task)
        task.add_done_callback(self._state.tasks.discard)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if datatype is not None:
            return
        self._last_input = self._state.clock.time()
        data = self._input.admit(data)
        if self._input.dropped and not self._input_logged:
            self._input_logged = True
            self._log(
                "input_throttled", level=logging.WARNING, rate=self._state.settings.input_rate
            )
        if not data:
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

    def _log(self, event: str, /, **fields: Any) -> None:
        """One structured line about this session; who and from where are always on it."""
        log_event(log, event, **fields, user=self._username, ip=self._peer_ip)

    # -- ending -------------------------------------------------------------------

    def _end(self, reason: DisconnectReason) -> None:
        """Ask whatever is running to stop; the first reason given wins."""
        if self._reason is None:
            self._reason = reason
        if self._prompt is not None:
            self._prompt.cancel()
        if self._app is not None:
            self._app.exit()

    async def kick(self, reason: DisconnectReason, timeout: float = KICK_TIMEOUT) -> None:
        """End this session (replaced / shutdown) and wait until it is fully over."""
        self._end(reason)
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except TimeoutError:
            if not self._done.is_set():  # (a loop late for the timeout may find it over)
                self._log("kick_timeout", level=logging.WARNING, reason=str(reason))
                self._cut_off(reason)

    def _cut_off(self, reason: DisconnectReason) -> None:
        """The app did not end in time: give the terminal back, say goodbye, close the
        channel. Whatever the app still paints on its way out goes nowhere."""
        chan = self._chan
        if chan is None or self._closed or chan.is_closing():
            return
        chan.write((TERMINAL_RESET + "\r\n" + crlf(self._goodbye(reason)) + "\r\n").encode())
        self._closed = True
        chan.exit(1)

    def _goodbye(self, reason: DisconnectReason) -> str:
        """The last line a session ending for ``reason`` prints ("" for none)."""
        goodbye = _GOODBYES.get(reason)
        if goodbye is None:
            return ""
        return self.say(goodbye, idle=_duration_text(self._idle_timeout, self.language))

    def say(self, template: str, **values: object) -> str:
        """``template`` (a msgid) in this session's language, filled with ``values``."""
        text = self.language.gettext(template)
        return text.format(**values) if values else text

    def notify(self, message: str, *, timeout: float = 10.0) -> None:
        """Show ``message`` as a warning toast in this session's app, if one is running."""
        app = self._app
        if app is None or not app.is_running:
            return
        try:
            app.notify(message, severity="warning", timeout=timeout, markup=False)
        except Exception:
            log.exception("알림을 보여 주지 못했어요 (%s)", self._username)

    # -- idleness ---------------------------------------------------------------------

    def _start_idle_timer(self) -> None:
        if self._idle_timeout <= 0:
            return
        self._last_input = self._state.clock.time()
        self._schedule_idle(self._idle_timeout - self._idle_warning)

    def _schedule_idle(self, after_last_input: float) -> None:
        clock = self._state.clock
        delay = self._last_input + after_last_input - clock.time()
        self._idle_handle = clock.call_later(delay, self._idle_check)

    def _stop_idle_timer(self) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None

    def _exempt(self) -> bool:
        hook = self._ctx.idle_exempt if self._ctx is not None else None
        if hook is None:
            return False
        try:
            return bool(hook())
        except Exception:
            log.exception("idle_exempt 훅에서 오류가 났어요 (%s)", self._username)
            return True

    def _idle_check(self) -> None:
        """Runs when the idle timer is due; input meanwhile only moved ``_last_input``."""
        self._idle_handle = None
        if self._app is None or self._reason is not None:
            return
        now = self._state.clock.time()
        idle_for = now - self._last_input
        warn_after = self._idle_timeout - self._idle_warning
        if idle_for < warn_after:  # there was input: start over
            self._warned = False
            self._schedule_idle(warn_after)
            return
        if self._exempt():
            self._last_input = now
            self._warned = False
            self._schedule_idle(warn_after)
            return
        if idle_for < self._idle_timeout:
            if not self._warned:
                self._warned = True
                left = self._idle_timeout - idle_for
                text = self.say(IDLE_WARNING, left=_duration_text(left, self.language))
                self.notify(text, timeout=left)
            self._schedule_idle(self._idle_timeout)
            return
        self._log("idle_timeout", idle=round(idle_for, 1))
        self._end(DisconnectReason.IDLE)

    def _write(self, data: bytes) -> None:
        chan = self._chan
        if self._closed or chan is None or chan.is_closing():
            return
        if chan.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            self._log("output_stalled", level=logging.WARNING, pending=chan.get_write_buffer_size())
            self._closed = True
            self._end(DisconnectReason.CLIENT_LEFT)
            chan.abort()
            return
        chan.write(data)

    def _say(self, message: str) -> None:
        if self._term is None:
            self._write((message.rstrip("\n") + "\n").encode())
        else:  # after an app the cursor may be mid-line: start a fresh one
            self._write(("\r\n" + crlf(message.rstrip("\n")) + "\r\n").encode())

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
                metrics.SESSIONS.inc()  # a player's app, until it ends
                try:
                    status = await self._play(ctx)
                finally:
                    metrics.SESSIONS.dec()
        except Exception:
            self._log("session_error", level=logging.ERROR, exc_info=True)
            self._end(DisconnectReason.APP_CRASHED)
        finally:
            if self.identity is not None:
                self._state.registry.release(self.identity.nickname, self)
            reason = self._reason or DisconnectReason.APP_EXITED
            if ctx is not None:
                await ctx._fire(reason)
            goodbye = self._goodbye(reason)
            if goodbye:
                self._say(goodbye)
                status = 1
            self._finish_channel(status)
            self._state.sessions.discard(self)
            self._done.set()

    async def _refuse(self, message: str, reason: str) -> None:
        self._log("refused", reason=reason)
        metrics.login_refused(reason)
        self._say(message)
        self._finish_channel(1)

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
        self.identity = identity
        await self._state.registry.claim(identity.nickname, self)
        if self._reason is not None:  # dropped or replaced while waiting
            return None
        store = policy.store
        remembered = i18n.normalize(store.language(identity.nickname))
        if remembered in i18n.LANGUAGES:
            self.language.set(remembered)
        nickname = identity.nickname

        def remember(code: str) -> None:
            # every admitted identity proved its key or passphrase (ssh/auth.py); the name
            # must still be registered (set_language checks)
            store.set_language(nickname, code)

        self._ctx = SessionContext(
            identity=identity,
            term_type=self._term,
            color_system=color_system_for(self._term, env),
            size=self._link.size,
            env=env,
            join_target=split_login(self._username)[1],
            language=self.language,
            remember_language=remember,
        )
        metrics.login("accepted")
        return self._ctx

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

    async def _play(self, ctx: SessionContext) -> int:
        """Build and run this player's app; return the channel's exit status."""
        app = self._state.app_factory(ctx.identity, ctx)
        prepare_app(app, self._link, ctx.color_system)
        self._app = app
        width, height = self._link.size
        started = self._state.clock.time()
        log_event(
            log,
            "connect",
            user=ctx.identity.nickname,
            ip=self._peer_ip,
            key=ctx.identity.key_fingerprint,
            term=ctx.term_type,
            size=f"{width}x{height}",
            color=ctx.color_system or "none",
            client=self._client_version,
        )
        self._start_idle_timer()
        raised = True
        try:
            await run_app(app, self._link)
            raised = False
        finally:
            self._stop_idle_timer()
            self._app = None
            crashed = raised or bool(app.return_code)
            self._end(DisconnectReason.APP_CRASHED if crashed else DisconnectReason.APP_EXITED)
            fields: dict[str, Any] = {}
            if self._input.dropped:
                fields["dropped_input"] = self._input.dropped
            log_event(
                log,
                "disconnect",
                user=ctx.identity.nickname,
                ip=self._peer_ip,
                reason=str(self._reason),
                duration=round(self._state.clock.time() - started, 1),
                **fields,
            )
        return 1 if crashed else 0
