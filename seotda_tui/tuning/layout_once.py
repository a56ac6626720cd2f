"""One layout pass where Textual would do two: a widget's new virtual size lays out only scrollers.

Why: after every layout Textual sets each resized widget's ``virtual_size``, a reactive declared
with ``layout=True``, so any layout that changes a size asks for a second full layout of the
screen, which almost always changes nothing. A game start at a table is one layout per seat
plus that echo: with fifty tables starting together the echoes alone kept the one event loop
busy for seconds. The virtual size only matters to layout where it can bring scrollbars, so
widgets that cannot scroll (``overflow`` neither ``auto`` nor ``scroll``) now take it without
asking for another pass — the way Textual already sets it when it reflows a scroll.

Process-wide and the same for every session; applied once, by :func:`seotda_tui.tuning.install`.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from textual.geometry import Size
from textual.widget import Widget

from .override import Override, wrong_parameters

SCROLLING = frozenset({"auto", "scroll"})


def can_scroll(widget: Widget) -> bool:
    styles = widget.styles
    return styles.overflow_x in SCROLLING or styles.overflow_y in SCROLLING


def lay_out_once() -> None:
    """Patch ``Widget._size_updated`` (idempotent)."""
    original: Any = Widget._size_updated
    if getattr(original, "lays_out_once", False):
        return

    @wraps(original)
    def _size_updated(
        self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        return bool(
            original(self, size, virtual_size, container_size, layout=layout and can_scroll(self))
        )

    _size_updated.lays_out_once = True  # type: ignore[attr-defined]
    Widget._size_updated = _size_updated  # type: ignore[method-assign]


#: ``Widget._size_updated``'s parameters, which the replacement takes exactly.
PARAMETERS = ["self", "size", "virtual_size", "container_size", "layout"]


def _missing() -> str | None:
    return wrong_parameters(Widget, "_size_updated", PARAMETERS)


OVERRIDE = Override("layout_once", "textual", _missing, apply=lay_out_once)
