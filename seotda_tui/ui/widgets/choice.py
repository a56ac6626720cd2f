"""One option of the new-room form: its value among a few choices, changed in place.

Why not Textual's ``Select`` (and ``Switch``): a ``Select`` is five widgets (its current value,
arrow and a hidden overlay list among them) and each change of its state restyles them all;
twenty of them made the form ~140 widgets and opening it cost ~0.6 s of the event loop every
session shares. A choice is one widget drawing one line, ``< 값 >``: ←/→ (or Space, or a
click) step through the choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget


class Choice(Widget, can_focus=True):
    """``value`` is one of ``options``' values; a change posts :class:`Choice.Changed`."""

    DEFAULT_CSS = """
    Choice { height: 1; width: 1fr; }
    Choice:focus { background-tint: $foreground 15%; text-style: bold; }
    Choice:disabled { color: $text-disabled; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", show=False),
        Binding("right,space", "step(1)", show=False),
    ]

    class Changed(Message):
        def __init__(self, choice: Choice, value: object) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(
        self, options: Sequence[tuple[str, object]], value: object, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._labels = [label for label, _ in options]
        self._values = [v for _, v in options]
        self._index = self._values.index(value)

    def set_labels(self, labels: Sequence[str]) -> None:
        """New labels for the same values, in order (the session's language changed)."""
        self._labels = list(labels)
        self.refresh()

    @property
    def value(self) -> object:
        return self._values[self._index]

    @value.setter
    def value(self, value: object) -> None:
        index = self._values.index(value)  # ValueError for a value that is not a choice
        if index != self._index:
            self._index = index
            self.refresh()
            self.post_message(self.Changed(self, value))

    def render(self) -> Text:
        label = self._labels[self._index]
        spaced = f"< {label} >"  # tighter when that would not fit (80 columns, longest labels)
        return Text(spaced if cell_len(spaced) <= self.content_size.width else f"<{label}>")

    def action_step(self, by: int) -> None:
        self.value = self._values[(self._index + by) % len(self._values)]

    def on_click(self, event: events.Click) -> None:
        self.action_step(1)
