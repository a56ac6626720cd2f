"""The centre of the table: the pot in large digits (when there is room), side pots, and a flash.

The flash is the short banner of a special outcome ("땡잡이!", "암행어사 출두!", "구사 재경기"):
it takes the pot's place for about 1.5 s, so nothing else on the screen moves.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.renderables.digits import Digits
from textual.widget import Widget

from .texts import chips


class PotView(Widget):
    """``amount`` (None = no pot shown), ``sides`` (side pot amounts) and ``note`` (e.g. round bet)."""

    DEFAULT_CSS = """
    PotView { height: 1; width: 1fr; }
    PotView.-big { height: 3; }
    """

    amount: reactive[int | None] = reactive(None)
    sides: reactive[tuple[int, ...]] = reactive(())
    note: reactive[str] = reactive("")
    big: reactive[bool] = reactive(False)
    ascii_only: reactive[bool] = reactive(False)
    flash: reactive[str] = reactive("")

    def watch_big(self, big: bool) -> None:
        self.set_class(big, "-big")

    @property
    def plain(self) -> str:
        if self.flash:
            return self.flash
        if self.amount is None:
            return ""
        text = f"판돈 {chips(self.amount)}칩"
        if self.sides:
            text += "  (" + " · ".join(chips(s) for s in self.sides) + ")"
        return text + (f"  {self.note}" if self.note else "")

    def render(self) -> RenderableType:
        if self.flash:
            line = Text(f"  ★ {self.flash} ★  ", style="bold reverse magenta", justify="center")
            if not self.big:
                return line
            return Group(Text(""), line, Text(""))
        if self.amount is None:
            return Text("")
        extra = Text(no_wrap=True)
        if self.sides:
            extra.append("  사이드 " + " · ".join(chips(s) for s in self.sides[1:]), "")
            extra.append(f"  (메인 {chips(self.sides[0])})", "dim")
        if self.note:
            extra.append(f"  {self.note}", "")
        if not self.big or self.ascii_only:
            return Text.assemble((f"판돈 {chips(self.amount)}칩", "bold yellow"), extra)
        grid = Table.grid(padding=(0, 1))
        grid.add_column(vertical="middle")
        grid.add_column()
        grid.add_column(vertical="middle")
        grid.add_row(
            Text("판돈", style="bold yellow"),
            Digits(chips(self.amount), "bold yellow"),
            Text.assemble(("칩", "bold yellow"), extra),
        )
        return grid
