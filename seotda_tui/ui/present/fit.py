"""Fitting the table's texts into the rows the layout gave them (80×24 with 16-cell names).

The own hand's texts sit beside the cards, in a row docked at the bottom: a text taller than that
row would grow it over the pot and the result banner above. So the texts are cut to the row on
purpose, least useful lines first: the first-hand tip, blank lines, explanations, then the rest.
A tip wider than the row is broken between its " · "-separated phrases first, never inside one
(the terminal would wrap it at any space: "… t" / "채팅").
"""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from textual.content import Content

from ...i18n import _

Part = tuple[str, str]

#: Lower drops first.
_KEEP = {"tip": 0, "blank": 1, "plain": 2, "other": 3}


def _lines(parts: list[Part]) -> list[list[Part]]:
    """The parts split at their newlines, one list of parts per line."""
    lines: list[list[Part]] = [[]]
    for text, style in parts:
        for i, piece in enumerate(text.split("\n")):
            if i:
                lines.append([])
            if piece:
                lines[-1].append((piece, style))
    return lines


def _rank(line: list[Part]) -> int:
    if not line or not "".join(t for t, _ in line).strip():
        return _KEEP["blank"]
    if any("italic" in style for _, style in line):
        return _KEEP["tip"]
    if all(not style for _, style in line):
        return _KEEP["plain"]
    return _KEEP["other"]


#: What separates a tip's phrases ("처음이세요? ? 족보·규칙 · 1~8 베팅 · t 채팅").
TIP_SEPARATOR = " · "


def _break_tip(line: list[Part], width: int) -> list[list[Part]]:
    """A tip line as lines of whole phrases that each fit ``width`` (a phrase wider than
    that is left out rather than cut); any other line as it is."""
    text = "".join(t for t, _ in line)
    if width <= 0 or _rank(line) != _KEEP["tip"] or cell_len(text) <= width:
        return [line]
    style = line[0][1]
    pieces: list[str] = []
    for phrase in text.split(TIP_SEPARATOR):
        joined = f"{pieces[-1]}{TIP_SEPARATOR}{phrase}" if pieces else phrase
        if pieces and cell_len(joined) <= width:
            pieces[-1] = joined
        else:
            pieces.append(phrase)
    return [[(piece, style)] for piece in pieces if cell_len(piece) <= width]


def _rows(line: list[Part], width: int) -> int:
    """The rows ``line`` takes once the terminal wraps it at its spaces (as Textual does: a
    word wrapped whole can leave more rows than its cells ÷ ``width``)."""
    if width <= 0:
        return 1
    return wrapped_rows("".join(t for t, _ in line), width)


@lru_cache(maxsize=1024)  # the same lines at the same widths on every seat's screen
def wrapped_rows(text: str, width: int) -> int:
    """The rows one line of ``text`` takes in a ``width``-cell widget: Textual's public
    ``Content.wrap``, the wrap a ``Line`` (rich ``Text`` made ``Content``) is drawn with.
    ``textual._wrap`` (used before) breaks some lines elsewhere: a tip at 10 cells took 11
    rows by it and 10 on screen. The memo makes it cheaper than that was (BENCHMARKS.md)."""
    return len(Content(text).wrap(width))


def text_rows(parts: list[Part], width: int) -> int:
    """The rows ``parts`` take at ``width`` (each of its lines wrapped)."""
    return sum(_rows(line, width) for line in _lines(parts))


def fit_parts(parts: list[Part], rows: int, width: int) -> list[Part]:
    """``parts`` with whole lines dropped (lowest :func:`_rank` first, the last of a rank
    first) until what is left wraps into ``rows`` rows of ``width`` cells."""
    lines = [piece for line in _lines(parts) for piece in _break_tip(line, width)]
    while len(lines) > 1 and sum(_rows(line, width) for line in lines) > rows:
        worst = min(range(len(lines)), key=lambda i: (_rank(lines[i]), -i))
        del lines[worst]
    return _joined(lines)


#: What separates the places of a game's ranking packed onto one line.
PLACE_SEPARATOR = " · "


def _pack(texts: list[str], width: int) -> list[str]:
    """``texts`` joined by :data:`PLACE_SEPARATOR` into as few lines of ``width`` as they go."""
    lines: list[str] = []
    for text in texts:
        joined = f"{lines[-1]}{PLACE_SEPARATOR}{text}" if lines else text
        if lines and cell_len(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(text)
    return lines


def _joined(lines: list[list[Part]]) -> list[Part]:
    out: list[Part] = []
    for i, line in enumerate(lines):
        if i:
            out.append(("\n", ""))
        out.extend(line)
    return out


def _short_place(text: str) -> str:
    """A place without its chips ("1위 영희  1,170칩  손익 +170" → "1위 영희  손익 +170"): the
    columns are two spaces apart, the chips the second; a place of two columns stays whole."""
    columns = text.split("  ")
    return "  ".join([columns[0], *columns[2:]]) if len(columns) > 2 else text


def fit_ranking(parts: list[Part], rows: int, width: int) -> list[Part]:
    """The game's result (its head line, then one line per place) in ``rows`` rows of
    ``width``: as it is when it fits, else without the head's reason, else the places packed
    several to a line, and when even that is too long the last places left out with "… 외 N명"
    (issue 32 item 8: a spectator at 80×24 saw 4 of 9 places, cut without a word)."""
    lines = _lines(parts)
    head, places = lines[0], [line for line in lines[1:] if line]
    if text_rows(parts, width) <= rows or not places:
        return parts
    if len(head) > 1 and sum(_rows(line, width) for line in [head[:1], *places]) <= rows:
        return _joined([head[:1], *places])
    head = head[:1]
    budget = max(1, rows - _rows(head, width))
    indent = "  "
    texts = ["".join(t for t, _ in line).strip() for line in places]
    room = max(1, width - len(indent))
    if len(_pack(texts, room)) > budget:  # without the chips: "2위 철수  손익 +80"
        texts = [_short_place(text) for text in texts]
    for kept in range(len(texts), -1, -1):
        packed = _pack(texts[:kept], room)
        if kept < len(texts):
            more = _("… 외 {n}명").format(n=len(texts) - kept)
            if packed and cell_len(f"{packed[-1]} {more}") <= room:
                packed[-1] = f"{packed[-1]} {more}"
            else:
                packed.append(more)
        if len(packed) <= budget:
            break
    return _joined([head, *[[(indent + text, "")] for text in packed]])
