"""How the table is arranged in a terminal of a given size: a pure choice, no widgets.

The richest arrangement that fits the rows wins: the others in seat boxes (card backs, faces
at the showdown), the own cards large, the pot in big digits; then plainer ones, down to one
line per seat and compact cards. The live table and the replay both choose here
(:func:`table_layout`), each counting its own fixed rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..geometry import BOX_HEIGHT, box_width, card_dimensions

#: (seats "box" or "line", own cards "large" or "compact", the pot in big digits)
Shape = tuple[str, str, bool]
#: Richest first: the first that fits is taken.
SHAPES: tuple[Shape, ...] = (
    ("box", "large", True),
    ("box", "large", False),
    ("line", "large", True),
    ("line", "large", False),
    ("box", "compact", True),
    ("box", "compact", False),
    ("line", "compact", True),
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


def log_visible(shown: bool | None, terminal_width: int, playing: bool) -> bool:
    """Whether the hand log is beside the table: as the player toggled it (``shown``), else on
    wide terminals, and in the waiting room (it has room)."""
    if shown is not None:
        return shown
    return terminal_width >= WIDE_WIDTH or not playing


#: Cells the own hand's texts need beside large cards (a 16-cell name, " 선"), else the cards
#: are drawn compact.
MINE_CELLS = 20
#: Terminal height from which the 족보 list stays on screen beside the table (wide terminals).
JOKBO_SIDE_HEIGHT = 36


def seat_columns(width: int, cards: int, style: str) -> int:
    """Seat boxes side by side in ``width`` cells (one cell between boxes)."""
    return max(1, (width + 1) // (box_width(cards, style) + 1))


def _rows(shape: Shape, fixed: int, others: int, box_rows: int, own_cards: bool, style: str) -> int:
    """The rows ``shape`` takes: the fixed lines, the seats, the own row (its top padding and
    the cards, or the me line and the texts), the pot (3 rows in big digits)."""
    mode, size, big = shape
    own = card_dimensions(size, style)[1] + 1 if own_cards else 3
    return fixed + (box_rows if mode == "box" else others) + own + (3 if big else 1)


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
    for shape in SHAPES:
        card_w = card_dimensions(shape[1], style)[0]
        if own_cards and shape[1] == "large" and width - cards * (card_w + 1) - 1 < MINE_CELLS:
            continue
        if _rows(shape, fixed, others, box_rows, own_cards, style) <= height:
            return shape
    return PLAINEST


@dataclass(frozen=True)
class Layout:
    """Everything the arrangement decides, for the widgets to apply (equal: nothing to do)."""

    size: tuple[int, int]
    style: str  # the session's card style
    shape: Shape
    log_visible: bool
    log_width: int
    jokbo_side: bool  # the 족보 list beside the table
    table_width: int  # cells left of the log, inside the padding
    box_columns: int
    #: the own hand's texts: the rows the cards give them and their width beside the cards
    mine_rows: int
    mine_width: int
    spectators_line: bool  # a row is left for the watchers' names
    seat_cards: int  # cards per seat (2 or 3)
    banner_rows: int = 1  # the banner's own row and the rows the seats leave (in a game)


def table_layout(
    *,
    size: tuple[int, int],
    style: str,
    fixed: int,
    others: int | None,
    cards: int,
    own_cards: bool,
    log_visible: bool,
    jokbo: bool = True,
    spectators: bool = False,
) -> Layout:
    """The arrangement of a table (``others`` None: the waiting room, one line per player) on a
    terminal of ``size``, with ``fixed`` rows of lines and the hand log beside it or not."""
    width, height = size
    log_cells = log_width(width)
    table_width = width - 2 - (log_cells if log_visible else 0)
    columns = seat_columns(table_width, cards, style)
    shape, spare = ("line", "compact", False), height
    if others is not None:
        shape = choose_shape(
            width=table_width,
            height=height,
            fixed=fixed,
            others=others,
            cards=cards,
            style=style,
            own_cards=own_cards,
        )
        box_rows = math.ceil(others / columns) * BOX_HEIGHT
        used = _rows(shape, fixed, others, box_rows, own_cards, style)
        if used <= height:
            spare = height - used
    card_w, card_h = card_dimensions(shape[1], style)
    places = cards if own_cards else 0
    return Layout(
        size=size,
        style=style,
        shape=shape,
        log_visible=log_visible,
        log_width=log_cells,
        jokbo_side=jokbo and log_visible and width >= WIDE_WIDTH and height >= JOKBO_SIDE_HEIGHT,
        table_width=table_width,
        box_columns=columns,
        mine_rows=max(1, card_h - 1) if own_cards else 1,
        mine_width=max(1, table_width - places * (card_w + 1) - 1),
        spectators_line=spectators and spare >= 1,
        seat_cards=cards,
        banner_rows=1 + max(0, spare - (1 if spectators else 0)),
    )
