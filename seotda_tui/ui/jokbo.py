"""The 족보 (hand ranking) as text, for one room's options: the help screen's rows and the short
list beside the table on wide terminals.

Why its own module: the help screen (``screens/help_text.py``) and the table presenter
(``present/table.py``, which may not import a screen) draw the same rows; one source, so the
list beside the table and the help's table never disagree. Pure text (no Textual). Only the
specials the room's options switch on are listed (§9 "특수패는 켜진 옵션만 표시").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size

from engine import Options
from engine.cards import card_id

from ..i18n import N_, _
from .room_rules import gusa_effect
from .widgets.texts import card_short


def _c(month: int, special: bool) -> int:
    return card_id(month, special)


@dataclass(frozen=True)
class JokboRow:
    """One 족보 row; ``name`` and ``note`` in the current language (made per call),
    ``matches`` over the engine's (Korean) hand name, ``section`` a msgid."""

    name: str
    cards: tuple[int, int]
    note: str
    matches: str  # regex over the own hand's name, for the highlight
    section: str


SPECIALS = N_("특수패")


def _row(name: str, cards: tuple[int, int], note: str, matches: str, section: str) -> JokboRow:
    return JokboRow(_(name), cards, _(note), matches, section)


def jokbo_rows(options: Options) -> list[JokboRow]:
    """§6.1 from the highest down, then the §6.2 specials the options switch on."""
    rows = [
        _row(
            N_("38광땡"),
            (_c(3, True), _c(8, True)),
            N_("3월 광 + 8월 광, 가장 높아요"),
            "38광땡",
            "광땡",
        )
    ]
    if options.gwang_ttaeng == "all":
        rows.append(
            _row(N_("18광땡"), (_c(1, True), _c(8, True)), N_("1월 광 + 8월 광"), "18광땡", "광땡")
        )
        rows.append(
            _row(N_("13광땡"), (_c(1, True), _c(3, True)), N_("1월 광 + 3월 광"), "13광땡", "광땡")
        )
    rows += [
        _row(N_("장땡 (10땡)"), (_c(10, True), _c(10, False)), N_("10월 두 장"), "장땡", "땡"),
        _row(
            N_("9땡 ~ 2땡"),
            (_c(9, True), _c(9, False)),
            N_("같은 월 두 장, 숫자가 클수록 높아요"),
            r"[2-9]땡",
            "땡",
        ),
        _row(N_("삥땡 (1땡)"), (_c(1, True), _c(1, False)), N_("1월 두 장"), "삥땡", "땡"),
        _row(N_("알리"), (_c(1, False), _c(2, True)), N_("1월 + 2월"), "알리", "중간 족보"),
        _row(N_("독사"), (_c(1, False), _c(4, False)), N_("1월 + 4월"), "독사", "중간 족보"),
        _row(N_("구삥"), (_c(1, False), _c(9, False)), N_("1월 + 9월"), "구삥", "중간 족보"),
        _row(N_("장삥"), (_c(1, False), _c(10, False)), N_("1월 + 10월"), "장삥", "중간 족보"),
        _row(N_("장사"), (_c(4, False), _c(10, False)), N_("4월 + 10월"), "장사", "중간 족보"),
        _row(N_("세륙"), (_c(4, False), _c(6, False)), N_("4월 + 6월"), "세륙", "중간 족보"),
        _row(
            N_("갑오 (9끗)"),
            (_c(4, False), _c(5, False)),
            N_("두 장 합의 일의 자리가 9"),
            "갑오",
            "끗",
        ),
        _row(
            N_("8끗 ~ 1끗"),
            (_c(3, False), _c(5, False)),
            N_("예: 3 + 5 = 8끗, 7 + 8 = 15 → 5끗"),
            r"[1-8]끗",
            "끗",
        ),
        _row(
            N_("망통 (0끗)"),
            (_c(2, False), _c(8, False)),
            N_("일의 자리가 0, 가장 낮아요"),
            "망통",
            "끗",
        ),
    ]
    if options.ttaengjabi == "strict":
        rows.append(
            _row(
                N_("땡잡이"),
                (_c(3, True), _c(7, True)),
                N_("3월 광 + 7월 열끗: 상대 최고패가 1~9땡이면 이겨요 (평소엔 망통)"),
                "땡잡이",
                SPECIALS,
            )
        )
    elif options.ttaengjabi == "loose":
        rows.append(
            _row(
                N_("땡잡이"),
                (_c(3, False), _c(7, False)),
                N_("3월 + 7월 아무 패: 상대 최고패가 1~9땡이면 이겨요 (평소엔 망통)"),
                "땡잡이",
                SPECIALS,
            )
        )
    if options.amhaeng:
        rows.append(
            _row(
                N_("암행어사"),
                (_c(4, True), _c(7, True)),
                N_("4월 열끗 + 7월 열끗: 13·18광땡을 잡아요 (평소엔 1끗)"),
                "암행어사",
                SPECIALS,
            )
        )
    if options.gusa:
        rows.append(
            JokboRow(
                _("구사"),
                (_c(4, False), _c(9, True)),
                _("4월 + 9월: 상대 최고패가 알리 이하면 {effect} (평소엔 3끗)").format(
                    effect=gusa_effect(options)
                ),
                "구사",
                SPECIALS,
            )
        )
        mung = options.effective_mung_gusa
        if mung != "off":
            upto = {"upTo8": N_("8땡"), "upTo9": N_("9땡"), "upToJang": N_("장땡")}[mung]
            note = _("4월 열끗 + 9월 열끗: 상대가 {upto} 이하면 {effect} (평소엔 3끗)")
            rows.append(
                JokboRow(
                    _("멍텅구리구사"),
                    (_c(4, True), _c(9, True)),
                    note.format(upto=_(upto), effect=gusa_effect(options)),
                    "멍텅구리구사",
                    SPECIALS,
                )
            )
    return rows


def row_matches(row: JokboRow, hand_name: str | None) -> bool:
    return bool(hand_name) and re.fullmatch(row.matches, hand_name or "") is not None


def _short(card: int) -> str:
    return card_short({"id": card})


#: The side list's name column: at least this wide (the Korean names and a space) and at most
#: :data:`SIDE_NAME_MOST` (the side is 40 columns on a wide terminal: mark, names, cards).
SIDE_NAME_LEAST, SIDE_NAME_MOST = 13, 22


def _wrap_words(text: str, cells: int) -> list[str]:
    """``text`` in lines of at most ``cells`` cells, broken between words (a longer word is
    cut)."""
    lines: list[str] = []
    for word in text.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and cell_len(joined) <= cells:
            lines[-1] = joined
        else:
            lines.append(word)
    return [piece for line in lines for piece in _cut(line, cells)]


def _cut(line: str, cells: int) -> list[str]:
    pieces = []
    while cell_len(line) > cells:
        piece = set_cell_size(line, cells).rstrip()
        pieces.append(piece)
        line = line[len(piece) :]
    return [*pieces, line]


def jokbo_side_parts(options: Options, hand_name: str | None) -> list[tuple[str, str]]:
    """The 족보 as a short list beside the table (wide terminals), the own hand marked. The
    name column is as wide as the longest name (English names are longer than Korean ones);
    a name still too long goes on on the next line under itself, never under the cards."""
    parts: list[tuple[str, str]] = [(_("족보 (높은 순) · ? 자세히"), "bold")]
    rows = jokbo_rows(options)
    names = [row.name.split(" (")[0] for row in rows]
    column = min(SIDE_NAME_MOST, max(SIDE_NAME_LEAST, *(cell_len(n) + 1 for n in names)))
    for row, name in zip(rows, names, strict=True):
        mine = row_matches(row, hand_name)
        cards = " ".join(_short(c) for c in row.cards)
        first, *rest = _wrap_words(name, column - 1)
        line = f"\n{'▶' if mine else ' '} {set_cell_size(first, column)}{cards}"
        line += "".join(f"\n  {more}" for more in rest)
        style = "bold reverse" if mine else "magenta" if row.section == SPECIALS else ""
        parts.append((line, style))
    return parts
