"""The hand log beside the table, which holds its lines back while it is hidden.

Every ``RichLog.write`` grows the log's virtual size, and a size change makes Textual lay out
the whole screen again (~25 ms of CPU for a table screen). Below 110 columns the log is hidden,
and every seat of a table would pay that for every action nobody sees; so while hidden the
lines wait in a bounded queue and are written when the log is shown again.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import RenderableType
from textual.widgets import RichLog


class HandLog(RichLog):
    """A ``RichLog`` that can be put on hold (``hold(True)``) while it is not on screen."""

    def __init__(self, *, max_lines: int, **kwargs: Any) -> None:
        super().__init__(max_lines=max_lines, wrap=True, markup=False, **kwargs)
        self._held: deque[RenderableType] = deque(maxlen=max_lines)
        self._holding = False

    def hold(self, holding: bool) -> None:
        """Stop writing (``True``) or write what waited and go on writing (``False``)."""
        if holding == self._holding:
            return
        self._holding = holding
        if not holding:
            held, self._held = list(self._held), deque(maxlen=self._held.maxlen)
            for renderable in held:
                super().write(renderable)

    def write(self, content: RenderableType | object, *args: Any, **kwargs: Any) -> HandLog:
        if self._holding:
            self._held.append(content)  # type: ignore[arg-type]
            return self
        super().write(content, *args, **kwargs)
        return self

    def clear(self) -> HandLog:
        self._held.clear()
        super().clear()
        return self

    @property
    def held(self) -> int:
        """How many lines wait to be written (for tests)."""
        return len(self._held)
