"""Quick chat (``e`` at the table): the canned lines, one digit each; the answer is the number.

Only a picker, like the host's menu: the screen under it sends the number through the chat hub
(:meth:`~seotda_tui.rooms.chat.ChatHub.quick`), which says it in each reader's language. A
digit and nothing else: typed lines need ``t`` and Enter, these must be one key away between
bets. The box sits at the bottom, over the action bar, so the cards and the pot stay in sight.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...i18n import N_, _
from ...rooms.chat import QUICK_LINES
from ..keys import KeyHint, bind, numbered
from .base import DismissOnce

TITLE = KeyHint(N_("빠른 채팅 · 숫자 키로 보내기 · {close} 닫기"), close="cancel")


def quick_menu() -> Text:
    """The lines in two columns (1-4 | 5-8), in the current language, as plain text."""
    lines = [f"{n} {_(line)}" for n, line in enumerate(QUICK_LINES, 1)]
    half = (len(lines) + 1) // 2
    left, right = lines[:half], lines[half:]
    width = max(cell_len(line) for line in left) + 3
    text = Text(no_wrap=True, overflow="ellipsis")
    for row, line in enumerate(left):
        if row:
            text.append("\n")
        text.append(line + " " * (width - cell_len(line)))
        if row < len(right):
            text.append(right[row])
    return text


class QuickChatScreen(DismissOnce, ModalScreen[int | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        *numbered("pick({n})", range(1, len(QUICK_LINES) + 1)),
        bind(("cancel", "leave", "quick_chat"), "pick(0)"),  # e opened it
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="quick-chat-box"):
            yield Static(TITLE.text(), id="quick-chat-title", markup=False)
            yield Static(quick_menu(), id="quick-chat-lines")

    def action_pick(self, number: int) -> None:
        self.dismiss(number or None)
