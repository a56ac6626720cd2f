"""A line-API widget with no box model hands its shared rows to the compositor as they are.

Why: ``Widget.render_lines`` goes through the widget's styles cache
(``textual._styles_cache.StylesCache.render_widget``), which makes a new strip of every dirty
row for every widget and keeps it. For a widget without padding, border, outline, tint,
opacity or hatch that copy only applies the app's line filters and the crop. The rows a
table's six screens draw are shared (``ui/widgets/textlines.py``), so the copies made six of
each again, and the compositor, which skips cells whose strip it has already sent, sent more:
at 60 players the busiest idle screen got 807 B/s without this, 106 B/s with it (BENCHMARKS.md,
item 33). ``TextLines.render_lines`` calls :func:`render_shared` while this override is on.

It reads no private name; what it relies on is the styles cache's behaviour for such a widget
(checked by ``tests/test_textlines_render.py`` against Textual's own path), so it is tied to
the tested Textual version like the rest of the layer.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from .override import Override, first_reason, no_attributes, wrong_parameters


def plain(widget: Widget) -> bool:
    """Whether Textual's styles cache would only filter and crop ``widget``'s rows."""
    styles = widget.styles
    return (
        not widget.BLANK
        and not any(styles.padding)
        and not any(edge for edge, _ in styles.border)
        and not any(edge for edge, _ in styles.outline)
        and not styles.tint.a
        and widget.opacity == 1.0
        and styles.text_opacity == 1.0
        and not styles.has_rule("hatch")
        and widget.border_title is None
        and widget.border_subtitle is None
    )


def render_shared(widget: Widget, crop: Region) -> list[Strip] | None:
    """``widget``'s rows for ``crop`` straight from its ``render_line``, with the app's line
    filters applied as Textual applies them; None where Textual's own path must run."""
    if not plain(widget):
        return None
    strips = [widget.render_line(y) for y in crop.line_range]
    filters = widget.get_line_filters()
    if filters:
        background = widget.background_colors[1]
        for line_filter in filters:
            strips = [strip.apply_filter(line_filter, background) for strip in strips]
    x1, x2 = crop.column_span
    if (x1, x2) != (0, widget.size.width):
        strips = [strip.crop(x1, x2) for strip in strips]
    return strips


def _missing() -> str | None:
    widget = Widget()
    return first_reason(
        lambda: no_attributes(
            widget, ["get_line_filters", "background_colors", "border_title", "BLANK"]
        ),
        lambda: wrong_parameters(Widget, "render_lines", ["self", "crop"]),
        lambda: no_attributes(Strip, ["apply_filter", "crop"]),
    )


OVERRIDE = Override("shared_rows", "textual", _missing)
