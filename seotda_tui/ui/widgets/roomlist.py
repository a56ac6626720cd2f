"""The lobby's room list: a header row and one row per room, with a cursor to pick one.

Why not Textual's ``DataTable``: it brings eleven component classes, each styled through the
whole stylesheet again at every login, focus change and screen resume (about a tenth of a
login's CPU, and a table's six players log in together). This list has three, draws through the
line API (only the rows asked for) and sizes its columns to their widest cell, as the table did.

A cell may be a tuple of forms, longest first (the 규칙 column): when the full widths do not fit
the terminal, the columns close up to one space and such a column takes what is left, each row
showing the longest form that fits it — shortened on purpose, never cut by the edge.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

Cell = str | tuple[str, ...]  # a text, or its forms longest first
Row = tuple[str, tuple[Cell, ...]]  # (key, cells)


def _forms(cell: Cell) -> tuple[str, ...]:
    return (cell,) if isinstance(cell, str) else cell


def _fit(cell: Cell, width: int) -> str:
    """The longest form of ``cell`` that fits ``width`` cells (else its shortest)."""
    forms = _forms(cell)
    return next((f for f in forms if cell_len(f) <= width), forms[-1])


class RoomList(Widget, can_focus=True):
    """``set_rows`` replaces the rows (the cursor stays on its key); ``selected_key`` is the
    row under the cursor. Clicking the cursor row posts :class:`RoomList.Selected` (Enter is the
    screen's own key)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "room-list--header",
        "room-list--cursor",
        "room-list--stripe",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home,ctrl+home", "move_to(0)", show=False),
        Binding("end,ctrl+end", "move_to(-1)", show=False),
    ]

    class Selected(Message):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class Highlighted(Message):
        """The cursor moved to another row (the lobby shows that room's rules)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, headers: tuple[str, ...], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._headers = headers
        self._rows: list[Row] = []
        self._laid_out: tuple[int, int, list[int]] | None = None  # (width, gap, widths)
        self._top = 0  # first row on screen
        self.cursor = 0

    # ---------------------------------------------------------------- data
    def set_headers(self, headers: tuple[str, ...]) -> None:
        """New column titles (the session's language changed)."""
        if headers != self._headers:
            self._headers = headers
            self._laid_out = None
            self.refresh()

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def selected_key(self) -> str | None:
        return self._rows[self.cursor][0] if self._rows else None

    def set_rows(self, rows: list[Row]) -> None:
        if rows == self._rows:
            return
        key = self.selected_key
        count_changed = len(rows) != len(self._rows)  # the list's height follows it
        self._rows = list(rows)
        self._laid_out = None
        keys = [k for k, _ in rows]
        self.cursor = keys.index(key) if key in keys else min(self.cursor, max(0, len(rows) - 1))
        self._show_cursor()
        self.refresh(layout=count_changed)

    # ---------------------------------------------------------------- cursor
    def _visible_rows(self) -> int:
        return self.size.height - 1

    def _show_cursor(self) -> None:
        """Scroll so the cursor's row is shown (not while hidden: the too-small notice leaves
        the list a row or none, and a scroll made for that outlived it)."""
        visible = self._visible_rows()
        if visible < 1:
            return
        self._top = self._view_top()
        if self.cursor < self._top:
            self._top = self.cursor
        elif self.cursor >= self._top + visible:
            self._top = self.cursor - visible + 1

    def _view_top(self) -> int:
        """The first row shown: ``_top``, but never past the last screenful (the terminal or
        the list may have changed size since it was set)."""
        return max(0, min(self._top, len(self._rows) - max(1, self._visible_rows())))

    def _move_cursor(self, row: int) -> None:
        if not self._rows:
            return
        row = max(0, min(row, len(self._rows) - 1))
        if row != self.cursor:
            self.cursor = row
            self._show_cursor()
            self.refresh()
            self.post_message(self.Highlighted(self._rows[row][0]))

    def action_move(self, step: int) -> None:
        self._move_cursor(self.cursor + step)

    def action_page(self, pages: int) -> None:
        self._move_cursor(self.cursor + pages * self._visible_rows())

    def action_move_to(self, row: int) -> None:
        self._move_cursor(row if row >= 0 else len(self._rows) - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:
            return
        row = self._view_top() + offset.y - 1
        if row >= len(self._rows):
            return
        if row == self.cursor:
            self.post_message(self.Selected(self._rows[row][0]))
        else:
            self._move_cursor(row)

    def _scroll(self, rows: int) -> None:
        before = self._view_top()
        self._top = before + rows
        self._top = self._view_top()
        if self._top != before:
            self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll(1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll(-1)

    def on_resize(self, event: events.Resize) -> None:
        self._show_cursor()

    # ---------------------------------------------------------------- drawing
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + len(self._rows)

    def _layout_columns(self) -> tuple[int, list[int]]:
        """(the gap between columns, each column's width) for the widget's width: each column
        as wide as its widest cell (header included) two spaces apart; when that does not fit,
        one space apart without the right margin, and the columns of forms narrowed to what is
        left (down to their shortest forms)."""
        width = self.size.width
        if self._laid_out is not None and self._laid_out[0] == width:
            return self._laid_out[1], self._laid_out[2]
        columns = [[h, *(cells[n] for _, cells in self._rows)] for n, h in enumerate(self._headers)]
        full = [max(cell_len(_forms(c)[0]) for c in column) for column in columns]
        least = [max(cell_len(_forms(c)[-1]) for c in column) for column in columns]
        gap, widths = 2, full
        if 2 + sum(full) + 2 * (len(full) - 1) > width:
            gap, widths = 1, list(full)
            spare = width - 1 - sum(least) - (len(full) - 1)
            for n in range(len(columns)):
                if full[n] != least[n]:  # a column of forms: what is left, shared in turn
                    widths[n] = least[n] + max(0, min(full[n] - least[n], spare))
                    spare -= widths[n] - least[n]
        self._laid_out = (width, gap, widths)
        return gap, widths

    def shown_cells(self, row: int | None) -> tuple[str, ...]:
        """The texts of row ``row`` (None: the header) as drawn: each cell's longest form
        that fits its column."""
        _, widths = self._layout_columns()
        cells = self._headers if row is None else self._rows[row][1]
        return tuple(_fit(cell, w) for cell, w in zip(cells, widths))

    def rows_on_screen(self) -> range:
        """The rows drawn now (the list scrolls in a small terminal)."""
        top = self._view_top()
        return range(top, min(len(self._rows), top + max(0, self._visible_rows())))

    def _line(self, row: int | None) -> str:
        gap, widths = self._layout_columns()
        cells = [set_cell_size(c, w) for c, w in zip(self.shown_cells(row), widths)]
        return " " + (" " * gap).join(cells) + (" " if gap > 1 else "")

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style
        if y == 0:
            line = self._line(None)
            style += self.get_component_rich_style("room-list--header")
        else:
            row = self._view_top() + y - 1
            if row >= len(self._rows):
                return Strip([Segment(" " * width, style)], width)
            line = self._line(row)
            if row == self.cursor:
                style += self.get_component_rich_style("room-list--cursor")
            elif row % 2:
                style += self.get_component_rich_style("room-list--stripe")
        return Strip([Segment(line, style)]).adjust_cell_length(width, style)
