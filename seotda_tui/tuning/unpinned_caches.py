"""Textual's memos on instance methods, keyed without the instance, so nothing dismissed stays.

Why: ``functools.lru_cache`` on a method keeps ``self`` in its key, in one memo for the whole
process. Textual's ``StylesCache.get_inner_outer`` is one: every widget that is ever painted
leaves its ``StylesCache`` — with every row of the widget it rendered — in that memo until 1,024
later entries push it out, long after the widget, its screen and even its session are gone.
Opening the new-room form (then ~140 widgets) and pressing Esc kept ~1.5 MiB each time for
the next dozen opens on any session, and the rows of every table screen left were pinned the
same way (Textual issue #6665). The colours alone decide the answer, so the memo here is keyed
on them.

``XTermParser._parse_extended_key`` (Kitty key sequences) is the same pattern: each session's
parser, with its buffered input, stayed in the memo after the session ended. Its answer depends
only on the sequence (``self`` is used for a class method), and the key events it returns are
copied by the caller, so sessions can share it.

Process-wide and the same for every session; applied once, by :func:`seotda_tui.tuning.install`,
which leaves both alone (stock) if a Textual release stops memoising either method this way.
"""

from __future__ import annotations

from functools import lru_cache, wraps
from typing import Any

from textual import events
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.color import Color
from textual.style import Style

from .override import Override


def _is_method_memo(function: Any) -> bool:
    """Whether ``function`` is an ``lru_cache`` wrapper (the pattern that pins ``self``)."""
    return callable(getattr(function, "cache_info", None)) and hasattr(function, "__wrapped__")


def unpin_instance_caches() -> None:
    """Replace the two instance-keyed memos with ones keyed on the arguments only (idempotent)."""
    original_inner_outer: Any = StylesCache.get_inner_outer
    if _is_method_memo(original_inner_outer):
        compute = original_inner_outer.__wrapped__

        @lru_cache(1024)
        def inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
            return compute(None, base_background, background)  # type: ignore[no-any-return]

        @wraps(compute)
        def get_inner_outer(
            self: StylesCache, base_background: Color, background: Color
        ) -> tuple[Style, Style]:
            return inner_outer(base_background, background)

        get_inner_outer.unpinned = True  # type: ignore[attr-defined]
        StylesCache.get_inner_outer = get_inner_outer  # type: ignore[method-assign,assignment]

    original_extended: Any = XTermParser._parse_extended_key
    if _is_method_memo(original_extended):
        parse = original_extended.__wrapped__

        @lru_cache(1024)
        def extended_key(sequence: str) -> list[events.Key] | None:
            return parse(XTermParser, sequence)  # type: ignore[no-any-return]

        @wraps(parse)
        def _parse_extended_key(self: XTermParser, sequence: str) -> list[events.Key] | None:
            return extended_key(sequence)

        _parse_extended_key.unpinned = True  # type: ignore[attr-defined]
        XTermParser._parse_extended_key = _parse_extended_key  # type: ignore[method-assign,assignment]


def _missing() -> str | None:
    for owner, name in ((StylesCache, "get_inner_outer"), (XTermParser, "_parse_extended_key")):
        method = getattr(owner, name, None)
        if not (getattr(method, "unpinned", False) or _is_method_memo(method)):
            return f"{owner.__name__}.{name} is not an lru_cache method"
    return None


OVERRIDE = Override("unpinned_caches", "textual", _missing, apply=unpin_instance_caches)
