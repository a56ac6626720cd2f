"""The status line with a countdown gauge that reaches zero at the engine's deadline.

Why a custom bar and not ``ProgressBar``: the bar is redrawn at most once a second (only when the
whole seconds change), and then only the cells that changed — usually the number and one cell of
the bar — are repainted and sent, so an idle table costs tens of bytes a second per player over
SSH, not a whole status line. The bar is capped at :data:`BAR_CELLS` cells.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive

from ...i18n import _, language_code
from .lines import Part
from .textlines import TextLines

BAR_CELLS = 24
#: Seconds from which the gauge turns red (and the number bold).
URGENT_SECONDS = 5


def gauge_text(
    parts: tuple[Part, ...],
    seconds: int | None,
    total: int | None,
    width: int,
    ascii_only: bool,
    coarse: bool = False,
) -> Text:
    """Status parts, then ``━━━━──── 12초`` filling what is left of ``width`` (pure; cached,
    so the returned text is shared and must not be changed). ``coarse``: ``seconds`` is only
    a step (see ``TableScreen._tick``), so the bar shows it and the number is left out — a
    number would disagree with the one whose turn it is sees."""
    return _gauge_text(language_code(), parts, seconds, total, width, ascii_only, coarse)


@lru_cache(maxsize=1024)
def _gauge_text(
    language: str,
    parts: tuple[Part, ...],
    seconds: int | None,
    total: int | None,
    width: int,
    ascii_only: bool,
    coarse: bool,
) -> Text:
    """:func:`gauge_text`, cached per language (the cache is shared by every session)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for content, style in parts:
        text.append(content, style)
    if seconds is None:
        return text
    label = " " + _("{n}초").format(n=seconds)
    room = min(BAR_CELLS, width - text.cell_len - cell_len(label) - 1)
    urgent = seconds <= URGENT_SECONDS
    if coarse:
        label = " " * cell_len(label)  # the bar keeps its length when the number comes
    if room >= 5 and total:
        filled = max(0, min(room, round(room * seconds / total)))
        full, empty = ("#", "-") if ascii_only else ("━", "─")
        text.append(" ")
        text.append(full * filled, "bold red" if urgent else "bold green")
        text.append(empty * (room - filled), "dim")
    text.append(label, "bold red" if urgent else "")
    return text


class StatusGauge(TextLines):
    """Whose turn / what the game waits for, plus the countdown (``seconds`` of ``total``)."""

    DEFAULT_CSS = """
    StatusGauge { height: 1; width: 1fr; }
    """

    #: A change repaints only the cells that changed (``_repaint``), not the whole line.
    parts: reactive[tuple[Part, ...]] = reactive((), repaint=False)
    seconds: reactive[int | None] = reactive(None, repaint=False)
    total: reactive[int | None] = reactive(None)
    ascii_only: reactive[bool] = reactive(False)
    #: ``seconds`` is a step, not the exact count: the bar without the number.
    coarse: reactive[bool] = reactive(False, repaint=False)

    def show(self, *parts: str | Part) -> None:
        self.parts = tuple((p, "") if isinstance(p, str) else p for p in parts)

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def lines_key(self) -> Hashable:
        return (self.parts, self.seconds, self.total, self.ascii_only, self.coarse)

    def text_lines(self) -> list[Text]:
        return [self._text(self.parts, self.seconds, self.coarse)]

    def _text(self, parts: tuple[Part, ...], seconds: int | None, coarse: bool) -> Text:
        width = self.size.width
        return gauge_text(parts, seconds, self.total, width, self.ascii_only, coarse)

    def _repaint(self, parts: tuple[Part, ...], seconds: int | None, coarse: bool) -> None:
        """Send the cells that changed from what ``parts``, ``seconds`` and ``coarse`` showed."""
        self.refresh_changed(
            [self._text(parts, seconds, coarse)],
            [self._text(self.parts, self.seconds, self.coarse)],
        )

    def set_time(self, seconds: int | None, coarse: bool) -> None:
        """Both at once: one repaint of the changed cells."""
        old = (self.seconds, self.coarse)
        self.set_reactive(StatusGauge.seconds, seconds)
        self.set_reactive(StatusGauge.coarse, coarse)
        if old != (seconds, coarse):
            self._repaint(self.parts, *old)

    def watch_parts(self, old: tuple[Part, ...], new: tuple[Part, ...]) -> None:
        self._repaint(old, self.seconds, self.coarse)

    def watch_seconds(self, old: int | None, new: int | None) -> None:
        self._repaint(self.parts, old, self.coarse)
