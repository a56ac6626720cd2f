"""Cleaning text that strangers type, before another player's terminal shows it.

Nicknames and chat travel from one SSH client to the screens of others. A
control character, escape sequence or bidi override in them could move the
cursor, recolour, or visually reorder someone else's screen, so every such
string passes through here first. Widths are measured in terminal cells
(``rich.cells``), because Hangul takes two cells per syllable.
"""

from __future__ import annotations

import re
import unicodedata

from rich.cells import cell_len, get_character_cell_size

NICKNAME_MAX_CELLS = 16

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

# Invisible characters that are not format (Cf) characters but still take no
# room or join neighbours in ways terminals disagree about.
_INVISIBLES = frozenset("\u115f\u1160\u3164\uffa0\u180e\ufe0e\ufe0f\u034f")

# SSH user names go through SASLprep (NFKC), which turns a lone "ㅋ" into the
# conjoining jamo U+110F; terminals draw those badly, so map them back.
_COMPAT_JAMO = {
    unicodedata.normalize("NFKC", chr(cp)): chr(cp)
    for cp in range(0x3131, 0x318F)
    if len(unicodedata.normalize("NFKC", chr(cp))) == 1
}

_WHITESPACE_CONTROLS = frozenset("\t\n\r\v\f\u0085\u2028\u2029")
_MAX_COMBINING_PER_CHAR = 2
# Rich/Textual markup uses these; refusing them in nicknames keeps a name like
# "[/b]" from breaking every screen that interpolates it into markup.
_MARKUP_CHARS = frozenset("[]\\")


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc"


def _is_unsafe(ch: str) -> bool:
    """True for characters that must never reach another player's terminal."""
    category = unicodedata.category(ch)
    return (
        category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
        or ch in BIDI_CONTROLS
        or ch in _INVISIBLES
    )


def strip_escapes(text: str) -> str:
    """Remove ANSI/OSC/DCS escape sequences (7- and 8-bit forms)."""
    return _ESCAPE_RE.sub("", text)


def truncate_cells(text: str, max_cells: int) -> str:
    """Cut ``text`` to at most ``max_cells`` terminal cells, never halving a wide char."""
    if max_cells <= 0:
        return ""
    if cell_len(text) <= max_cells:
        return text
    out: list[str] = []
    used = 0
    for ch in text:
        width = get_character_cell_size(ch)
        if used + width > max_cells:
            break
        out.append(ch)
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


def clean_text(text: str, max_cells: int) -> str:
    """Make untrusted text safe to draw: one line, no controls, at most ``max_cells`` wide.

    Escape sequences are removed whole; line breaks and tabs become spaces;
    C0/C1 controls, bidi controls, zero-width and other invisible or
    unassigned characters are dropped; the result is NFC-normalised,
    stripped and cut to ``max_cells`` display cells.
    """
    text = strip_escapes(text)
    text = "".join(" " if ch in _WHITESPACE_CONTROLS else ch for ch in text)
    text = "".join(ch for ch in text if not _is_unsafe(ch))
    text = unicodedata.normalize("NFC", text)
    text = _limit_combining(text)
    return truncate_cells(text.strip(), max_cells).rstrip()


def is_bot_nickname(name: str) -> bool:
    """Room bots are named "봇" + a number (``봇1(신중)``); that prefix is theirs alone."""
    return len(name) >= 2 and name[0] == "봇" and name[1].isdecimal()


def validate_nickname(name: str) -> str:
    """Return the (NFC-normalised) nickname or raise ValueError with a Korean reason.

    Unlike :func:`clean_text` nothing is silently repaired: a nickname is an
    identity, so the player must pick one that is already clean.
    """
    name = unicodedata.normalize("NFC", name)
    name = "".join(_COMPAT_JAMO.get(ch, ch) for ch in name)
    if not name:
        raise ValueError("닉네임이 비어 있어요. 'ssh 닉네임@서버' 형식으로 접속해 주세요.")
    if "\x1b" in name or "\x9b" in name or any(_is_control(ch) for ch in name):
        raise ValueError("닉네임에 제어 문자나 이스케이프 시퀀스는 쓸 수 없어요.")
    if any(ch in BIDI_CONTROLS for ch in name):
        raise ValueError("닉네임에 글자 방향을 바꾸는 보이지 않는 문자는 쓸 수 없어요.")
    if any(ch.isspace() for ch in name):
        raise ValueError("닉네임에 공백은 쓸 수 없어요.")
    if any(_is_unsafe(ch) for ch in name) or not name.isprintable():
        raise ValueError("닉네임에 보이지 않거나 화면에 표시할 수 없는 문자가 있어요.")
    if _limit_combining(name) != name:
        raise ValueError("닉네임에 결합 문자를 맨 앞에 쓰거나 여러 개 겹쳐 쓸 수 없어요.")
    if any(ch in _MARKUP_CHARS for ch in name):
        raise ValueError("닉네임에 [ ] \\ 문자는 쓸 수 없어요.")
    if is_bot_nickname(name):
        raise ValueError(
            "'봇' 다음에 숫자가 오는 닉네임은 봇 전용이에요. 다른 닉네임을 골라 주세요."
        )
    width = cell_len(name)
    if width == 0:
        raise ValueError("닉네임이 화면에 보이지 않아요. 다른 닉네임을 골라 주세요.")
    if width > NICKNAME_MAX_CELLS:
        raise ValueError(
            f"닉네임이 너무 길어요 ({width}칸). 화면에서 {NICKNAME_MAX_CELLS}칸 이하로 "
            "정해 주세요 (한글은 한 글자가 2칸이에요)."
        )
    return name
