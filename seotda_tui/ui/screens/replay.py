"""Hand history: the list of one's last games, and a replay that steps through them.

The list (:class:`HistoryScreen`, lobby key ``h``) shows the journal's finished games the player
played or watched, newest first. Enter opens :class:`ReplayScreen`: every frame is the view that
player was sent at that moment (:mod:`seotda_tui.rooms.history`), drawn with the table's own
table view and presenter (seats, own cards, pot, banner, hand log: ``screens/table_view.py``
drawing ``present/replay.py``'s model), so a replay shows exactly what the table showed:
others' cards only where the showdown revealed them, a spectator's game as
spectators saw it. Both screens are pushed over the lobby and popped back to it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widget import Widget

from engine import proof
from engine.types import View

from ...i18n import N_, _
from ...rooms.history import PastGame, Replay
from ..keys import KeyHint, bind
from ..present.log import hand_log, log_lines
from ..present.replay import hand_frames, present_frame, replay_room
from ..present.shape import PLAINEST, Shape
from ..widgets.handlog import HandLog
from ..widgets.lines import Line
from ..widgets.roomlist import RoomList
from ..widgets.seats import SeatInfo
from ..widgets.texts import chips, first_fit
from .base import BaseScreen
from .deal_record import DealRecordScreen
from .table_view import TableView

# msgids, translated where they are shown
COLUMNS = (N_("번호"), N_("날짜"), N_("방 이름"), N_("참가자"), N_("내 결과"))
EMPTY = N_("지난 게임이 없어요. 게임을 마치면 여기서 다시 볼 수 있어요.")
NO_JOURNAL = N_("이 서버는 게임을 저장하지 않아서 지난 게임이 없어요")
GONE = N_("그 게임은 이제 없어요 (보관 기간이 지났어요)")
BROKEN = N_("그 게임은 다시 볼 수 없어요 (기록이 손상됐어요)")
LIST_KEYS = KeyHint(
    N_("{pick} 고르기 · {open} 다시 보기 · {back} 돌아가기"),
    pick=("up", "down"),  # (the list's own keys)
    open="confirm",
    back="leave",
)
REPLAY_KEYS = KeyHint(
    N_("{step} 한 수 · {hand} 한 판 · {ends} 처음/끝 · {back} 목록"),
    step=("left", "right"),
    hand=(("previous_hand",), ("next_hand",), ("page_up", "page_down")),
    ends=("home", "end"),
    back="leave",
)
#: The same without Home/End, for a line that has no room for it and the deal record's key.
REPLAY_KEYS_SHORT = KeyHint(
    N_("{step} 한 수 · {hand} 한 판 · {back} 목록"),
    step=("left", "right"),
    hand=(("previous_hand",), ("next_hand",), ("page_up", "page_down")),
    back="leave",
)
DEAL_RECORD_KEY = KeyHint(N_("{key} 딜 기록"), key="deal_record")
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
        self.query_one("#history-keys", Line).show((LIST_KEYS.text(), "dim"))
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
        bind("deal_record", "deal_record", "딜 기록"),
    ]

    #: The table's ids (app.tcss styles them); only what the replay has of its own is here.
    DEFAULT_CSS = """
    ReplayScreen #replay-keys { height: 1; padding: 0 1; }
    """

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay
        self.index = 0
        self.shape: Shape = PLAINEST
        self._room = replay_room(replay)

    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="title")
        yield TableView()
        yield Line(id="replay-keys")

    def on_mount(self) -> None:
        self._show_keys()
        self._draw()

    def _show_keys(self) -> None:
        """The key line, shortened on purpose to the width (80 columns in English had no
        room for the deal record's key after the others)."""
        keys = REPLAY_KEYS.text()
        if self.replay.options.verifiable_deals:  # issue 36: v shows the hand's deal record
            deal = " · " + DEAL_RECORD_KEY.text()
            keys = first_fit(self.size.width - 2, keys + deal, REPLAY_KEYS_SHORT.text() + deal)
        self.query_one("#replay-keys", Line).show((keys, "dim"))

    def relabel(self) -> None:
        self.on_mount()

    def on_resize(self, event: events.Resize) -> None:
        self._show_keys()
        self._draw()

    def card_style_changed(self) -> None:
        self._draw()

    @property
    def frame_view(self) -> View:
        return self.replay.view(self.index)

    @property
    def shown_seats(self) -> dict[str, SeatInfo]:
        """Nickname → the seat drawn (boxes or lines, whichever the size chose)."""
        return self.query_one(TableView).shown_seats

    def action_step(self, step: int) -> None:
        self._go(self.index + step)

    def action_hand(self, step: int) -> None:
        replay = self.replay
        self._go(replay.next_hand(self.index) if step > 0 else replay.previous_hand(self.index))

    def action_go(self, index: int) -> None:
        self._go(index if index >= 0 else len(self.replay.frames) - 1)

    def action_back(self) -> None:
        self.dismiss(None)

    def action_deal_record(self) -> None:
        """Issue 36: the current hand's revealed deal records (its matches so far), as JSON to
        copy into a file for ``seotda-server --verify-hand``."""
        replay, hand = self.replay, self.frame_view.get("handNo")
        events = [e for i in range(self.index + 1) for e in replay.frames[i].events]
        records = [r for r in proof.records(events) if r["handNo"] == hand]
        self.app.push_screen(DealRecordScreen(records))

    def _go(self, index: int) -> None:
        index = max(0, min(index, len(self.replay.frames) - 1))
        if index != self.index:
            self.index = index
            self._draw()
            self.paint_now()

    def _style(self) -> str:
        return str(getattr(self.app, "card_style", "box"))

    def _draw(self) -> None:
        """The frame as the live table draws it (:func:`present_frame`), and the hand's log."""
        replay = self.replay
        size = (self.app.size.width, self.app.size.height)
        model = present_frame(replay, self._room, self.index, size, self._style())
        self.shape = model.layout.shape
        log = self.query_one(HandLog)
        log.clear()
        frames = (replay.frames[i].events for i in hand_frames(replay, self.index))
        for line in log_lines(hand_log(frames), replay.options):  # (batches as the table's log)
            log.write(Text(line))
        self.query_one("#title", Line).show(*model.title)
        self.query_one(TableView).apply(model)
