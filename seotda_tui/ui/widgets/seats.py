"""The other players around the top of the table, repainted only when a seat's data changes.

Two layouts, chosen by the table screen from the room it has (SSH bandwidth and 80×24 matter):

* **boxes** (``SeatBoxes``, one widget for all of them): name and 선 on top, the cards as
  compact card backs (faces at the showdown), stack / this round's bet / badges or the hand
  name beside them — 4 lines each;
* **lines** (``SeatRow``): one line per seat, cards as short text — for crowded tables.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache
from itertools import zip_longest

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text
from textual.containers import Vertical
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from engine import DECK

from ...i18n import _, language_code
from ..colour_isolation import client_color_system
from ..geometry import BOX_HEIGHT as BOX_HEIGHT  # (re-exported: drawn here)
from ..geometry import BOX_TEXT_CELLS as BOX_TEXT_CELLS
from ..geometry import SeatInfo as SeatInfo
from ..geometry import box_width as box_width
from ..geometry import card_dimensions
from .card_art import render_card_lines
from .textlines import TextLines, remembered, text_strip
from .texts import chips

#: Badge (its msgid) → style; the text itself always carries the meaning (colour is only a
#: helper). The seats get their badges already translated; these tables are looked up by the
#: translated text (:func:`_badge_style`, :func:`_short`).
BADGE_STYLES = {
    "다이": "dim",
    "올인": "bold yellow",
    "자리 비움": "magenta",
    "연결 끊김": "bold red",
    "끊김": "bold red",
    "나감": "dim red",
    "탈락": "dim red",
    "파산": "red",
    "방장": "cyan",
    "선택 완료": "green",
    "승": "bold green",
}
#: Shorter names for badges that do not fit a seat box's text column side by side.
BADGE_SHORT = {"연결 끊김": "끊김", "자리 비움": "비움", "선택 완료": "완료"}


def _badge_style(badge: str) -> str:
    offline = _("끊김")
    if badge.startswith(offline):
        return BADGE_STYLES["끊김"]
    return next((v for k, v in BADGE_STYLES.items() if _(k) == badge), "")


def _short(badge: str) -> str:
    return next((_(v) for k, v in BADGE_SHORT.items() if _(k) == badge), badge)


def badge_lines(badges: tuple[str, ...], cells: int, lines: int) -> list[str]:
    """Every badge in at most ``lines`` lines of ``cells``: "[연결 끊김] [다이]" when it fits,
    else "[다이·끊김]" with short names, a line after another. Never drops a badge silently:
    a player must see both that a seat folded and that it is disconnected."""
    if not badges:
        return []
    spaced = " ".join(f"[{b}]" for b in badges)
    if cell_len(spaced) <= cells:
        return [spaced]
    groups: list[list[str]] = []
    for name in (_short(b) for b in badges):
        if groups and cell_len("[" + "·".join([*groups[-1], name]) + "]") <= cells:
            groups[-1].append(name)
        else:
            groups.append([name])
    if len(groups) > lines:  # the last line takes the rest (cut at the edge, rare)
        groups = groups[: lines - 1] + [[n for g in groups[lines - 1 :] for n in g]]
    return ["[" + "·".join(g) + "]" for g in groups]


def _pad(text: str, cells: int) -> str:
    return set_cell_size(text, cells) if cells > 0 else ""


def stack_text(stack: int) -> str:
    return _("{n}칩").format(n=chips(stack))


class SeatRow(Widget):
    """A single seat line: ▶ marker, name, 선, stack, this round's bet, last action, cards, badges."""

    DEFAULT_CSS = """
    SeatRow { height: 1; width: 1fr; }
    """

    info: reactive[SeatInfo] = reactive(SeatInfo(""))
    name_cells: reactive[int] = reactive(8)
    #: The stack column's width: the widest stack of the list ("1,302 chips"), right-aligned.
    stack_cells: reactive[int] = reactive(9)

    def __init__(self, info: SeatInfo, name_cells: int = 8, stack_cells: int = 9) -> None:
        super().__init__()
        self.set_reactive(SeatRow.info, info)
        self.set_reactive(SeatRow.name_cells, name_cells)
        self.set_reactive(SeatRow.stack_cells, stack_cells)

    def render(self) -> Text:
        i = self.info
        line = Text(no_wrap=True, overflow="crop")
        line.append("▶ " if i.actor else "  ", "bold yellow")
        line.append(
            _pad(i.name, self.name_cells), "bold reverse" if i.actor else "bold" if i.me else ""
        )
        dealer = _("선")
        line.append(f" {dealer} " if i.dealer else " " * (cell_len(dealer) + 2), "bold cyan")
        if i.stack is not None:
            stack = stack_text(i.stack)
            line.append(" " * max(0, self.stack_cells - cell_len(stack)) + stack)
        if i.bet:
            line.append("  " + _("베팅 {n}").format(n=chips(i.bet)), "yellow")
        if i.action:
            line.append(f"  {i.action}")
        if i.cards:
            line.append(f"  {i.cards}", "bold" if i.me else "")
        if i.hand_name:
            line.append(f" {i.hand_name}", "bold green")
        if i.payout:
            line.append(f" +{chips(i.payout)}", "bold green")
        for badge in i.badges:
            line.append(" ")
            line.append(f"[{badge}]", _badge_style(badge))
        return line


def bet_text(i: SeatInfo) -> tuple[str, str]:
    if i.payout:
        return _("승 +{n}").format(n=chips(i.payout)), "bold green"
    if i.action and i.bet:
        return f"{i.action} {chips(i.bet)}", "yellow"
    if i.bet:
        return _("베팅 {n}").format(n=chips(i.bet)), "yellow"
    return i.action, ""


def render_seat_box(i: SeatInfo, style: str, color_system: str | None, cards: int) -> list[Text]:
    """The four lines of one seat box (pure: tested without Textual)."""
    card_style = "ascii" if style == "ascii" else "box"
    width = box_width(cards, style)
    top = Text(no_wrap=True, overflow="crop")
    top.append((">" if style == "ascii" else "▶") if i.actor else " ", "bold yellow")
    top.append(i.name, "bold reverse" if i.actor else "bold")
    if i.dealer:
        top.append(" " + _("선"), "bold cyan")
    if i.faces:
        columns = [
            render_card_lines(
                DECK[c] if c is not None else None,
                "compact",
                card_style,  # type: ignore[arg-type]
                color_system,
                dimmed=i.folded,
            )
            for c in i.faces
        ]
        card_lines = [Text("").join(col[r] for col in columns) for r in range(3)]
    else:
        card_lines = [Text("") for _row in range(3)]
    card_w = max(cards, 2) * card_dimensions("compact", card_style)[0]
    texts: list[tuple[str, str]] = [
        (_("{n}칩").format(n=chips(i.stack)) if i.stack is not None else "", ""),
        bet_text(i),
    ]
    first = _badge_style(i.badges[0]) if i.badges else ""
    if i.hand_name:
        name_style = "bold green" if i.payout else "bold"
        head, _sep, note = i.hand_name.partition(" (")
        if cell_len(i.hand_name) <= BOX_TEXT_CELLS or not note:
            texts.append((i.hand_name, name_style))
        elif not texts[1][0]:  # "망통" over "땡잡이 불발" when the bet line is free
            texts[1] = (head, name_style)
            texts.append((note.rstrip(")"), "dim"))
        else:
            texts.append((head, name_style))
    else:
        # badges take the bet line too when it is empty or dead money (a folded seat's bet)
        free = 2 if not texts[1][0] or i.folded else 1
        shown = badge_lines(i.badges, BOX_TEXT_CELLS, free)
        if len(shown) == 2:
            texts[1] = (shown[0], first)
            texts.append((shown[1], first))
        else:
            texts.append((shown[0] if shown else "", first))
    lines = [top]
    for card_line, (text, text_style) in zip(card_lines, texts):
        line = card_line.copy()
        line.pad_right(card_w - line.cell_len)
        line.append(" ")
        line.append(_pad(text, BOX_TEXT_CELLS), text_style)
        lines.append(line)
    for line in lines:
        line.truncate(width, pad=True)
        line.no_wrap = True
    return lines


def seat_box_lines(i: SeatInfo, style: str, color_system: str | None, cards: int) -> list[Text]:
    """:func:`render_seat_box`, cached: every other seat of the table draws the same box.
    The lines are shared, so callers must not change them."""
    return _seat_box_lines(language_code(), i, style, color_system, cards)


@lru_cache(maxsize=2048)
def _seat_box_lines(
    language: str, i: SeatInfo, style: str, color_system: str | None, cards: int
) -> list[Text]:
    return render_seat_box(i, style, color_system, cards)


class SeatList(Vertical):
    """The seat lines (line layout); rows are reused so an update repaints only changed seats."""

    DEFAULT_CSS = """
    SeatList { height: auto; }
    """

    def set_seats(self, infos: list[SeatInfo]) -> None:
        rows = list(self.query_children(SeatRow))
        width = max([cell_len(i.name) for i in infos] + [4])
        stacks = [cell_len(stack_text(i.stack)) for i in infos if i.stack is not None]
        stack_cells = max([*stacks, 9])
        for row, info in zip(rows, infos):
            row.info = info
            row.name_cells = width
            row.stack_cells = stack_cells
        if len(rows) > len(infos):
            for row in rows[len(infos) :]:
                row.remove()
        elif len(infos) > len(rows):
            self.mount_all(SeatRow(info, width, stack_cells) for info in infos[len(rows) :])

    @property
    def infos(self) -> list[SeatInfo]:
        return [row.info for row in self.query_children(SeatRow)]


#: Rows of single boxes, shared by every screen: each seat's box is the same on the other
#: seats' screens, while the grids differ (everyone sees the others). Bounded, LRU.
_BOX_ROWS: OrderedDict[Hashable, Strip] = OrderedDict()
BOX_ROWS = 2048


class SeatBoxes(TextLines):
    """The seat boxes (box layout), ``columns`` per row, drawn as one widget: Textual renders
    and composes one widget instead of a grid and a box per seat at every frame, and a change
    repaints only the cells that differ, box by box. A row is joined from the boxes' own rows,
    which the screens of a table share (so no ``text_lines``/``lines_key`` of its own)."""

    DEFAULT_CSS = """
    SeatBoxes { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.infos: tuple[SeatInfo, ...] = ()
        self.style_name, self.cards, self.columns = "box", 2, 1

    def set_seats(self, infos: list[SeatInfo], style: str, cards: int, columns: int) -> None:
        columns = max(1, min(columns, len(infos) or 1))
        was, rows = self.infos, self._rows()
        same_shape = (style, cards, columns) == (self.style_name, self.cards, self.columns)
        self.infos, self.style_name, self.cards, self.columns = tuple(infos), style, cards, columns
        if self._rows() != rows:
            self.refresh(layout=True)
        elif not same_shape:
            self.refresh()
        else:  # compare box by box: most boxes do not change, and their lines are shared
            color_system, width = self._color_system(), box_width(cards, style)
            for index, (old, new) in enumerate(zip_longest(was, self.infos)):
                if old != new:
                    group, column = divmod(index, columns)
                    self.refresh_changed(
                        seat_box_lines(old, style, color_system, cards) if old else [],
                        seat_box_lines(new, style, color_system, cards) if new else [],
                        x=column * (width + 1),
                        y=group * BOX_HEIGHT,
                        width=width,
                    )

    def _rows(self) -> int:
        return -(-len(self.infos) // self.columns) * BOX_HEIGHT

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return self._rows()

    def _color_system(self) -> str | None:
        try:
            return client_color_system(self.app)
        except RuntimeError:  # NoActiveAppError: not inside a running app
            return "truecolor"

    def render_line(self, y: int) -> Strip:
        base = self.visual_style.rich_style
        group, row = divmod(y, BOX_HEIGHT)
        seats = self.infos[group * self.columns : (group + 1) * self.columns]
        pieces: list[Strip] = []
        for info in seats:
            if pieces:
                pieces.append(Strip.blank(1, base))
            pieces.append(self._box_row(info, row, base))
        return Strip.join(pieces).crop_extend(0, self.size.width, base)

    def _box_row(self, info: SeatInfo, row: int, base: Style) -> Strip:
        color_system, style, cards = self._color_system(), self.style_name, self.cards
        return remembered(
            _BOX_ROWS,
            (info, style, color_system, cards, row, base, language_code()),
            BOX_ROWS,
            lambda: text_strip(
                seat_box_lines(info, style, color_system, cards)[row],
                box_width(cards, style),
                base,
                self.app.console,
            ),
        )
