"""Text lines that repaint only when their text changes (``Static.update`` always repaints)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

Part = tuple[str, str]  # (text, rich style)


class Line(Widget):
    """A line (wrapping if needed) of styled parts; equal parts → no repaint, no bytes sent."""

    DEFAULT_CSS = """
    Line { height: auto; width: 1fr; }
    """

    parts: reactive[tuple[Part, ...]] = reactive((), layout=True)

    def show(self, *parts: str | Part) -> None:
        parts_ = tuple((p, "") if isinstance(p, str) else p for p in parts)
        self.parts = tuple(p for p in parts_ if p[0])  # "" and () are the same: no repaint

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def render(self) -> Text:
        return Text.assemble(*self.parts)


class CountdownLine(Line):
    """A status line with "· N초" at the end; only the seconds change once a second."""

    seconds: reactive[int | None] = reactive(None)

    def render(self) -> Text:
        text = Text.assemble(*self.parts)
        if self.seconds is not None:
            text.append(f" · {self.seconds}초", "bold" if self.seconds <= 5 else "")
        return text
