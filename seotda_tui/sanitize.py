"""Cleaning text that strangers type, before another player's terminal shows it.

Nicknames and chat travel from one SSH client to the screens of others. A
control character, escape sequence or bidi override in them could move the
cursor, recolour, or visually reorder someone else's screen, so every such
string passes through here first. Widths are measured in terminal cells
(``rich.cells``), because Hangul takes two cells per syllable.

Two further kinds of text are kept out:

* characters that draw nothing (Hangul fillers, braille blank, default-ignorable
  code points, spaces other than U+0020): a name made of them looks empty, and
  "victim" plus one of them looks like "victim";
* characters whose width terminals disagree about. Textual lays a line out with
  rich's ``cell_len``; tmux, xterm and VTE draw per code point (``wcwidth``),
  newer terminals per grapheme cluster (``wcwidth.wcswidth``). A skin-tone
  emoji is 2 cells to rich but 4 in tmux, so the line's last glyphs fall off
  other players' screens. Only clusters on which all three agree get through;
  emoji modifiers, flags, keycaps, variation selectors and ZWJ are dropped (the
  base emoji stays: of a ZWJ sequence such as 👨‍👩‍👧 only its first emoji, 👨) or,
  in a nickname, refused.
"""

from __future__ import annotations

import re
import unicodedata

import wcwidth
from rich.cells import cell_len

from .i18n import N_

NICKNAME_MAX_CELLS = 16
#: (a msgid, so its number is written out: keep it equal to NICKNAME_MAX_CELLS)
_TOO_LONG = N_(
    "닉네임이 너무 길어요. 화면에서 16칸 이하로 정해 주세요 (한글은 한 글자가 2칸이에요)."
)
assert "16칸" in _TOO_LONG and NICKNAME_MAX_CELLS == 16

# Terminal escape sequences, 7-bit (ESC ...) and 8-bit (C1) forms. Removed as
# whole sequences so no "[31m" debris is left behind.
_ESCAPE_RE = re.compile(
    r"""
      (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]?                  # CSI ... final
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])               # OSC/DCS/SOS/PM/APC
        [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)?              # ... up to ST/BEL
    | \x1b [ -/]* [0-~]?                                    # other ESC sequences
    """,
    re.VERBOSE,
)

# Bidi embedding/override/isolate and mark characters: they reorder text that
# follows them, even outside the string they came in.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# SSH user names go through SASLprep (NFKC), which turns a lone "ㅋ" into the
# conjoining jamo U+110F; terminals draw those badly, so map them back.
_COMPAT_JAMO = {
    unicodedata.normalize("NFKC", chr(cp)): chr(cp)
    for cp in range(0x3131, 0x318F)
    if len(unicodedata.normalize("NFKC", chr(cp))) == 1
}

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties): drawn as nothing.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
# Printable characters whose glyph is empty: braille blank, Khitan filler.
_BLANK_GLYPHS = frozenset("\u2800\U00016fe4")

# Emoji sequence parts that change a neighbour's width differently per
# terminal: ZWJ, variation selectors, skin tones, flag letters, the keycap.
_EMOJI_MODIFIERS = frozenset(
    "\u200d\ufe0e\ufe0f\u20e3"
    + "".join(map(chr, range(0x1F3FB, 0x1F400)))  # Fitzpatrick skin tones
    + "".join(map(chr, range(0x1F1E6, 0x1F200)))  # regional indicators (flags)
)

ZWJ = "\u200d"
_WHITESPACE_CONTROLS = frozenset("\t\n\r\v\f\u0085\u2028\u2029")
_MAX_COMBINING_PER_CHAR = 2
# Rich/Textual markup uses these; refusing them in nicknames keeps a name like
# "[/b]" from breaking every screen that interpolates it into markup.
_MARKUP_CHARS = frozenset("[]\\")


def _is_blank(ch: str) -> bool:
    """True for characters that draw nothing, other than the plain space (U+0020)."""
    code = ord(ch)
    if code < 0x80:
        return False
    return (
        ch in _BLANK_GLYPHS
        or unicodedata.category(ch) == "Zs"
        or any(lo <= code <= hi for lo, hi in _DEFAULT_IGNORABLE)
    )


def _width_agreed(text: str) -> int | None:
    """``text``'s width if rich, per-code-point terminals (tmux, xterm, VTE) and
    grapheme-aware terminals all agree on it, else None."""
    per_code_point = 0
    for ch in text:
        width = wcwidth.wcwidth(ch)
        if width < 0:
            return None
        per_code_point += width
    width = cell_len(text)
    return width if width == per_code_point == wcwidth.wcswidth(text) else None


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def _is_unsafe(ch: str) -> bool:
    """True for characters that must never reach another player's terminal."""
    category = unicodedata.category(ch)
    return (
        category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
        or ch in BIDI_CONTROLS
        or _is_blank(ch)
    )


def strip_escapes(text: str) -> str:
    """Remove ANSI/OSC/DCS escape sequences (7- and 8-bit forms)."""
    return _ESCAPE_RE.sub("", text)


def truncate_cells(text: str, max_cells: int) -> str:
    """Cut ``text`` to at most ``max_cells`` cells, between grapheme clusters.

    A wide character is never halved, nor an emoji parted from its modifier or
    a letter from its combining marks.
    """
    if max_cells <= 0:
        return ""
    if cell_len(text) <= max_cells:
        return text
    out: list[str] = []
    used = 0
    for cluster in wcwidth.iter_graphemes(text):
        width = cell_len(cluster)
        if used + width > max_cells:
            break
        out.append(cluster)
        used += width
    return "".join(out)


def _limit_combining(text: str) -> str:
    """Drop leading combining marks and cap stacked ones ("Zalgo" text spills over rows)."""
    out: list[str] = []
    run = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            if not out or run >= _MAX_COMBINING_PER_CHAR:
                continue
            run += 1
        else:
            run = 0
        out.append(ch)
    return "".join(out)


def _agreed_cluster(cluster: str) -> str:
    """``cluster`` if every terminal draws it as wide as rich measures it, else its
    base with its combining marks, or the base alone, or nothing (which is also
    what a cluster that draws nothing, e.g. a lone vowel jamo, becomes)."""
    if _width_agreed(cluster):
        return cluster
    marks = "".join(ch for ch in cluster[1:] if unicodedata.category(ch) in ("Mn", "Me"))
    for candidate in (cluster[0] + marks, cluster[0]):
        if _width_agreed(candidate):
            return candidate
    return ""


def emoji_bases(text: str) -> str:
    """Of each emoji ZWJ sequence (👨‍👩‍👧, 🏃‍♀️) only its first emoji, and no ZWJ left.

    Terminals disagree on how wide a joined sequence is; its parts side by side (👨👩👧, 🏃♀)
    would be a wider, different message than the one glyph the sender typed. A ZWJ after
    anything but an emoji (e.g. in Indic scripts) only shapes its neighbours: it goes alone.
    """
    if ZWJ not in text:
        return text
    kept: list[str] = []
    for cluster in wcwidth.iter_graphemes(text):
        if ZWJ in cluster[1:] and unicodedata.category(cluster[0]) == "So":
            cluster = cluster[: cluster.index(ZWJ)]
        kept.append(cluster.replace(ZWJ, ""))
    return "".join(kept)


def _settle(text: str) -> str:
    """One round of the structural repairs: NFC, no leading/trailing space, no
    leading or piled combining marks, only clusters of agreed width."""
    text = unicodedata.normalize("NFC", text).strip()
    text = _limit_combining(text)
    if not text.isascii():
        text = "".join(_agreed_cluster(c) for c in wcwidth.iter_graphemes(text))
    return text


def clean_text(text: str, max_cells: int) -> str:
    """Make untrusted text safe to draw: one line, no controls, at most ``max_cells`` wide.

    Escape sequences are removed whole; line breaks, tabs and other spaces
    become U+0020; controls, bidi controls, blank-drawing (fillers,
    default-ignorable) and unassigned characters and emoji modifiers (skin
    tones, flags, keycaps, variation selectors) are dropped, of an emoji ZWJ
    sequence only its first emoji stays (:func:`emoji_bases`); stacked
    combining marks are capped and any cluster whose width terminals disagree
    about is cut back to its base or dropped. The result is NFC-normalised,
    stripped and cut to ``max_cells`` cells, and ``cell_len`` of it is what
    every terminal draws.
    """
    text = strip_escapes(text)
    text = "".join(
        " " if ch in _WHITESPACE_CONTROLS or unicodedata.category(ch) == "Zs" else ch for ch in text
    )
    text = "".join(ch for ch in text if ch == ZWJ or not (_is_unsafe(ch) or ch in _EMOJI_MODIFIERS))
    # Bound the repair rounds' work: beyond 8 code points a cell it is piled marks anyway.
    text = emoji_bases(text.strip()[: 8 * max(0, max_cells)])
    settled = _settle(text)
    while settled != text:  # each round after the first only removes code points
        text, settled = settled, _settle(settled)
    return truncate_cells(text, max_cells).rstrip()


def is_bot_nickname(name: str) -> bool:
    """Room bots are named "봇" + a number (``봇1(신중)``); that prefix is theirs alone."""
    return len(name) >= 2 and name[0] == "봇" and name[1].isdecimal()


# The reasons are msgids (seotda_tui/i18n.py): auth says them in the server's language.
_UNEVEN_WIDTH = N_(
    "닉네임에 피부색·국기·키캡 이모지나 이모지를 잇는 문자처럼 터미널마다 폭이 다르게 "
    "그려지는 문자는 쓸 수 없어요. 기본 이모지나 다른 글자를 써 주세요."
)


def validate_nickname(name: str) -> str:
    """Return the (NFC-normalised) nickname or raise ValueError with a Korean reason.

    Unlike :func:`clean_text` nothing is silently repaired: a nickname is an
    identity, so the player must pick one that is already clean.
    """
    name = unicodedata.normalize("NFC", name)
    name = "".join(_COMPAT_JAMO.get(ch, ch) for ch in name)
    if not name:
        raise ValueError(N_("닉네임이 비어 있어요. 'ssh 닉네임@서버' 형식으로 접속해 주세요."))
    if "\x1b" in name or "\x9b" in name or any(_is_control(ch) for ch in name):
        raise ValueError(N_("닉네임에 제어 문자나 이스케이프 시퀀스는 쓸 수 없어요."))
    if any(ch in BIDI_CONTROLS for ch in name):
        raise ValueError(N_("닉네임에 글자 방향을 바꾸는 보이지 않는 문자는 쓸 수 없어요."))
    if any(ch.isspace() for ch in name):
        raise ValueError(N_("닉네임에 공백은 쓸 수 없어요."))
    if any(ch in _EMOJI_MODIFIERS for ch in name):
        raise ValueError(_UNEVEN_WIDTH)
    if any(_is_unsafe(ch) for ch in name) or not name.isprintable():
        raise ValueError(N_("닉네임에 보이지 않거나 화면에 표시할 수 없는 문자가 있어요."))
    if _limit_combining(name) != name:
        raise ValueError(N_("닉네임에 결합 문자를 맨 앞에 쓰거나 여러 개 겹쳐 쓸 수 없어요."))
    if any(ch in _MARKUP_CHARS for ch in name):
        raise ValueError(N_("닉네임에 [ ] \\ 문자는 쓸 수 없어요."))
    if is_bot_nickname(name):
        raise ValueError(
            N_("'봇' 다음에 숫자가 오는 닉네임은 봇 전용이에요. 다른 닉네임을 골라 주세요.")
        )
    widths = [_width_agreed(cluster) for cluster in wcwidth.iter_graphemes(name)]
    if None in widths:
        raise ValueError(_UNEVEN_WIDTH)
    if 0 in widths:  # e.g. a lone spacing mark: draws nothing
        raise ValueError(N_("닉네임에 보이지 않거나 화면에 표시할 수 없는 문자가 있어요."))
    if cell_len(name) > NICKNAME_MAX_CELLS:
        raise ValueError(_TOO_LONG)
    return name


#: ``ssh 철수+K7QX3@host``: what follows the first ``+`` names the room to go straight to.
JOIN_SEPARATOR = "+"
#: Longest room part of a login name that is looked at (a code is 5, a room name 20 cells).
JOIN_TARGET_MAX = 64


def split_login(username: str) -> tuple[str, str | None]:
    """The nickname part of an SSH login name, and the room code or name after ``+``, if any.

    Only the nickname part is an identity (checked by :func:`validate_nickname`); the room part
    is cleaned like any typed text, and an empty or over-long one is ignored (plain lobby).
    """
    nickname, sep, target = username.partition(JOIN_SEPARATOR)
    if not sep or len(target) > JOIN_TARGET_MAX:
        return nickname, None
    cleaned = clean_text(unicodedata.normalize("NFC", target), JOIN_TARGET_MAX)
    return nickname, cleaned or None
