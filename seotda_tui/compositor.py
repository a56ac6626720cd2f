"""A compositor that renders, for a partial repaint, only the widgets under the changed cells.

Why: Textual's partial update crops to the *bounding box* of all dirty regions, then renders
every widget that overlaps that box. A bet dirties a seat box near the top and the action bar
at the bottom, so the box is the whole screen and every widget (about twenty on a table) is
rendered on every seat's screen for every action, all on the one event loop the server has.
Here each widget is rendered only if it overlaps a dirty region, and only for the rows it
shares with one. What is sent is unchanged: the same spans, painted front to back from the
same cuts (``tests/test_compositor.py`` compares both against Textual's own on random
updates).

It overrides one method of Textual's private ``Compositor``; the Textual version is bounded
in ``pyproject.toml`` and the comparison test fails first if a new one changes the contract.
"""

from __future__ import annotations

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


class DirtyCompositor(Compositor):
    """Textual's compositor, with :meth:`render_partial_update` narrowed to dirty widgets."""

    def render_partial_update(self) -> ChopsUpdate | None:
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        screen = self.size.region
        dirty = [region for region in map(screen.intersection, update_regions) if region]
        spans = list(self._regions_to_spans(update_regions))
        rendered = {y for y, _, _ in spans}
        cuts = self.cuts
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
        return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in cuts])


def _dirty_rows(visible: Region, dirty: list[Region]) -> tuple[int, int] | None:
    """The rows ``[top, bottom)`` of ``visible`` that some dirty region touches, or None."""
    top = bottom = -1
    for region in dirty:
        hit = visible.intersection(region)
        if hit:
            top = hit.y if top < 0 else min(top, hit.y)
            bottom = max(bottom, hit.bottom)
    return None if top < 0 else (top, bottom)


def use_dirty_compositor(screen: Screen[object]) -> None:
    """Give ``screen`` the narrowed compositor (call from its ``__init__``)."""
    screen._compositor = DirtyCompositor()
