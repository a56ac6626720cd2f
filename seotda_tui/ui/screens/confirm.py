"""A yes/no question (e.g. leaving a running game), answered with y/n or the buttons."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...i18n import N_, _
from ..keys import KeyHint, bind
from .base import DismissOnce

#: Leaving a running game: the seat stays and folds every later hand (§5.7) ...
LEAVE_PLAYING = N_("게임 중에 나가면 남은 판은 모두 자동으로 다이해요.\n정말 나갈까요?")
#: ... unless the player is already out of it: nothing is folded, only the seat is left.
LEAVE_ELIMINATED = N_("이미 탈락했어요. 나가도 잃는 칩은 없어요.\n방을 나갈까요?")
#: The buttons' labels, each with its key from the key map.
YES = KeyHint(N_("{yes} 예"), yes="yes")
NO = KeyHint(N_("{no} 아니요"), no="no")


def leave_question(status: str | None) -> str:
    """The question before leaving a running game, for the own seat's engine status."""
    question = LEAVE_ELIMINATED if status == "eliminated" else LEAVE_PLAYING
    return _(question)


class ConfirmScreen(DismissOnce, ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        bind("yes", "answer(True)", "예", show=True),
        bind(("no", "cancel"), "answer(False)", "아니요", show=True),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(YES.text(), variant="error", id="confirm-yes", compact=True)
                yield Button(NO.text(), id="confirm-no", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
