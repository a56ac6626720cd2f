"""Chat: one channel per room (keyed by room id) and one for the lobby (``"lobby"``).

One :class:`ChatHub` per server, next to the :class:`~seotda_tui.rooms.RoomManager`; every
session's app gets the same hub. Like the manager it has no Textual in it: subscribers are plain
callbacks, called synchronously (possibly on another session's task), so they must only hand the
message over (post a Textual message) and never call back into the hub.

Safety: a message is untrusted text that goes to other players' terminals, so it passes through
:func:`~seotda_tui.sanitize.clean_text` (escape sequences, control, bidi and blank-drawing
characters removed, emoji modifiers dropped so that every terminal draws the line as wide as Textual
lays it out, one line, at most :data:`MAX_CELLS` display cells) before anyone sees it, and screens
draw it as plain ``rich.text.Text``, never as markup. Each sender may post :data:`RATE_COUNT`
messages per :data:`RATE_SECONDS` seconds, on the hub's :class:`~seotda_tui.clock.Clock` (the
rooms' own, so a test's fake clock moves the rooms and the chat alike).

Quick chat: :data:`QUICK_LINES` are canned lines (``e`` then a digit on the table). One is sent
as its number and travels as its Korean msgid with ``canned`` set, so each reader's screen says
it in the reader's language (a Korean player's 안녕하세요! is an English player's Hi!). It counts
against the same rate limit as typed lines.

API::

    hub = ChatHub(clock=manager.clock, history=50)
    hub.post(channel, nick, text) -> str | None       # Korean refusal, or None when sent
    hub.quick(channel, nick, number) -> str | None    # QUICK_LINES[number - 1], likewise
    hub.subscribe(channel, callback) -> unsubscribe   # callback(ChatMessage) for each new message
    hub.history(channel) -> list[ChatMessage]         # the last ``history`` messages, oldest first
    hub.notice(channel, text)                         # a system line (nick ""), not rate limited

That API is :class:`ChatService`, the chat's counterpart of ``rooms/api.py``'s ``RoomService``: the
UI types its chat by it, and a worker of ``--workers N`` passes the hub's ``cluster.remote.RemoteChat``
where one process passes a :class:`ChatHub`. mypy proves both implement it (``_implements`` at the
bottom of this module and of ``cluster/remote.py``).
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..clock import LOOP_CLOCK, Clock
from ..i18n import N_
from ..sanitize import clean_text

log = logging.getLogger("seotda_tui.chat")  # its name before the move into rooms/

LOBBY = "lobby"
MAX_CELLS = 200
RATE_COUNT = 3
RATE_SECONDS = 3.0
HISTORY = 50

TOO_FAST = N_("채팅이 너무 빨라요. 잠시 뒤에 다시 보내 주세요")
EMPTY = N_("보낼 내용이 없어요")

#: The quick-chat lines, keys 1-8 in order (msgids: each reader sees them in their language).
QUICK_LINES = (
    N_("안녕하세요! 👋"),
    N_("잘 부탁드려요"),
    N_("나이스! 👍"),
    N_("조금만 빨리 부탁해요"),
    N_("아깝다 ㅠㅠ"),
    N_("ㅋㅋㅋ 😂"),
    N_("고마워요 🙏"),
    N_("수고하셨어요"),
)


@dataclass(frozen=True)
class ChatMessage:
    """One sanitised line; ``nick`` is "" for a system notice. ``canned``: ``text`` is one of
    :data:`QUICK_LINES` (a msgid, drawn in the reader's language). ``at``: when the hub took it,
    on the hub's clock (its rate limit counts by it; no screen shows it, so unlike a room's
    moments it is not put on a worker's clock: rooms/api.py)."""

    channel: str
    nick: str
    text: str
    at: float
    canned: bool = False


ChatCallback = Callable[[ChatMessage], None]


class ChatService(Protocol):
    """What a session may ask of the chat (see the module doc): each process's :class:`ChatHub`,
    or a worker's view of the rooms process's one."""

    def post(self, channel: str, nick: str, text: str) -> str | None:
        """Send ``text`` from ``nick``; a Korean reason when refused, else None."""
        ...

    def quick(self, channel: str, nick: str, number: int) -> str | None:
        """Send quick-chat line ``number`` (1-based); refused like :meth:`post`."""
        ...

    def notice(self, channel: str, text: str) -> None:
        """A system line (nick ""), not rate limited."""
        ...

    def history(self, channel: str) -> list[ChatMessage]:
        """The channel's last messages, oldest first."""
        ...

    def subscribe(self, channel: str, callback: ChatCallback) -> Callable[[], None]:
        """``callback`` for every new message on ``channel``; returns the unsubscribe function."""
        ...

    def subscribers(self, channel: str) -> int:
        """How many subscriptions ``channel`` has."""
        ...


class ChatHub:
    """Channels of bounded history with subscribers and a per-sender rate limit."""

    def __init__(
        self,
        clock: Clock = LOOP_CLOCK,
        history: int = HISTORY,
        rate_count: int = RATE_COUNT,
        rate_seconds: float = RATE_SECONDS,
    ) -> None:
        self.clock = clock
        self._history_size = history
        self.rate_count = rate_count
        self.rate_seconds = rate_seconds
        self._history: dict[str, deque[ChatMessage]] = {}
        self._subs: dict[str, dict[int, ChatCallback]] = {}
        self._sent: dict[str, deque[float]] = {}
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ sending
    def post(self, channel: str, nick: str, text: str) -> str | None:
        """Send ``text`` from ``nick``; returns a Korean reason when refused."""
        clean = clean_text(text, MAX_CELLS)
        if not clean:
            return EMPTY
        return self._send(ChatMessage(channel, nick, clean, self.clock.time()))

    def quick(self, channel: str, nick: str, number: int) -> str | None:
        """Send quick-chat line ``number`` (1-based) from ``nick``; rate limited like ``post``."""
        if not 1 <= number <= len(QUICK_LINES):
            return EMPTY
        return self._send(
            ChatMessage(channel, nick, QUICK_LINES[number - 1], self.clock.time(), True)
        )

    def _send(self, message: ChatMessage) -> str | None:
        """Publish ``message`` unless its sender has used up the rate limit (then why not)."""
        now = message.at
        sent = self._sent.setdefault(message.nick, deque())
        while sent and now - sent[0] >= self.rate_seconds:
            sent.popleft()
        if len(sent) >= self.rate_count:
            return TOO_FAST
        sent.append(now)
        self._publish(message)
        return None

    def notice(self, channel: str, text: str) -> None:
        """A system line (e.g. "철수님이 들어왔어요"); sanitised like any message."""
        clean = clean_text(text, MAX_CELLS)
        if clean:
            self._publish(ChatMessage(channel, "", clean, self.clock.time()))

    def _publish(self, message: ChatMessage) -> None:
        history = self._history.setdefault(message.channel, deque(maxlen=self._history_size))
        history.append(message)
        for callback in list(self._subs.get(message.channel, {}).values()):
            try:
                callback(message)
            except Exception:  # one broken session must not silence the others
                log.exception("chat subscriber failed")

    # ------------------------------------------------------------------ reading
    def history(self, channel: str) -> list[ChatMessage]:
        return list(self._history.get(channel, ()))

    def subscribe(self, channel: str, callback: ChatCallback) -> Callable[[], None]:
        """``callback`` for every new message on ``channel``; returns the unsubscribe function.

        A room channel's history is dropped when its last subscriber leaves (the room is gone
        or empty); the lobby keeps its history.
        """
        sub = next(self._ids)
        self._subs.setdefault(channel, {})[sub] = callback

        def unsubscribe() -> None:
            subs = self._subs.get(channel)
            if subs is None:
                return
            subs.pop(sub, None)
            if not subs:
                del self._subs[channel]
                if channel != LOBBY:
                    self._history.pop(channel, None)

        return unsubscribe

    def subscribers(self, channel: str) -> int:
        return len(self._subs.get(channel, {}))


def _implements(hub: ChatHub) -> ChatService:
    return hub  # mypy proves here that ChatHub is all that ChatService says
