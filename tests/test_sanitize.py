"""Nicknames and chat must never smuggle terminal control into other players' screens."""

from __future__ import annotations

import unicodedata

import pytest
import wcwidth
from asyncssh.saslprep import SASLPrepError, saslprep
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
    "name",
    ["철수", "영희99", "alice", "Bob_the-builder", "ㅋㅋ", "가" * 8, "é", "👍", "철수😀", "❤"],
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


# -- names that draw blank, emoji whose width terminals disagree about ----------------------

#: Characters that draw as nothing (or as a blank) in a terminal.
BLANKS = (
    "\u2800",  # braille pattern blank
    "\u3164",  # hangul filler
    "\u115f",  # hangul choseong filler
    "\u1160",  # hangul jungseong filler
    "\uffa0",  # halfwidth hangul filler
    "\u034f",  # combining grapheme joiner
    "\u00ad",  # soft hyphen
    "\u180e",  # mongolian vowel separator
    "\u2060",  # word joiner
    "\u2064",  # invisible plus
    "\ufe00",  # variation selector 1
    "\U000e0041",  # tag letter A
    "\U000e0100",  # variation selector 17
    "\U0001d173",  # musical symbol begin beam
    "\U00016fe4",  # khitan small script filler
)
SPACES = ("\u00a0", "\u1680", "\u202f", "\u205f", "\u3000") + tuple(map(chr, range(0x2000, 0x200B)))
#: Emoji sequences that rich measures differently from tmux/xterm/VTE (per code point).
EMOJI_SEQUENCES = (
    "👍🏽",  # skin tone: rich 2, tmux 4
    "👋🏿",
    "☝🏻",  # text-presentation base + skin tone: rich 1, tmux 3
    "🏽",  # a lone skin-tone swatch: rich 0, tmux 2
    "👨\u200d👩\u200d👧",  # ZWJ family: rich 2, tmux 6
    "🇰🇷",  # flag: rich 2, tmux 4
    "🇰",  # a lone regional indicator: rich 1, tmux 2
    "1\ufe0f\u20e3",  # keycap: rich 2, tmux 1
    "❤\ufe0f",  # emoji presentation: rich 2, tmux 1
)


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize("form", ["{}", "{}{}", "victim{}", "{}victim", "철{}수"])
def test_names_with_a_blank_drawing_character_are_refused(blank: str, form: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_nickname(form.format(blank, blank))
    assert "보이지 않거나" in str(info.value)


@pytest.mark.parametrize("space", SPACES)
def test_names_with_any_kind_of_space_are_refused(space: str) -> None:
    for name in (space, f"victim{space}", f"a{space}b"):
        with pytest.raises(ValueError, match="공백"):
            validate_nickname(name)


@pytest.mark.parametrize("blank", BLANKS + SPACES)
def test_blank_names_are_refused_after_saslprep_too(blank: str) -> None:
    """What the server really gets: asyncssh SASLpreps (NFKC, drops some, maps spaces)."""
    for name in (blank, "victim" + blank):
        try:
            arrived = saslprep(name)
        except SASLPrepError:
            continue  # refused by asyncssh itself
        if arrived == "victim":
            continue  # SASLprep dropped it: the name is then just "victim"
        with pytest.raises(ValueError):
            validate_nickname(arrived)


@pytest.mark.parametrize("name", ["\u0301", "\u20dd", "\u093e", "\u093e\u0301"])
def test_names_that_are_only_marks_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        validate_nickname(name)


@pytest.mark.parametrize("emoji", EMOJI_SEQUENCES)
def test_emoji_sequences_in_names_are_refused_in_korean(emoji: str) -> None:
    for name in (emoji, f"철수{emoji}", f"{emoji}x"):
        with pytest.raises(ValueError, match="폭이 다르게"):
            validate_nickname(name)


def test_names_whose_width_terminals_disagree_about_are_refused() -> None:
    # Devanagari vowel sign AA (a spacing mark): rich 1, tmux 1, grapheme-aware terminals 2
    with pytest.raises(ValueError, match="폭이 다르게"):
        validate_nickname("का")


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ("👍🏽 좋아요", "👍 좋아요"),
        ("☝🏻 하나", "☝ 하나"),
        ("👨\u200d👩\u200d👧 가족", "👨 가족"),  # a ZWJ sequence: its first emoji only
        ("👩\U0001f3fd\u200d💻 코딩", "👩 코딩"),
        ("🏃\u200d♀\ufe0f 달려", "🏃 달려"),
        ("🏳\ufe0f\u200d🌈", "🏳"),
        ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u0937"),  # a ZWJ in a script: only it goes
        ("🇰🇷 화이팅", "화이팅"),
        ("1\ufe0f\u20e3번", "1번"),
        ("❤\ufe0f 고마워", "❤ 고마워"),
        ("🏽🏽", ""),
        ("का", "क"),
    ],
)
def test_clean_text_keeps_the_base_emoji_and_drops_what_terminals_disagree_on(
    text: str, cleaned: str
) -> None:
    assert clean_text(text, 40) == cleaned


def test_clean_text_drops_blank_characters_and_maps_other_spaces() -> None:
    assert clean_text("a" + "b".join(BLANKS) + "c", 40) == "a" + "b" * (len(BLANKS) - 1) + "c"
    assert clean_text("".join(BLANKS), 40) == ""
    assert (
        clean_text("가" + "나".join(SPACES) + "다", 80) == "가" + " 나" * (len(SPACES) - 1) + " 다"
    )
    assert clean_text("\u3000\u3164\u2800", 40) == ""
    assert clean_text("\u1161\u1161a", 40) == "a"  # vowel jamo with no consonant: no glyph


def test_truncate_cells_never_parts_an_emoji_from_its_modifier() -> None:
    assert truncate_cells("ab👍🏽", 3) == "ab"
    assert truncate_cells("x👍🏽y", 3) == "x👍🏽"
    assert truncate_cells("e\u0301" * 3, 2) == "e\u0301e\u0301"
    assert truncate_cells("\u1100\u1161\u11a8\u1100\u1161", 3) == "\u1100\u1161\u11a8"


# Code points that make width trouble, mixed into arbitrary text by the properties below.
_TRICKY = (
    list(BLANKS + SPACES)
    + list("".join(EMOJI_SEQUENCES))
    + list("👍👋😀⌚©☝🏻🏿\u200d\ufe0e\ufe0f\u20e3\u20dd🇰🇷🇯🇵")
    + list("\u1100\u1161\u11a8\u115f\u1160가각ㅋ\u0301\u0308\u093e\u094d\u0915\u0937")
    + list("\u0e01\u0e31\u0e33 a\t\n\x1b[]")
)
_tricky_text = st.text(st.one_of(st.sampled_from(_TRICKY), st.characters()), max_size=60)


def _per_code_point(text: str) -> int:
    """What tmux, xterm, VTE and pyte draw: each code point's own wcwidth."""
    return sum(wcwidth.wcwidth(ch) for ch in text)


@settings(max_examples=500, deadline=None)
@given(_tricky_text, st.integers(min_value=0, max_value=40))
def test_clean_text_width_is_what_every_terminal_draws(text: str, max_cells: int) -> None:
    out = clean_text(text, max_cells)
    assert cell_len(out) == _per_code_point(out) == wcwidth.wcswidth(out) <= max_cells
    assert not any(ch in out for ch in BLANKS + SPACES)
    assert not any(ch in out for ch in "\u200d\ufe0e\ufe0f\u20e3🏻🏽🏿🇰🇷🇯🇵")
    assert clean_text(out, max_cells) == out


@settings(max_examples=500, deadline=None)
@given(_tricky_text)
def test_accepted_nicknames_draw_as_wide_everywhere_and_never_blank(name: str) -> None:
    try:
        nick = validate_nickname(name)
    except ValueError:
        return
    assert 1 <= cell_len(nick) == _per_code_point(nick) == wcwidth.wcswidth(nick)
    assert not any(ch in nick for ch in BLANKS + SPACES)
    assert all(cell_len(cluster) > 0 for cluster in wcwidth.iter_graphemes(nick))


@settings(max_examples=300, deadline=None)
@given(_tricky_text, st.integers(min_value=0, max_value=40))
def test_truncate_cells_cuts_between_grapheme_clusters(text: str, max_cells: int) -> None:
    out = truncate_cells(text, max_cells)
    clusters = list(wcwidth.iter_graphemes(text))
    kept = list(wcwidth.iter_graphemes(out))
    assert kept == clusters[: len(kept)]
    assert cell_len(out) <= max(max_cells, 0)
