"""The centre of the table: the pot in large digits (when there is room), side pots, and a flash.

The flash is the short banner of a special outcome ("땡잡이!", "암행어사 출두!", "구사 재경기"):
it takes the pot's place for about 1.5 s, so nothing else on the screen moves.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.renderables.digits import Digits

from ...i18n import _, language_code
from .textlines import TextLines
from .texts import chips

PotState = tuple[int | None, tuple[str, ...], str, bool, bool, str]


class PotView(TextLines):
    """``amount`` (None = no pot shown), ``sides`` (the labelled pots, "메인 300 · 사이드 200",
    then shorter forms of it) and ``note`` (e.g. the round's bet). The line takes the longest
    form that fits the width, then drops the note, then the pots: cut on purpose, not by the
    terminal's edge."""

    DEFAULT_CSS = """
    PotView { height: 1; width: 1fr; }
    PotView.-big { height: 3; }
    """

    #: (amount or None, side pots, note, big, ascii_only, flash): one reactive, one repaint.
    state: reactive[PotState] = reactive((None, (), "", False, False, ""), repaint=False)

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

    def watch_state(self, old: PotState, new: PotState) -> None:
        """Big digits on/off changes the height (the class); otherwise only changed cells."""
        self.set_class(self.big, "-big")
        if old[3] != new[3]:
            self.refresh()
        else:
            width = self.size.width
            self.refresh_changed(pot_lines(*old, width), pot_lines(*new, width))

    @property
    def plain(self) -> str:
        return "\n".join(line.plain for line in self._lines()).strip()

    def _lines(self) -> list[Text]:
        return pot_lines(*self.state, self.size.width)

    def lines_key(self) -> Hashable:
        return self.state  # the width is part of the shared rows' key already

    def text_lines(self) -> list[Text]:
        return self._lines()


def pot_lines(
    amount: int | None,
    sides: tuple[str, ...],
    note: str,
    big: bool,
    ascii_only: bool,
    flash: str,
    width: int = 0,
) -> list[Text]:
    """The pot as one line, or three (label · large digits · 칩 and side pots). Cached: the
    whole table shows the same pot; the lines are shared, so callers must not change them."""
    return _pot_lines(language_code(), amount, sides, note, big, ascii_only, flash, width)


@lru_cache(maxsize=1024)
def _pot_lines(
    language: str,
    amount: int | None,
    sides: tuple[str, ...],
    note: str,
    big: bool,
    ascii_only: bool,
    flash: str,
    width: int,
) -> list[Text]:
    """:func:`pot_lines`, cached per language (the cache is shared by every session)."""
    if flash:
        line = Text(f"  ★ {flash} ★  ", style="bold reverse magenta")
        return [Text(""), line, Text("")] if big else [line]
    if amount is None:
        return [Text("")]
    label, unit = _("판돈"), _("칩")
    one_line = _("판돈 {n}칩").format(n=chips(amount))
    head = cell_len(one_line)
    if big and not ascii_only:  # "판돈 " + the digits + " 칩"
        head = cell_len(label) + 1 + cell_len(big_number(chips(amount))[1]) + cell_len(unit)
    tries = [(s, note) for s in sides] + [("", note), ("", "")]
    extra = Text(no_wrap=True)
    for side, extra_note in tries:
        text = (f"  ({side})" if side else "") + (f"  {extra_note}" if extra_note else "")
        if not width or head + cell_len(text) <= width:
            extra.append(text)
            break
    if not big or ascii_only:
        return [Text.assemble((one_line, "bold yellow"), extra)]
    rows = big_number(chips(amount))
    lines = []
    for i, row in enumerate(rows):
        line = Text(label + " " if i == 1 else " " * (cell_len(label) + 1), style="bold yellow")
        line.append(row, "bold yellow")
        if i == 1:
            line.append(" " + unit, "bold yellow")
            line.append_text(extra)
        lines.append(line)
    return lines


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
