"""Text lines that repaint only when their text changes (``Static.update`` always repaints)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ...tuning.measure_later import measure_later

Part = tuple[str, str]  # (text, rich style)


class Line(Widget):
    """A line (wrapping if needed) of styled parts; equal parts → no repaint, no bytes sent.

    A changed text repaints the line only. The screen is laid out again only when the line is
    ``height: auto`` and the new text wraps onto a different number of rows: a layout costs the
    whole screen, and most changes (whose turn, the pot, a banner) keep the height. A ``sticky``
    line only grows: a shorter text leaves blank rows below it until the next layout, so a
    text that changes length every phase (the own hand's name, hints, the result) does not lay
    the screen out twice a hand.
    """

    DEFAULT_CSS = """
    Line { height: auto; width: 1fr; }
    """

    parts: reactive[tuple[Part, ...]] = reactive(())

    def __init__(self, *, sticky: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sticky = sticky

    def show(self, *parts: str | Part) -> None:
        parts_ = tuple((p, "") if isinstance(p, str) else p for p in parts)
        self.parts = tuple(p for p in parts_ if p[0])  # "" and () are the same: no repaint

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def render(self) -> Text:
        return Text.assemble(*self.parts)

    def watch_parts(self) -> None:
        self.clear_cached_dimensions()  # measure the new text, not the cached old one
        if not self.display:
            return  # showing it again lays it out (and forgets its measures)
        width_rule, height_rule = self.styles.width, self.styles.height
        if width_rule is not None and width_rule.is_auto:
            self.refresh(layout=True)
            return
        if height_rule is not None and not height_rule.is_auto:
            return
        width = self.size.width
        if not width:
            self.refresh(layout=True)  # never laid out yet
            return
        rows = self.get_content_height(self.size, self.size, width)
        if rows > self.size.height or (rows != self.size.height and not self.sticky):
            self.refresh(layout=True)
        else:  # no layout now; whichever comes next measures this text at its width
            measure_later(self)
