"""A screen sends what a handler just changed in that same callback, as one frame.

Why: Textual gets there in four more turns of the event loop (each changed widget's idle posts
an Update to the screen, the screen's idle resumes its update timer, the timer paints); with
hundreds of sessions on one loop every turn waits behind all their work, and the messages cost
CPU too. Whatever needs a layout (or scrolling) still takes Textual's path, as does anything
changed later. ``BaseScreen.paint_now`` calls :func:`paint_now` while this override is on, and
does nothing otherwise (Textual paints on its own schedule).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from .override import Override, first_reason, no_attributes, wrong_parameters

_FLAGS = ("_layout_required", "_scroll_required", "_repaint_required")


def paint_now(screen: Screen[object], only: Iterable[Widget] | None = None) -> None:
    """Paint ``screen``'s repaint-only changes now (see the module docstring). ``only``: the
    widgets the handler changed, when it knows (a countdown's tick changes one row): they alone
    are painted, without a walk over every widget of the screen; the others' pending changes,
    if any, go Textual's way."""
    if not screen.is_current or screen.app._batch_count or screen not in screen._compositor:
        return
    if screen._layout_required or screen._scroll_required:
        return
    changed: list[Widget] = []
    for widget in screen.walk_children(Widget) if only is None else only:
        if widget._layout_required or widget._scroll_required:
            return
        if widget._repaint_required:
            changed.append(widget)
    for widget in changed:
        widget._repaint_required = False  # its idle handler would post the Update
        if widget.display:
            screen._dirty_widgets.add(widget)
    if screen._dirty_widgets or screen._repaint_required:
        screen._on_timer_update()


def _missing() -> str | None:
    screen = Screen[object]()
    return first_reason(
        lambda: no_attributes(App[object](), ["_batch_count"]),
        lambda: no_attributes(screen, ["_compositor", "_dirty_widgets", *_FLAGS]),
        lambda: no_attributes(Widget(), _FLAGS),
        lambda: wrong_parameters(Screen, "_on_timer_update", ["self"]),
    )


OVERRIDE = Override("paint_now", "textual", _missing)
