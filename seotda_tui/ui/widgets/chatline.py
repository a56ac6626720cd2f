"""The chat line at the bottom of the lobby and the table: the latest message and the keys.

``t`` (or ㅅ) opens an input in its place; Enter sends, Esc closes. Messages are always drawn as
plain ``Text`` (a nickname or message is never read as markup), and the input itself drops escape
sequences and control characters as they are typed or pasted, so not even the sender's own
terminal receives them.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input

from ...i18n import N_, _
from ...rooms.chat import ChatMessage
from ...sanitize import BIDI_CONTROLS, strip_escapes

#: The key hints; each names the other language's key in that language ("L English"), so a
#: player who cannot read this one still finds it. b (big text) is left to help's key list: at
#: 80 columns the chat line needs room for the latest message beside the hints.
KEYS_TABLE = N_("? 도움말 · t 채팅 · l 기록 · a ASCII · L English")
KEYS_LOBBY = N_("h 지난 게임 · r 전적 · ? 도움말 · t 채팅 · a ASCII · L English")


PLACEHOLDER = N_("채팅: Enter 보내기 · Esc 닫기")


def safe_typed(text: str) -> str:
    """What may enter the chat input: no escapes, controls, format or bidi characters."""
    text = strip_escapes(text).replace("\t", " ")
    return "".join(
        ch
        for ch in text
        if ch not in BIDI_CONTROLS
        and unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")
    )


def message_text(message: ChatMessage) -> Text:
    """A chat message for a log: "철수: 안녕" (plain text, the nickname bold)."""
    if not message.nick:  # a system notice: a msgid (e.g. the hub link's, seotda_tui/cluster)
        return Text(_(message.text), style="dim italic")
    return Text.assemble((message.nick, "bold cyan"), (": ", "cyan"), message.text)


class ChatInput(Input):
    """An input that never holds an escape sequence or a control character."""

    def replace(self, text: str, start: int, end: int) -> None:
        super().replace(safe_typed(text), start, end)


class ChatShow(Widget):
    """The latest message on the left, the key hints on the right."""

    DEFAULT_CSS = """
    ChatShow { height: 1; width: 1fr; }
    """

    last: reactive[ChatMessage | None] = reactive(None)
    keys: reactive[str] = reactive(KEYS_TABLE)
    notice: reactive[str] = reactive("")

    def render(self) -> Text:
        width = self.size.width
        keys = Text(_(self.keys), style="dim")
        left = Text(no_wrap=True, overflow="ellipsis")
        if self.notice:
            left.append(self.notice, "bold red")
        elif self.last is not None:
            left.append(_("채팅") + " ", "dim")
            left.append_text(message_text(self.last))
        room = width - keys.cell_len - 2
        if room < 12:  # narrow: the message wins over the key list
            return left
        left.truncate(room, overflow="ellipsis", pad=True)
        return Text.assemble(left, "  ", keys)


class ChatLine(Horizontal):
    """Shows the latest chat message; ``open()`` swaps in the input."""

    DEFAULT_CSS = """
    ChatLine { height: 1; width: 1fr; }
    ChatLine > ChatInput { display: none; border: none; height: 1; padding: 0 1; width: 1fr; }
    ChatLine.-typing > ChatInput { display: block; }
    ChatLine.-typing > ChatShow { display: none; }
    """

    def __init__(self, keys: str = KEYS_TABLE, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._keys = keys
        self._draft = ""

    def compose(self) -> ComposeResult:
        show = ChatShow()
        show.keys = self._keys
        yield show

    def _input(self) -> ChatInput:
        """The input, mounted the first time chat opens: an ``Input`` brings half a dozen
        component classes to style, and most sessions (and every table screen) never chat."""
        found = self.query(ChatInput)
        if found:
            return found.first()
        chat_input = ChatInput(placeholder=_(PLACEHOLDER), max_length=400, compact=True)
        self.mount(chat_input)
        return chat_input

    def relabel(self) -> None:
        """The session's language changed: the key hints and the input's placeholder follow."""
        self.query_one(ChatShow).refresh()
        for chat_input in self.query(ChatInput):
            chat_input.placeholder = _(PLACEHOLDER)

    @property
    def typing(self) -> bool:
        return self.has_class("-typing")

    def open(self) -> None:
        self.add_class("-typing")
        self.query_one(ChatShow).notice = ""
        chat_input = self._input()
        if self._draft:
            chat_input.value, self._draft = self._draft, ""
            chat_input.cursor_position = len(chat_input.value)
        chat_input.focus()

    def close(self) -> None:
        self.remove_class("-typing")
        for chat_input in self.query(ChatInput):
            chat_input.value = ""
            if chat_input.has_focus:
                self.screen.set_focus(None)

    def show(self, message: ChatMessage) -> None:
        self.query_one(ChatShow).last = message

    def refuse(self, reason: str) -> None:
        """A refused message (too fast, empty): say why; ``t`` brings the text back."""
        self._draft = self._input().value
        self.close()
        self.query_one(ChatShow).notice = reason

    @property
    def shown(self) -> str:
        show = self.query_one(ChatShow)
        return show.render().plain
