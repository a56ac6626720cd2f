"""The room: the waiting room before a game, the table during it, the result after it.

The screen only ever sees ``RoomUpdate`` pushes (its own redacted view + public events); it holds no
game. Each part of the screen is its own widget with reactive data, so a push repaints only what
changed — a bet by one player repaints that seat, the pot and the action bar, nothing else.

Layout, top to bottom: the title; the other players (boxes with card backs, or one line each when
crowded); the status line with the countdown gauge; the pot (large digits when there is room) and
the banner; the own cards (large when they fit) with the hand's name; the prompts, the action bar
and the chat line. What each part shows, and the richest arrangement that fits the terminal, is
decided by the pure presenter (:func:`seotda_tui.ui.present.table.present`); the table itself
is one :class:`~seotda_tui.ui.screens.table_view.TableView` that draws its model (the replay
draws its frames with the same widget). The screen keeps the session's state (the update, the
3-card pick, payouts, the flash and 기리 timers, the hand log) and the keys.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widget import Widget

from engine import Options
from engine.types import GameResult, LegalAction, SeatView, View

from ...i18n import _
from ...rooms import FINISHED, PLAYING, RoomError, RoomSummary, RoomUpdate
from ...rooms.events import RoomEvent
from ..geometry import SeatInfo
from ..present.log import log_lines, logged
from ..present.shape import Shape, log_visible
from ..present.table import (
    SessionUpdate,
    TableModel,
    choosing,
    first_hands,
    legal_actions,
    own_seat,
    present,
)
from ..present.text import Outcome, cut_text, flash_for, track_payouts
from ..timers import ScreenTimer, after, every
from ..widgets.actions import ActionBar, PromptBar
from ..widgets.chatline import ChatLine
from ..widgets.gauge import StatusGauge
from ..widgets.handlog import HandLog
from ..widgets.lines import Line
from ..widgets.pot import PotView
from .base import Pushed
from .table_actions import TableActions, table_bindings
from .table_view import LOG_LINES, TableView, set_changed

#: How long a special outcome's banner stays (§9 asks for about a second).
FLASH_SECONDS = 1.5
#: How long the 기리 (cut) line stays after a deal (§5.1: a short moment, no effect on play).
CUT_SECONDS = 2.0


class TableScreen(TableActions):
    """One room, seen by one session."""

    CHAT_LOG = "#log"
    BINDINGS: ClassVar[list[BindingType]] = table_bindings()

    def __init__(self, room_id: str) -> None:
        super().__init__()
        self.room_id = room_id
        self.chat_channel = room_id
        self.latest: RoomUpdate | None = None
        self.selected: list[int] = []  # three-card Seotda: the ids picked so far
        self.log_shown: bool | None = None  # None: shown on wide terminals only
        self.payouts: dict[str, int] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._turn_key: tuple[object, ...] | None = None  # the turn the bell rang for
        self._shown_result: GameResult | None = None  # (compared by identity)
        self._flash_timer: ScreenTimer | None = None  # on the clock, as the countdown
        self._ticker: ScreenTimer | None = None  # the countdown's second (ui/timers.py)
        self._cut = ""  # the 기리 line of the hand just dealt, for CUT_SECONDS
        self._cut_timer: ScreenTimer | None = None
        self._arrived: list[RoomUpdate] = []  # delivered, not yet applied (see ``deliver``)
        #: The hand log's events (and a showdown's results), to write it again after ``L``.
        self._logged: deque[tuple[RoomEvent, list[Outcome] | None]] = deque(maxlen=LOG_LINES)

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="title")
        yield TableView()
        with Horizontal(id="prompt-row"):
            yield PromptBar(id="prompts")
            yield Line(id="message")
        yield ActionBar(id="actions")
        yield ChatLine(id="chat")

    def on_mount(self) -> None:
        try:
            self._unsubscribe = self.manager.subscribe_room(
                self.room_id, self.nickname, self.deliver
            )
        except RoomError as exc:
            self.app.notify(exc.shown(), markup=False)
            self._close()
            return
        self.chat_log().hold(not self._log_visible())
        self.follow_chat()
        self._ticker = every(self.seotda.clock, self, 1.0, self.tick)

    def on_unmount(self) -> None:
        self._end_cut()
        for timer in (self._ticker, self._flash_timer):
            if timer is not None:
                timer.stop()
        self.stop_chat()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def chat_log(self) -> HandLog:
        return self.query_one(self.CHAT_LOG, HandLog)

    def on_resize(self, event: events.Resize) -> None:
        if self.latest is not None:
            self._redraw()

    def card_style_changed(self) -> None:
        if self.latest is not None:
            self._redraw()

    def relabel(self) -> None:
        self.query_one(ChatLine).relabel()
        self._rewrite_log()
        if self._cut and self.view is not None:  # the 기리 line still showing
            self._cut = cut_text(self.view)
        if self.latest is not None:
            self._redraw()

    def _log_visible(self) -> bool:
        return log_visible(self.log_shown, self.app.size.width, self.view is not None)

    @property
    def layout_choice(self) -> Shape:
        """The arrangement on screen: (seats, own cards, big pot) — see ``present/shape.py``."""
        layout = self.query_one(TableView).layout_now
        return ("line", "compact", False) if layout is None else layout.shape

    def _present(self) -> TableModel:
        """The table for this session now (:func:`present`): everything the widgets draw."""
        assert self.latest is not None
        update = SessionUpdate(
            self.latest,
            self.nickname,
            payouts=self.payouts,
            cut=self._cut,
            first_hands=first_hands(self.seotda.hands_dealt),
            log_shown=self.log_shown,
        )
        size = (self.app.size.width, self.app.size.height)
        style = str(getattr(self.app, "card_style", "box"))
        now = self.seotda.clock.time()  # (the countdown reads the same clock: _tick)
        return present(update, now, size, style, None, self.selected)

    def _layout(self) -> None:
        """Apply the arrangement alone (the log shown or hidden in the waiting room)."""
        if self.latest is not None:
            self.query_one(TableView).lay_out(self._present().layout)

    # ------------------------------------------------------------------ pushes
    def deliver(self, payload: RoomUpdate | list[RoomSummary]) -> None:
        """Updates that arrive while one is still on its way (bots acting at once, a loop
        busy with other sessions) join it: the message that comes applies them all in order
        and draws the table once, not once for each (each draw costs a few milliseconds)."""
        if isinstance(payload, RoomUpdate):
            self._arrived.append(payload)
            if len(self._arrived) > 1:
                return
        super().deliver(payload)

    def on_pushed(self, message: Pushed) -> None:
        payload = message.payload
        assert isinstance(payload, RoomUpdate)  # (a table subscribes to its room only)
        updates, self._arrived = self._arrived or [payload], []
        for update in updates:
            self.seotda.action_latency.drawn()  # the next frame written shows this update
            if update.closed:
                self._unsubscribe = None
                self.app.notify(update.notice_shown() or _("방이 닫혔어요"), markup=False)
                self._close()
                return
            self._apply(update)
        self._arm_countdown()
        self._redraw()
        self.paint_now()

    def _apply(self, update: RoomUpdate) -> None:
        """One update taken in: the log, payouts, the hand count, flashes, the player's own
        messages and the results screen (the table is drawn after the last one)."""
        previous = self.latest
        self.latest = update
        self._write_log(update)
        track_payouts(self.payouts, update.events)
        if self.in_game and (
            update.snapshot or any(e.get("type") == "handStart" for e in update.events)
        ):
            self.seotda.hands_dealt += 1  # (a snapshot mid-game counts as the hand it joins)
        if not update.snapshot:
            flash = flash_for(update.events)
            if flash:
                self._flash(flash)
            elif any(e.get("type") in ("handStart", "rematchStart") for e in update.events):
                self._flash(None)
            if self.view is not None and any(e.get("type") == "handStart" for e in update.events):
                self._show_cut(cut_text(self.view))
        self._feedback(update)
        self._maybe_show_result(previous, update)
        if update.room.status == PLAYING and (previous is None or previous.room.status != PLAYING):
            self.seotda.new_game_started()

    def _flash(self, text: str | None) -> None:
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        self.query_one(PotView).set(flash=text or "")
        if text:
            clock = self.seotda.clock
            self._flash_timer = after(clock, self, FLASH_SECONDS, lambda: self._flash(None))

    def _show_cut(self, text: str) -> None:
        """The 기리 moment at each deal: a line for a moment, timed by the rooms' clock (so
        it follows a test's fake clock); only screens that are open ever schedule it."""
        self._end_cut()
        self._cut = text
        if text:
            self._cut_timer = after(self.seotda.clock, self, CUT_SECONDS, self._cut_over)

    def _end_cut(self) -> None:
        if self._cut_timer is not None:
            self._cut_timer.stop()
        self._cut_timer, self._cut = None, ""

    def _cut_over(self) -> None:
        self._cut_timer = None
        self._cut = ""
        if self.latest is not None:
            self._redraw()
            self.paint_now()

    def _maybe_show_result(self, previous: RoomUpdate | None, update: RoomUpdate) -> None:
        """The game just ended (or we came back to a finished room): open the results screen."""
        result = update.result
        if update.room.status != FINISHED or not result or result is self._shown_result:
            return
        was_playing = previous is not None and previous.room.status == PLAYING
        if not was_playing and not update.snapshot:
            return
        self._shown_result = result
        self.seotda.show_result(result, update.room.options, self._after_result)

    def _after_result(self, to_lobby: bool | None) -> None:
        if to_lobby:  # (asks first if a new game started meanwhile)
            self.action_leave()

    @property
    def room(self) -> RoomSummary | None:
        return self.latest.room if self.latest else None

    @property
    def view(self) -> View | None:
        """The game view, while a game runs (a finished game shows the waiting room + result)."""
        if self.latest is None or self.latest.room.status != PLAYING:
            return None
        return self.latest.view

    @property
    def seated(self) -> bool:
        return self.room is not None and self.nickname in self.room.players

    @property
    def in_game(self) -> bool:
        return self.view is not None and self.latest is not None and self.latest.viewer is not None

    @property
    def paused(self) -> bool:
        """The room waits for its journal (:mod:`seotda_tui.rooms.pause`): nothing can be done."""
        return self.latest is not None and self.latest.paused

    def legal(self) -> list[LegalAction]:
        return legal_actions(self.latest) if self.latest is not None else []

    @property
    def shown_seats(self) -> dict[str, SeatInfo]:
        """Nickname → the ``SeatInfo`` on screen, whichever layout is in use (for tests)."""
        return self.query_one(TableView).shown_seats

    def help_context(self) -> tuple[Options, str | None]:
        """For the help screen: this room's options and the own hand's name (to highlight)."""
        options = self.room.options if self.room else self.manager.room_defaults
        view = self.view if self.in_game else None
        hint = view.get("myHand") if view else None
        return options, hint["name"] if hint else None

    def _write_log(self, update: RoomUpdate) -> None:
        log = self.query_one("#log", HandLog)
        if update.snapshot:
            log.clear()
            self.replay_chat()
            self._logged.clear()
        # (a showdown named as the seats name it; one held for a 구사 choice, once judged)
        entries = logged(update.events, self._logged)
        self._logged.extend(entries)
        for line in log_lines(entries, update.room.options):
            log.write(Text(line))

    def _rewrite_log(self) -> None:
        """The hand log again, in the session's new language (as a snapshot writes it)."""
        if self.latest is None:
            return
        log = self.query_one("#log", HandLog)
        log.clear()
        self.replay_chat()
        for line in log_lines(self._logged, self.latest.room.options):
            log.write(Text(line))

    def _arm_countdown(self) -> None:
        """The gauge's full length when an update brings a turn's deadline (its moment is the
        update's ``deadline_at``, on the rooms' clock: every tick counts to it, see _tick)."""
        assert self.latest is not None
        view = self.view
        if self.latest.deadline_at is not None and view is not None:
            self.query_one(StatusGauge).total = view["pending"]["seconds"]

    def _redraw(self) -> None:
        """subscribe → present → apply: the model of the latest update, drawn."""
        assert self.latest is not None
        model = self._present()
        self.query_one(TableView).apply(model)  # (the 족보 beside it too, on a big terminal)
        view = self.view
        self.query_one("#title", Line).show(*model.title)
        self.query_one(PromptBar).set_prompts(list(model.prompts))
        self.fit_message()
        bar = self.query_one(ActionBar)
        set_changed(bar, "display", model.action_bar)
        if view is not None:
            bar.set_legal(list(model.actions))
            self._ring(view, list(model.legal))
        self._tick()

    def _ring(self, view: View, legal: list[LegalAction]) -> None:
        """The bell once when it becomes this player's turn (§9 "your turn")."""
        turn = (
            view.get("handNo"),
            view.get("rematchNo"),
            view.get("street"),
            view.get("handPhase"),
        )
        if legal and turn != self._turn_key:
            self._turn_key = turn
            self.app.bell()
        elif not legal:
            self._turn_key = None

    def _own_seat(self, view: View) -> SeatView | None:
        return own_seat(view, self.nickname)

    def _choosing(self, view: View) -> bool:
        return choosing(view, self.legal())

    def tick(self) -> None:
        """Move the countdown to the clock's time (every second; tests call it directly)."""
        gauge = self.query_one(StatusGauge)
        before = gauge.seconds
        self._tick()
        changed = gauge.seconds != before  # most ticks change nothing
        room, view = self.room, self.view
        seats = False
        if room is not None and room.grace_ends and view is not None:
            table = self.query_one(TableView)
            shown = table.shown_seats
            table.show_seats(self._present())  # a grace countdown moves in 5 s steps
            seats = shown != table.shown_seats
        if seats:
            self.paint_now()
        elif changed:
            self.paint_now(only=(gauge,))  # the one row that moved: no walk over the screen

    def _tick(self) -> None:
        """Everyone at the table sees the seconds left of whoever must act, by the second
        (issue 32: players expect to see the others' time run, as on Hangame): the same
        number on every screen, each change sent as the one or two cells that moved."""
        gauge = self.query_one(StatusGauge)
        latest = self.latest
        left = None
        if latest is not None and self.view is not None:
            left = latest.seconds_left(self.seotda.clock.time())  # to its deadline_at
        gauge.seconds = None if left is None else max(0, math.ceil(left - 0.001))
