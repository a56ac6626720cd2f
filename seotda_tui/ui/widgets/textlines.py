"""Widgets drawn row by row from rich ``Text`` lines, through Textual's line API.

Why: ``Widget.render()`` re-renders the whole widget (rich ``Text`` → Textual ``Content`` →
strips) on every refresh, even when only one row was marked dirty. Every push repaints a few
widgets on every seat's screen, all on the one event loop, so that conversion was the largest
share of the server's time once layouts were gone. A :class:`TextLines` widget renders only the
rows Textual asks for (the dirty ones), each once per change.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from ... import tuning
from ...i18n import language_code
from ...tuning.shared_rows import render_shared

#: A line's cells: the character of each (``""`` for the right half of a wide one) and a
#: number standing for its styles. Two flat tuples rather than a tuple per cell: the memo of
#: :func:`_cells` keeps ~1,000 lines, and a tuple per cell was ~100 objects per line that the
#: garbage collector walked in generation 1 (CPython untracks such tuples only in a collection
#: that walks them; BENCHMARKS.md item 35).
Cells = tuple[tuple[str, ...], tuple[int, ...]]
NO_CELLS: Cells = ((), ())

#: Style numbers, process-wide (see :func:`remembered`; least recently used out): the same
#: styles get the same number while they are here, and numbers are never reused, so an
#: evicted style costs at most a repaint of cells that did not change. Styles are the
#: widgets' own (Text spans), nothing of one session.
_STYLE_NUMBERS: OrderedDict[Hashable, int] = OrderedDict()
STYLE_NUMBERS = 4096
_next_number = itertools.count()
#: The style number of the blank cells past a line's end.
PAST_THE_END = -1


def style_number(styles: tuple[object, ...]) -> int:
    """The number standing for ``styles`` (see :data:`_STYLE_NUMBERS`)."""
    return remembered(_STYLE_NUMBERS, styles, STYLE_NUMBERS, _next_number.__next__)


def same_text(a: Text, b: Text) -> bool:
    """Whether two lines draw the same (cheaper than comparing their cells)."""
    return a is b or (a.plain == b.plain and a.spans == b.spans and a.style == b.style)


def text_cells(text: Text, width: int) -> Cells:
    """See :func:`_cells` (cached: the same rows are compared on every seat's screen)."""
    return _cells(text.plain, tuple(text.spans), text.style, width)


@lru_cache(maxsize=1024)  # a changed line is compared by a table's screens within one push
def _cells(plain: str, spans: tuple[Span, ...], base: str | Style, width: int) -> Cells:
    """The :data:`Cells` of the line's first ``width`` cells. Plain Python over ~100
    characters: cheaper than rendering the line twice, which matters at a repaint per seat per
    action and a tick per second."""
    styles: list[list[object]] = [[base] for _ in plain]
    for span in spans:
        for i in range(span.start, min(span.end, len(plain))):
            styles[i].append(span.style)
    chars: list[str] = []
    numbers: list[int] = []
    for char, style in zip(plain, styles):
        number = style_number(tuple(style))
        chars.append(char)
        numbers.append(number)
        if cell_len(char) == 2:
            chars.append("")
            numbers.append(number)
        if len(chars) >= width:
            break
    return tuple(chars[:width]), tuple(numbers[:width])


#: Unchanged cells between two changes that are sent anyway rather than split into two spans
#: (a cursor move costs about as many bytes).
SPAN_GAP = 8


def changed_spans(old: Cells, new: Cells) -> list[tuple[int, int]]:
    """The runs of cells ``[start, end)`` where two renderings of a line differ, whole wide
    characters only; changes closer than :data:`SPAN_GAP` cells share a run (two seat boxes
    side by side that change send two runs, not the boxes between them)."""
    length = max(len(old[0]), len(new[0]))
    old_chars, old_styles = _padded(old, length)
    new_chars, new_styles = _padded(new, length)
    runs: list[tuple[int, int]] = []
    for x in range(length):
        if old_chars[x] == new_chars[x] and old_styles[x] == new_styles[x]:
            continue
        start = end = x
        while start > 0 and "" in (old_chars[start], new_chars[start]):  # whole wide characters
            start -= 1
        end += 1
        while end < length and "" in (old_chars[end], new_chars[end]):
            end += 1
        if runs and start - runs[-1][1] < SPAN_GAP:
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]))
        else:
            runs.append((start, end))
    return runs


def _padded(cells: Cells, length: int) -> Cells:
    """``cells`` with blank cells past its end up to ``length``."""
    missing = length - len(cells[0])
    return cells[0] + (" ",) * missing, cells[1] + (PAST_THE_END,) * missing


def text_strip(text: Text, width: int, base: Style, console: Console) -> Strip:
    """One row as a strip of exactly ``width`` cells, on the widget's ``base`` style."""
    segments = list(text.render(console, end=""))
    return Strip(Segment.apply_style(segments, base)).crop_extend(0, width, base)


V = TypeVar("V")


def remembered(
    memo: OrderedDict[Hashable, V], key: Hashable, limit: int, make: Callable[[], V]
) -> V:
    """``memo[key]``, made by ``make()`` the first time; past ``limit`` entries the least
    recently used goes (the process-wide row memos shared by every session)."""
    value = memo.get(key)
    if value is None:
        value = memo[key] = make()
        if len(memo) > limit:
            memo.popitem(last=False)
    else:
        memo.move_to_end(key)
    return value


#: Rendered rows shared by every session: the six seats of a table draw the same seat boxes,
#: pot and amounts, so most rows are rendered once per table, not once per screen. Keys hold
#: everything a row depends on, values are immutable strips; bounded, least recently used out.
_SHARED: OrderedDict[Hashable, tuple[list[Text], list[Strip | None]]] = OrderedDict()
SHARED_ROWS = 4096


class TextLines(Widget):
    """Subclasses give :meth:`text_lines` and a :meth:`lines_key` that changes with them
    (everything the rows depend on besides the width and the widget's own style)."""

    if TYPE_CHECKING:  # every subclass defines both

        def text_lines(self) -> list[Text]:
            """The rows to draw (each cropped or padded to the widget's width)."""

        def lines_key(self) -> Hashable:
            """Whatever :meth:`text_lines` depends on (besides the width and the style)."""

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        # ``visual_style`` is the same style as ``rich_style``, kept until the styles change;
        # ``rich_style`` walks every ancestor's styles on each call (once per row per frame).
        base = self.visual_style.rich_style
        key = (type(self), language_code(), self.lines_key(), width, base)
        lines, strips = remembered(_SHARED, key, SHARED_ROWS, self._new_entry)
        if y >= len(lines):
            return Strip.blank(width, base)
        strip = strips[y]
        if strip is None:
            strip = strips[y] = text_strip(lines[y], width, base, self.app.console)
        return strip

    def render_lines(self, crop: Region) -> list[Strip]:
        """The shared rows themselves where the layer's ``shared_rows`` is on (see
        ``seotda_tui/tuning/shared_rows.py``); Textual's own path otherwise."""
        strips = render_shared(self, crop) if tuning.enabled("shared_rows") else None
        return super().render_lines(crop) if strips is None else strips

    def _new_entry(self) -> tuple[list[Text], list[Strip | None]]:
        lines = self.text_lines()
        return lines, [None] * len(lines)

    def refresh_changed(
        self, before: list[Text], after: list[Text], x: int = 0, y: int = 0, width: int = 0
    ) -> None:
        """Repaint only the cells where ``after`` differs from ``before`` (what is on screen):
        a bet changes a few digits of a seat box or a label, and only those are sent. The
        lines may be a part of the widget: ``width`` cells at ``x``, ``y`` (default: all)."""
        width = width or self.content_size.width
        if not width:
            return
        regions = []
        for row in range(max(len(before), len(after))):
            if row < len(before) and row < len(after) and same_text(before[row], after[row]):
                continue  # most lines of a push are unchanged: no cells to compare
            old = text_cells(before[row], width) if row < len(before) else NO_CELLS
            new = text_cells(after[row], width) if row < len(after) else NO_CELLS
            regions += [Region(x + a, y + row, b - a, 1) for a, b in changed_spans(old, new)]
        if regions:  # one refresh: each call also clears caches and wakes the screen
            self.refresh(*regions)
