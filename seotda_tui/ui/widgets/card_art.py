"""Hwatu cards drawn with terminal characters (docs/rules.md §3 cards, §9 card pictures).

``render_card`` / ``render_card_lines`` are pure functions (rich only, no Textual) so screens,
tests and a plain-console preview share one drawing; the widget that shows one card,
``CardView``, is :mod:`.card`.

Every width is counted in terminal cells (``rich.cells.cell_len``): Hangul
takes two cells, and a card whose lines differ by one cell tears the table
apart. Colour is never the only signal: month number and kind are always
printed as text. Three styles exist because ssh clients disagree about
characters: ``box`` (box drawing + Hangul), ``ascii`` (printable ASCII only,
for terminals that draw ambiguous-width or Hangul glyphs at the wrong width)
and ``big`` (the month number as large block digits, for low vision).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from rich.cells import cell_len
from rich.text import Text

from engine import Card
from engine.cards import PLANTS

from ...i18n import N_, _
from ..geometry import DIMENSIONS as DIMENSIONS  # (re-exported: drawn here)
from ..geometry import card_dimensions as card_dimensions
from .texts import card_name

SizeName = Literal["large", "compact"]
StyleName = Literal["box", "ascii", "big"]
SIZES: tuple[SizeName, ...] = ("large", "compact")
STYLES: tuple[StyleName, ...] = ("box", "ascii", "big")


#: Months whose 열끗 make 땡잡이 (3·7), 암행어사 (4·7) and 구사 (4·9): marked more strongly.
KEY_YEOL_MONTHS = frozenset({4, 7, 9})

#: Truecolor/256-colour month colours; all ten stay distinct after rich's 256 downgrade.
MONTH_COLORS: dict[int, str] = {
    1: "#3fbf5f",  # 송학: pine green
    2: "#ff6fae",  # 매조: plum pink
    3: "#ffb3d1",  # 벚꽃: pale cherry pink
    4: "#a98bff",  # 흑싸리: wisteria purple
    5: "#4f8fff",  # 난초: iris blue
    6: "#d050d0",  # 모란: peony magenta
    7: "#ff4040",  # 홍싸리: red bush clover
    8: "#ffe14d",  # 공산: moon yellow
    9: "#ffa51f",  # 국진: chrysanthemum gold
    10: "#c8501e",  # 단풍: maple rust
}
#: Hand-picked 16-colour names: rich's automatic downgrade would merge several months.
MONTH_COLORS_16: dict[int, str] = {
    1: "green",
    2: "bright_cyan",
    3: "bright_magenta",
    4: "bright_blue",
    5: "cyan",
    6: "magenta",
    7: "red",
    8: "bright_yellow",
    9: "yellow",
    10: "bright_red",
}
_DARK_16 = frozenset({"green", "cyan", "magenta", "red", "bright_blue", "bright_red"})

#: 열끗 animals, docs/rules.md §9 (msgids: English shows the ASCII names).
ANIMALS: dict[int, str] = {
    2: N_("꾀꼬리"),
    4: N_("두견새"),
    5: N_("다리"),
    6: N_("나비"),
    7: N_("멧돼지"),
    9: N_("술잔"),
    10: N_("사슴"),
}
#: The engine's plant names (engine/cards.py PLANTS), msgids for the large cards.
_PLANT_WORDS = (
    N_("송학"), N_("매조"), N_("벚꽃"), N_("흑싸리"), N_("난초"), N_("모란"), N_("홍싸리"),
    N_("공산"), N_("국진"), N_("단풍"),
)  # fmt: skip
ASCII_PLANTS: dict[int, str] = {
    1: "Songhak",
    2: "Maejo",
    3: "Beotkkot",
    4: "Heuksari",
    5: "Nancho",
    6: "Moran",
    7: "Hongsari",
    8: "Gongsan",
    9: "Gukjin",
    10: "Danpung",
}
ASCII_ANIMALS: dict[int, str] = {
    2: "Warbler",
    4: "Cuckoo",
    5: "Bridge",
    6: "Butterfly",
    7: "Boar",
    9: "Cup",
    10: "Deer",
}
#: One-letter kind codes for ASCII mode: 광 G, 열 Y, 띠 T, 8월 일반 N.
ASCII_CODES = {"gwang": "G", "yeol": "Y", "ribbon": "T", "plain": "N"}
_ASCII_WORDS = {"gwang": "Gwang", "yeol": "Yeol", "ribbon": "Tti", "plain": "Ilban"}
#: The kind's badge on a compact card: one wide character in Korean, two letters in English
#: ("Br", "An", "Rb", "Pl"), so the card keeps its width (msgids, shared with the seat lines).
_HANGUL_SHORT = {"gwang": N_("광"), "yeol": N_("열"), "ribbon": N_("띠"), "plain": N_("일")}

#: Small ASCII plant motifs (1-cell characters only, so safe in every style).
MOTIFS: dict[int, str] = {
    1: "/\\/\\/",
    2: "o.o.o",
    3: "*.*.*",
    4: "|'|'|",
    5: "\\|/|/",
    6: "@ @ @",
    7: ",;,;,",
    8: "~(o)~",
    9: "o*o*o",
    10: "v.v.v",
}
#: Ribbon (띠) colour: red 홍단 months and blue 청단 months, as on real cards.
_BLUE_RIBBON_MONTHS = frozenset({6, 9, 10})
_BACK_COLOR = "#b22222"
_KEY_BADGE_COLOR = "#ffd700"
STRONG_MARK = {"box": "★", "big": "★", "ascii": "*"}


class Border(NamedTuple):
    tl: str
    h: str
    tr: str
    v: str
    bl: str
    br: str


BORDERS: dict[str, Border] = {
    "round": Border("╭", "─", "╮", "│", "╰", "╯"),
    "double": Border("╔", "═", "╗", "║", "╚", "╝"),
    "ascii": Border("+", "-", "+", "|", "+", "+"),
    "ascii_strong": Border("#", "=", "#", "#", "#", "#"),
}

# 3x5 digit font; the compact "big" card folds row pairs into half blocks.
_FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", "###", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", "..#", "..#"),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
}
_HALF = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def is_key_yeol(card: Card | None) -> bool:
    """4·7·9월 열끗: ingredients of 땡잡이, 암행어사 and 구사."""
    return card is not None and card.kind == "yeol" and card.month in KEY_YEOL_MONTHS


def _kind_key(card: Card) -> str:
    if card.kind != "normal":
        return card.kind
    return "plain" if card.month == 8 else "ribbon"


def big_digits(number: int, half_height: bool = False) -> list[str]:
    """``number`` as block-glyph rows: 5 rows of █, or 3 rows of half blocks."""
    glyphs = [_FONT[d] for d in str(number)]
    rows = [" ".join(g[r] for g in glyphs) for r in range(5)]
    if half_height:
        rows.append("." * len(rows[0]))
        return [
            "".join(_HALF[(top == "#", bottom == "#")] for top, bottom in zip(rows[i], rows[i + 1]))
            for i in (0, 2, 4)
        ]
    return [row.replace("#", "█").replace(".", " ") for row in rows]


class _Palette(NamedTuple):
    border: str
    accent: str
    badge: str
    seal: str
    key_badge: str
    ribbon: str
    back: str


def _palette(month: int | None, color_system: str | None) -> _Palette:
    """Styles for one card; ``color_system`` None means monochrome (NO_COLOR)."""
    if color_system is None:
        return _Palette("", "bold", "bold reverse", "bold reverse", "bold reverse", "bold", "")
    standard = color_system in ("standard", "windows")
    if month is None:
        back = "red" if standard else _BACK_COLOR
        return _Palette(back, back, "", "", "", "", back)
    if standard:
        colour = MONTH_COLORS_16[month]
        ink = "bright_white" if colour in _DARK_16 else "black"
        ribbon = "blue" if month in _BLUE_RIBBON_MONTHS else "red"
        return _Palette(
            colour,
            f"bold {colour}",
            f"bold {ink} on {colour}",
            "bold bright_white on red",
            "bold black on bright_yellow",
            f"bold {ribbon}",
            "red",
        )
    colour = MONTH_COLORS[month]
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    ink = "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"
    ribbon = "#4f8fff" if month in _BLUE_RIBBON_MONTHS else "#e03030"
    return _Palette(
        colour,
        f"bold {colour}",
        f"bold {ink} on {colour}",
        "bold #ffffff on #d01818",
        f"bold #000000 on {_KEY_BADGE_COLOR}",
        f"bold {ribbon}",
        _BACK_COLOR,
    )


def span(content: str, style: str) -> Text:
    """Styled as a span, not as the base style, so padding added later stays unstyled."""
    return Text.assemble((content, style))


def fit(text: Text | str, width: int, align: Literal["left", "center", "right"] = "center") -> Text:
    """Pad or crop to exactly ``width`` cells (cell-aware, Hangul = 2)."""
    out = Text(text) if isinstance(text, str) else text.copy()
    out.align(align, width)
    return out


def _frame(rows: list[Text], width: int, border: Border, style: str) -> list[Text]:
    inner = width - 2
    lines = [span(border.tl + border.h * inner + border.tr, style)]
    for row in rows:
        line = span(border.v, style)
        line.append_text(fit(row, inner))
        line.append(border.v, style=style)
        lines.append(line)
    lines.append(span(border.bl + border.h * inner + border.br, style))
    return lines


def _back_rows(style: str, inner: int, count: int, palette: _Palette) -> list[Text]:
    if style == "ascii":
        pattern = ("/\\" * inner)[:inner], ("\\/" * inner)[:inner]
        return [span(pattern[i % 2], palette.back) for i in range(count)]
    return [span("▚" * inner, palette.back) for _ in range(count)]


def _large_rows(card: Card, style: str, p: _Palette, inner: int) -> list[Text]:
    kind = _kind_key(card)
    ascii_only = style == "ascii"
    strong = STRONG_MARK[style]
    badge = span(f" {card.month} ", p.badge)
    top = badge + fit(span(MOTIFS[card.month], p.border), inner - badge.cell_len, "right")
    plant = span(ASCII_PLANTS[card.month] if ascii_only else _(PLANTS[card.month]), p.accent)
    if kind == "gwang":
        emblem = span("(G)" if ascii_only else _("(광)"), p.seal)
    elif kind == "yeol":
        emblem = span(ASCII_ANIMALS[card.month] if ascii_only else _(ANIMALS[card.month]), p.accent)
    elif kind == "ribbon":
        emblem = span("=[T]=" if ascii_only else _("──띠──"), p.ribbon)
    else:
        emblem = span("Geese" if ascii_only else _("기러기"), p.accent)
    if kind == "yeol":
        if ascii_only:
            key_mark, mark = f"{strong}Y{strong}", "[Y]"
        else:
            key_mark, mark = _("{strong}열{strong}").format(strong=strong), _("[열]")
        extra = span(key_mark, p.key_badge) if is_key_yeol(card) else span(mark, p.accent)
    else:
        extra = span(MOTIFS[card.month], p.border)
    if ascii_only:
        label = f"{card.month}{ASCII_CODES[kind]} {_ASCII_WORDS[kind]}"
    else:
        label = card_name(card)
    label_style = p.seal if kind == "gwang" else "bold"
    return [top, plant, emblem, extra, span(label, label_style)]


def _compact_row(card: Card, style: str, p: _Palette) -> Text:
    kind = _kind_key(card)
    mark_style = p.seal if kind == "gwang" else p.accent
    if style == "ascii":
        if is_key_yeol(card):
            return Text.assemble((str(card.month), p.badge), ("Y", mark_style), ("*", p.key_badge))
        return Text.assemble((f"{card.month:>2}", p.badge), (ASCII_CODES[kind], mark_style))
    return Text.assemble((f"{card.month:>2}", p.badge), (_(_HANGUL_SHORT[kind]), mark_style))


def _big_rows(card: Card, size: str, p: _Palette) -> list[Text]:
    kind = _kind_key(card)
    digits = [span(row, p.accent) for row in big_digits(card.month, size == "compact")]
    word = card_name(card) if size == "large" else f"{card.month} {_(_HANGUL_SHORT[kind])}"
    if kind == "plain" and size == "compact":
        plain = _("일반")
        word = f"{card.month} {plain}"
    label = span(word, p.seal if kind == "gwang" else "bold")
    if is_key_yeol(card):
        label.append(STRONG_MARK["big"], style=p.key_badge)
    return digits + [label]


def render_card_lines(
    card: Card | None,
    size: SizeName = "large",
    style: StyleName = "box",
    color_system: str | None = "truecolor",
    *,
    selected: bool = False,
    dimmed: bool = False,
) -> list[Text]:
    """One ``Text`` per terminal line; all lines have the same cell width.

    ``card`` None draws the face-down back. ``color_system`` takes rich's names
    ("truecolor", "256", "standard", "windows") or None for no colour at all.
    ``selected`` makes the outline bold; ``dimmed`` greys the whole card.
    """
    width, height = card_dimensions(size, style)
    inner = width - 2
    p = _palette(card.month if card else None, color_system)
    if style == "ascii":
        border = BORDERS["ascii_strong" if is_key_yeol(card) else "ascii"]
    else:
        border = BORDERS["double" if is_key_yeol(card) else "round"]
    if card is None:
        rows = _back_rows(style, inner, height - 2, p)
    elif style == "big":
        rows = _big_rows(card, size, p)
    elif size == "large":
        rows = _large_rows(card, style, p, inner)
    else:
        rows = [_compact_row(card, style, p)]
    border_style = f"bold {p.border}".strip() if selected else p.border
    lines = _frame(rows, width, border, border_style)
    assert len(lines) == height and all(cell_len(line.plain) == width for line in lines)
    if dimmed:
        for line in lines:
            line.stylize("dim")
    return lines


def render_card(
    card: Card | None,
    size: SizeName = "large",
    style: StyleName = "box",
    color_system: str | None = "truecolor",
    *,
    selected: bool = False,
    dimmed: bool = False,
) -> Text:
    """The card as one multi-line ``Text`` (lines joined by newlines, never wrapped)."""
    lines = render_card_lines(card, size, style, color_system, selected=selected, dimmed=dimmed)
    text = Text("\n", no_wrap=True, overflow="crop").join(lines)
    text.no_wrap = True
    return text
