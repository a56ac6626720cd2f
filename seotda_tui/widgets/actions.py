"""The action bar (eight betting buttons that never move, §9) and the phase prompt line.

Buttons are not focusable: the keys are the hotkeys shown on them, and mouse clicks work too.
Labels and enabled states are only written when they change, so a view push repaints nothing
here unless the legal actions changed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Grid
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button

from .texts import ACTION_NAMES, BET_KEYS, BET_ORDER, bet_label


class BarButton(Button, can_focus=False):
    """A compact button driven by hotkeys; pressing posts ``Button.Pressed`` as usual."""

    def __init__(self, label: str, *, id: str, disabled: bool = True) -> None:
        super().__init__(label, id=id, disabled=disabled, compact=True)
        self._shown: tuple[str, bool] = (label, disabled)

    def show(self, label: str, enabled: bool) -> None:
        """New label and state. No layout: the bar is a fixed grid (a layout costs the whole
        screen, and the amounts change on almost every bet)."""
        if self._shown == (label, not enabled):
            return
        self._shown = (label, not enabled)
        self.label = label
        self.disabled = not enabled


class ActionBar(Grid):
    """다이 체크 삥 콜 따당 쿼터 하프 풀, always in this order; illegal ones disabled."""

    def compose(self) -> ComposeResult:
        for kind in BET_ORDER:
            yield BarButton(f"{BET_KEYS[kind]} {ACTION_NAMES[kind]}", id=f"bet-{kind}")

    def set_legal(self, legal: list[dict[str, Any]]) -> None:
        by_kind = {a["type"]: a for a in legal}
        for kind in BET_ORDER:
            action = by_kind.get(kind)
            button = self.query_one(f"#bet-{kind}", BarButton)
            if action is None:
                button.show(bet_label(kind), False)
            else:
                button.show(bet_label(kind, action.get("amount"), bool(action.get("allIn"))), True)


class PromptBar(Widget):
    """The current phase's keys on one line (start, choose, rejoin, rebuy, ready, leave, …).

    ``set_prompts`` takes ``(action, label, enabled)`` triples. One widget of fixed size rather
    than a row of auto-width buttons: prompts change at every phase, and a button appearing or
    changing width lays the whole screen out. A click on a label posts :class:`Chosen`; the
    screen runs ``action`` exactly as if its hotkey had been typed.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"prompt-bar--on", "prompt-bar--off"}
    DEFAULT_CSS = """
    PromptBar { height: 1; width: 1fr; }
    PromptBar > .prompt-bar--on { text-style: bold; background: $primary-muted; }
    PromptBar > .prompt-bar--off { text-style: dim; }
    """
    SLOTS = 6
    GAP = 2

    class Chosen(Message):
        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    prompts: reactive[tuple[tuple[str, str, bool], ...]] = reactive(())

    def set_prompts(self, prompts: list[tuple[str, str, bool]]) -> None:
        self.prompts = tuple(prompts[: self.SLOTS])

    def spans(self) -> list[tuple[int, int, str, bool]]:
        """``(start, end, action, enabled)`` of each label, in cells."""
        out, x = [], 0
        for action, label, enabled in self.prompts:
            width = cell_len(label) + 2
            out.append((x, x + width, action, enabled))
            x += width + self.GAP
        return out

    def render(self) -> Text:
        on = self.get_component_rich_style("prompt-bar--on")
        off = self.get_component_rich_style("prompt-bar--off")
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, (_, label, enabled) in enumerate(self.prompts):
            if i:
                text.append(" " * self.GAP)
            text.append(f" {label} ", on if enabled else off)
        return text

    def on_click(self, event: events.Click) -> None:
        event.stop()
        for start, end, action, enabled in self.spans():
            if start <= event.x < end and enabled:
                self.post_message(self.Chosen(action))
