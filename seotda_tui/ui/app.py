"""One Textual app per SSH session; all share one room service (``RoomService``) and :class:`ChatHub`.

Why the shape: many apps run in one event loop, so nothing here is process-global (no signals,
stdout or environment). Manager callbacks may run on another session's task, so they only post a
message (with this app as sender); the handling runs on this app's own task. A failure inside one
app stays inside it: the manager guards every callback.

Per-session display settings live here as reactives, so every screen and card widget follows them:
``card_style`` ("box", "ascii" or "big"; keys ``a`` and ``b``) and ``show_log`` (key ``l``).
The session's language (``L``) is an :class:`~seotda_tui.i18n.Language` set as the app task's
context in ``on_load`` (see :mod:`seotda_tui.i18n` for why).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from textual import events
from textual.app import App
from textual.binding import BindingType
from textual.reactive import reactive
from textual.screen import Screen

from engine import Options
from engine.types import GameResult

from .. import i18n, metrics, tuning
from ..clock import Clock
from ..i18n import N_, _
from ..rooms import PLAYING, RoomError, RoomService, RoomSummary
from ..rooms.chat import ChatHub, ChatService
from .keys import bind

if TYPE_CHECKING:
    from .screens.host import ScreenHost

log = logging.getLogger("seotda_tui.app")  # its name before the move into ui/

MIN_WIDTH, MIN_HEIGHT = 80, 24
#: Frames the app's end waits for a screen still composing (then it ends anyway).
EXIT_WAITS = 100
WIDE_WIDTH = 110


class HasNickname(Protocol):
    """Who the session is (an ``ssh.auth.Identity``: frozen, so the name is read-only here)."""

    @property
    def nickname(self) -> str: ...


class SeotdaApp(App[None]):
    """The lobby → room → table flow for one player (``identity.nickname``)."""

    CSS_PATH = "app.tcss"
    TITLE = "섯다"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        bind("help", "help", "도움말"),
        bind("ascii", "toggle_ascii", "ASCII"),
        bind("big_text", "toggle_big", "큰 글씨"),
        bind("language", "toggle_language", "English"),
    ]

    #: How cards (and other drawings) look for this session: "box", "ascii" or "big".
    card_style: reactive[str] = reactive("box")
    ascii_mode: reactive[bool] = reactive(False)
    big_text: reactive[bool] = reactive(False)

    def __init__(
        self,
        manager: RoomService,
        identity: HasNickname,
        motd: str = "",
        *,
        chat: ChatService | None = None,
        join_target: str | None = None,
        language: i18n.Language | str = i18n.KOREAN,
        remember_language: Callable[[str], None] | None = None,
        browser_link: Callable[[], tuple[str, str]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        tuning.app_created(self)  # e.g. the shared stylesheet (seotda_tui/tuning/)
        self.manager = manager
        self.identity = identity
        self.nickname: str = identity.nickname
        self.motd = motd  # the operator's lobby notice (server setting ``motd``)
        self.chat: ChatService = chat if chat is not None else ChatHub(clock=manager.clock)
        #: Hands this session was dealt into (the table's first-hands tip stops after a few).
        self.hands_dealt = 0
        #: The time from a key to the frame showing its action (the driver and the table tell).
        self.action_latency = metrics.ActionLatency()
        self._connected = False
        self._leaving = False  # ``exit`` was called: no more keys
        self._exit_waits = 0  # frames ``exit`` waited for a composing screen (see EXIT_WAITS)
        #: ``ssh 철수+K7QX3@host``: the room to go straight to on connecting (rooms/private.py).
        self.join_target = join_target
        #: This session's language: every ``_()`` in this app's tasks reads it.
        self.language = language if isinstance(language, i18n.Language) else i18n.Language(language)
        #: Keeps a switch for the identity (a login that proved it), if the server can.
        self.remember_language = remember_language
        #: Makes a one-time browser link (the lobby's u), for a login that proved an SSH key.
        self.browser_link = browser_link

    @property
    def clock(self) -> Clock:
        """Time for countdowns and timed lines: the rooms' own clock, the one their deadlines
        and grace ends are moments on (rooms/api.py), so a test's fake clock moves both."""
        return self.manager.clock

    def on_load(self) -> None:
        """Runs in the app's own task before any widget's task starts: they all inherit it."""
        i18n.current.set(self.language)

    def on_mount(self) -> None:
        from .screens.lobby import LobbyScreen
        from .screens.table import TableScreen

        self._apply_size(self.size.width, self.size.height)
        # the client's address (an SSH identity's peer_ip): the rooms' per-address limits
        address = getattr(self.identity, "peer_ip", "")
        room_id = self.manager.session_connected(
            self.nickname, address if isinstance(address, str) else ""
        )
        self._connected = True
        notice = ""
        if room_id is None and self.join_target:
            try:
                room_id = self.manager.direct_join(self.join_target, self.nickname)
            except RoomError as exc:
                notice = exc.shown()  # a stale or mistyped code: the lobby says so
        if room_id is not None:  # back into the seat this nickname still holds
            self.push_screen(TableScreen(room_id))
        else:
            self.push_screen(LobbyScreen(notice))

    def on_unmount(self) -> None:
        if self._connected:
            self._connected = False
            self.manager.session_disconnected(self.nickname)

    def on_resize(self, event: events.Resize) -> None:
        self._apply_size(event.size.width, event.size.height)

    def exit(self, result: None = None, return_code: int = 0, message: Any = None) -> None:
        """End the app once no screen is still composing: a key and the client's EOF (or a
        ``q y``) can come in the same packet as the key that opened a screen, and Textual's
        shutdown would remove the new screen's widgets under its own mount handlers (a
        lobby's, a help tab bar's), each a crash report instead of a goodbye.
        From here on keys and clicks do nothing (one in the same packet as the end would
        open another screen)."""
        self._leaving = True
        self.call_later(self._exit_once_composed, result, return_code, message)

    def _exit_once_composed(self, result: None, return_code: int, message: Any) -> None:
        composing = any(not screen.is_mounted for screen in self.screen_stack)
        if composing and self._exit_waits < EXIT_WAITS:
            self._exit_waits += 1
            self.call_after_refresh(self._exit_once_composed, result, return_code, message)
            return
        super().exit(result, return_code, message)

    async def on_event(self, event: events.Event) -> None:
        """Keys and clicks that come after the end was asked for are dropped."""
        if isinstance(event, events.InputEvent) and (self._leaving or not self.screen_stack):
            return
        await super().on_event(event)

    def _apply_size(self, width: int, height: int) -> None:
        """Below 80×24 every screen shows only "창을 키워 주세요" (see app.tcss)."""
        self.set_class(width < MIN_WIDTH or height < MIN_HEIGHT, "-too-small")
        self.set_class(width >= WIDE_WIDTH, "-wide")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Help and the display toggles wait, like every screen's keys, until the screen can
        be seen (below 80×24 only the too-small notice shows)."""
        if action in ("help", "toggle_ascii", "toggle_big", "toggle_language") and self.has_class(
            "-too-small"
        ):
            return False
        return super().check_action(action, parameters)

    # ------------------------------------------------------------------ display modes
    def _update_style(self) -> None:
        self.card_style = "ascii" if self.ascii_mode else "big" if self.big_text else "box"
        self.set_class(self.ascii_mode, "-ascii")

    def watch_card_style(self, style: str) -> None:
        """Every card that follows the session's style, then every screen, is told here.

        Why not a ``watch`` of this reactive per card and screen: Textual keeps each such
        watcher (and so its widget and the screen it was on) until the value next changes,
        so every table screen left and every hand's cards stayed alive for the session."""
        from .screens.base import BaseScreen
        from .widgets.card import CardView

        for screen in self.screen_stack:
            for card in screen.query(CardView):
                if card.follow_app:
                    card.follow_style(style)
            if isinstance(screen, BaseScreen):
                screen.card_style_changed()

    def _mode_notice(self, text: str, seconds: float) -> None:
        """On the screen's message line where it has one, else a toast for ``seconds``."""
        from .screens.base import BaseScreen

        screen = self.screen
        if not (isinstance(screen, BaseScreen) and screen.is_mounted and screen.notice(text)):
            self.notify(text, timeout=seconds)

    def action_toggle_ascii(self) -> None:
        self.ascii_mode = not self.ascii_mode
        self._update_style()
        self._mode_notice(_("ASCII 모드 켬") if self.ascii_mode else _("ASCII 모드 끔"), 2)

    def action_toggle_big(self) -> None:
        self.big_text = not self.big_text
        self._update_style()
        if self.ascii_mode:  # ASCII cards have no large font: say so instead of seeming to work
            on = N_("큰 글씨 켬 (ASCII에선 안 보여요)")
            off = N_("큰 글씨 끔 (ASCII에선 안 보여요)")
            self._mode_notice(_(on if self.big_text else off), 3)
            return
        self._mode_notice(_("큰 글씨 모드 켬") if self.big_text else _("큰 글씨 모드 끔"), 2)

    def action_toggle_language(self) -> None:
        """``L``: the next language, for every screen of this session (and remembered)."""
        from .screens.base import BaseScreen

        self.set_language(i18n.next_language(self.language.code))
        for screen in self.screen_stack:
            if isinstance(screen, BaseScreen):
                screen.language_changed()
        self._mode_notice(_("한국어"), 2)
        if self.remember_language is not None:
            try:
                self.remember_language(self.language.code)
            except Exception:  # a store error must not cost the player the game
                log.exception("could not remember the language of %s", self.nickname)

    def set_language(self, code: str) -> None:
        self.language.set(code)
        self.title = _("섯다")

    def action_help(self) -> None:
        from .screens.help import HelpScreen
        from .screens.table import TableScreen

        if isinstance(self.screen, HelpScreen):
            if self.screen.is_mounted:  # (not while it composes: ``?`` twice in one packet)
                self.pop_screen()
            return
        options, hand = self.manager.room_defaults, None
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TableScreen):
                options, hand = screen.help_context()
                break
        self.push_screen(HelpScreen(options, hand))

    # ------------------------------------------------------------------ navigation
    # The screens ask for these (see screens/host.py); no screen imports another.
    def open_table(self, room_id: str) -> None:
        from .screens.table import TableScreen

        # the table replaces the lobby rather than covering it: an unseen lobby would keep its
        # widgets and caches (~a fifth of a session's memory) for the whole game
        self.switch_screen(TableScreen(room_id))

    def open_lobby(self, table: Screen[Any]) -> None:
        """The lobby is not kept under the table (see ``open_table``), so a fresh one
        replaces the table."""
        from .screens.lobby import LobbyScreen

        while self.screen is not table and len(self.screen_stack) > 1:
            self.pop_screen()
        if self.screen is not table:
            return
        stack = self.screen_stack
        if len(stack) > 1 and isinstance(stack[-2], LobbyScreen):
            self.pop_screen()
        else:
            self.switch_screen(LobbyScreen())

    def create_room(self, then: Callable[[str | None], None]) -> None:
        from .screens.create_room import CreateRoomScreen

        self.push_screen(CreateRoomScreen(), then)

    def edit_rules(self, room: RoomSummary, then: Callable[[str | None], None]) -> None:
        from .screens.create_room import EditRoomScreen

        self.push_screen(EditRoomScreen(room), then)

    def confirm(self, question: str, then: Callable[[bool | None], None]) -> None:
        from .screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(question), then)

    def moderate(self, room: RoomSummary, then: Callable[[tuple[str, str] | None], None]) -> None:
        from .screens.moderation import ModerationScreen

        self.push_screen(ModerationScreen(room, self.nickname), then)

    def confirm_leave(self, seat_status: str | None, then: Callable[[bool | None], None]) -> None:
        from .screens.confirm import leave_question

        self.confirm(leave_question(seat_status), then)

    def open_history(self) -> None:
        from .screens.replay import HistoryScreen

        self.push_screen(HistoryScreen())

    def open_help(self, options: Options, hand: str | None, tab: str) -> None:
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen(options, hand, tab=tab))

    def show_result(
        self, result: GameResult, options: Options, then: Callable[[bool | None], None]
    ) -> None:
        from .screens.results import open_results

        open_results(self, result, options, then)

    def new_game_started(self) -> None:
        from .screens.results import new_game_started

        new_game_started(self)

    def open_records(self) -> None:
        from .screens.records import RecordsScreen

        self.push_screen(RecordsScreen())

    def open_seat_records(self, players: Sequence[str], bots: Sequence[str]) -> None:
        from .screens.records import SeatRecordsScreen

        self.push_screen(SeatRecordsScreen(players, bots))


if TYPE_CHECKING:

    def _as_screens_see_it(app: SeotdaApp) -> ScreenHost:
        return app  # mypy checks here that the app is all that screens/host.py says


def idle_exempt(manager: RoomService, nickname: str) -> bool:
    """In a room the table's own turn timers deal with idleness, except for the host of a room
    that is not playing (and anyone in a room without a host): a host who walked away from a
    waiting room would keep it open for ever, and with it a place of ``max_rooms`` and of the
    rooms per address. Dropped at the idle timeout, the host leaves the room (as on any
    disconnect): the room closes, or the next seated person becomes the host."""
    room_id = manager.room_of(nickname)
    room = manager.room(room_id) if room_id is not None else None
    if room is None:
        return False
    return room.status == PLAYING or (room.host is not None and room.host != nickname)


def make_app_factory(
    manager: RoomService,
    motd: str = "",
    *,
    chat: ChatService | None = None,
) -> Callable[[HasNickname, Any], SeotdaApp]:
    """The ``app_factory(identity, session_context)`` the SSH server calls once per session.

    ``chat`` is the server's one hub (made here when not given, so one factory = one hub).
    A player who is in a room (seated or watching) is exempt from the server's idle
    timeout, but for the host of a room that is not playing (:func:`idle_exempt`).
    """
    hub: ChatService = chat if chat is not None else ChatHub(clock=manager.clock)

    def factory(identity: HasNickname, session_context: Any = None) -> SeotdaApp:
        nickname = identity.nickname
        if session_context is not None and hasattr(session_context, "idle_exempt"):
            session_context.idle_exempt = lambda: idle_exempt(manager, nickname)
        target = getattr(session_context, "join_target", None)
        language = getattr(session_context, "language", None)
        remember = getattr(session_context, "remember_language", None)
        link = getattr(session_context, "browser_link", None)
        return SeotdaApp(
            manager=manager,
            identity=identity,
            motd=motd,
            chat=hub,
            join_target=target if isinstance(target, str) else None,
            language=language if isinstance(language, i18n.Language) else i18n.KOREAN,
            remember_language=remember if callable(remember) else None,
            browser_link=link if callable(link) else None,
        )

    factory.chat = hub  # type: ignore[attr-defined]
    return factory
