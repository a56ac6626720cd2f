"""A cut-text detector for the 80×24 walk (tests/test_fit_80x24.py).

For every text widget on screen, render the text it was given (its intended text) and compare it
with what the terminal shows in the widget's region: each intended line must appear whole there
(wrapping at a space is fine, so whitespace is collapsed on both sides). A widget that shortens a
text on purpose hands the short text over as its intended one, so only accidental cuts — Textual
cropping a line, an ellipsis, a row covered by another widget — are reported.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, RichLog

from seotda_tui.ui.widgets.actions import ActionBar
from seotda_tui.ui.widgets.roomlist import RoomList
from seotda_tui.ui.widgets.seats import BOX_TEXT_CELLS, SeatBoxes, SeatInfo, badge_lines, bet_text
from seotda_tui.ui.widgets.textlines import TextLines
from seotda_tui.ui.widgets.texts import chips

_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _box_texts(i: SeatInfo) -> list[str]:
    texts = [i.name + (" 선" if i.dealer else "")]
    if i.stack is not None:
        texts.append(f"{chips(i.stack)}칩")
    if i.hand_name:
        texts.append(i.hand_name)
    else:  # as render_seat_box lays them: the bet line too when it is free
        free = 2 if i.folded or not bet_text(i)[0] else 1
        texts.append(" ".join(badge_lines(i.badges, BOX_TEXT_CELLS, free)))
    return texts


def intended(widget: Widget) -> list[str] | None:
    """The lines ``widget`` was asked to show, or None when it is not a plain text widget."""
    if isinstance(widget, (Input, RichLog)):
        return None  # edited / scrolled text: not laid out by us
    if isinstance(widget, ActionBar):  # each place's label, as the bar means to show it
        return [widget.shown_label(i) for i in range(len(widget.places))]
    if isinstance(widget, SeatBoxes):  # each box's texts, before its 12-cell column
        return [text for i in widget.infos for text in _box_texts(i)]
    if isinstance(widget, RoomList):  # each cell of the rows on screen, as the list fits it
        return [c for row in (None, *widget.rows_on_screen()) for c in widget.shown_cells(row)]
    if isinstance(widget, TextLines):
        return [line.plain for line in widget.text_lines()]
    if type(widget).render is Widget.render:
        return None  # a container
    try:
        rendered: Any = widget.render()
    except Exception:  # noqa: BLE001 - a widget that cannot render outside a frame: skip
        return None
    if isinstance(rendered, Text):
        return rendered.plain.split("\n")
    if isinstance(rendered, Content):
        return rendered.plain.split("\n")
    if isinstance(rendered, str):
        return rendered.split("\n")
    return None


def drawn(app: App[Any], region: Region, strips: list[Strip] | None = None) -> list[str]:
    """The terminal's text in ``region`` (cells), one string per row (``strips``: the screen's,
    rendered once for many regions)."""
    if strips is None:
        strips = app.screen._compositor.render_strips()  # as seotda_tui.testing.screen_text does
    rows = []
    for y in range(region.y, region.bottom):
        if 0 <= y < len(strips):
            rows.append(strips[y].crop(region.x, region.right).text)
    return rows


def cuts(app: App[Any]) -> list[str]:
    """Every intended line not shown whole, as "<widget>: <line>" (empty: nothing is cut)."""
    found = []
    screen = app.screen
    strips = screen._compositor.render_strips()
    for widget in screen.walk_children(Widget, with_self=False):
        if not widget.display or not widget.visible or not widget.region:
            continue
        lines = intended(widget)
        if not lines:
            continue
        visible = widget.content_region.intersection(screen.region)
        if visible.height < widget.content_region.height:
            continue  # scrolled or clipped by design (help tabs, long lists)
        shown = _norm(" ".join(drawn(app, widget.content_region, strips)))
        for line in lines:
            want = _norm(line)
            if want and want not in shown:
                name = f"{type(widget).__name__}#{widget.id or ''}"
                found.append(f"{name}: {want!r} shown as {shown!r}")
    return found


__all__ = ["cuts", "drawn", "intended"]
