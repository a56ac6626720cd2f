"""Widgets drawn row by row from rich ``Text`` lines, through Textual's line API.

Why: ``Widget.render()`` re-renders the whole widget (rich ``Text`` → Textual ``Content`` →
strips) on every refresh, even when only one row was marked dirty. Every push repaints a few
widgets on every seat's screen, all on the one event loop, so that conversion was the largest
share of the server's time once layouts were gone. A :class:`TextLines` widget renders only the
rows Textual asks for (the dirty ones), each once per change.
"""

from __future__ import annotations

from collections.abc import Hashable

from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

Cell = tuple[str, tuple[object, ...]]


def text_cells(text: Text, width: int) -> list[Cell]:
    """One ``(character, styles)`` per cell of the line's first ``width`` cells ("" for the
    right half of a wide character). Plain Python over ~100 characters: cheaper than rendering
    the line twice, which matters at a repaint per seat per action and a tick per second."""
    plain = text.plain
    styles: list[list[object]] = [[text.style] for _ in plain]
    for span in text.spans:
        for i in range(span.start, min(span.end, len(plain))):
            styles[i].append(span.style)
    cells: list[Cell] = []
    for char, style in zip(plain, styles):
        cells.append((char, tuple(style)))
        if cell_len(char) == 2:
            cells.append(("", tuple(style)))
        if len(cells) >= width:
            break
    return cells[:width]


def changed_span(old: list[Cell], new: list[Cell]) -> tuple[int, int] | None:
    """The cells ``[start, end)`` where two renderings of a line differ (None: identical)."""
    length = max(len(old), len(new))
    blank: Cell = (" ", ())
    old = old + [blank] * (length - len(old))
    new = new + [blank] * (length - len(new))
    diffs = [x for x in range(length) if old[x] != new[x]]
    if not diffs:
        return None
    start, end = diffs[0], diffs[-1] + 1
    while start > 0 and "" in (old[start][0], new[start][0]):  # whole wide characters only
        start -= 1
    while end < length and "" in (old[end][0], new[end][0]):
        end += 1
    return start, end


class TextLines(Widget):
    """Subclasses give :meth:`text_lines` and a :meth:`lines_key` that changes with them."""

    _lines_cache: tuple[Hashable, list[Text], list[Strip | None]] | None = None

    def text_lines(self) -> list[Text]:
        """The rows to draw (each cropped or padded to the widget's width)."""
        raise NotImplementedError

    def lines_key(self) -> Hashable:
        """Whatever :meth:`text_lines` depends on (besides the width and the widget's style)."""
        raise NotImplementedError

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        key = (self.lines_key(), width, base)
        if self._lines_cache is None or self._lines_cache[0] != key:
            lines = self.text_lines()
            self._lines_cache = (key, lines, [None] * len(lines))
        _, lines, strips = self._lines_cache
        if y >= len(lines):
            return Strip.blank(width, base)
        strip = strips[y]
        if strip is None:
            text = lines[y]
            segments = list(text.render(self.app.console, end=""))
            strip = Strip(Segment.apply_style(segments, base)).crop_extend(0, width, base)
            strips[y] = strip
        return strip

    def refresh_changed(self, before: list[Text], after: list[Text]) -> None:
        """Repaint only the cells where ``after`` differs from ``before`` (what is on screen):
        a bet changes a few digits of a seat box or a label, and only those are sent."""
        width = self.content_size.width
        if not width:
            return
        for y in range(max(len(before), len(after))):
            old = text_cells(before[y], width) if y < len(before) else []
            new = text_cells(after[y], width) if y < len(after) else []
            span = changed_span(old, new)
            if span is not None:
                self.refresh(Region(span[0], y, span[1] - span[0], 1))

    @property
    def plain_lines(self) -> list[str]:
        """The rows as plain text (for tests)."""
        return [line.plain for line in self.text_lines()]
