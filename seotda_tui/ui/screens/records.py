"""Records (전적): the own record, recent games' chip sparklines, and the leaderboards; and
the table's compact panel of every seat's record.

Opened from the lobby (``r``) and the table (``p``) through the app (``ScreenHost``); they only
read :attr:`RoomManager.records` (``None``: this server keeps no records, and they say so).
Chips are virtual (docs/rules.md §12): a record is statistics, never a balance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Sparkline, Static

from ...i18n import N_, _, ngettext
from ...rooms.records_db import (
    K_FACTOR,
    MIN_RATED_GAMES,
    START_RATING,
    PlayerRecord,
    RecentGame,
    TtaengTotals,
)
from ..keys import KeyHint, bind
from ..widgets.texts import chips, first_fit, hand_name
from .base import BaseScreen

NO_RECORDS = N_("이 서버는 전적을 기록하지 않아요.")
NOT_YET = N_("아직 전적이 없어요. 키나 암호로 등록된 이름으로 게임을 끝까지 하면 기록돼요.")
_RATING_HELP = N_(
    "레이팅: {start:.0f}점에서 시작, 게임마다 다른 모든 자리와 1:1로 비교하는 Elo "
    "(K={k:.0f}÷(인원−1), 봇·미등록은 {start:.0f}점). "
    "레이팅 순위는 {games}게임 이상."
)
KEYS = KeyHint(N_("{close} 닫기 · 칩은 가상 칩, 기록은 통계일 뿐이에요"), close="cancel")
PANEL_KEYS = KeyHint(N_("{close} 닫기 · 봇과 등록되지 않은 이름은 기록되지 않아요"), close="cancel")


def rating_help() -> str:
    return _(_RATING_HELP).format(start=START_RATING, k=K_FACTOR, games=MIN_RATED_GAMES)


#: The rating rule in Korean (the msgid filled in), as before the catalogue.
RATING_HELP = _RATING_HELP.format(start=START_RATING, k=K_FACTOR, games=MIN_RATED_GAMES)
RECENT = 5
BOARD = 5
#: The cells the own record loses to #records-box's padding (app.tcss).
OWN_PADDING = 2


def own_lines(record: PlayerRecord, cells: int = 0) -> tuple[str, ...]:
    """The own record in lines: two, and a third for the 땡값 (issue 36) once any was paid or
    received (an optional rule: a player who never met it is not shown a line of zeros).
    Given ``cells``, the second line is shortened on purpose to fit (:func:`second_line_forms`)."""
    first = _("{games}게임 · 1위 {wins}회 · 이긴 판 {hands} · 칩 +{won} / −{lost}").format(
        games=record.games,
        wins=record.wins,
        hands=record.hands_won,
        won=chips(record.chips_won),
        lost=chips(record.chips_lost),
    )
    forms = second_line_forms(record)
    second = first_fit(cells, *forms) if cells else forms[0]
    if not record.ttaeng:
        return first, second
    return first, second, ttaeng_line(record.ttaeng)


def second_line_forms(record: PlayerRecord) -> tuple[str, ...]:
    """The own record's second line, longest first: in full, then without the rematches, then
    the best hand, average place and rating only. At 80 columns a 38광땡 best, a four-digit
    rating and large counts run past the 78 cells in full (94 in English)."""
    values = {
        "best": hand_name(record.best_name) if record.best_name else "-",
        "ttaengjabi": record.ttaengjabi,
        "amhaeng": record.amhaeng,
        "rematches": record.rematches,
        "place": record.average_place,
        "rating": record.rating,
    }
    return tuple(
        _(msgid).format(**values)
        for msgid in (
            N_(
                "최고 족보 {best} · 땡잡이 {ttaengjabi} · 암행어사 {amhaeng} · 재경기 {rematches} · "
                "평균 {place:.1f}위 · 레이팅 {rating:,.0f}"
            ),
            N_(
                "최고 족보 {best} · 땡잡이 {ttaengjabi} · 암행어사 {amhaeng} · "
                "평균 {place:.1f}위 · 레이팅 {rating:,.0f}"
            ),
            N_("최고 족보 {best} · 평균 {place:.1f}위 · 레이팅 {rating:,.0f}"),
        )
    )


def own_text(record: PlayerRecord, width: int) -> Text:
    """The own record on a screen ``width`` cells wide (less the box's padding)."""
    return Text("\n".join(own_lines(record, width - OWN_PADDING)))


def ttaeng_line(ttaeng: TtaengTotals) -> str:
    """The 땡값 received and paid: chips, and in how many hands."""
    return _(
        "땡값: 받음 +{received}칩 ({received_hands}번) · 냄 −{paid}칩 ({paid_hands}번)"
    ).format(
        received=chips(ttaeng.received),
        received_hands=ttaeng.received_hands,
        paid=chips(ttaeng.paid),
        paid_hands=ttaeng.paid_hands,
    )


def recent_label(game: RecentGame) -> str:
    return ngettext(
        "{place}위/{seats}명 {net:+,}칩 {hands}판",
        "{place}위/{seats}명 {net:+,}칩 {hands}판",
        game.hands_played,
    ).format(place=game.place, seats=game.seats, net=game.net, hands=game.hands_played)


def board(title: str, rows: Sequence[PlayerRecord], value: str) -> Table:
    """A leaderboard: rank, nickname, and the column it is sorted by."""
    table = Table(title=title, box=None, padding=(0, 1), header_style="bold", expand=True)
    table.add_column("", justify="right", width=2)
    table.add_column(_("닉네임"), no_wrap=True, overflow="ellipsis", ratio=1)
    table.add_column(_("기록"), justify="right", no_wrap=True)
    for n, row in enumerate(rows, 1):
        if value == "rating":
            shown = _("{rating:,.0f}점 {games}게임").format(rating=row.rating, games=row.games)
        else:
            shown = _("{n}회").format(n=row.wins)
        table.add_row(str(n), Text(row.player), shown)
    if not rows:
        table.add_row("", Text(_("아직 없어요"), style="dim"), "")
    return table


class RecordsScreen(BaseScreen):
    """The lobby's records screen for this session's nickname."""

    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("cancel", "leave", "records"), "close", "닫기"),  # r opened it
    ]

    #: The own record shown (None: no records, or none yet), refitted at a resize.
    own_record: PlayerRecord | None = None

    def compose_body(self) -> Iterable[Widget]:
        yield Static(Text(_("섯다 전적 · {nick}").format(nick=self.nickname)), id="records-title")
        with Vertical(id="records-box"):
            records = self.manager.records
            self.own_record = mine = records.player(self.nickname) if records else None
            if records is None:
                yield Static(_(NO_RECORDS), id="records-own")
            elif mine is None:
                yield Static(_(NOT_YET), id="records-own")
            else:
                yield Static(own_text(mine, self.app.size.width), id="records-own")
            recent = records.recent(self.nickname, RECENT) if records else []
            if recent:
                yield Static(_("최근 게임 (판마다 칩)"), classes="records-head")
            for game in recent:
                with Horizontal(classes="records-recent"):
                    yield Static(Text(recent_label(game)), classes="records-label")
                    yield Sparkline(list(game.history), classes="records-spark")
            with Horizontal(id="records-boards"):
                by_rating = records.by_rating(BOARD) if records else []
                by_wins = records.by_wins(BOARD) if records else []
                yield Static(board(_("레이팅 순위"), by_rating, "rating"), id="records-rating")
                yield Static(board(_("1위 횟수 순위"), by_wins, "wins"), id="records-wins")
            yield Static(rating_help(), id="records-help")
        yield Static(KEYS.text(), id="records-keys")

    def on_resize(self, event: events.Resize) -> None:
        if self.own_record is not None:
            for own in self.query("#records-own").results(Static):
                own.update(own_text(self.own_record, event.size.width))

    def relabel(self) -> None:
        self.refresh(recompose=True)

    def action_close(self) -> None:
        self.dismiss()


def panel_table(records: Sequence[tuple[str, PlayerRecord | None]]) -> Table:
    """One compact line per seat: games, wins, average place, rating, best hand."""
    table = Table(box=None, padding=(0, 1), header_style="bold", expand=True)
    for name, justify in (
        (N_("닉네임"), "left"),
        (N_("게임"), "right"),
        (N_("1위"), "right"),
        (N_("평균"), "right"),
        (N_("레이팅"), "right"),
        (N_("최고 족보"), "left"),
    ):
        table.add_column(_(name), justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for nick, record in records:
        if record is None:
            table.add_row(Text(nick), Text(_("기록 없음"), style="dim"), "", "", "", "")
            continue
        table.add_row(
            Text(nick),
            str(record.games),
            _("{n}회").format(n=record.wins),
            _("{n:.1f}위").format(n=record.average_place),
            f"{record.rating:,.0f}",
            Text(hand_name(record.best_name) if record.best_name else "-"),
        )
    return table


class SeatRecordsScreen(BaseScreen):
    """The table's panel: every seat's record at a glance (pushed over the table)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("cancel", "leave", "seat_records"), "close", "닫기"),  # p opened it
    ]

    def __init__(self, players: Sequence[str], bots: Iterable[str] = ()) -> None:
        super().__init__()
        self.players = list(players)
        self.bots = set(bots)

    def compose_body(self) -> Iterable[Widget]:
        yield Static(Text(_("자리별 전적")), id="records-title")
        records = self.manager.records
        with Vertical(id="records-box"):
            if records is None:
                yield Static(_(NO_RECORDS), id="records-panel")
            else:
                rows = [
                    (nick, None if nick in self.bots else records.player(nick))
                    for nick in self.players
                ]
                yield Static(panel_table(rows), id="records-panel")
        yield Static(PANEL_KEYS.text(), id="records-keys")

    def relabel(self) -> None:
        self.refresh(recompose=True)

    def action_close(self) -> None:
        self.dismiss()
