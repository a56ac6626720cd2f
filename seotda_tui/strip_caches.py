"""Textual's ``Strip`` without the five per-row caches this program never hits.

Why: every rendered row (a ``Strip``) creates seven ``FIFOCache`` objects up front. Over a
played table only two of them are ever hit: the divide cache (the compositor cuts the same
rows at every frame) and the filter cache (the colour filter). The crop, style, line-length,
crop-extend and offsets caches got no hits at all (``tests/test_strip_caches.py`` replays a
table and checks). Those five now share one cache that keeps nothing: about 1 KB less per row
(≈1.4 MiB per session; a session holds ~1,500 rows) and five fewer objects per row for the
garbage collector to walk — its generation-1 passes were the longest pauses of the event loop.

Process-wide and the same for every session; applied once, by ``seotda_tui.app`` on import.
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from textual.strip import Strip

#: The caches that stay off (``Strip`` slots).
UNUSED = (
    "_crop_cache",
    "_style_cache",
    "_line_length_cache",
    "_crop_extend_cache",
    "_offsets_cache",
)


class KeepsNothing:
    """The ``FIFOCache`` calls ``Strip`` makes (``get`` and item assignment), storing nothing."""

    __slots__ = ()

    def get(self, key: object, default: Any = None) -> Any:
        return default

    def __setitem__(self, key: object, value: object) -> None:
        pass

    def __len__(self) -> int:
        return 0

    def clear(self) -> None:
        pass


KEEPS_NOTHING = KeepsNothing()


def trim_strip_caches() -> None:
    """Make every ``Strip`` created from now on share :data:`KEEPS_NOTHING` for its unused caches."""
    if getattr(Strip.__init__, "trimmed", False):
        return
    original = Strip.__init__

    @wraps(original)
    def __init__(self: Strip, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        for name in UNUSED:
            setattr(self, name, KEEPS_NOTHING)

    __init__.trimmed = True  # type: ignore[attr-defined]
    Strip.__init__ = __init__  # type: ignore[method-assign]
