"""The game-end results (§8.6): ranks, scores, rebuys, best hand, biggest pot, summary line.

Opened by the table when its game finishes. Enter (or Esc) goes back to the room, where the host
may start again; ``q`` leaves the room for the lobby. Chips are virtual (§12), and the screen says
so — no currency symbols anywhere.

One results screen per session at most: when a later game ends while one is still open (a
spectator who never dismissed it), that screen shows the newer result instead of a second screen
stacking over the live table, and while a new game runs it says the table is one key away.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from engine import Options
from engine.types import GameResult, GameStats

from ...i18n import N_, _, ngettext
from ..keys import KeyHint, bind
from ..widgets.texts import END_REASONS, chips, game_summary, hand_name
from .base import BaseScreen

KEYS = KeyHint(N_("{back} 방으로 돌아가기 · {lobby} 로비로"), back="confirm", lobby="leave")
KEYS_LIVE = KeyHint(
    N_("새 게임이 진행 중이에요 · {back} 테이블로 · {lobby} 로비로"), back="confirm", lobby="leave"
)
VIRTUAL_CHIPS = N_(
    "칩은 이 방에서만 쓰는 가상 칩이에요. 돈이나 재화와 바꿀 수 없고 다른 방으로 옮겨지지 않아요."
)


def by_score(result: GameResult, options: Options) -> bool:
    return options.end_condition == "hands" or result.get("reason") == "handCap"


def ranking_table(result: GameResult, options: Options) -> Table:
    """Rank, nickname, final chips, score (net of the starting chips) or survival, and
    rebuys in a room that allows them (with rebuys off the column would be all zeros)."""
    scored = by_score(result, options)
    table = Table(box=None, padding=(0, 2), header_style="bold", expand=False)
    table.add_column(_("순위"), justify="right")
    table.add_column(_("닉네임"))
    table.add_column(_("최종 칩"), justify="right")
    table.add_column(_("손익") if scored else _("탈락"), justify="right")
    rebuys = options.rebuy != "off"
    if rebuys:
        table.add_column(_("리바이"), justify="right")
    for row in result.get("ranking", []):
        if scored:  # §6.6 score = chips - starting chips × rebuys, shown net of the start
            net = row["score"] - options.starting_chips
            third = Text(f"{net:+,}", style="green" if net > 0 else "red" if net < 0 else "")
        else:
            gone = row.get("eliminatedAtHand")
            third = Text(_("{hand}판").format(hand=gone) if gone else _("생존"))
        cells = [
            Text(_("{n}위").format(n=row["rank"]), style="bold" if row["rank"] == 1 else ""),
            Text(row["playerId"]),
            Text(_("{n}칩").format(n=chips(row["finalChips"]))),
            third,
        ]
        if rebuys:
            cells.append(Text(_("{rebuys}번").format(rebuys=row.get("rebuys", 0))))
        table.add_row(*cells)
    return table


def stats_text(stats: GameStats) -> Text:
    text = Text()
    hands, rematches = stats["handsPlayed"], stats["rematches"]
    text.append(
        ngettext("친 판 {hands}판", "친 판 {hands}판", hands).format(hands=hands)
        + " · "
        + ngettext("재경기 {n}번", "재경기 {n}번", rematches).format(n=rematches)
    )
    best = stats["bestHand"]
    if best:
        text.append("\n" + _("최고 족보:") + " ")
        text.append(hand_name(best["name"]), "bold")
        text.append(" " + _("({player}, {n}판)").format(player=best["playerId"], n=best["handNo"]))
    pot = stats["biggestPot"]
    if pot["amount"]:
        winners = ", ".join(pot["winners"]) or "-"
        text.append(
            "\n"
            + _("가장 큰 판돈: {chips}칩 ({n}판, {winners})").format(
                chips=chips(pot["amount"]), n=pot["handNo"], winners=winners
            )
        )
    return text


class ResultsScreen(BaseScreen):
    """Dismisses with True to go to the lobby, False to stay in the room."""

    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("confirm", "cancel", "ready"), "back(False)", "방으로"),
        bind("leave", "back(True)", "로비로"),
    ]

    def __init__(self, result: GameResult, options: Options) -> None:
        super().__init__()
        self.result = result
        self.options = options
        self.running = False

    def compose_body(self) -> Iterable[Widget]:
        yield Static(Text(_("게임 결과")), id="results-title")
        with VerticalScroll(id="results-box"):
            yield Static(self._summary(), id="results-summary")
            yield Static(ranking_table(self.result, self.options), id="results-table")
            yield Static(stats_text(self.result["stats"]), id="results-stats")
            yield Static(Text(_(VIRTUAL_CHIPS)), id="results-note")
        yield Static(Text(KEYS.text()), id="results-keys")

    def _summary(self) -> Text:
        summary = Text(
            _("게임 끝! {summary}").format(summary=game_summary(self.result)), style="bold"
        )
        why = END_REASONS.get(self.result.get("reason", ""))
        if why:
            summary.append(f" ({_(why)})", style="")
        return summary

    def show(self, result: GameResult, options: Options) -> None:
        """Show a newer game's result in place (and the room is no longer playing)."""
        self.result, self.options = result, options
        self.query_one("#results-summary", Static).update(self._summary())
        self.query_one("#results-table", Static).update(ranking_table(result, options))
        self.query_one("#results-stats", Static).update(stats_text(result["stats"]))
        self.game_running(False)

    def game_running(self, running: bool) -> None:
        """While the room plays a new game, say that Enter goes to the live table."""
        self.running = running
        self.query_one("#results-keys", Static).update(
            Text((KEYS_LIVE if running else KEYS).text())
        )

    def relabel(self) -> None:
        self.query_one("#results-title", Static).update(Text(_("게임 결과")))
        self.query_one("#results-note", Static).update(Text(_(VIRTUAL_CHIPS)))
        self.show(self.result, self.options)
        self.game_running(self.running)

    def action_back(self, to_lobby: bool) -> None:
        self.dismiss(to_lobby)


def open_results(
    app: App[Any],
    result: GameResult,
    options: Options,
    then: Callable[[bool | None], None],
) -> None:
    """Show ``result``: in the session's open results screen if there is one, else a new one."""
    shown = results_screen(app)
    if shown is not None:
        shown.show(result, options)
    else:
        app.push_screen(ResultsScreen(result, options), then)


def new_game_started(app: App[Any]) -> None:
    """A results screen still open from the last game says the live table is one key away."""
    shown = results_screen(app)
    if shown is not None:
        shown.game_running(True)


def results_screen(app: App[Any]) -> ResultsScreen | None:
    return next((s for s in app.screen_stack if isinstance(s, ResultsScreen)), None)
