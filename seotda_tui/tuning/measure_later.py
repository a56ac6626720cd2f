"""A widget's new text measured at the next layout, without laying the screen out now.

Why: Textual keeps each widget's box model (keyed by its ``_layout_updates``) and each
container's arrangement (keyed by its size) until ``refresh(layout=True)`` forgets them, and
that also lays the whole screen out. :class:`~seotda_tui.ui.widgets.lines.Line` skips the
layout when a new text keeps the line's height at the width it has now; but the caches then
still hold the old text's measures, and a later layout at a width seen before (the hand log
shown again after the waiting room, a terminal resized back) reused them: after a game the
waiting room's status and ranking were drawn over by the own-cards box, still as tall as the
rules text it had held (issue 36, found when every default game's deals changed).

:func:`measure_later` forgets those measures the way Textual's ``Widget._check_refresh`` does
for a layout (the widget's, and its ancestors' up to the first that does not size itself
from its content) and asks for nothing. Fallback, where this is off (``stock_textual``, or the
names below changed): ``refresh(layout=True)``, Textual's own way, one layout more.
"""

from __future__ import annotations

from textual.widget import Widget

from .override import Override, first_reason, no_attributes

#: The private names used: a counter in the box model's cache key, the arrangement cache.
NAMES = ("_layout_updates", "_clear_arrangement_cache", "_box_model_cache", "_arrangement_cache")


def measure_later(widget: Widget) -> None:
    """Make the next layout measure ``widget`` (and re-arrange its auto-sized ancestors)."""
    from . import enabled  # (the package imports its modules lazily: no import circle)

    if not enabled(OVERRIDE.name):
        widget.refresh(layout=True)
        return
    widget._layout_updates += 1
    for ancestor in widget.ancestors:
        if not isinstance(ancestor, Widget):
            break
        ancestor._clear_arrangement_cache()
        ancestor._layout_updates += 1
        if not ancestor.styles.auto_dimensions:
            break


def _missing() -> str | None:
    widget = Widget()
    return first_reason(
        lambda: no_attributes(widget, NAMES),
        lambda: (
            None
            if isinstance(widget._layout_updates, int)
            else "Widget._layout_updates is not a counter"
        ),
    )


OVERRIDE = Override("measure_later", "textual", _missing)
