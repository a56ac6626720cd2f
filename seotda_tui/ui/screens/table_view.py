"""The table itself, drawn from a :class:`~seotda_tui.ui.present.table.TableModel`.

One widget tree for the live table and the replay: the others' seats (boxes or lines), the
watchers, the status line with its countdown, the pot, the banner, the own cards with the
texts beside them, and the hand log (with the 족보 list above it on big terminals) at the side.
Every part is set only when it differs, so a push repaints what changed; the arrangement is
applied only when the model's :class:`~seotda_tui.ui.present.shape.Layout` changes, since
setting styles lays the screen out again.

A widget, kept beside the two screens that use it rather than in ``widgets/``: it imports the
presenter's model, and the presenter imports ``widgets/texts.py`` (one package each way would
be an import circle).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.containers import Horizontal, Vertical
from textual.dom import NoScreen
from textual.widget import Widget

from engine import DECK

from ..present.shape import Layout
from ..present.table import TableModel
from ..widgets.gauge import StatusGauge
from ..widgets.hand import HandCards
from ..widgets.handlog import HandLog
from ..widgets.lines import Line
from ..widgets.pot import PotView
from ..widgets.seats import SeatBoxes, SeatInfo, SeatList

LOG_LINES = 200


def set_changed(widget: Widget, attribute: str, value: object) -> None:
    """Assign only on change: even an equal style assignment can cost a repaint (bandwidth)."""
    if getattr(widget, attribute) != value:
        setattr(widget, attribute, value)


class TableView(Horizontal):
    """The table left, the hand log right (``#table-main``; app.tcss styles the ids)."""

    def __init__(self, *, id: str = "table-main") -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.layout_now: Layout | None = None

    def compose(self) -> Iterable[Widget]:
        with Vertical(id="table-left"):
            yield SeatBoxes(id="boxes")
            yield SeatList(id="seats")
            yield Line(id="spectators")
            yield StatusGauge(id="status")
            yield PotView(id="pot")
            yield Line(id="banner")
            with Horizontal(id="hand"):
                yield HandCards(id="hand-cards")
                with Vertical(id="mine-box"):
                    yield Line(id="me-line")
                    yield Line(id="mine", sticky=True)
        with Vertical(id="side"):
            yield Line(id="jokbo-side")
            yield HandLog(id="log", max_lines=LOG_LINES, min_width=16)

    @property
    def shown_seats(self) -> dict[str, SeatInfo]:
        """Nickname → the seat drawn (boxes or lines, whichever the layout chose)."""
        boxes = self.query_one(SeatBoxes)
        infos = boxes.infos if boxes.display else tuple(self.query_one(SeatList).infos)
        return {info.name: info for info in infos}

    def apply(self, model: TableModel) -> None:
        """Draw ``model``: the arrangement when it changed, then every part."""
        self.lay_out(model.layout)
        self.show_seats(model)
        self.query_one("#spectators", Line).show(model.spectators)
        gauge = self.query_one(StatusGauge)
        if model.gauge_ascii is not None:
            gauge.ascii_only = model.gauge_ascii
        gauge.show(*model.status)
        pot = model.pot
        changes: dict[str, object] = {
            "amount": pot.amount,
            "sides": pot.sides,
            "note": pot.note,
            "ascii_only": pot.ascii_only,
        }
        if pot.flash is not None:
            changes["flash"] = pot.flash
        self.query_one(PotView).set(**changes)
        self.query_one("#banner", Line).show(*model.banner)
        if model.jokbo:
            self.show_jokbo(*model.jokbo)
        self.query_one("#me-line", Line).show(*model.me_line)
        mine = self.query_one("#mine", Line)
        if mine.styles.min_height is None or mine.styles.min_height.value != model.mine_rows:
            mine.styles.min_height = model.mine_rows
        mine.show(*model.mine)
        hand = model.hand
        self.query_one(HandCards).show(
            [DECK[i] for i in hand.cards],
            hand.selected,
            hand.dimmed,
            hand.size,  # type: ignore[arg-type]
            hand.places,
            hand.thrown,
            hand.unknown,
            hand.shared,
        )

    def show_seats(self, model: TableModel) -> None:
        """The others' seats (also on the clock's tick while a reconnect grace runs)."""
        layout = model.layout
        if layout.shape[0] == "box":
            self.query_one(SeatBoxes).set_seats(
                list(model.seats), layout.style, layout.seat_cards, layout.box_columns
            )
        else:
            self.query_one(SeatList).set_seats(list(model.seats))

    def show_jokbo(self, *parts: str | tuple[str, str]) -> None:
        """The 족보 list beside the table, when the layout shows it."""
        side = self.query_one("#jokbo-side", Line)
        if side.display:
            side.show(*parts)

    @property
    def jokbo_shown(self) -> bool:
        return bool(self.query_one("#jokbo-side", Line).display)

    def lay_out(self, layout: Layout) -> None:
        """Boxes or lines for the others, large or compact own cards, big or plain pot, the log
        beside or not: only when the layout changed."""
        if layout == self.layout_now:
            return
        self.layout_now = layout
        side = self.query_one("#side", Vertical)
        set_changed(side, "display", layout.log_visible)
        self.query_one(HandLog).hold(not layout.log_visible)
        if side.styles.width is None or side.styles.width.value != layout.log_width:
            side.styles.width = layout.log_width
        set_changed(self.query_one("#jokbo-side", Line), "display", layout.jokbo_side)
        mode, _size, big = layout.shape
        set_changed(self.query_one(SeatBoxes), "display", mode == "box")
        set_changed(self.query_one(SeatList), "display", mode == "line")
        self.query_one(PotView).set(big=big)
        self.query_one("#mine", Line).styles.min_height = layout.mine_rows
        if big:
            self.call_after_refresh(self._check_pot_room)
        set_changed(self.query_one("#spectators", Line), "display", layout.spectators_line)

    def _check_pot_room(self) -> None:
        """Plain digits when the laid-out own row reaches into the big ones: the pot must read
        whole (the layout counts rows beforehand; this catches what it could not foresee)."""
        # (called after a refresh: the view may be on its way out by then, its widgets gone)
        try:
            live = bool(getattr(self.screen, "live", True))
        except NoScreen:
            return
        pots, hands = self.query(PotView), self.query("#hand")
        if not (self.is_mounted and live and pots and hands):
            return
        pot, hand = pots.first(), hands.first()
        if pot.big and hand.display and pot.region.bottom > hand.region.y:
            pot.set(big=False)
