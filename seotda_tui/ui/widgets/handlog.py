"""The hand log beside the table, which holds its lines back while it is hidden, and wraps its
lines again when its width changes.

Every ``RichLog.write`` grows the log's virtual size, and a size change makes Textual lay out
the whole screen again (~25 ms of CPU for a table screen). Below 110 columns the log is hidden,
and every seat of a table would pay that for every action nobody sees; so while hidden the
lines wait in a bounded queue and are written when the log is shown again.

``RichLog`` wraps a line once, at the width it has when the line is written: after the terminal
shrank, the old lines were cut at the log's new edge (and after it grew, stayed narrow). So the
log keeps what it was given (as many entries as it keeps rows) and writes it all again when its
width differs from the one its lines were wrapped at: once per width change, never per write.
"""

from __future__ import annotations

from collections import deque
from typing import Any, cast

from rich.console import RenderableType
from rich.text import Text
from textual.events import Resize
from textual.strip import Strip
from textual.widgets import RichLog

#: One write: what was written (a plain ``Text`` kept as its ``str``: a third of the memory)
#: and the rest of the call.
_Entry = tuple[object, tuple[Any, ...], dict[str, Any]]


class HandLog(RichLog):
    """A ``RichLog`` that can be put on hold (``hold(True)``) while it is not on screen, and
    whose lines follow its width."""

    def __init__(self, *, max_lines: int, **kwargs: Any) -> None:
        super().__init__(max_lines=max_lines, wrap=True, markup=False, **kwargs)
        self._held: deque[_Entry] = deque(maxlen=max_lines)
        self._written: deque[_Entry] = deque(maxlen=max_lines)  # each gives at least one row
        self._holding = False
        self._sized = False  # laid out at a width (until then every write waits in _held)
        self._wrapped_at = 0  # the width the written lines were wrapped at
        self._rewrap_queued = False
        self.rewraps = 0  # times every line was written again (for tests)

    def hold(self, holding: bool) -> None:
        """Stop writing (``True``) or write what waited and go on writing (``False``)."""
        if holding == self._holding:
            return
        self._holding = holding
        if not holding:
            self._write_held()

    def write(self, content: RenderableType | object, *args: Any, **kwargs: Any) -> HandLog:
        entry = (_compact(content), args, kwargs)
        if self._holding or not self._sized:
            self._held.append(entry)
            return self
        self._put(entry)
        return self

    def clear(self) -> HandLog:
        self._held.clear()
        self._written.clear()
        super().clear()
        return self

    @property
    def held(self) -> int:
        """How many lines wait to be written (for tests)."""
        return len(self._held)

    def on_resize(self, event: Resize) -> None:
        # RichLog's own handler (after this one) renders what it deferred; ours runs after it.
        if event.size.width:
            self.call_next(self._resized)

    def render_line(self, y: int) -> Strip:
        # A log shown again at another width did not always get a Resize (seen at 120 → 80
        # columns with the log shown by hand): the rows it paints are the last word.
        if self._sized and not self._rewrap_queued and self._written and self._width_changed():
            self._rewrap_queued = True
            self.call_next(self._resized)
        return super().render_line(y)

    def _width_changed(self) -> bool:
        return self.scrollable_content_region.width != self._wrapped_at

    def _resized(self) -> None:
        self._rewrap_queued = False
        width = self.scrollable_content_region.width
        if not width:  # a log never shown (hidden from the start) has no width to wrap at yet
            return
        self._sized = True
        if self._written and width and width != self._wrapped_at:
            entries = list(self._written)
            at_end, fraction = (
                self.is_vertical_scroll_end,
                self.scroll_y / max(1, self.max_scroll_y),
            )
            self._written.clear()
            super().clear()  # (not self.clear: the held lines stay held)
            self.rewraps += 1
            for entry in entries:
                self._put(entry, scroll=False)
            if at_end:  # following the log: still at its end; reading back: about as far up
                self.scroll_end(animate=False, immediate=False, x_axis=False)
            else:
                self.call_after_refresh(self._scroll_back, fraction)
        if not self._holding:
            self._write_held()

    def _write_held(self) -> None:
        if not self._sized:
            return
        held, self._held = list(self._held), deque(maxlen=self._held.maxlen)
        for entry in held:
            self._put(entry)

    def _scroll_back(self, fraction: float) -> None:
        self.scroll_to(y=round(fraction * self.max_scroll_y), animate=False)

    def _put(self, entry: _Entry, scroll: bool = True) -> None:
        content, args, kwargs = entry
        self._written.append(entry)
        self._wrapped_at = self.scrollable_content_region.width
        if not scroll:
            kwargs = {**kwargs, "scroll_end": False}
        super().write(Text(content) if isinstance(content, str) else content, *args, **kwargs)


def _compact(content: object) -> object:
    """A bare ``Text`` (no style, spans or settings) as its ``str``, written again as such."""
    bare = isinstance(content, Text) and not content.spans and not content.style
    if bare and all(getattr(content, name) == getattr(_BARE, name) for name in _SETTINGS):
        return cast(Text, content).plain
    return content


_BARE = Text()
_SETTINGS = ("justify", "overflow", "no_wrap", "end", "tab_size")
