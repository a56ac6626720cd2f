"""Every app's captured ``print()`` output goes to one shared stream that logs it.

Why: ``App.run_async`` redirects the process's ``sys.stdout``/``stderr`` to the app's own capture
object for as long as it runs. With apps starting and ending in any order they restore each
other's objects, so ``sys.stdout`` could be left pointing at an ended app (kept alive by it).
Giving every app the same capture object (see ``driver.prepare_app``) makes whatever is left in
``sys.stdout`` harmless: it logs. Without it (Textual changed), Textual's own capture is used:
prints still reach no player's screen. A guard, not a speed-up: ``stock_textual`` leaves it on.
"""

from __future__ import annotations

from typing import IO, Any

from textual.app import App

from .override import Override, no_attributes

NAMES = ("_capture_stdout", "_capture_stderr")


def capture_stray_output(app: App[Any], stream: IO[str]) -> None:
    """Point ``app``'s stdout/stderr captures at ``stream``."""
    for name in NAMES:
        setattr(app, name, stream)


def _missing() -> str | None:
    return no_attributes(App[object](), NAMES)


OVERRIDE = Override("stray_output", "textual", _missing, guard=True)
