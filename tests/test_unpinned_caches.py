"""``seotda_tui/tuning/unpinned_caches.py``: Textual's instance-keyed memos no longer keep instances."""

from __future__ import annotations

import gc
import weakref

from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.color import Color

import seotda_tui.ui.app  # noqa: F401  (applies the change on import)
from seotda_tui.tuning.unpinned_caches import unpin_instance_caches


def test_a_styles_cache_is_freed_after_use_and_answers_as_textual_did() -> None:
    cache = StylesCache()
    base, background = Color(18, 18, 18), Color(0, 48, 84, 0.5)
    inner, outer = cache.get_inner_outer(base, background)
    assert (inner, outer) == StylesCache.get_inner_outer.__wrapped__(cache, base, background)
    assert cache.get_inner_outer(base, background)[0] is inner  # still memoised
    gone = weakref.ref(cache)
    del cache
    gc.collect()
    assert gone() is None


def test_a_parser_is_freed_after_a_kitty_key_and_parses_it_as_textual_did() -> None:
    parser = XTermParser()
    for sequence in ("\x1b[97;5u", "\x1b[13u", "\x1b[1;2A", "\x1b[97;2;65u"):
        mine = parser._parse_extended_key(sequence)
        theirs = XTermParser._parse_extended_key.__wrapped__(parser, sequence)
        assert [(k.key, k.character) for k in mine or []] == [
            (k.key, k.character) for k in theirs or []
        ], sequence
    assert [getattr(k, "key", None) for k in parser.feed("\x1b[97;5u")] == ["ctrl+a"]
    gone = weakref.ref(parser)
    del parser
    gc.collect()
    assert gone() is None


def test_applying_twice_changes_nothing() -> None:
    before = (StylesCache.get_inner_outer, XTermParser._parse_extended_key)
    unpin_instance_caches()
    assert (StylesCache.get_inner_outer, XTermParser._parse_extended_key) == before
