"""What one override declares, and the checks it uses to find the private names it needs.

Why a declaration: :func:`seotda_tui.tuning.install` must know, before anything is patched, which
package's internals an override relies on (to compare with the versions it was tested on) and
whether each private name is still there in the shape it expects; the override only says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

#: Why an override cannot apply here (a private name missing or changed), or None if it can.
Check = Callable[[], "str | None"]


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Override:
    """One override of a third-party internal.

    ``apply`` is its process-wide part (run once by ``install``, idempotent); its per-app and
    per-screen parts (``on_app``, ``on_screen``) run for every app and screen while it is on.
    A ``guard`` is a safety measure rather than a speed-up: ``stock_textual`` leaves it on, and
    where it cannot apply its module's safe fallback is used instead (see ``crash_report``).
    """

    name: str
    package: str  # whose internals: "textual", "rich" or "asyncssh"
    missing: Check
    apply: Callable[[], None] = _nothing
    on_app: Callable[[Any], None] | None = None
    on_screen: Callable[[Any], None] | None = None
    guard: bool = False


def no_attributes(owner: object, names: Iterable[str]) -> str | None:
    """The first of ``names`` that ``owner`` (a class or an instance) lacks, as a reason."""
    what = owner.__name__ if isinstance(owner, type) else type(owner).__name__
    for name in names:
        if not hasattr(owner, name):
            return f"{what}.{name} is missing"
    return None


def wrong_parameters(owner: type, method: str, expected: Iterable[str]) -> str | None:
    """Why ``owner.method`` is not a function taking exactly ``expected`` (``self`` first)."""
    function = inspect.getattr_static(owner, method, None)
    if isinstance(function, (classmethod, staticmethod)):
        function = function.__func__
    function = inspect.unwrap(function) if callable(function) else None
    if function is None:
        return f"{owner.__name__}.{method} is missing"
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return f"{owner.__name__}.{method} has no readable signature"
    if names != list(expected):
        return f"{owner.__name__}.{method}({', '.join(names)}) has other parameters"
    return None


def first_reason(*checks: Check) -> str | None:
    """The first reason any of ``checks`` gives (run in order, so later ones may rely on
    earlier ones having passed)."""
    for check in checks:
        reason = check()
        if reason is not None:
            return reason
    return None
