"""Every session renders in truecolor; its driver lowers the colours to its client's depth.

Why: rich keeps a ``Style``'s SGR codes on the style (and Textual a row's whole escape string
on the ``Strip``) the first time it is rendered, for whatever colour system that console had,
and later renders reuse them for any console. Sessions share styles and rows: the rows a
table's screens share (``widgets/textlines.py``), the styles rich's own ``lru_cache``s hand out
for equal inputs, Textual's module-level caches. So whichever session rendered a style first
chose its colours for all: a 16-colour terminal at a table opened by a truecolor one got
24-bit escapes, and the other way round. Rendering every session at one depth makes all those
caches the same for everyone; each session's own depth is applied to its finished output,
with rich's public ``Color`` API (the same ``downgrade`` rich would have done), so nothing
shared holds per-terminal state. This module uses no third-party internals (``prepare_app``
still sets the console's colour system, as it did before, now to one constant for all).

:func:`client_color_system` gives widgets the depth a session's *client* takes (to pick a
16-colour or monochrome palette), since the app's console now always says truecolor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rich.color import Color, ColorSystem

#: What a session's console renders at: the same for every session.
RENDER_COLOR_SYSTEM = ColorSystem.TRUECOLOR

_DEPTHS: dict[str | None, ColorSystem | None] = {
    "truecolor": ColorSystem.TRUECOLOR,
    "256": ColorSystem.EIGHT_BIT,
    "standard": ColorSystem.STANDARD,
    None: None,
}
#: The app attribute :func:`remember_client_color_system` sets (one value per app).
_ATTRIBUTE = "seotda_client_color_system"

_SGR = re.compile(r"\x1b\[([0-9;]*)m")
# Plain colour parameters: 30–37/90–97 foreground, 40–47/100–107 background, 39/49 default.
_PLAIN_COLOURS = frozenset(
    str(n) for n in (*range(30, 38), 39, *range(40, 48), 49, *range(90, 98), *range(100, 108))
)


@lru_cache(maxsize=4096)
def lower_sgr(params: str, system: ColorSystem | None) -> str:
    """One SGR sequence's parameters (``"1;38;2;1;2;3"``) with every colour lowered to
    ``system``, or removed for None (no colour); "" if nothing is left. The value depends on
    the key alone, so one cache serves every session."""
    out: list[str] = []
    parts = params.split(";")
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("38", "48"):
            color, i = _extended(parts, i + 1)
            if color is not None and system is not None:
                out.extend(color.downgrade(system).get_ansi_codes(foreground=part == "38"))
            continue
        if system is not None or part not in _PLAIN_COLOURS:
            out.append(part)
        i += 1
    return ";".join(out)


def _extended(parts: list[str], i: int) -> tuple[Color | None, int]:
    """The colour of a ``38;…``/``48;…`` tail starting at ``parts[i]``, and where it ends."""
    mode = parts[i] if i < len(parts) else ""
    try:
        if mode == "2":
            r, g, b = (int(value) for value in parts[i + 1 : i + 4])
            return Color.from_rgb(r, g, b), i + 4
        if mode == "5":
            return Color.from_ansi(int(parts[i + 1])), i + 2
    except (ValueError, IndexError):
        pass
    return None, len(parts)  # not something rich writes: drop the rest of the sequence


def colour_lowering(color_system: str | None) -> Callable[[str], str] | None:
    """The function that turns truecolor output into ``color_system``'s (a session's depth as
    ``driver.color_system_for`` names it), or None when the output is right as it is."""
    system = _DEPTHS[color_system]
    if system == RENDER_COLOR_SYSTEM:
        return None

    def replace(match: re.Match[str]) -> str:
        params = match.group(1)
        if not params:  # "\x1b[m" is a reset: keep it
            return match.group(0)
        lowered = lower_sgr(params, system)
        return f"\x1b[{lowered}m" if lowered else ""

    def lower(output: str) -> str:
        return _SGR.sub(replace, output) if "\x1b[" in output else output

    return lower


def remember_client_color_system(app: Any, color_system: str | None) -> None:
    """Record on ``app`` the depth its client takes (for :func:`client_color_system`)."""
    setattr(app, _ATTRIBUTE, color_system)


def client_color_system(app: Any) -> str | None:
    """The colour depth ``app``'s client takes: what the session recorded, else (an app not
    run by the SSH server: tests, the local runner) what its console renders."""
    try:
        return getattr(app, _ATTRIBUTE)  # type: ignore[no-any-return]
    except AttributeError:
        return app.console.color_system  # type: ignore[no-any-return]
