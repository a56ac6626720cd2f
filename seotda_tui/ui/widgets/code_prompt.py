"""The lobby's one-line prompt for a private room's code (``c`` key, or a private room's Enter)."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widgets import Input, Static

from ...i18n import N_, _
from ..keys import KeyHint

#: A code is 8 characters; a little room for spaces or dashes a friend typed between them.
CODE_INPUT_MAX = 12
#: The row's label and keys stay while a code is typed (the placeholder goes at the first key).
LABEL = N_("방 코드:")
EXAMPLE = N_("예: K7QX3M9P")
#: Enter is the prompt's own (an Input submits), Esc the lobby's.
KEYS = KeyHint(N_("{enter} 들어가기 · {cancel} 취소"), enter="confirm", cancel="cancel")


class CodePrompt(Input):
    """Bounded (a paste of anything longer is cut); what it holds is checked by the manager."""

    # (Input's own :focus rule would bring its tall border back, over a 1-line height: the
    # typed code was invisible)
    DEFAULT_CSS = (
        "CodePrompt, CodePrompt:focus { border: none; height: 1; padding: 0 1; width: 16; }"
    )

    def __init__(self, room_id: str | None, how: str) -> None:
        # no id: a prompt closed and another opened by keys of one packet are both in the
        # screen until the first one's removal completes
        super().__init__(placeholder=_(EXAMPLE), max_length=CODE_INPUT_MAX)
        self.room_id = room_id  # the private room it opens, or None: any room with that code
        self.how = how  # "join" or "watch"

    def aim(self, room_id: str | None, how: str) -> None:
        """Ask for another room's code (or any room's) instead, from an empty line."""
        self.room_id, self.how = room_id, how
        self.value = ""


class CodeRow(Horizontal):
    """The prompt with its label before it and its keys after it, on one line."""

    DEFAULT_CSS = """
    CodeRow { height: 1; }
    CodeRow > .code-label { width: auto; padding: 0 0 0 1; text-style: bold; }
    CodeRow > .code-keys { width: 1fr; color: $text-muted; }
    """

    def __init__(self, prompt: CodePrompt) -> None:
        super().__init__(
            Static(_(LABEL), classes="code-label", markup=False),
            prompt,
            Static(KEYS.text(), classes="code-keys", markup=False),
        )
        self.prompt = prompt

    def on_mount(self) -> None:
        """The prompt takes the keys once it is in the screen (asked before, it is not yet)."""
        self.prompt.focus()
