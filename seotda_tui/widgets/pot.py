"""The centre of the table: the pot in large digits (when there is room), side pots, and a flash.

The flash is the short banner of a special outcome ("땡잡이!", "암행어사 출두!", "구사 재경기"):
it takes the pot's place for about 1.5 s, so nothing else on the screen moves.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.renderables.digits import Digits
from textual.widget import Widget

from .texts import chips


class PotView(Widget):
    """``amount`` (None = no pot shown), ``sides`` (side pot amounts) and ``note`` (e.g. round bet)."""

    DEFAULT_CSS = """
    PotView { height: 1; width: 60; max-width: 100%; }
    PotView.-big { height: 3; }
    """

    #: (amount or None, side pots, note, big, ascii_only, flash): one reactive, one repaint.
    state: reactive[tuple[int | None, tuple[int, ...], str, bool, bool, str]] = reactive(
        (None, (), "", False, False, "")
    )

    def set(self, **changes: object) -> None:
        """Change some of amount / sides / note / big / ascii_only / flash at once."""
        names = ("amount", "sides", "note", "big", "ascii_only", "flash")
        current: dict[str, object] = dict(zip(names, self.state))
        current.update(changes)
        self.state = tuple(current[n] for n in names)  # type: ignore[assignment]

    amount = property(lambda self: self.state[0])
    sides = property(lambda self: self.state[1])
    note = property(lambda self: self.state[2])
    big = property(lambda self: self.state[3])
    ascii_only = property(lambda self: self.state[4])
    flash = property(lambda self: self.state[5])

    def watch_state(self) -> None:
        self.set_class(self.big, "-big")

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self._lines()).strip()

    def _lines(self) -> list[Text]:
        """The pot as one line, or three (label · large digits · 칩 and side pots)."""
        if self.flash:
            line = Text(f"  ★ {self.flash} ★  ", style="bold reverse magenta")
            return [Text(""), line, Text("")] if self.big else [line]
        if self.amount is None:
            return [Text("")]
        extra = Text(no_wrap=True)
        if self.sides:
            extra.append("  (팟 " + " · ".join(chips(s) for s in self.sides) + ")")
        if self.note:
            extra.append(f"  {self.note}")
        if not self.big or self.ascii_only:
            return [Text.assemble((f"판돈 {chips(self.amount)}칩", "bold yellow"), extra)]
        rows = big_number(chips(self.amount))
        lines = []
        for i, row in enumerate(rows):
            line = Text("판돈 " if i == 1 else "     ", style="bold yellow")
            line.append(row, "bold yellow")
            if i == 1:
                line.append(" 칩", "bold yellow")
                line.append_text(extra)
            lines.append(line)
        return lines

    def render(self) -> RenderableType:
        return Text("\n").join(self._lines())


def big_number(text: str) -> list[str]:
    """``text`` ("1,240") in Textual's three-line digit font, as three strings."""
    rows = ["", "", ""]
    row = 0
    for segment in Digits(text).render(Style(bold=True)):
        if not isinstance(segment, Segment):
            continue
        if segment.text == "\n":
            row += 1
        elif row < 3:
            rows[row] += segment.text
    return rows
