"""A crash inside one session's app never shows local variables (a player's cards) anywhere.

Why: Textual's crash report is a rich ``Traceback`` *with locals*, printed to the app's error
console (the server log). Every way rich builds a traceback goes through the public classmethod
``Traceback.extract(..., show_locals=...)``; here it always extracts without locals, for every
traceback in the process (the server never wants them). Checked after patching: a traceback
asked for with locals must come out without them, else this guard counts as off.

It fails closed: while it is off (rich changed, or outside the tested versions) each app's
error console is a :class:`WithheldReport`, which logs one line per crash and drops the report.
A guard, not a speed-up: ``stock_textual`` leaves it on.
"""

from __future__ import annotations

import inspect
import io
import logging
from functools import wraps
from typing import Any

from rich.traceback import Traceback

from ..logs import log_event
from .override import Override


def _extract_without_locals(original: Any) -> Any:
    @wraps(original)
    def extract(cls: type[Traceback], *args: Any, **kwargs: Any) -> Any:
        kwargs["show_locals"] = False
        return original(cls, *args, **kwargs)

    extract.without_locals = True  # type: ignore[attr-defined]
    return classmethod(extract)


def _missing() -> str | None:
    parameter = inspect.signature(Traceback.extract).parameters.get("show_locals")
    if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
        return "Traceback.extract has no keyword-only show_locals"
    return None


def _apply() -> None:
    if not getattr(Traceback.extract, "without_locals", False):
        Traceback.extract = _extract_without_locals(Traceback.extract.__func__)  # type: ignore[method-assign,attr-defined]
    if _shows_locals():
        raise RuntimeError("Traceback(show_locals=True) still extracts locals")


def _shows_locals() -> bool:
    """Whether a traceback asked for with locals has any (the check after patching)."""
    secret = "locals-probe"
    try:
        raise ValueError(secret)
    except ValueError as error:
        trace = Traceback.extract(type(error), error, error.__traceback__, show_locals=True)
    return any(frame.locals for stack in trace.stacks for frame in stack.frames)


class WithheldReport(io.TextIOBase):
    """An error console's file that logs that a report was withheld, never the report."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger
        self._reported = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self._reported and text.strip():
            self._reported = True  # one line per app: its error console prints one report
            log_event(self._logger, "app_crash_report_withheld", level=logging.ERROR)
        return len(text)


OVERRIDE = Override("crash_report", "rich", _missing, apply=_apply, guard=True)
