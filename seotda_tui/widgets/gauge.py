"""The status line with a countdown gauge that reaches zero at the engine's deadline.

Why a custom bar and not ``ProgressBar``: the bar is redrawn at most once a second (only when the
whole seconds change), and then only the cells that changed — usually the number and one cell of
the bar — are repainted and sent, so an idle table costs tens of bytes a second per player over
SSH, not a whole status line. The bar is capped at :data:`BAR_CELLS` cells.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Region
from textual.reactive import reactive
from textual.widget import Widget

from .lines import Part

BAR_CELLS = 24
#: Seconds from which the gauge turns red (and the number bold).
URGENT_SECONDS = 5


def gauge_text(
    parts: tuple[Part, ...], seconds: int | None, total: int | None, width: int, ascii_only: bool
) -> Text:
    """Status parts, then ``━━━━──── 12초`` filling what is left of ``width`` (pure)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for content, style in parts:
        text.append(content, style)
    if seconds is None:
        return text
    label = f" {seconds}초"
    room = min(BAR_CELLS, width - text.cell_len - cell_len(label) - 1)
    urgent = seconds <= URGENT_SECONDS
    if room >= 5 and total:
        filled = max(0, min(room, round(room * seconds / total)))
        full, empty = ("#", "-") if ascii_only else ("━", "─")
        text.append(" ")
        text.append(full * filled, "bold red" if urgent else "bold green")
        text.append(empty * (room - filled), "dim")
    text.append(label, "bold red" if urgent else "")
    return text


Cell = tuple[str, tuple[object, ...]]


def text_cells(text: Text, width: int) -> list[Cell]:
    """One ``(character, styles)`` per cell of the line's first ``width`` cells ("" for the
    right half of a wide character). Plain Python over ~100 characters: cheaper than rendering
    the line twice, which matters at one tick per second per session."""
    plain = text.plain
    styles: list[list[object]] = [[] for _ in plain]
    for span in text.spans:
        for i in range(span.start, min(span.end, len(plain))):
            styles[i].append(span.style)
    cells: list[Cell] = []
    for char, style in zip(plain, styles):
        cells.append((char, tuple(style)))
        if cell_len(char) == 2:
            cells.append(("", tuple(style)))
        if len(cells) >= width:
            break
    return cells[:width]


def changed_span(old: list[Cell], new: list[Cell]) -> tuple[int, int] | None:
    """The cells ``[start, end)`` where two renderings of a line differ (None: identical)."""
    length = max(len(old), len(new))
    blank: Cell = (" ", ())
    old = old + [blank] * (length - len(old))
    new = new + [blank] * (length - len(new))
    diffs = [x for x in range(length) if old[x] != new[x]]
    if not diffs:
        return None
    start, end = diffs[0], diffs[-1] + 1
    while start > 0 and "" in (old[start][0], new[start][0]):  # whole wide characters only
        start -= 1
    while end < length and "" in (old[end][0], new[end][0]):
        end += 1
    return start, end


class StatusGauge(Widget):
    """Whose turn / what the game waits for, plus the countdown (``seconds`` of ``total``)."""

    DEFAULT_CSS = """
    StatusGauge { height: 1; width: 1fr; }
    """

    parts: reactive[tuple[Part, ...]] = reactive(())
    #: A tick repaints only the cells that changed (``watch_seconds``), not the line.
    seconds: reactive[int | None] = reactive(None, repaint=False)
    total: reactive[int | None] = reactive(None)
    ascii_only: reactive[bool] = reactive(False)

    def show(self, *parts: str | Part) -> None:
        self.parts = tuple((p, "") if isinstance(p, str) else p for p in parts)

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def render(self) -> Text:
        return gauge_text(self.parts, self.seconds, self.total, self.size.width, self.ascii_only)

    def watch_seconds(self, old: int | None, new: int | None) -> None:
        width = self.size.width
        if not width:
            return
        before, after = (
            text_cells(gauge_text(self.parts, s, self.total, width, self.ascii_only), width)
            for s in (old, new)
        )
        span = changed_span(before, after)
        if span is not None:
            self.refresh(Region(span[0], 0, span[1] - span[0], 1))
