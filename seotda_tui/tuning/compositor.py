"""A compositor that renders, for a partial repaint, only the widgets under the changed cells.

Why: Textual's partial update crops to the *bounding box* of all dirty regions, then renders
every widget that overlaps that box. A bet dirties a seat box near the top and the action bar
at the bottom, so the box is the whole screen and every widget (about twenty on a table) is
rendered on every seat's screen for every action, all on the one event loop the server has.
Here each widget is rendered only if it overlaps a dirty region, and only for the rows it
shares with one, painted front to back from the same cuts; a widget whose pieces to send are
all painted already by widgets in front (a container behind its children) is not rendered.

What is sent is narrowed too: for a span that starts inside a wide piece of a row (a digit of
the countdown at the end of the status line, one seat box of the row of boxes), Textual sends
the piece from its left edge; :class:`NarrowChopsUpdate` starts at the span (on a whole wide
character). ``tests/test_compositor.py`` plays random updates through this and Textual's own
compositor into two pyte terminals and requires the same screen.

It overrides methods of Textual's private ``Compositor`` and ``ChopsUpdate``: :data:`OVERRIDE`
checks the names and signatures it relies on, and a screen whose ``_compositor`` is not a plain
``Compositor`` keeps its own. The comparison test fails first if a new Textual changes the
contract.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.control import Control
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip

from .override import Override, first_reason, no_attributes, wrong_parameters


class NarrowChopsUpdate(ChopsUpdate):
    """Textual's update of changed spans, sending only the cells of each span."""

    def render_segments(self, console: Console) -> str:
        sequences: list[str] = []
        append = sequences.append
        move_to = Control.move_to
        last_y = self.spans[-1][0]
        for y, x1, x2 in self.spans:
            for end, (x, strip) in zip(self.chop_ends[y], self.chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                left = _char_start(strip, x1 - x) if x < x1 else 0
                if left or end > x2:
                    strip = strip.crop(left, min(end, x2) - x)
                append(move_to(x + left, y).segment.text)
                append(strip.render(console))
            if y != last_y:
                append("\n")
        return "".join(sequences)


def _char_start(strip: Strip, offset: int) -> int:
    """``offset``, or the cell where the wide character covering it starts."""
    position = 0
    for segment in strip:
        for char in segment.text:
            width = cell_len(char)
            if position + width > offset:
                return position
            position += width
    return offset


class DirtyCompositor(Compositor):
    """Textual's compositor, with :meth:`render_partial_update` narrowed to dirty widgets."""

    def render_partial_update(self) -> ChopsUpdate | None:
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        screen = self.size.region
        dirty = [
            (region.x, region.y, region.right, region.bottom)
            for region in map(screen.intersection, update_regions)
            if region
        ]
        spans = list(self._regions_to_spans(update_regions))
        rendered = {y for y, _, _ in spans}
        cuts = self.cuts
        needed = _needed_cuts(spans, cuts)
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        intersection = Region.intersection
        # Front to back, as Textual paints: the first strip for a cut wins.
        for widget, (region, clip) in self.visible_widgets.items():
            visible = intersection(region, clip)
            rows = _dirty_rows(visible, dirty)
            if rows is None:
                continue
            top, bottom = rows
            left, right = visible.x, visible.right
            if _covered(chops, needed, top, bottom, left, right):
                continue  # widgets in front already paint every changed cell here
            strips = widget.render_lines(
                Region(left - region.x, top - region.y, visible.width, bottom - top)
            )
            for y, strip in zip(range(top, bottom), strips):
                if y not in rendered:
                    continue
                line = chops[y]
                line_cuts = [cut for cut in cuts[y] if right >= cut >= left]
                pieces = strip.divide([cut - left for cut in line_cuts[1:]])
                for cut, piece in zip(line_cuts, pieces):
                    if line.get(cut) is None:
                        line[cut] = piece
        return NarrowChopsUpdate(chops, spans, [cut_set[1:] for cut_set in cuts])


def _needed_cuts(spans: list[tuple[int, int, int]], cuts: list[list[int]]) -> dict[int, list[int]]:
    """Per repainted row, the cuts whose pieces overlap a span (the pieces that are sent)."""
    needed: dict[int, list[int]] = {}
    for y, x1, x2 in spans:
        row = cuts[y]
        needed.setdefault(y, []).extend(
            cut for cut, end in zip(row, row[1:]) if cut < x2 and end > x1
        )
    return needed


def _covered(
    chops: list[dict[int, Strip | None]],
    needed: dict[int, list[int]],
    top: int,
    bottom: int,
    left: int,
    right: int,
) -> bool:
    """Whether every piece that is sent in rows ``[top, bottom)`` between ``left`` and
    ``right`` already has its strip from a widget in front (typically a container behind its
    children): then this widget need not be rendered at all."""
    for y in range(top, bottom):
        line = chops[y]
        for cut in needed.get(y, ()):
            if left <= cut < right and line.get(cut) is None:
                return False
    return True


def _dirty_rows(visible: Region, dirty: list[tuple[int, int, int, int]]) -> tuple[int, int] | None:
    """The rows ``[top, bottom)`` of ``visible`` that some dirty ``(x, y, right, bottom)``
    touches, or None. Plain arithmetic: it runs for every widget against every dirty span."""
    left, top_edge, width, height = visible
    if width <= 0 or height <= 0:
        return None
    right, bottom_edge = left + width, top_edge + height
    top = bottom = -1
    for x, y, x_end, y_end in dirty:
        if x < right and x_end > left and y < bottom_edge and y_end > top_edge:
            first = y if y > top_edge else top_edge
            last = y_end if y_end < bottom_edge else bottom_edge
            if top < 0 or first < top:
                top = first
            if last > bottom:
                bottom = last
    return None if top < 0 else (top, bottom)


def use_dirty_compositor(screen: Screen[object]) -> None:
    """Give ``screen`` the narrowed compositor (at its creation), if it has Textual's own."""
    if type(getattr(screen, "_compositor", None)) is Compositor:
        screen._compositor = DirtyCompositor()


def _missing() -> str | None:
    compositor = Compositor()
    return first_reason(
        lambda: wrong_parameters(Compositor, "render_partial_update", ["self"]),
        lambda: wrong_parameters(Compositor, "_regions_to_spans", ["cls", "regions"]),
        lambda: no_attributes(compositor, ["_dirty_regions", "size", "cuts", "visible_widgets"]),
        lambda: None if isinstance(compositor._dirty_regions, set) else "_dirty_regions: not a set",
        lambda: wrong_parameters(ChopsUpdate, "__init__", ["self", "chops", "spans", "chop_ends"]),
        lambda: wrong_parameters(ChopsUpdate, "render_segments", ["self", "console"]),
        lambda: no_attributes(Screen(), ["_compositor"]),
    )


OVERRIDE = Override("compositor", "textual", _missing, on_screen=use_dirty_compositor)
