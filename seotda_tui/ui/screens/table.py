"""The room: the waiting room before a game, the table during it, the result after it.

The screen only ever sees ``RoomUpdate`` pushes (its own redacted view + public events); it holds no
game. Each part of the screen is its own widget with reactive data, so a push repaints only what
changed — a bet by one player repaints that seat, the pot and the action bar, nothing else.

Layout, top to bottom: the title; the other players (boxes with card backs, or one line each when
crowded); the status line with the countdown gauge; the pot (large digits when there is room) and
the banner; the own cards (large when they fit) with the hand's name; the prompts, the action bar
and the chat line. :meth:`TableScreen._layout` picks the richest arrangement that fits the terminal.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget

from engine import DECK, Options

from ...i18n import _
from ...rooms import FINISHED, PLAYING, RoomError, RoomSummary, RoomUpdate
from ...rooms.mid_join import QUEUED
from ...rooms.pause import PAUSED_NOTICE
from ..room_rules import room_rules_lines
from ..widgets.actions import ActionBar, PromptBar
from ..widgets.card import card_dimensions
from ..widgets.chatline import ChatLine
from ..widgets.gauge import StatusGauge
from ..widgets.hand import HandCards
from ..widgets.handlog import HandLog
from ..widgets.lines import Line
from ..widgets.pot import PotView
from ..widgets.seats import BOX_HEIGHT, SeatBoxes, SeatInfo, SeatList, box_width
from ..widgets.texts import ACTION_NAMES, card_short, chips, event_lines, first_fit
from .base import Pushed
from .help_text import jokbo_side_parts
from .table_actions import TableActions, table_bindings
from ..present.fit import fit_parts, fit_ranking, text_rows
from ..present.shape import WIDE_WIDTH
from ..present.shape import log_width as table_log_width
from ..present.text import (
    FIRST_TIP_HANDS,
    banner_parts,
    cut_text,
    flash_for,
    mine_parts,
    pot_values,
    result_parts,
    seat_infos,
    showdown_name,
    showdown_results,
    status_parts,
    title_text,
    track_payouts,
    waiting_seats,
    waiting_status,
)

LOG_LINES = 200
#: Terminal height from which the 족보 list stays on screen beside the table (wide terminals).
JOKBO_SIDE_HEIGHT = 36
#: The own hand's texts need this many cells beside large cards (a 16-cell name, " 선"), else
#: the cards are drawn compact.
MIN_MINE_WIDTH = 20
#: How long a special outcome's banner stays (§9 asks for about a second).
FLASH_SECONDS = 1.5
#: How long the 기리 (cut) line stays after a deal (§5.1: a short moment, no effect on play).
CUT_SECONDS = 2.0


def _set(widget: Widget, attribute: str, value: Any) -> None:
    """Assign only on change: even an equal style assignment can cost a repaint (bandwidth)."""
    if getattr(widget, attribute) != value:
        setattr(widget, attribute, value)


class CutOver(Message):
    """The 기리 line's time is up (posted from the manager's clock)."""


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
        self.layout_choice: tuple[str, str, bool] = ("line", "compact", False)
        self.box_columns = 1
        self.table_width = 78  # cells left of the log, inside the padding (set by _layout)
        self.mine_width, self.mine_rows = 60, 1  # the own hand's texts (set by _layout)
        self._unsubscribe: Callable[[], None] | None = None
        self._deadline_at: float | None = None
        self._turn_key: Any = None
        self._shown_result: Any = None
        self._flash_timer: Any = None
        self._layout_key: tuple[Any, ...] | None = None
        self._cut = ""  # the 기리 line of the hand just dealt, for CUT_SECONDS
        self._cut_timer: Any = None
        #: The hand log's events (and a showdown's results), to write it again after ``L``.
        self._logged: deque[tuple[dict[str, Any], list[dict[str, Any]] | None]] = deque(
            maxlen=LOG_LINES
        )

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="title")
        with Horizontal(id="table-main"):
            with Vertical(id="table-left"):
                yield SeatBoxes(id="boxes")
                yield SeatList(id="seats")
                yield Line(id="spectators")
                yield StatusGauge(id="status")
                yield PotView(id="pot")
                yield Line(id="banner")
                with Horizontal(id="hand"):
                    yield HandCards(id="hand-cards")
                    with Vertical(id="mine-box"):
                        yield Line(id="me-line")
                        yield Line(id="mine", sticky=True)
            with Vertical(id="side"):
                yield Line(id="jokbo-side")
                yield HandLog(id="log", max_lines=LOG_LINES, min_width=16)
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
        self.set_interval(1.0, self.tick)

    def on_unmount(self) -> None:
        self._end_cut()
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
        if self.log_shown is not None:
            return self.log_shown
        return self.app.size.width >= WIDE_WIDTH or self.view is None  # the waiting room has room

    def _layout(self) -> None:
        """Choose boxes or lines for the others, large or compact own cards, big or plain pot.

        Only when something it depends on changed: setting styles can lay the whole screen out
        again, and this runs on every push.
        """
        view, room = self.view, self.room
        style = str(getattr(self.app, "card_style", "box"))
        log_visible = self._log_visible()
        key = (
            self.app.size,
            log_visible,
            style,
            self.in_game,
            None if view is None else len(self._others(view)),
            None if room is None else (room.options.card_mode, bool(room.spectators)),
        )
        if key == self._layout_key:
            return
        self._layout_key = key
        width, height = self.app.size
        side = self.query_one("#side", Vertical)
        _set(side, "display", log_visible)
        self.query_one(HandLog).hold(not log_visible)
        log_width = table_log_width(width)
        if side.styles.width is None or side.styles.width.value != log_width:
            side.styles.width = log_width
        # §9 "PC: 족보표 상시 표시": on a big terminal the 족보 stays beside the table
        _set(
            self.query_one("#jokbo-side", Line),
            "display",
            log_visible and width >= WIDE_WIDTH and height >= JOKBO_SIDE_HEIGHT,
        )
        table_width = self.table_width = width - 2 - (log_width if log_visible else 0)
        spectators = 1 if room is not None and room.spectators else 0
        spare = height
        if view is None:
            choice = ("line", "compact", False)
        else:
            others = len(self._others(view))
            cards = 3 if room is not None and room.options.card_mode == "three" else 2
            columns = max(1, (table_width + 1) // (box_width(cards, style) + 1))
            box_rows = math.ceil(others / columns) * BOX_HEIGHT
            fixed = 1 + 1 + 1 + 1 + (2 if self.in_game else 0) + 1  # title status banner prompts…
            choice = ("line", "compact", False)
            for mode, size, big in (
                ("box", "large", True),
                ("box", "large", False),
                ("line", "large", True),
                ("line", "large", False),
                ("box", "compact", True),
                ("box", "compact", False),
                ("line", "compact", True),
                ("line", "compact", False),
            ):
                if size == "large" and self.in_game:  # the texts beside need a name's width
                    text = table_width - cards * (card_dimensions(size, style)[0] + 1) - 1
                    if text < MIN_MINE_WIDTH:
                        continue
                # the own row: its top padding, the me line and the texts below it
                own = card_dimensions(size, style)[1] + 1 if self.in_game else 3
                used = fixed + (box_rows if mode == "box" else others) + own + (3 if big else 1)
                if used <= height:
                    choice = (mode, size, big)
                    spare = height - used
                    break
            self.box_columns = columns
        self.layout_choice = choice
        mode, size, big = choice
        _set(self.query_one(SeatBoxes), "display", mode == "box" and view is not None)
        _set(self.query_one(SeatList), "display", mode == "line" or view is None)
        self.query_one(PotView).set(big=big)
        # the hand texts beside the cards get the cards' height up front (card + raise line −
        # padding − the me line), so a longer hint or the result does not grow the row mid-hand
        card_width, card_height = card_dimensions(size, style)
        self.mine_rows = max(1, card_height - 1) if self.in_game else 1
        self.query_one("#mine", Line).styles.min_height = self.mine_rows
        # the texts' width as this layout will give it (the widget's size is the old layout's
        # until the next frame): the cards' places with their margins, the box's padding
        places = (3 if self._three_cards() else 2) if self.in_game else 0
        self.mine_width = max(1, table_width - places * (card_width + 1) - 1)
        if big:
            self.call_after_refresh(self._check_pot_room)
        _set(self.query_one("#spectators", Line), "display", bool(spectators) and spare >= 1)

    def _check_pot_room(self) -> None:
        """Plain digits when the laid-out own row reaches into the big ones: the pot must read
        whole (the layout counts rows beforehand; this catches what it could not foresee)."""
        # (called after a refresh: the screen may be on its way out by then, its widgets gone)
        pots, hands = self.query(PotView), self.query("#hand")
        if not (self.is_mounted and self.live and pots and hands):
            return
        pot, hand = pots.first(), hands.first()
        if pot.big and hand.display and pot.region.bottom > hand.region.y:
            pot.set(big=False)

    # ------------------------------------------------------------------ pushes
    def on_pushed(self, message: Pushed) -> None:
        update: RoomUpdate = message.payload
        self.seotda.action_latency.drawn()  # the next frame written shows this update
        if update.closed:
            self._unsubscribe = None
            self.app.notify(update.notice_shown() or _("방이 닫혔어요"), markup=False)
            self._close()
            return
        previous = self.latest
        self.latest = update
        self._arm_countdown()
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
        self._redraw()
        self._feedback(update)
        self._maybe_show_result(previous, update)
        if update.room.status == PLAYING and (previous is None or previous.room.status != PLAYING):
            self.seotda.new_game_started()
        self.paint_now()

    def _flash(self, text: str | None) -> None:
        if self._flash_timer is not None:
            self._flash_timer.stop()
            self._flash_timer = None
        self.query_one(PotView).set(flash=text or "")
        if text:
            self._flash_timer = self.set_timer(FLASH_SECONDS, lambda: self._flash(None))

    def _show_cut(self, text: str) -> None:
        """The 기리 moment at each deal: a line for a moment, timed by the manager's clock (so
        it follows a test's fake clock); only screens that are open ever schedule it."""
        self._end_cut()
        self._cut = text
        if text:
            self._cut_timer = self.manager.clock.call_later(CUT_SECONDS, self._cut_over_later)

    def _cut_over_later(self) -> None:
        """Manager clock callback (maybe outside this app's task): only queue a message."""
        self.post_message(CutOver())

    def _end_cut(self) -> None:
        if self._cut_timer is not None:
            self._cut_timer.cancel()
        self._cut_timer, self._cut = None, ""

    def on_cut_over(self, message: CutOver) -> None:
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
    def view(self) -> dict[str, Any] | None:
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

    def legal(self) -> list[dict[str, Any]]:
        view = self.view
        return view["legalActions"] if view and self.in_game and not self.paused else []

    @property
    def shown_seats(self) -> dict[str, Any]:
        """Nickname → the ``SeatInfo`` on screen, whichever layout is in use (for tests)."""
        infos: Sequence[SeatInfo]
        if self.query_one(SeatBoxes).display:
            infos = self.query_one(SeatBoxes).infos
        else:
            infos = self.query_one(SeatList).infos
        return {info.name: info for info in infos}

    def help_context(self) -> tuple[Options, str | None]:
        """For the help screen: this room's options and the own hand's name (to highlight)."""
        options = self.room.options if self.room else self.manager.room_defaults
        hint = (self.view or {}).get("myHand") if self.in_game else None
        return options, (hint or {}).get("name")

    def _write_log(self, update: RoomUpdate) -> None:
        log = self.query_one("#log", HandLog)
        if update.snapshot:
            log.clear()
            self.replay_chat()
            self._logged.clear()
        for i, event in enumerate(update.events):
            # a showdown is named as the seats name it, from the results that follow it
            results = (
                showdown_results(update.events[i + 1 :])
                if event.get("type") == "showdown"
                else None
            )
            self._logged.append((event, results))
            self._log_event(log, event, results, update.room.options)

    def _log_event(
        self,
        log: HandLog,
        event: dict[str, Any],
        results: list[dict[str, Any]] | None,
        options: Options,
    ) -> None:
        names = None
        if results is not None:
            names = {h["player"]: showdown_name(h, results, options) for h in event["hands"]}
        for line in event_lines(event, names):
            log.write(Text(line))

    def _rewrite_log(self) -> None:
        """The hand log again, in the session's new language (as a snapshot writes it)."""
        if self.latest is None:
            return
        log = self.query_one("#log", HandLog)
        log.clear()
        self.replay_chat()
        for event, results in self._logged:
            self._log_event(log, event, results, self.latest.room.options)

    def _others(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        me = self.nickname if self.in_game else None
        return [s for s in view["seats"] if s["id"] != me]

    def _arm_countdown(self) -> None:
        """Fix the turn's deadline when an update arrives: the update says how many seconds
        were left when it was sent, so a redraw (resize, restyle) must not count from now."""
        assert self.latest is not None
        view = self.view
        if self.latest.deadline is not None and view is not None:
            self._deadline_at = self.seotda.clock() + self.latest.deadline
            self.query_one(StatusGauge).total = (view.get("pending") or {}).get("seconds")
        else:
            self._deadline_at = None

    def _redraw(self) -> None:
        assert self.latest is not None
        room, view = self.latest.room, self.view
        self._layout()
        self._show_jokbo(room, view)
        self._show_title(room, view)
        if view is None:
            self._show_waiting(room)
        else:
            self._show_game(room, view)
        self._tick()

    def _show_jokbo(self, room: RoomSummary, view: dict[str, Any] | None) -> None:
        side = self.query_one("#jokbo-side", Line)
        if not side.display:
            return
        hint = (view or {}).get("myHand") if self.in_game else None
        side.show(*jokbo_side_parts(room.options, (hint or {}).get("name")))

    def _show_title(self, room: RoomSummary, view: dict[str, Any] | None) -> None:
        # the update carries the code to those who may see it: no call to the rooms per redraw
        code = self.latest.code if self.latest is not None else None
        # those inside pass the code on (the lobby never shows it); first, so never cut
        prefix = _("방 코드 {code}").format(code=code) + " · " if code else ""
        watching = " · " + _("관전 {n}명").format(n=len(room.spectators)) if room.spectators else ""
        title = prefix + first_fit(  # shortened on purpose, not cut at the edge
            self.app.size.width - 2 - cell_len(prefix),  # the title's padding
            title_text(room, view) + watching,
            title_text(room, view, host=False) + watching,
            title_text(room, view, host=False),
        )
        self.query_one("#title", Line).show((title, "bold"))
        watchers = ", ".join(room.spectators)
        self.query_one("#spectators", Line).show(
            _("관전: {players}").format(players=watchers) if watchers else ""
        )

    # ------------------------------------------------------------------ waiting room / result
    def _show_waiting(self, room: RoomSummary) -> None:
        self.query_one(SeatList).set_seats(waiting_seats(room, self.nickname))
        self.query_one(PotView).set(amount=None)
        result = self.latest.result if self.latest else None
        if result is None:
            rules = "\n".join(room_rules_lines(room.options, max(24, self.table_width - 4)))
            head = _("■ 이 방의 규칙 (i 자세히)")
            self.query_one("#mine", Line).show((head + "\n", "bold"), rules)
        else:  # the last game's ranking comes first at 80×24; the rules stay one key away
            self.query_one("#mine", Line).show("")
        self.query_one("#me-line", Line).show("")
        self.query_one(HandCards).show([])
        ranking = result_parts(result, room.options)
        rows, width = self._banner_rows(room), self.table_width
        self.query_one("#banner", Line).show(*fit_ranking(ranking, rows, width))
        gauge = self.query_one(StatusGauge)
        gauge.show(waiting_status(room, self.nickname, self.table_width))
        prompts: list[tuple[str, str, bool]] = []
        if not self.seated:
            prompts.append(("join", _("j 참가"), room.joinable))
        elif room.host == self.nickname:
            prompts.append(("start", _("s 시작"), len(room.players) >= 2))
            prompts.append(("add_bot", _("+ 봇"), len(room.players) < room.max_players))
            prompts.append(("remove_bot", _("- 봇"), bool(room.bots)))
            prompts.append(("moderate", _("m 방장"), True))
        prompts.append(("leave", _("q 나가기"), True))
        self.query_one(PromptBar).set_prompts(prompts)
        self.fit_message()
        _set(self.query_one(ActionBar), "display", False)

    def _banner_rows(self, room: RoomSummary) -> int:
        """The waiting room's rows left for the last game's result: the height less the title,
        the seats, the watchers' line, the status and (empty) pot lines, the own row (3: see
        ``_layout``), the prompts and the keys line."""
        spectators = 1 if room.spectators else 0
        used = 1 + len(waiting_seats(room, self.nickname)) + spectators + 1 + 1 + 3 + 1 + 1
        return max(1, self.app.size.height - used)

    # ------------------------------------------------------------------ the game
    def _show_game(self, room: RoomSummary, view: dict[str, Any]) -> None:
        me, legal = self.nickname, self.legal()
        style = str(getattr(self.app, "card_style", "box"))
        self._show_seats(room, view)
        size = self.layout_choice[1]
        amount, sides, note = pot_values(view)
        self.query_one(PotView).set(
            amount=amount, sides=sides, note=note, ascii_only=style == "ascii"
        )
        cut = [(self._cut, "dim")] if self._cut else []
        self.query_one("#banner", Line).show(*cut, *banner_parts(view))
        seat = self._own_seat(view) if self.in_game else None
        choosing = self._choosing(view)
        me_line, *rest = mine_parts(
            view,
            seat,
            room.options,
            choosing,
            self.selected,
            self.payouts.get(me, 0),
            first_hands=self.seotda.hands_dealt <= FIRST_TIP_HANDS,
        )
        if seat is None and me in view.get("joining", ()):  # a seat at the next hand (issue 32)
            me_line = [(_(QUEUED), "bold green")]
        self.query_one("#me-line", Line).show(*me_line)
        # the own row keeps the height the layout counted (else it grows over the pot, §issue
        # 32 item 7): a me line that wraps takes its extra rows from the texts below it
        mine, width = self.query_one("#mine", Line), self.mine_width
        rows = max(1, self.mine_rows - (text_rows(me_line, width) - 1))
        if mine.styles.min_height is None or mine.styles.min_height.value != rows:
            mine.styles.min_height = rows
        mine.show(*fit_parts(rest[0] if rest else [], rows, width))
        self._show_cards(view, size)
        gauge = self.query_one(StatusGauge)
        gauge.ascii_only = style == "ascii"
        if self.paused:
            gauge.show((_(PAUSED_NOTICE), "bold reverse"))
        else:
            gauge.show(*status_parts(view, me, legal, choosing))
        bar = self.query_one(ActionBar)
        _set(bar, "display", self.in_game)
        bar.set_legal([a for a in legal if a["type"] in ACTION_NAMES])
        self.query_one(PromptBar).set_prompts(self._game_prompts(view))
        self.fit_message()
        turn = (
            view.get("handNo"),
            view.get("rematchNo"),
            view.get("street"),
            view.get("handPhase"),
        )
        if legal and turn != self._turn_key:
            self._turn_key = turn
            self.app.bell()  # §9 "your turn"
        elif not legal:
            self._turn_key = None

    def _show_seats(self, room: RoomSummary, view: dict[str, Any]) -> None:
        """The others' seats; also on the clock's tick while a seat's reconnect grace runs."""
        style = str(getattr(self.app, "card_style", "box"))
        now = self.manager.clock.time()
        infos = seat_infos(room, view, self.nickname, self.payouts, now)
        others = [i for i in infos if not (i.me and self.in_game)]
        cards = 3 if room.options.card_mode == "three" else 2
        if self.layout_choice[0] == "box":
            self.query_one(SeatBoxes).set_seats(others, style, cards, self.box_columns)
        else:
            self.query_one(SeatList).set_seats(others)

    def _own_seat(self, view: dict[str, Any]) -> dict[str, Any] | None:
        return next((s for s in view["seats"] if s["id"] == self.nickname), None)

    def _show_cards(self, view: dict[str, Any], size: str) -> None:
        """Draw the own cards; raised = picked for the 3-card choice, dimmed = thrown away."""
        seat = self._own_seat(view) if self.in_game else None
        cards = [DECK[c["id"]] for c in (seat or {}).get("cards", []) if "id" in c]
        chosen = (seat or {}).get("chosenIds")
        thrown = frozenset(c.id for c in cards if chosen is not None and c.id not in chosen)
        dimmed = thrown
        if seat is not None and seat.get("folded"):
            dimmed = frozenset(c.id for c in cards)
        selected = frozenset(self.selected) if self._choosing(view) else frozenset()
        places = 0 if seat is None else 3 if self._three_cards() else 2
        self.query_one(HandCards).show(cards, selected, dimmed, size, places, thrown)  # type: ignore[arg-type]

    def _three_cards(self) -> bool:
        return self.room is not None and self.room.options.card_mode == "three"

    def _choosing(self, view: dict[str, Any]) -> bool:
        return (
            any(a["type"] == "choose" for a in self.legal()) and view.get("handPhase") == "choose"
        )

    def _game_prompts(self, view: dict[str, Any]) -> list[tuple[str, str, bool]]:
        prompts: list[tuple[str, str, bool]] = []
        legal = self.legal()
        kinds = {a["type"]: a for a in legal}
        if self._choosing(view):
            seat = self._own_seat(view) or {}
            for i, card in enumerate(c for c in seat.get("cards", []) if "id" in c):
                mark = "*" if card["id"] in self.selected else ""
                prompts.append((f"num({i + 1})", f"{i + 1} {mark}{card_short(card)}", True))
            prompts.append(("confirm", _("Enter 확정"), len(self.selected) == 2))
            if view.get("myHand") and view["myHand"].get("recommended"):
                prompts.append(("recommend", _("r 추천"), True))
        elif "rejoin" in kinds:
            accept = next((a for a in legal if a["type"] == "rejoin" and a["accept"]), None)
            cost = f" (+{chips(accept['amount'])})" if accept else ""
            prompts.append(("answer(True)", _("y 재참가") + cost, accept is not None))
            prompts.append(("answer(False)", _("n 안 함"), True))
        elif "rebuy" in kinds:
            prompts.append(("answer(True)", _("y 칩 다시 받기"), True))
            prompts.append(("answer(False)", _("n 그만하기"), True))
        elif "ready" in kinds:
            prompts.append(("ready", _("Space 준비"), True))
        room = self.room
        joining = view.get("joining", ())
        free = len(view["seats"]) + len(joining) < (room.max_players if room else 0)
        watching = room is not None and self.nickname in room.spectators and room.options.mid_join
        # a seat at the next hand (issue 32; j asks the engine): greyed once asked for
        if watching and (free or self.nickname in joining):
            prompts.append(("join", _("j 참가"), self.nickname not in joining))
        if not self._choosing(view):  # (the 3-card choice's row is full at 80 columns)
            prompts.append(("rules", _("i 규칙"), True))
        prompts.append(("leave", _("q 나가기"), True))
        return prompts

    def tick(self) -> None:
        """Move the countdown to the clock's time (every second; tests call it directly)."""
        gauge = self.query_one(StatusGauge)
        before = gauge.seconds
        self._tick()
        changed = gauge.seconds != before  # most ticks change nothing
        room, view = self.room, self.view
        seats = False
        if room is not None and room.grace and view is not None:
            shown = self.shown_seats
            self._show_seats(room, view)  # a grace countdown moves in 5 s steps
            seats = shown != self.shown_seats
        if seats:
            self.paint_now()
        elif changed:
            self.paint_now(only=(gauge,))  # the one row that moved: no walk over the screen

    def _tick(self) -> None:
        """Everyone at the table sees the seconds left of whoever must act, by the second
        (issue 32: players expect to see the others' time run, as on Hangame): the same
        number on every screen, each change sent as the one or two cells that moved."""
        gauge = self.query_one(StatusGauge)
        if self._deadline_at is None:
            gauge.seconds = None
            return
        gauge.seconds = max(0, math.ceil(self._deadline_at - self.seotda.clock() - 0.001))
