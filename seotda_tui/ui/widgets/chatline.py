"""The chat line at the bottom of the lobby and the table: the latest message and the keys.

``t`` (or ㅅ) opens an input in its place; Enter sends, Esc closes. Messages are always drawn as
plain ``Text`` (a nickname or message is never read as markup), and the input itself drops escape
sequences and control characters as they are typed or pasted, so not even the sender's own
terminal receives them. The input holds at most the hub's :data:`~seotda_tui.rooms.chat.MAX_CELLS`
cells (the hub would cut a longer line silently), and a counter beside it says how many are used.
"""

from __future__ import annotations

import unicodedata

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Static

from ...i18n import N_, _
from ...rooms.chat import MAX_CELLS, ChatMessage
from ...sanitize import BIDI_CONTROLS, emoji_bases, strip_escapes, truncate_cells
from ..keys import Intent, shown

#: A key hint: the intent whose main key it names (:mod:`..keys`, the one key map, written as
#: help writes it) and a msgid saying what it does, with ``{key}`` where the key goes.
Hint = tuple[Intent, str]
Hints = tuple[Hint, ...]

_HELP: Hint = ("help", N_("{key} 도움말"))
_CHAT: Hint = ("chat", N_("{key} 채팅"))
_LOG: Hint = ("toggle_log", N_("{key} 기록"))
_ASCII: Hint = ("ascii", N_("{key} ASCII"))
#: Names the other language in that language ("L English"), so a player who cannot read this
#: one still finds it.
_LANGUAGE: Hint = ("language", N_("{key} English"))

#: The key hints. b (big text) is left to help's key list: at 80 columns the chat line needs
#: room for the latest message beside the hints.
KEYS_TABLE: Hints = (_HELP, _CHAT, _LOG, _ASCII, _LANGUAGE)
KEYS_LOBBY: Hints = (
    ("history", N_("{key} 지난 게임")),
    ("records", N_("{key} 전적")),
    _HELP,
    _CHAT,
    _ASCII,
    _LANGUAGE,
)
#: Shorter hints, tried in turn when the latest message (or a refusal's reason) would be cut
#: beside the whole list: at 80 columns the full list left a message ~12 cells (issue 32 item 6). The last one also
#: drops the "채팅" label; ``l`` opens the log, where a line cut even then is whole.
SHORTER_KEYS: dict[Hints, tuple[Hints, ...]] = {
    KEYS_TABLE: ((_HELP, _LOG, _LANGUAGE), (_LOG, _LANGUAGE)),
}


def hint_text(hints: Hints) -> str:
    """``hints`` in the session's language: "? 도움말 · t 채팅", each key from the key map."""
    return " · ".join(_(label).format(key=shown((intent,))) for intent, label in hints)


#: The input's placeholder: the keys that send (Enter) and close (Esc) it, from the key map.
PLACEHOLDER = N_("채팅: {send} 보내기 · {close} 닫기")


def placeholder() -> str:
    return _(PLACEHOLDER).format(send=shown(("confirm",)), close=shown(("cancel",)))


def safe_typed(text: str) -> str:
    """What may enter the chat input: no escapes, controls, format or bidi characters, and of
    an emoji ZWJ sequence only its first emoji (as the hub keeps it: the sender sees what the
    others will)."""
    text = emoji_bases(strip_escapes(text).replace("\t", " "))
    return "".join(
        ch
        for ch in text
        if ch not in BIDI_CONTROLS
        and unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")
    )


def chat_count(text: str) -> str:
    """The counter beside the input: cells used of the most a message may have ("12/200칸")."""
    return _("{n}/{max}칸").format(n=cell_len(text), max=MAX_CELLS)


def message_text(message: ChatMessage) -> Text:
    """A chat message for a log: "철수: 안녕" (plain text, the nickname bold)."""
    if not message.nick:  # a system notice: a msgid (e.g. the hub link's, seotda_tui/cluster)
        return Text(_(message.text), style="dim italic")
    text = _(message.text) if message.canned else message.text  # quick chat: the reader's words
    return Text.assemble((message.nick, "bold cyan"), (": ", "cyan"), text)


class ChatInput(Input):
    """An input that never holds an escape sequence or a control character, nor more than
    :data:`MAX_CELLS` cells (a Hangul syllable is two): a paste keeps what fits."""

    def replace(self, text: str, start: int, end: int) -> None:
        value = self.value
        start, end = sorted((max(0, start), min(len(value), end)))
        room = MAX_CELLS - cell_len(value[:start] + value[end:])
        fitting = truncate_cells(safe_typed(text[: MAX_CELLS * 8]), room)  # (bounded: pastes)
        if text and not fitting:
            self.restricted()
            return
        super().replace(fitting, start, end)
        if len(fitting) > 1:  # a paste: Input scrolled before its width took the new text in
            self.call_after_refresh(self._follow_cursor)

    def _follow_cursor(self) -> None:
        # The cursor's cell as Input counts it (one past the end at the end), from public
        # names (Input's own _cursor_offset is private; this input never holds a tab).
        cell = cell_len(self.value[: self.cursor_position]) + int(self.cursor_at_end)
        self.scroll_to_region(Region(cell, 0, width=1, height=1), force=True, animate=False)


class ChatShow(Widget):
    """The latest message on the left, the key hints on the right."""

    DEFAULT_CSS = """
    ChatShow { height: 1; width: 1fr; }
    """

    last: reactive[ChatMessage | None] = reactive(None)
    keys: reactive[Hints] = reactive(KEYS_TABLE)
    notice: reactive[str] = reactive("")

    def render(self) -> Text:
        width = self.size.width
        shorter = SHORTER_KEYS.get(self.keys, ())
        choices = [(self.keys, True), *((k, k != shorter[-1]) for k in shorter)]
        for hints, label in choices:  # the richest hints beside which the message is whole
            keys = Text(hint_text(hints), style="dim")
            left = self._left(label)
            room = width - keys.cell_len - 2
            if left.cell_len <= room:
                break
        if room < 12:  # narrow: the message wins over the key list
            return left
        left.truncate(room, overflow="ellipsis", pad=True)
        return Text.assemble(left, "  ", keys)

    def _left(self, label: bool) -> Text:
        """The refusal, or the latest message (after "채팅" when ``label``)."""
        left = Text(no_wrap=True, overflow="ellipsis")
        if self.notice:
            left.append(self.notice, "bold red")
        elif self.last is not None:
            if label:
                left.append(_("채팅") + " ", "dim")
            left.append_text(message_text(self.last))
        return left


class ChatLine(Horizontal):
    """Shows the latest chat message; ``open()`` swaps in the input."""

    DEFAULT_CSS = """
    ChatLine { height: 1; width: 1fr; }
    ChatLine > ChatInput { display: none; border: none; height: 1; padding: 0 1; width: 1fr; }
    ChatLine > #chat-count { display: none; height: 1; padding: 0 1; }
    ChatLine > #chat-count { color: $text-muted; }
    ChatLine.-typing > ChatInput { display: block; }
    ChatLine.-typing > #chat-count { display: block; }
    ChatLine.-typing > ChatShow { display: none; }
    """

    def __init__(self, keys: Hints = KEYS_TABLE, **kwargs: object) -> None:
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
        chat_input = ChatInput(placeholder=placeholder(), max_length=400, compact=True)
        self.mount(chat_input)
        self.mount(Static(id="chat-count", markup=False))
        self._count("")
        return chat_input

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, ChatInput):
            self._count(event.value)

    def _count(self, text: str) -> None:
        """The counter, as wide as its longest text in this language (the input's width stays
        put as it grows, and a relayout is never left behind the text)."""
        for count in self.query("#chat-count").results(Static):
            count.styles.width = cell_len(chat_count("x" * MAX_CELLS)) + 2
            count.update(chat_count(text))

    def relabel(self) -> None:
        """The session's language changed: the key hints and the input's placeholder follow."""
        self.query_one(ChatShow).refresh()
        for chat_input in self.query(ChatInput):
            chat_input.placeholder = placeholder()
            self._count(chat_input.value)

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
        """The newest message, in place of the last one or of a refusal's reason."""
        show = self.query_one(ChatShow)
        show.last, show.notice = message, ""

    def tell(self, reason: str) -> None:
        """A refused quick-chat line: say why (there is no typed text to keep)."""
        self.query_one(ChatShow).notice = reason

    def refuse(self, reason: str) -> None:
        """A refused message (too fast, empty): say why; ``t`` brings the text back."""
        self._draft = self._input().value
        self.close()
        self.query_one(ChatShow).notice = reason

    @property
    def shown(self) -> str:
        show = self.query_one(ChatShow)
        return show.render().plain
