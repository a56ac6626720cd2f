"""The chat plumbing the lobby and the table share, so the two screens cannot drift apart.

One chat channel (the lobby's, or a room's): its history and live messages go to a log on the
screen and to the :class:`ChatLine`; ``t`` opens the line, Enter posts what was typed; ``e`` opens
the quick-chat picker, whose digit sends a canned line (:data:`~seotda_tui.rooms.chat.QUICK_LINES`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.message import Message
from textual.widgets import RichLog

from ...i18n import _
from ...rooms.chat import ChatMessage
from ..widgets.chatline import ChatInput, ChatLine, message_text
from .base import BaseScreen
from .quick_chat import QuickChatScreen


class ChatPushed(Message):
    """A chat message, re-posted onto the screen's own task (see ``ChatScreen._chat_deliver``)."""

    def __init__(self, message: ChatMessage) -> None:
        super().__init__()
        self.message = message


class ChatScreen(BaseScreen):
    """A screen with a chat channel: a subclass sets ``chat_channel`` (the lobby's, or its
    room's id) and ``CHAT_LOG``, the selector of the log the messages are written to."""

    CHAT_LOG: ClassVar[str]
    chat_channel: str
    _chat_unsubscribe: Callable[[], None] | None = None

    def chat_log(self) -> RichLog:
        return self.query_one(self.CHAT_LOG, RichLog)

    def chat_done(self) -> None:
        """After Enter in the chat line (sent or refused): e.g. give the focus back."""

    def replay_chat(self) -> None:
        """Write the channel's history to the log (after it was cleared or first shown)."""
        log = self.chat_log()
        for message in self.seotda.chat.history(self.chat_channel):
            log.write(message_text(message))

    def follow_chat(self) -> None:
        """The history, then every new message as it comes."""
        self.replay_chat()
        self._chat_unsubscribe = self.seotda.chat.subscribe(self.chat_channel, self._chat_deliver)

    def stop_chat(self) -> None:
        if self._chat_unsubscribe is not None:
            self._chat_unsubscribe()
            self._chat_unsubscribe = None

    def _chat_deliver(self, message: ChatMessage) -> None:
        """Hub callback (maybe on another session's task): only queue it."""
        self.post_message(ChatPushed(message).set_sender(self))

    def on_chat_pushed(self, event: ChatPushed) -> None:
        self.chat_log().write(message_text(event.message))
        self.query_one(ChatLine).show(event.message)
        self.paint_now()

    def action_chat(self) -> None:
        self.query_one(ChatLine).open()

    def action_quick_chat(self) -> None:
        if not self.query_one(ChatLine).typing:
            self.app.push_screen(QuickChatScreen(), self._quick_chosen)

    def _quick_chosen(self, number: int | None) -> None:
        if number:
            error = self.seotda.chat.quick(self.chat_channel, self.nickname, number)
            if error:
                self.query_one(ChatLine).tell(_(error))

    def other_input(self, event: ChatInput.Submitted) -> bool:
        """Enter in an input that is not the chat line (e.g. the lobby's code prompt): handle
        it and say True, or False for chat."""
        return False

    def on_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        if self.other_input(event):
            return
        line = self.query_one(ChatLine)
        error = self.seotda.chat.post(self.chat_channel, self.nickname, event.value)
        if error:
            line.refuse(_(error))
        else:
            line.close()
        self.chat_done()
