"""The action bar (eight betting buttons that never move, §9) and the phase prompt bar.

Buttons are not focusable: the keys are the hotkeys shown on them, and mouse clicks work too.
Labels and enabled states are only written when they change, so a view push repaints nothing
here unless the legal actions changed.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Grid, Horizontal
from textual.widgets import Button

from .texts import ACTION_NAMES, BET_KEYS, BET_ORDER, bet_label


class BarButton(Button, can_focus=False):
    """A compact button driven by hotkeys; pressing posts ``Button.Pressed`` as usual."""

    def __init__(self, label: str, *, id: str, disabled: bool = True) -> None:
        super().__init__(label, id=id, disabled=disabled, compact=True)
        self._shown: tuple[str, bool] = (label, disabled)

    def show(self, label: str, enabled: bool) -> None:
        if self._shown == (label, not enabled):
            return
        width_changed = label != self._shown[0]
        self._shown = (label, not enabled)
        self.label = label
        self.disabled = not enabled
        if width_changed:  # Button.label does not re-layout: an auto-width button must
            self.refresh(layout=True)


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


class PromptBar(Horizontal):
    """Up to six buttons for the current phase (start, choose, rejoin, rebuy, ready, …).

    ``set_prompts`` takes ``(action, label, enabled)`` triples; the screen runs ``action`` when
    the button is pressed, exactly as if its hotkey had been typed.
    """

    SLOTS = 6

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._actions: list[str] = [""] * self.SLOTS
        self._prompts: tuple[tuple[str, str, bool], ...] = ()

    def compose(self) -> ComposeResult:
        for i in range(self.SLOTS):
            button = BarButton("", id=f"prompt-{i}")
            button.display = False
            yield button

    def set_prompts(self, prompts: list[tuple[str, str, bool]]) -> None:
        prompts = prompts[: self.SLOTS]
        if tuple(prompts) == self._prompts:
            return
        self._prompts = tuple(prompts)
        for i in range(self.SLOTS):
            button = self.query_one(f"#prompt-{i}", BarButton)
            if i < len(prompts):
                action, label, enabled = prompts[i]
                self._actions[i] = action
                button.show(label, enabled)
                button.display = True
            else:
                self._actions[i] = ""
                button.display = False

    def action_for(self, button: Button) -> str | None:
        if button.id and button.id.startswith("prompt-"):
            return self._actions[int(button.id.split("-")[1])] or None
        return None
