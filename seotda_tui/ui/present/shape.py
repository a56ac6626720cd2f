"""How the table is arranged in a terminal of a given size: a pure choice, no widgets.

The richest arrangement that fits the rows wins: the others in seat boxes (card backs, faces
at the showdown), the own cards large, the pot in big digits; then plainer ones, down to one
line per seat and compact cards. The replay draws the table with the table's widgets and
chooses its arrangement here by the live table's rules (``TableScreen._layout``, which issue
34 is to make choose through this module too).
"""

from __future__ import annotations

import math

from ..geometry import BOX_HEIGHT, box_width, card_dimensions

#: (seats "box" or "line", own cards "large" or "compact", the pot in big digits)
Shape = tuple[str, str, bool]
#: Richest first: the first that fits is taken.
SHAPES: tuple[Shape, ...] = (
    ("box", "large", True),
    ("box", "large", False),
    ("line", "large", True),
    ("line", "large", False),
    ("box", "compact", False),
    ("line", "compact", False),
)
PLAINEST: Shape = SHAPES[-1]
#: The hand log beside the table: its width, and from which terminal width it is the wider
#: one (the live table's, table.py, and the replay's).
LOG_WIDTH, WIDE_LOG_WIDTH, WIDE_WIDTH = 26, 40, 110
#: What the table itself uses at most: ten seat boxes and the big pot fit in it. Past it the
#: log takes the spare columns (issue 32 item 17: at 200x60 the log stayed 40 wide beside an
#: empty table area), up to MAX_LOG_WIDTH, where log lines are long enough to read whole.
TABLE_CELLS, MAX_LOG_WIDTH = 120, 80


def log_width(terminal_width: int) -> int:
    """The hand log's width on a terminal ``terminal_width`` cells wide."""
    if terminal_width < WIDE_WIDTH:
        return LOG_WIDTH
    return max(WIDE_LOG_WIDTH, min(MAX_LOG_WIDTH, terminal_width - 2 - TABLE_CELLS))


#: Cells the own hand's texts need beside large cards (a 16-cell name, " 선"), as table.py's
#: MIN_MINE_WIDTH.
MINE_CELLS = 20


def seat_columns(width: int, cards: int, style: str) -> int:
    """Seat boxes side by side in ``width`` cells (one cell between boxes)."""
    return max(1, (width + 1) // (box_width(cards, style) + 1))


def choose_shape(
    *,
    width: int,
    height: int,
    fixed: int,
    others: int,
    cards: int,
    style: str,
    own_cards: bool,
) -> Shape:
    """The richest :data:`SHAPES` entry whose rows fit ``height``: ``fixed`` rows of lines
    (title, status, banner, keys…), the ``others``' seats, the own row and the pot. Large own
    cards also need ``width`` for ``cards`` of them and the texts beside them."""
    box_rows = math.ceil(others / seat_columns(width, cards, style)) * BOX_HEIGHT
    for mode, size, big in SHAPES:
        card_w, card_h = card_dimensions(size, style)
        if own_cards and size == "large" and width - cards * (card_w + 1) - 1 < MINE_CELLS:
            continue
        own = card_h + 1 if own_cards else 3  # the row's top padding, the cards / the me line
        used = fixed + (box_rows if mode == "box" else others) + own + (3 if big else 1)
        if used <= height:
            return mode, size, big
    return PLAINEST
