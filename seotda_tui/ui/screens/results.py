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
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from engine import Options

from ..widgets.texts import END_REASONS, chips
from .base import BaseScreen

KEYS = "Enter 방으로 돌아가기 · q 로비로"
KEYS_LIVE = "새 게임이 진행 중이에요 · Enter 테이블로 · q 로비로"
VIRTUAL_CHIPS = (
    "칩은 이 방에서만 쓰는 가상 칩이에요. 돈이나 재화와 바꿀 수 없고 다른 방으로 옮겨지지 않아요."
)


def by_score(result: dict[str, Any], options: Options) -> bool:
    return options.end_condition == "hands" or result.get("reason") == "handCap"


def ranking_table(result: dict[str, Any], options: Options) -> Table:
    """Rank, nickname, final chips, score (net of the starting chips) or survival, rebuys."""
    scored = by_score(result, options)
    table = Table(box=None, padding=(0, 2), header_style="bold", expand=False)
    table.add_column("순위", justify="right")
    table.add_column("닉네임")
    table.add_column("최종 칩", justify="right")
    table.add_column("손익" if scored else "탈락", justify="right")
    table.add_column("리바이", justify="right")
    for row in result.get("ranking", []):
        if scored:  # §6.6 score = chips - starting chips × rebuys, shown net of the start
            net = row["score"] - options.starting_chips
            third = Text(f"{net:+,}", style="green" if net > 0 else "red" if net < 0 else "")
        else:
            gone = row.get("eliminatedAtHand")
            third = Text(f"{gone}판" if gone else "생존")
        table.add_row(
            Text(f"{row['rank']}위", style="bold" if row["rank"] == 1 else ""),
            Text(row["playerId"]),
            Text(f"{chips(row['finalChips'])}칩"),
            third,
            Text(f"{row.get('rebuys', 0)}번"),
        )
    return table


def stats_text(result: dict[str, Any]) -> Text:
    stats = result.get("stats") or {}
    text = Text()
    text.append(f"친 판 {stats.get('handsPlayed', 0)}판 · 재경기 {stats.get('rematches', 0)}번")
    best = stats.get("bestHand")
    if best:
        text.append("\n최고 족보: ")
        text.append(best["name"], "bold")
        text.append(f" ({best['playerId']}, {best['handNo']}판)")
    pot = stats.get("biggestPot") or {}
    if pot.get("amount"):
        winners = ", ".join(pot.get("winners") or []) or "-"
        text.append(
            f"\n가장 큰 판돈: {chips(pot['amount'])}칩 ({pot.get('handNo', 0)}판, {winners})"
        )
    return text


class ResultsScreen(BaseScreen):
    """Dismisses with True to go to the lobby, False to stay in the room."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "back(False)", "방으로", show=False),
        Binding("q,ㅂ", "back(True)", "로비로", show=False),
    ]

    def __init__(self, result: dict[str, Any], options: Options) -> None:
        super().__init__()
        self.result = result
        self.options = options

    def compose_body(self) -> Iterable[Widget]:
        yield Static(Text("게임 결과"), id="results-title")
        with VerticalScroll(id="results-box"):
            yield Static(self._summary(), id="results-summary")
            yield Static(ranking_table(self.result, self.options), id="results-table")
            yield Static(stats_text(self.result), id="results-stats")
            yield Static(Text(VIRTUAL_CHIPS), id="results-note")
        yield Static(Text(KEYS), id="results-keys")

    def _summary(self) -> Text:
        summary = Text(f"게임 끝! {self.result.get('summary', '')}", style="bold")
        why = END_REASONS.get(self.result.get("reason", ""))
        if why:
            summary.append(f" ({why})", style="")
        return summary

    def show(self, result: dict[str, Any], options: Options) -> None:
        """Show a newer game's result in place (and the room is no longer playing)."""
        self.result, self.options = result, options
        self.query_one("#results-summary", Static).update(self._summary())
        self.query_one("#results-table", Static).update(ranking_table(result, options))
        self.query_one("#results-stats", Static).update(stats_text(result))
        self.game_running(False)

    def game_running(self, running: bool) -> None:
        """While the room plays a new game, say that Enter goes to the live table."""
        self.query_one("#results-keys", Static).update(Text(KEYS_LIVE if running else KEYS))

    def action_back(self, to_lobby: bool) -> None:
        self.dismiss(to_lobby)


def open_results(
    app: App[Any],
    result: dict[str, Any],
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
