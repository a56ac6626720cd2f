"""Hand history: the list of one's last games, and a replay that steps through them.

The list (:class:`HistoryScreen`, lobby key ``h``) shows the journal's finished games the player
played or watched, newest first. Enter opens :class:`ReplayScreen`: every frame is the view that
player was sent at that moment (:mod:`seotda_tui.rooms.history`), drawn with the table's own
widgets and texts (seats, own cards, pot, banner, hand log), so a replay shows exactly what the
table showed: others' cards only where the showdown revealed them, a spectator's game as
spectators saw it. Both screens are pushed over the lobby and popped back to it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget

from engine import DECK

from ...i18n import N_, _
from ...rooms import PLAYING, RoomSummary
from ...rooms.history import PastGame, Replay
from ..keys import bind
from ..widgets.card import card_dimensions
from ..widgets.hand import HandCards
from ..widgets.handlog import HandLog
from ..widgets.lines import Line
from ..widgets.pot import PotView
from ..widgets.roomlist import RoomList
from ..widgets.seats import SeatBoxes, SeatInfo, SeatList
from ..widgets.texts import chips, event_lines
from .base import BaseScreen
from ..present.fit import fit_parts
from ..present.shape import PLAINEST, Shape, choose_shape, log_width, seat_columns
from ..present.text import (
    banner_parts,
    flash_for,
    mine_parts,
    pot_values,
    seat_infos,
    showdown_name,
    showdown_results,
    status_parts,
    track_payouts,
)

# msgids, translated where they are shown
COLUMNS = (N_("번호"), N_("날짜"), N_("방 이름"), N_("참가자"), N_("내 결과"))
EMPTY = N_("지난 게임이 없어요. 게임을 마치면 여기서 다시 볼 수 있어요.")
NO_JOURNAL = N_("이 서버는 게임을 저장하지 않아서 지난 게임이 없어요")
GONE = N_("그 게임은 이제 없어요 (보관 기간이 지났어요)")
BROKEN = N_("그 게임은 다시 볼 수 없어요 (기록이 손상됐어요)")
LIST_KEYS = N_("↑/↓ 고르기 · Enter 다시 보기 · q 돌아가기")
REPLAY_KEYS = N_("←/→ 한 수 · [ ] PgUp/PgDn 한 판 · Home/End 처음/끝 · q 목록")
#: The players column is cut to this many cells (names are up to 16 each).
PLAYER_CELLS = 24


def _cut(text: str, cells: int) -> str:
    return text if cell_len(text) <= cells else set_cell_size(text, cells - 1) + "…"


def game_cells(game: PastGame, number: int) -> tuple[str, ...]:
    """One row of the history list."""
    if game.watched:
        outcome = _("관전")
    elif game.aborted or game.rank is None:
        outcome = _("중단된 게임")
    else:
        outcome = _("{rank}위 · {chips}칩").format(
            rank=game.rank, chips=chips(game.final_chips or 0)
        )
    return (
        str(number),
        time.strftime("%m-%d %H:%M", time.localtime(game.finished_at)),
        game.name,
        _cut(", ".join(game.players), PLAYER_CELLS),
        outcome,
    )


class HistoryScreen(BaseScreen):
    """The player's last games, newest first; Enter replays the one under the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("confirm", "open", "다시 보기", show=True),
        bind(("leave", "cancel"), "back", "돌아가기", show=True),
    ]

    DEFAULT_CSS = """
    HistoryScreen #history-title { height: 1; padding: 0 1; text-style: bold; }
    HistoryScreen #history-list { height: 1fr; padding: 0 1; }
    HistoryScreen #history-message { height: 1; padding: 0 1; }
    HistoryScreen #history-keys { height: 1; padding: 0 1; }
    """

    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="history-title")
        with Vertical(id="history-list"):
            yield RoomList(tuple(_(c) for c in COLUMNS), id="games")
        yield Line(id="history-message")
        yield Line(id="history-keys")

    def on_mount(self) -> None:
        self.query_one("#history-title", Line).show(
            _("지난 게임 · {nick}").format(nick=self.nickname)
        )
        self.query_one("#history-keys", Line).show((_(LIST_KEYS), "dim"))
        history = self.manager.history
        games = history.games(self.nickname) if history is not None else []
        self.query_one(RoomList).set_rows(
            [(g.key, game_cells(g, n)) for n, g in enumerate(games, 1)]
        )
        if not games:
            self.say(_(NO_JOURNAL if history is None else EMPTY))
        self.query_one(RoomList).focus()

    def relabel(self) -> None:
        self.query_one(RoomList).set_headers(tuple(_(c) for c in COLUMNS))
        self.on_mount()

    def say(self, text: str) -> None:
        self.query_one("#history-message", Line).show(text)

    def on_room_list_selected(self, event: RoomList.Selected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        key = self.query_one(RoomList).selected_key
        history = self.manager.history
        if key is None or history is None:
            return
        try:
            replay = history.replay(key, self.nickname)
        except Exception:  # noqa: BLE001 - a journal the engine cannot replay: say so, go on
            self.say(_(BROKEN))
            return
        if replay is None:
            self.say(_(GONE))
            return
        self.say("")
        self.app.push_screen(ReplayScreen(replay))

    def action_back(self) -> None:
        self.dismiss(None)


class ReplayScreen(BaseScreen):
    """One past game, frame by frame, as this player saw it: the live table's widgets (seat
    boxes or lines, the pot, the banner, the own cards, the hand log), no actions."""

    #: (priority: the hand log would take Home/End/PgUp/PgDn as its own scrolling keys)
    BINDINGS: ClassVar[list[BindingType]] = [
        bind("right", "step(1)", "다음 수", priority=True),
        bind("left", "step(-1)", "이전 수", priority=True),
        bind(("page_down", "next_hand"), "hand(1)", "다음 판", priority=True),
        bind(("page_up", "previous_hand"), "hand(-1)", "이전 판", priority=True),
        bind("home", "go(0)", "처음", priority=True),
        bind("end", "go(-1)", "끝", priority=True),
        bind(("leave", "cancel"), "back", "목록"),
    ]

    #: The table's ids (app.tcss styles them); only what the replay has of its own is here.
    DEFAULT_CSS = """
    ReplayScreen #replay-status, ReplayScreen #replay-keys { height: 1; padding: 0 1; }
    ReplayScreen #replay-status { padding: 0; }
    """

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay
        self.index = 0
        self.shape: Shape = PLAINEST
        game = replay.game
        self._room = RoomSummary(
            id=game.key,
            name=game.name,
            host=None,
            players=game.players,
            max_players=replay.options.max_players,
            spectators=(),
            status=PLAYING,
            offline=(),
            left=(),
            options=replay.options,
        )

    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="title")
        with Horizontal(id="table-main"):
            with Vertical(id="table-left"):
                yield SeatBoxes(id="boxes")
                yield SeatList(id="seats")
                yield Line(id="replay-status")
                yield PotView(id="pot")
                yield Line(id="banner")
                with Horizontal(id="hand"):
                    yield HandCards(id="hand-cards")
                    with Vertical(id="mine-box"):
                        yield Line(id="me-line")
                        yield Line(id="mine", sticky=True)
            with Vertical(id="side"):
                yield HandLog(id="log", max_lines=200, min_width=16)
        yield Line(id="replay-keys")

    def on_mount(self) -> None:
        self.query_one("#replay-keys", Line).show((_(REPLAY_KEYS), "dim"))
        self._draw()

    def relabel(self) -> None:
        self.on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def card_style_changed(self) -> None:
        self._draw()

    @property
    def frame_view(self) -> dict[str, Any]:
        return self.replay.view(self.index)

    @property
    def shown_seats(self) -> dict[str, SeatInfo]:
        """Nickname → the seat drawn (boxes or lines, whichever the size chose)."""
        boxes = self.query_one(SeatBoxes)
        infos = boxes.infos if boxes.display else tuple(self.query_one(SeatList).infos)
        return {info.name: info for info in infos}

    def action_step(self, step: int) -> None:
        self._go(self.index + step)

    def action_hand(self, step: int) -> None:
        replay = self.replay
        self._go(replay.next_hand(self.index) if step > 0 else replay.previous_hand(self.index))

    def action_go(self, index: int) -> None:
        self._go(index if index >= 0 else len(self.replay.frames) - 1)

    def action_back(self) -> None:
        self.dismiss(None)

    def _go(self, index: int) -> None:
        index = max(0, min(index, len(self.replay.frames) - 1))
        if index != self.index:
            self.index = index
            self._draw()
            self.paint_now()

    def _hand_frames(self) -> range:
        """The frames of the current hand up to the current one (what its log has shown)."""
        start = self.replay.hand_starts[self.replay.frames[self.index].hand]
        return range(start, self.index + 1)

    def _style(self) -> str:
        return str(getattr(self.app, "card_style", "box"))

    def _layout(self, view: dict[str, Any]) -> None:
        """The table's arrangement for this size (:mod:`.table_shape`); the log beside it."""
        width, height = self.app.size
        log_width = self._log_width()
        side = self.query_one("#side", Vertical)
        if side.styles.width is None or side.styles.width.value != log_width:
            side.styles.width = log_width
        me = self.replay.viewer
        shape = self.shape = choose_shape(
            width=width - 2 - log_width,
            height=height,
            fixed=4,  # title, status, banner, keys
            others=sum(1 for s in view["seats"] if s["id"] != me),
            cards=self._cards(),
            style=self._style(),
            own_cards=me is not None,
        )
        mode, size, big = shape
        for widget, shown in ((SeatBoxes, mode == "box"), (SeatList, mode == "line")):
            if self.query_one(widget).display != shown:  # (an equal set still costs a layout)
                self.query_one(widget).display = shown
        self.query_one(PotView).set(big=big)
        mine_rows = card_dimensions(size, self._style())[1] - 1 if me is not None else 1
        self.query_one("#mine", Line).styles.min_height = max(1, mine_rows)

    def _cards(self) -> int:
        return 3 if self.replay.options.card_mode == "three" else 2

    def _draw(self) -> None:
        replay, view = self.replay, self.frame_view
        me = replay.viewer or ""
        style = self._style()
        self._layout(view)
        mode, size, _big = self.shape
        payouts: dict[str, int] = {}
        log = self.query_one(HandLog)
        log.clear()
        for i in self._hand_frames():
            events = replay.frames[i].events
            track_payouts(payouts, events)
            for n, event in enumerate(events):
                names = None
                if event.get("type") == "showdown":  # named as the table's log names them
                    results = showdown_results(events[n + 1 :])
                    names = {
                        h["player"]: showdown_name(h, results, replay.options)
                        for h in event["hands"]
                    }
                for line in event_lines(event, names):
                    log.write(Text(line))
        game = replay.game
        when = time.strftime("%m-%d %H:%M", time.localtime(game.finished_at))
        who = _("{me}의 자리").format(me=me) if replay.viewer else _("관전 화면")
        title = _("다시 보기 · {name} · {when} · {who}").format(name=game.name, when=when, who=who)
        self.query_one("#title", Line).show((title, "bold"))
        hands = len(replay.hand_starts)
        hand = replay.frames[self.index].hand
        step = _("{n}판 ({hand}/{hands}) · {step}/{steps}수").format(
            n=view.get("handNo", "-"),
            hand=hand + 1,
            hands=hands,
            step=self.index + 1,
            steps=len(replay.frames),
        )
        # whose turn it was, said as to anyone watching (never "내 차례": nothing to press),
        # left out rather than cut at the edge when the line has no room for it
        turn = status_parts(view, "", [], False)
        room = self.app.size.width - 2 - self._log_width()
        if not turn or cell_len(step + " · " + "".join(t for t, _s in turn)) > room:
            turn = []
        self.query_one("#replay-status", Line).show(
            (step, "bold"), *([(" · ", "")] + turn if turn else [])
        )
        infos = seat_infos(self._room, view, me, payouts)
        others = [i for i in infos if not (i.me and replay.viewer)]
        if mode == "box":
            self.query_one(SeatBoxes).set_seats(others, style, self._cards(), self._columns())
        else:
            self.query_one(SeatList).set_seats(others)
        amount, sides, note = pot_values(view)
        self.query_one(PotView).set(
            amount=amount,
            sides=sides,
            note=note,
            ascii_only=style == "ascii",
            flash=flash_for(replay.frames[self.index].events) or "",
        )
        self.query_one("#banner", Line).show(*banner_parts(view))
        seat = next((s for s in view["seats"] if s["id"] == me), None)
        me_line, *rest = mine_parts(view, seat, replay.options, False, [], payouts.get(me, 0))
        self.query_one("#me-line", Line).show(*me_line)
        mine = self.query_one("#mine", Line)
        rows = int(mine.styles.min_height.value) if mine.styles.min_height else 1
        width = mine.size.width or self.app.size.width - 2 - self._log_width() - 16
        mine.show(*fit_parts(rest[0] if rest else [], rows, width))
        self._show_cards(seat, size)

    def _log_width(self) -> int:
        return log_width(self.app.size.width)

    def _columns(self) -> int:
        width = self.app.size.width - 2 - self._log_width()
        return seat_columns(width, self._cards(), self._style())

    def _show_cards(self, seat: dict[str, Any] | None, size: str) -> None:
        """The viewer's own cards as the table draws them: places kept for cards not dealt
        yet, the 3-card choice's thrown card marked, a folded hand dimmed."""
        cards = [DECK[c["id"]] for c in (seat or {}).get("cards", []) if "id" in c]
        chosen = (seat or {}).get("chosenIds")
        thrown = frozenset(c.id for c in cards if chosen is not None and c.id not in chosen)
        dimmed = thrown
        if seat is not None and seat.get("folded"):
            dimmed = frozenset(c.id for c in cards)
        places = 0 if seat is None else self._cards()
        self.query_one(HandCards).show(cards, frozenset(), dimmed, size, places, thrown)  # type: ignore[arg-type]
