"""``seotda_tui/tuning/strip_caches.py``: rows keep only the caches a played table ever hits."""

from __future__ import annotations

import gc

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.color import Color
from textual.filter import NoColor
from textual.strip import Strip

from seotda_tui.testing import Table
from seotda_tui.tuning.strip_caches import KEEPS_NOTHING, NOT_YET, UNUSED


def cache_of(cache: object) -> object:
    """A strip cache as it is (Textual types it a FIFOCache; the tuning's sentinel is not one)."""
    return cache


def test_new_strips_share_the_empty_cache_for_the_unused_five() -> None:
    strip = Strip([Segment("판돈 ", Style(bold=True)), Segment("1,200")])
    assert all(getattr(strip, name) is KEEPS_NOTHING for name in UNUSED)
    # the other two are made when first needed
    assert cache_of(strip._divide_cache) is NOT_YET and cache_of(strip._filter_cache) is NOT_YET
    assert strip.divide([strip.cell_length]) == [strip]
    assert cache_of(strip._divide_cache) is NOT_YET  # a row passed whole is not cut
    first = strip.divide([2, strip.cell_length])
    assert isinstance(strip._divide_cache, FIFOCache)
    assert strip.divide([2, strip.cell_length]) is first and strip._divide_cache.hits == 1
    filtered = strip.apply_filter(NoColor(), Color(0, 0, 0))
    assert isinstance(strip._filter_cache, FIFOCache) and filtered.text == strip.text
    # the operations behind those caches still answer, every time
    for _ in range(2):
        assert strip.crop(2, 6).text == "돈 1"
        assert strip.crop_extend(0, 12, None).cell_length == 12
        assert strip.extend_cell_length(14).cell_length == 14
        assert strip.apply_style(Style(italic=True)).text == "판돈 1,200"
        assert strip.apply_offsets(2, 3).text == strip.text


@pytest.mark.filterwarnings("ignore::ResourceWarning")
async def test_a_played_table_never_hits_the_unused_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's own caches, put back for one table: none of the five is ever hit (if a
    Textual update starts using one, this says so)."""
    monkeypatch.setattr(Strip, "__init__", Strip.__init__.__wrapped__)  # type: ignore[attr-defined]
    async with Table.open([f"p{i}" for i in range(4)], seed=5, size=(100, 30)) as table:
        made = 0
        while made < 16:
            if table.game.view(None).get("handPhase") != "betting":
                for name in table.apps:
                    await table.press(name, "space")
                await table.advance(5)
                continue
            kinds = {action["type"] for action in table.legal(table.actor)}
            await table.press(table.actor, "4" if "call" in kinds else "2")
            made += 1
        strips = [o for o in gc.get_objects() if type(o) is Strip]
        assert sum(s._divide_cache.hits for s in strips if cache_of(s._divide_cache) is not NOT_YET)
        assert sum(s._filter_cache.hits for s in strips if cache_of(s._filter_cache) is not NOT_YET)
        for name in UNUSED:
            assert (
                sum(getattr(s, name).hits for s in strips if getattr(s, name) is not KEEPS_NOTHING)
                == 0
            ), name


def test_the_fast_path_is_in_use_and_the_fallback_trims_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With this Textual's ``Strip`` slots no unused cache is even made; with other slots the
    original ``__init__`` runs and the five are swapped out after."""
    from seotda_tui.tuning import strip_caches

    assert frozenset(Strip.__slots__) == strip_caches.KNOWN_SLOTS
    monkeypatch.setattr(Strip, "__init__", Strip.__init__.__wrapped__)  # type: ignore[attr-defined]
    monkeypatch.setattr(strip_caches, "KNOWN_SLOTS", frozenset({"_segments"}))
    strip_caches.trim_strip_caches()
    strip = Strip([Segment("판돈")], 4)
    assert all(getattr(strip, name) is KEEPS_NOTHING for name in UNUSED)
    assert isinstance(strip._divide_cache, FIFOCache) and strip.cell_length == 4


def test_a_row_cut_only_at_its_end_is_not_a_reference_cycle() -> None:
    """Textual keeps ``[self]`` in the row's own divide cache: a cycle, so a dropped row waited
    for the garbage collector. The answer is the same, and the row is freed when dropped."""
    strip = Strip([Segment("판돈 "), Segment("1,200")])
    assert strip.divide([strip.cell_length]) == [strip]
    assert [piece.text for piece in strip.divide([2, 4, strip.cell_length])] == [
        "판",
        "돈",
        " 1,200",
    ]
    gc.collect()
    gc.disable()
    try:
        row = Strip([Segment("판돈")])
        row.divide([row.cell_length])
        del row
        assert gc.collect() == 0
    finally:
        gc.enable()


@pytest.mark.filterwarnings("ignore::ResourceWarning")
async def test_a_played_table_leaves_no_rows_for_the_collector() -> None:
    """Every rendered row of a played table is freed by reference counting: none is found by
    a collection (they were ~870 objects per action, the bulk of the collector's work)."""
    async with Table.open([f"p{i}" for i in range(4)], seed=5, size=(100, 30)) as table:
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for _ in range(8):
                kinds = {action["type"] for action in table.legal(table.actor)}
                await table.press(table.actor, "4" if "call" in kinds else "2")
                if table.game.view(None).get("handPhase") != "betting":
                    break
            gc.collect()
            rows = [o for o in gc.garbage if isinstance(o, (Strip, Segment, FIFOCache))]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert rows == []
