"""One player's session, whatever carries its bytes: an SSH channel (:mod:`.session`) or a
browser's WebSocket (:mod:`seotda_tui.web.session`).

What is the same for both lives here, so a browser player is a session exactly like an SSH
one: input capped at ``input_rate`` bytes/s (bursts of ``input_burst``, the rest dropped on
arrival), the same Textual driver path (:class:`~seotda_tui.ui.driver.ChannelLink`: bytes in,
bytes out, the size and its changes), the nickname's one live session (the registry), the idle
timeout with its in-app warning, crash isolation (an exception ends this session only), the
goodbye and the ``connect``/``disconnect`` log lines. A transport subclass says how its bytes
leave (:meth:`_transport_write`, :meth:`_pending_output`, :meth:`_abort`, :meth:`_close`) and how
a connection becomes an identity (:meth:`_admit`, then :meth:`_enter`).

Idleness: no input for ``idle_timeout`` seconds ends the session, with an in-app warning
(``app.notify``) ``idle_warning`` seconds before. The app can make its player exempt while
that makes sense (e.g. seated at a table) through :attr:`SessionContext.idle_exempt`.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from textual.app import App

from .. import i18n, metrics
from ..clock import Cancellable
from ..i18n import N_
from ..logs import log_event
from ..ui.driver import TERMINAL_RESET, ChannelLink, color_system_for, prepare_app, run_app
from .auth import Identity
from .limits import InputLimiter
from .state import DisconnectReason, SessionContext, SessionHost

log = logging.getLogger("seotda.session")

KICK_TIMEOUT = 5.0
# Output queued for a client that stopped reading; past this it is dropped.
MAX_PENDING_OUTPUT = 8 * 1024 * 1024

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

IDLE_WARNING = N_("{left} 뒤에 자동으로 접속이 끊겨요 (입력 없음). 아무 키나 누르면 계속돼요.")


def crlf(text: str) -> str:
    """``text`` with every line ending CR LF: a PTY's terminal is raw, so a bare LF only moves
    down and the next line (e.g. a refusal's English under its Korean) starts mid-screen."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _duration_text(seconds: float, language: i18n.Language) -> str:
    """30분, 1분, 45초 (30 min, 1 min, 45 s): how long, in the session's language."""
    if seconds >= 60:
        return language.gettext(N_("{n:.0f}분")).format(n=seconds / 60)
    return language.gettext(N_("{n:.0f}초")).format(n=max(1.0, seconds))


class PlayerSession(ABC):
    """One player: admission, then one Textual app on a :class:`ChannelLink`, then a goodbye.

    ``kind`` names the transport in the log (``ssh``, ``web``); ``client`` is what the client
    said it is (an SSH version string, a browser's user agent), cleaned by the caller.
    """

    kind = "ssh"

    def __init__(self, state: SessionHost, username: str, peer_ip: str, *, client: str = ""):
        self._state = state
        self._username = username
        self._peer_ip = peer_ip
        self._client_version = client
        settings = state.settings
        self._input = InputLimiter(settings.input_rate, settings.input_burst, state.clock)
        self._input_logged = False
        self._idle_timeout = settings.idle_timeout
        self._idle_warning = min(settings.idle_warning, settings.idle_timeout)
        self._last_input = 0.0
        self._warned = False
        self._idle_handle: Cancellable | None = None
        self._ctx: SessionContext | None = None
        #: The terminal type once known (None: no terminal, e.g. an SSH exec without a PTY).
        self._term: str | None = None
        self._link = ChannelLink(self._write, (80, 24))
        #: This session's language (shared with its app, which ``L`` switches): the remembered
        #: choice of the identity, else what the client asked for, else ``default_language``.
        self.language = i18n.Language(settings.default_language)
        self._app: App[Any] | None = None
        self._reason: DisconnectReason | None = None
        self._closed = False  # the transport is gone
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
        """True once the session is over or its transport is gone (e.g. a refused exec)."""
        return self._done.is_set() or self._closed

    @property
    def channel_closed(self) -> bool:
        return self._closed

    # -- what the transport hands in ---------------------------------------------------

    def start(self) -> None:
        """Run the session (admission, app, goodbye) as a task the listener keeps."""
        self._state.sessions.add(self)
        name = f"{self.kind}:{self._username}"
        task = asyncio.get_running_loop().create_task(self._run(), name=name)
        self._state.tasks.add(task)
        task.add_done_callback(self._state.tasks.discard)

    def received(self, data: bytes) -> None:
        """What the player typed (keys, mouse reports, pastes), capped at ``input_rate``."""
        self._last_input = self._state.clock.time()
        data = self._input.admit(data)
        if self._input.dropped and not self._input_logged:
            self._input_logged = True
            self._log(
                "input_throttled", level=logging.WARNING, rate=self._state.settings.input_rate
            )
        if data:
            self._keyboard(data)

    def _keyboard(self, data: bytes) -> None:
        """Admitted input: to the app (a transport may first route it elsewhere)."""
        self._link.feed(data)

    def resized(self, width: int, height: int) -> None:
        self._link.resize(width, height)

    def lost(self) -> None:
        """The transport is gone (the client closed it, or the network did)."""
        self._closed = True
        self._end(DisconnectReason.CLIENT_LEFT)

    def _log(self, event: str, /, **fields: Any) -> None:
        """One structured line about this session; who and from where are always on it."""
        log_event(log, event, **fields, user=self._username, ip=self._peer_ip)

    # -- the transport's part (each transport's subclass: ssh/session.py, web/session.py) --

    @abstractmethod
    def _transport_write(self, data: bytes) -> None:
        """Send bytes to the client (SSH channel or WebSocket frame)."""

    @abstractmethod
    def _pending_output(self) -> int:
        """Bytes written and not yet taken by the client."""

    def _transport_closing(self) -> bool:
        return False

    @abstractmethod
    def _abort(self) -> None:
        """Drop the transport at once (the client stopped reading)."""

    @abstractmethod
    def _close(self, status: int) -> None:
        """End the transport politely after the last output (``status``: 0 fine, 1 not)."""

    @abstractmethod
    async def _admit(self) -> SessionContext | None:
        """Every check before the app: its context (see :meth:`_enter`), or None if refused."""

    # -- ending -------------------------------------------------------------------

    def _end(self, reason: DisconnectReason) -> None:
        """Ask whatever is running to stop; the first reason given wins."""
        if self._reason is None:
            self._reason = reason
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
        transport. Whatever the app still paints on its way out goes nowhere."""
        if self._closed or self._transport_closing():
            return
        self._transport_write(
            (TERMINAL_RESET + "\r\n" + crlf(self._goodbye(reason)) + "\r\n").encode()
        )
        self._closed = True
        self._close(1)

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

    # -- output -------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if self._closed or self._transport_closing():
            return
        pending = self._pending_output()
        if pending > MAX_PENDING_OUTPUT:
            self._log("output_stalled", level=logging.WARNING, pending=pending)
            self._closed = True
            self._end(DisconnectReason.CLIENT_LEFT)
            self._abort()
            return
        self._transport_write(data)

    def _say(self, message: str) -> None:
        if self._term is None:
            self._write((message.rstrip("\n") + "\n").encode())
        else:  # after an app the cursor may be mid-line: start a fresh one
            self._write(("\r\n" + crlf(message.rstrip("\n")) + "\r\n").encode())

    def _finish_channel(self, status: int) -> None:
        if not self._closed and not self._transport_closing():
            self._close(status)

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

    async def _enter(
        self, identity: Identity, env: Mapping[str, str], join_target: str | None
    ) -> SessionContext | None:
        """An admitted identity takes its nickname (ending its other session, if any) and
        gets its context: the language it chose before, the colours its terminal has."""
        assert self._term is not None
        self.identity = identity
        await self._state.registry.claim(identity.nickname, self)
        if self._reason is not None:  # dropped or replaced while waiting
            return None
        store = self._state.policy.store
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
            join_target=join_target,
            language=self.language,
            remember_language=remember,
        )
        metrics.login("accepted")
        return self._ctx

    async def _play(self, ctx: SessionContext) -> int:
        """Build and run this player's app; return the transport's exit status."""
        app = self._state.app_factory(ctx.identity, ctx)
        prepare_app(app, self._link, ctx.color_system)
        self._app = app
        width, height = self._link.size
        started = self._state.clock.time()
        fields: dict[str, Any] = {} if self.kind == "ssh" else {"via": self.kind}
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
            **fields,
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
