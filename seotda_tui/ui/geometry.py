"""The table's sizes in cells, and what one seat shows: the facts the presenter counts with.

Kept out of the widgets that draw them (``widgets/card.py``, ``widgets/seats.py``) so the
presenter (``ui/present/``) can choose an arrangement and build seats without importing Textual;
a ``ui`` leaf rather than part of ``present`` because the widgets import it and ``present``
imports ``widgets/texts.py``: one package each way would be an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass

#: (width, height) in cells of the card itself, per (size, style).
DIMENSIONS: dict[tuple[str, str], tuple[int, int]] = {
    ("large", "box"): (12, 7),
    ("large", "ascii"): (12, 7),
    ("large", "big"): (12, 8),
    ("compact", "box"): (6, 3),
    ("compact", "ascii"): (5, 3),
    ("compact", "big"): (9, 6),
}


def card_dimensions(size: str, style: str) -> tuple[int, int]:
    """(width, height) in cells of a card drawn at ``size`` in ``style``."""
    try:
        return DIMENSIONS[(size, style)]
    except KeyError:
        raise ValueError(f"unknown card size/style {size!r}/{style!r}") from None


#: Text column of a seat box: "[연결 끊김]" and "멍텅구리구사" both fit.
BOX_TEXT_CELLS = 12
BOX_HEIGHT = 4


def box_width(cards: int, style: str) -> int:
    """Cells one seat box needs for ``cards`` compact cards."""
    card_w = card_dimensions("compact", "ascii" if style == "ascii" else "box")[0]
    return max(cards, 2) * card_w + 1 + BOX_TEXT_CELLS


@dataclass(frozen=True)
class SeatInfo:
    """Everything a seat shows; equal infos mean no repaint."""

    name: str
    stack: int | None = None
    bet: int = 0
    action: str = ""
    cards: str = ""  # short text, for the line layout
    badges: tuple[str, ...] = ()
    dealer: bool = False
    actor: bool = False
    me: bool = False
    hand_name: str = ""
    faces: tuple[int | None, ...] = ()  # card ids (None = face down), for the box layout
    folded: bool = False
    payout: int = 0
