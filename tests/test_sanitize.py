"""Nicknames and chat must never smuggle terminal control into other players' screens."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from seotda_tui.sanitize import (
    BIDI_CONTROLS,
    NICKNAME_MAX_CELLS,
    clean_text,
    strip_escapes,
    truncate_cells,
    validate_nickname,
)


@pytest.mark.parametrize(
    "name", ["철수", "영희99", "alice", "Bob_the-builder", "ㅋㅋ", "가" * 8, "é"]
)
def test_valid_nicknames_pass_unchanged(name: str) -> None:
    assert validate_nickname(name) == unicodedata.normalize("NFC", name)


def test_nickname_is_nfc_normalised() -> None:
    decomposed = unicodedata.normalize("NFD", "철수")
    assert decomposed != "철수"
    assert validate_nickname(decomposed) == "철수"


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "비어 있어요"),
        ("a\x1b[31mb", "이스케이프"),
        ("\x1b]0;pwned\x07", "이스케이프"),
        ("bell\x07", "제어 문자"),
        ("c1\x9bcsi", "제어 문자"),
        ("del\x7f", "제어 문자"),
        ("evil\u202eesrever", "방향"),
        ("iso\u2066late", "방향"),
        ("a b", "공백"),
        ("tab\there", "제어 문자"),
        ("zero\u200bwidth", "보이지 않거나"),
        ("bom\ufeff", "보이지 않거나"),
        ("\u3164", "보이지 않거나"),  # Hangul filler: looks blank
        ("\ue000pua", "보이지 않거나"),
        ("\u0301a", "결합 문자"),
        ("x\u0301\u0301\u0301", "결합 문자"),
        ("[b]x", "[ ]"),
        ("a\\", "[ ]"),
        ("가" * 9, "너무 길어요"),
        ("x" * (NICKNAME_MAX_CELLS + 1), "너무 길어요"),
    ],
)
def test_bad_nicknames_are_refused_in_korean(name: str, fragment: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_nickname(name)
    assert fragment in str(info.value)


def test_lone_conjoining_jamo_become_compatibility_jamo() -> None:
    # what SASLprep (NFKC) makes of "ㅋㅋ" on its way through SSH
    assert validate_nickname("\u110f\u110f") == "ㅋㅋ"
    assert validate_nickname("ㅇㅇ") == "ㅇㅇ"


def test_nickname_limit_counts_cells_not_characters() -> None:
    assert validate_nickname("가" * 8) == "가" * 8  # 16 cells
    assert validate_nickname("x" * 16) == "x" * 16


def test_clean_text_removes_sequences_whole() -> None:
    assert clean_text("\x1b[1;31m빨강\x1b[0m", 20) == "빨강"
    assert clean_text("a\x1b]0;title\x07b", 20) == "ab"
    assert clean_text("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", 20) == "alinkb"
    assert clean_text("a\x9b2Jb", 20) == "ab"
    assert clean_text("a\x1bPdcs\x1b\\b", 20) == "ab"
    assert clean_text("unterminated \x1b[", 20) == "unterminated"


def test_clean_text_drops_invisibles_and_bidi() -> None:
    assert clean_text("he\u202ello\u2066!\u2069", 20) == "hello!"
    assert clean_text("zero\u200b\u200d\ufeffwidth\u00ad", 20) == "zerowidth"
    assert clean_text("a\x00b\x07c\x7fd", 20) == "abcd"


def test_clean_text_makes_one_line() -> None:
    assert clean_text("  첫 줄\n둘째\r\n셋째\t끝  ", 40) == "첫 줄 둘째  셋째 끝"


def test_clean_text_truncates_by_cells_without_splitting_wide_chars() -> None:
    assert clean_text("가나다라", 5) == "가나"
    assert clean_text("ab가나", 3) == "ab"
    assert truncate_cells("abc", 0) == ""
    assert cell_len(clean_text("한글과 English 섞어서 길게 쓴 채팅 메시지", 11)) <= 11


def test_clean_text_caps_stacked_combining_marks() -> None:
    zalgo = "x" + "\u0301" * 30 + "b"
    assert clean_text(zalgo, 10) == "x\u0301\u0301b"


def test_strip_escapes_keeps_plain_text() -> None:
    assert strip_escapes("그냥 글자 [31m") == "그냥 글자 [31m"


_UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.integers(min_value=0, max_value=40))
def test_clean_text_output_is_always_safe(text: str, max_cells: int) -> None:
    out = clean_text(text, max_cells)
    assert cell_len(out) <= max_cells
    assert "\x1b" not in out
    assert not any(unicodedata.category(ch) in _UNSAFE_CATEGORIES for ch in out)
    assert not any(ch in BIDI_CONTROLS for ch in out)
    assert clean_text(out, max_cells) == out  # idempotent


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_accepted_nicknames_are_always_safe(name: str) -> None:
    try:
        nick = validate_nickname(name)
    except ValueError:
        return
    assert 1 <= cell_len(nick) <= NICKNAME_MAX_CELLS
    assert clean_text(nick, NICKNAME_MAX_CELLS) == nick
