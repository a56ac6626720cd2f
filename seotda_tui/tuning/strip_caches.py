"""Textual's ``Strip`` without the five per-row caches this program never hits, and the other
two made on first use.

Why: every rendered row (a ``Strip``) creates seven ``FIFOCache`` objects up front. Over a
played table only two of them are ever hit: the divide cache (the compositor cuts the same
rows at every frame) and the filter cache (the colour filter). The crop, style, line-length,
crop-extend and offsets caches got no hits at all (``tests/test_strip_caches.py`` replays a
table and checks). Those five now share one cache that keeps nothing: about 1 KB less per row
(≈1.4 MiB per session; a session holds ~1,500 rows) and five fewer objects per row for the
garbage collector to walk — its generation-1 passes were the longest pauses of the event loop.
The divide and filter caches are made when a row is first cut or filtered: most rows never are
(a row the compositor passes whole is not cut, and a truecolour screen has no filter), and
their two empty caches were a fifth of the young objects a generation-1 pass walked.

``Strip.divide`` also stops caching a row cut only at its own end: Textual stores ``[self]`` in
the row's own divide cache, a reference cycle, so every row the compositor passed whole (most of
them) lived on as garbage until a generation-1 or full collection instead of being freed when
dropped: ~870 cyclic objects per action at a table, all rows and their segments and caches.

Process-wide and the same for every session; applied once, by :func:`seotda_tui.tuning.install`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import wraps
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

from .override import Override, first_reason, wrong_parameters

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

#: The divide and filter caches of a row not cut or filtered yet (replaced on first use).
NOT_YET = KeepsNothing()


#: ``Strip``'s slots in the Textual versions this was written for (see :func:`trim_strip_caches`).
KNOWN_SLOTS = frozenset(
    {"_segments", "_cell_length", "_divide_cache", "_filter_cache", "_render_cache", "_link_ids"}
    | {"_cell_count", *UNUSED}
)


def trim_strip_caches() -> None:
    """Make every ``Strip`` created from now on share :data:`KEEPS_NOTHING` for its unused caches.

    With the known slots, ``__init__`` is replaced by one that never makes the five caches
    (creating and dropping them was ~4 % of the server's CPU in play) and leaves the divide and
    filter caches :data:`NOT_YET`, for ``divide`` and ``apply_filter`` to make; with any other
    Textual layout, the original runs first and the five are swapped out after."""
    if getattr(Strip.__init__, "trimmed", False):
        return
    original = Strip.__init__

    if frozenset(Strip.__slots__) == KNOWN_SLOTS:

        @wraps(original)
        def __init__(
            self: Strip, segments: Iterable[Segment], cell_length: int | None = None
        ) -> None:
            self._segments = list(segments)
            self._cell_length = cell_length
            self._divide_cache = self._filter_cache = NOT_YET  # type: ignore[assignment]
            self._crop_cache = self._style_cache = self._line_length_cache = KEEPS_NOTHING  # type: ignore[assignment]
            self._crop_extend_cache = self._offsets_cache = KEEPS_NOTHING  # type: ignore[assignment]
            self._render_cache = None
            self._link_ids = None
            self._cell_count = None

    else:

        @wraps(original)
        def __init__(self: Strip, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            for name in UNUSED:
                setattr(self, name, KEEPS_NOTHING)

    __init__.trimmed = True  # type: ignore[attr-defined]
    Strip.__init__ = __init__  # type: ignore[method-assign]
    Strip.divide = _divide_without_cycle(Strip.divide)  # type: ignore[method-assign]
    Strip.apply_filter = _filter_cache_on_first_use(Strip.apply_filter)  # type: ignore[method-assign]


def _divide_without_cycle(original: Any) -> Any:
    @wraps(original)
    def divide(self: Strip, cuts: Iterable[int]) -> Any:
        cuts = [cut for cut in cuts if cut <= self.cell_length]
        if cuts == [self.cell_length]:
            return [self]  # what Textual returns, without keeping it in the row's own cache
        if self._divide_cache is NOT_YET:  # type: ignore[comparison-overlap]
            self._divide_cache = FIFOCache(4)
        return original(self, cuts)

    return divide


def _filter_cache_on_first_use(original: Any) -> Any:
    @wraps(original)
    def apply_filter(self: Strip, filter: Any, background: Any) -> Strip:
        if self._filter_cache is NOT_YET:  # type: ignore[comparison-overlap]
            self._filter_cache = FIFOCache(4)
        return original(self, filter, background)  # type: ignore[no-any-return]

    return apply_filter


def _missing() -> str | None:
    slots = frozenset(getattr(Strip, "__slots__", ()))
    lacking = sorted({"_divide_cache", "_filter_cache", *UNUSED} - slots)
    return first_reason(
        lambda: f"Strip.__slots__ lacks {', '.join(lacking)}" if lacking else None,
        lambda: wrong_parameters(Strip, "__init__", ["self", "segments", "cell_length"]),
        lambda: wrong_parameters(Strip, "divide", ["self", "cuts"]),
        lambda: wrong_parameters(Strip, "apply_filter", ["self", "filter", "background"]),
    )


OVERRIDE = Override("strip_caches", "textual", _missing, apply=trim_strip_caches)
