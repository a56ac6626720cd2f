"""Every app's console renders at one colour depth, whatever its client takes; NO_COLOR clients
also get Textual's ``NoColor`` filter.

Why: rich keeps a style's SGR codes on the ``Style`` and Textual a row's escapes on the
``Strip``, for whichever console rendered them first, and sessions share both; so every console
renders at :data:`~seotda_tui.ui.colour_isolation.RENDER_COLOR_SYSTEM` and the driver lowers each
frame to its own client's depth (:mod:`seotda_tui.ui.colour_isolation`). rich has no public way to
set a console's depth after it was made (Textual makes the console), hence ``Console._color_system``;
the filter goes on ``App._filters``. A guard, not a speed-up: ``stock_textual`` leaves it on.
Fallback: every console keeps the depth rich chose from the server's own environment (still one
depth for all, so shared caches stay correct), and the driver's lowering still gives each client
only what its depth allows (a truecolor client may then see fewer colours).
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.app import App
from textual.filter import NoColor

from . import enabled
from .override import Override, first_reason, no_attributes


def set_colour_depth(app: App[Any], render_system: Any, no_color: bool) -> None:
    """Make ``app`` render at ``render_system``; without colour, filter the colours out."""
    if not enabled("colour_depth"):
        return
    app.console._color_system = render_system
    if no_color:
        app._filters.append(NoColor())


def _missing() -> str | None:
    return first_reason(
        lambda: no_attributes(Console(file=io.StringIO()), ("_color_system",)),
        lambda: no_attributes(App[object](), ("_filters",)),
    )


OVERRIDE = Override("colour_depth", "rich", _missing, guard=True)
