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
) -> Text:
    """Status parts, then ``━━━━──── 12초`` filling what is left of ``width`` (pure; cached,
    so the returned text is shared and must not be changed). Everyone at the table sees the
    same seconds (issue 32: not only whose turn it is); parts too long for the line are cut
    with "…" on purpose, so the seconds are never the part the edge cuts."""
    return _gauge_text(language_code(), parts, seconds, total, width, ascii_only)


def _cut_parts(parts: tuple[Part, ...], cells: int) -> Text:
    """``parts`` in at most ``cells`` cells, ending in "…" when they had to be cut."""
    text = Text(no_wrap=True)
    for content, style in parts:
        text.append(content, style)
    if text.cell_len > cells:
        text.truncate(max(0, cells), overflow="ellipsis")
        text.rstrip()
    return text


@lru_cache(maxsize=1024)
def _gauge_text(
    language: str,
    parts: tuple[Part, ...],
    seconds: int | None,
    total: int | None,
    width: int,
    ascii_only: bool,
) -> Text:
    """:func:`gauge_text`, cached per language (the cache is shared by every session)."""
    label = "" if seconds is None else " " + _("{n}초").format(n=seconds)
    text = _cut_parts(parts, width - cell_len(label) if width else 10**6)
    text.no_wrap, text.overflow = True, "ellipsis"
    if seconds is None:
        return text
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

    def show(self, *parts: str | Part) -> None:
        self.parts = tuple((p, "") if isinstance(p, str) else p for p in parts)

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.parts)

    def lines_key(self) -> Hashable:
        return (self.parts, self.seconds, self.total, self.ascii_only)

    def text_lines(self) -> list[Text]:
        return [self._text(self.parts, self.seconds)]

    def _text(self, parts: tuple[Part, ...], seconds: int | None) -> Text:
        return gauge_text(parts, seconds, self.total, self.size.width, self.ascii_only)

    def _repaint(self, parts: tuple[Part, ...], seconds: int | None) -> None:
        """Send the cells that changed from what ``parts`` and ``seconds`` showed."""
        self.refresh_changed([self._text(parts, seconds)], [self._text(self.parts, self.seconds)])

    def watch_parts(self, old: tuple[Part, ...], new: tuple[Part, ...]) -> None:
        self._repaint(old, self.seconds)

    def watch_seconds(self, old: int | None, new: int | None) -> None:
        self._repaint(self.parts, old)
