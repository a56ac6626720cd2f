"""A worker's side of ``--workers N``: the room manager and the chat hub as the UI uses them,
each call sent to the rooms process (:mod:`.hub`) over the worker's :class:`~.link.HubLink`.

Why calls wait for their answer: the UI calls the manager synchronously and uses what it returns
(``act``'s and ``join``'s RoomError, ``create_room``'s summary), and so do the tests. A call
is one frame to the hub and one back over a local unix socket; the hub answers from memory (plus
a journal write for a game action), so the worker's loop waits about what the in-process
manager takes (BENCHMARKS.md). Keeping the calls synchronous keeps every screen and every N=1
test unchanged. While the hub is down every call fails at once with a Korean message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar, cast

from engine import Options
from engine.types import Action

from ..clock import LOOP_CLOCK, Clock
from ..i18n import N_
from ..logs import log_event
from ..rooms import RoomError, RoomService, RoomSummary, RoomUpdate
from ..rooms.chat import ChatMessage, ChatService
from ..rooms.clock import LoopClock
from ..rooms.events import RoomEvent
from . import answers
from . import protocol as wire
from .calls import ROOM_CALLS, RoomCall
from .link import HubDown, HubLink, safely

if TYPE_CHECKING:
    from ..rooms.history import GameHistory
    from ..rooms.records import GameRecords

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger("seotda.cluster")
_DOWN = object()  # call_or's answer while the hub is down
MSG_HUB_DOWN = N_("방 서버와 잠시 연결이 끊겼어요. 곧 다시 이어져요")
#: The chat line's notices (short: the table's chat line leaves them ~30 cells at 80 columns).
MSG_LINK_LOST = N_("잠시 연결이 끊겼어요")
MSG_LINK_BACK = N_("다시 연결됐어요")


@dataclasses.dataclass
class _RoomSub:
    room_id: str
    nick: str
    callback: Callable[[RoomUpdate], None]
    last: RoomUpdate | None = None


class RemoteRoomManager:
    """The room API (:class:`~seotda_tui.rooms.RoomService`), served by the hub.

    ``records`` and ``history`` are the worker's own read connections to the same SQLite files
    (the hub writes them); ``clock`` is the worker's loop clock: the moments in what the hub
    sends (a deadline, a grace's end) arrive as seconds left and are put on it as they are
    decoded (rooms/api.py's convention), so they never depend on the hub's clock.
    """

    def __init__(
        self,
        link: HubLink,
        room_defaults: Options | None = None,
        records: GameRecords | None = None,
        history: GameHistory | None = None,
    ) -> None:
        self.link = link
        self.clock = LoopClock()
        self.room_defaults = room_defaults or Options()
        self.records = records
        self.history = history
        self._sessions: Counter[str] = Counter()
        self._addresses: dict[str, str] = {}  # nick -> its session's address (told the hub)
        self._rooms: dict[int, _RoomSub] = {}
        self._lobby: dict[int, Callable[[list[RoomSummary]], None]] = {}
        self._lobby_ids = itertools.count(1)
        self._lobby_sub: int | None = None
        self._lobby_rooms: list[RoomSummary] = []
        link.when_back(self._hub_back)

    def close(self) -> None:
        self.link.close()

    # ------------------------------------------------------------------ calls
    def _call(
        self, method: Callable[Concatenate[RoomService, P], R], *args: P.args, **kwargs: P.kwargs
    ) -> R:
        """``method`` of the room API, at the hub: the arguments and the answer go through the
        call's codecs (:mod:`.calls`); a refusal raises RoomError, the hub down ``hub_down``."""
        call = ROOM_CALLS[method.__name__]
        try:
            data = self.link.call(call.name, *call.to_wire(*args, **kwargs))
        except HubDown as exc:
            raise RoomError("hub_down", MSG_HUB_DOWN) from exc
        return cast(R, self._answer(call, data))  # (checked by its codec: R's shape)

    def _call_or(
        self,
        default: R,
        method: Callable[Concatenate[RoomService, P], R],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> R:
        """:meth:`_call`, but ``default`` while the hub is down (a query the UI asks on its
        own, e.g. the room of an idle session, must not fail on that)."""
        call = ROOM_CALLS[method.__name__]
        data = self.link.call_or(_DOWN, call.name, *call.to_wire(*args, **kwargs))
        if data is _DOWN:
            return default
        return cast(R, self._answer(call, data))  # (checked by its codec: R's shape)

    def _answer(self, call: RoomCall, data: object) -> object:
        """The hub's answer decoded and checked; one that does not fit the call's type is
        logged and reported as the hub being unusable (``hub_down``), like a failed call."""
        try:
            return call.answer_from_wire(data, self.clock.time())
        except (ValueError, TypeError, wire.ProtocolError) as exc:  # (ShapeError: ValueError)
            log_event(log, "hub_protocol", level=logging.ERROR, error=f"{call.name}: {exc}")
            raise RoomError("hub_down", MSG_HUB_DOWN) from exc

    def rooms(self, *, unlisted: bool = False) -> list[RoomSummary]:
        found = self._call_or(None, RoomService.rooms, unlisted=unlisted)
        if found is None:  # (the hub is down: the lobby as last pushed)
            return list(self._lobby_rooms) if not unlisted else []
        return found

    def room(self, room_id: str) -> RoomSummary | None:
        return self._call_or(None, RoomService.room, room_id)

    def room_of(self, nick: str) -> str | None:
        return self._call_or(None, RoomService.room_of, nick)

    def log(self, room_id: str) -> list[RoomEvent]:
        return self._call(RoomService.log, room_id)

    def find_room(self, target: str) -> RoomSummary | None:
        return self._call(RoomService.find_room, target)

    def direct_join(self, target: str, nick: str) -> str:
        return self._call(RoomService.direct_join, target, nick)

    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, object],
        *,
        private: bool = False,
        listed: bool = True,
    ) -> RoomSummary:
        return self._call(
            RoomService.create_room, host, name, options, private=private, listed=listed
        )

    def join(self, room_id: str, nick: str, code: str | None = None) -> None:
        self._call(RoomService.join, room_id, nick, code)

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        self._call(RoomService.watch, room_id, nick, code)

    def leave(self, room_id: str, nick: str) -> None:
        self._call(RoomService.leave, room_id, nick)

    def start(self, room_id: str, nick: str) -> None:
        self._call(RoomService.start, room_id, nick)

    def act(self, room_id: str, nick: str, action: Action) -> None:
        self._call(RoomService.act, room_id, nick, action)

    def add_bot(self, room_id: str, nick: str, level: str = "cautious") -> str:
        return self._call(RoomService.add_bot, room_id, nick, level)

    def remove_bot(self, room_id: str, nick: str, bot: str | None = None) -> str:
        return self._call(RoomService.remove_bot, room_id, nick, bot)

    def remove(self, room_id: str, host: str, nick: str) -> None:
        self._call(RoomService.remove, room_id, host, nick)

    def set_locked(self, room_id: str, host: str, locked: bool) -> None:
        self._call(RoomService.set_locked, room_id, host, locked)

    def hand_host(self, room_id: str, host: str, nick: str) -> None:
        self._call(RoomService.hand_host, room_id, host, nick)

    def readmit(self, room_id: str, host: str) -> None:
        self._call(RoomService.readmit, room_id, host)

    def change_code(self, room_id: str, host: str) -> None:
        self._call(RoomService.change_code, room_id, host)

    def change_options(
        self, room_id: str, host: str, options: Options | Mapping[str, object]
    ) -> None:
        self._call(RoomService.change_options, room_id, host, options)

    # ------------------------------------------------------------------ sessions
    def session_connected(self, nick: str, address: str = "") -> str | None:
        self._sessions[nick] += 1
        if address:
            self._addresses[nick] = address
        # (while the hub is down: told again when it is back, _hub_back)
        return self._call_or(None, RoomService.session_connected, nick, address)

    def session_disconnected(self, nick: str) -> None:
        if self._sessions[nick] <= 0:
            return
        self._sessions[nick] -= 1
        if self._sessions[nick] <= 0:
            del self._sessions[nick]
            self._addresses.pop(nick, None)
        self.link.notify("session_disconnected", *ROOM_CALLS["session_disconnected"].to_wire(nick))

    # ------------------------------------------------------------------ subscriptions
    def subscribe_lobby(self, callback: Callable[[list[RoomSummary]], None]) -> Callable[[], None]:
        """One hub subscription per worker, fanned out here (the lobby list is the same for all)."""
        key = next(self._lobby_ids)
        self._lobby[key] = callback
        if self._lobby_sub is None:
            self._lobby_sub = self.link.add_sub(self._lobby_push)
            try:
                self.link.call("subscribe_lobby", self._lobby_sub)  # its first push: everyone
            except HubDown:
                safely(callback, list(self._lobby_rooms))
        else:
            safely(callback, list(self._lobby_rooms))

        def unsubscribe() -> None:
            self._lobby.pop(key, None)
            if not self._lobby and self._lobby_sub is not None:
                self.link.drop_sub(self._lobby_sub)
                self._lobby_sub = None

        return unsubscribe

    def _lobby_push(self, data: object) -> None:
        now = self.clock.time()
        rooms = wire.decoded(list[object], data, "lobby")
        self._lobby_rooms = [wire.summary_from_wire(r, now) for r in rooms]
        for callback in list(self._lobby.values()):
            safely(callback, list(self._lobby_rooms))

    def subscribe_room(
        self, room_id: str, nick: str, callback: Callable[[RoomUpdate], None]
    ) -> Callable[[], None]:
        entry = _RoomSub(room_id, nick, callback)

        def push(data: object) -> None:
            entry.last = wire.update_from_wire(data, self.clock.time())
            callback(entry.last)

        sub = self.link.add_sub(push)
        self._rooms[sub] = entry
        try:
            self.link.call("subscribe_room", sub, room_id, nick)
        except HubDown as exc:
            self._rooms.pop(sub, None)
            self.link.forget_sub(sub)
            raise RoomError("hub_down", MSG_HUB_DOWN) from exc
        except RoomError:
            self._rooms.pop(sub, None)
            self.link.forget_sub(sub)
            raise

        def unsubscribe() -> None:
            if self._rooms.pop(sub, None) is not None:
                self.link.drop_sub(sub)

        return unsubscribe

    def _hub_back(self) -> None:
        """A new hub (restarted from the journal): tell it who is here, subscribe again."""
        for nick, count in list(self._sessions.items()):
            for _ in range(count):
                with contextlib.suppress(HubDown, RoomError):
                    self.link.call("session_connected", nick, self._addresses.get(nick, ""))
        if self._lobby_sub is not None:
            with contextlib.suppress(HubDown):
                self.link.call("subscribe_lobby", self._lobby_sub)
        for sub, entry in list(self._rooms.items()):
            try:
                self.link.call("subscribe_room", sub, entry.room_id, entry.nick)
            except RoomError as exc:  # e.g. a spectator's room did not come back
                self._rooms.pop(sub, None)
                self.link.forget_sub(sub)
                if entry.last is not None:
                    closed = dataclasses.replace(
                        entry.last,
                        events=(),
                        closed=True,
                        notice=str(exc),
                        notice_template=exc.template,
                        notice_values=tuple((k, str(v)) for k, v in exc.values.items()),
                    )
                    safely(entry.callback, closed)
            except HubDown:
                return


def _implements(manager: RemoteRoomManager) -> RoomService:
    return manager  # mypy proves here that the remote is all that rooms/api.py says


class RemoteChat:
    """The :class:`~seotda_tui.rooms.chat.ChatService`, served by the hub; the link's losses and
    returns are said as system lines in every channel a session here reads."""

    def __init__(self, link: HubLink, clock: Clock = LOOP_CLOCK) -> None:
        self.link = link
        self.clock = clock  # (the time of its own link lines)
        self._subs: dict[int, tuple[str, Callable[[ChatMessage], None]]] = {}
        link.when_lost(lambda: self._say(MSG_LINK_LOST))
        link.when_back(self._hub_back)

    def post(self, channel: str, nick: str, text: str) -> str | None:
        """The hub's refusal, or None (sent); the hub down (or answering amiss) is one too."""
        return self.link.ask_or(MSG_HUB_DOWN, answers.CHAT_POST, channel, nick, text)

    def quick(self, channel: str, nick: str, number: int) -> str | None:
        return self.link.ask_or(MSG_HUB_DOWN, answers.CHAT_QUICK, channel, nick, number)

    def notice(self, channel: str, text: str) -> None:
        self.link.notify("chat_notice", channel, text)

    def history(self, channel: str) -> list[ChatMessage]:
        lines = self.link.ask_or([], answers.CHAT_HISTORY, channel)
        try:
            return [wire.chat_from_wire(m) for m in lines]
        except wire.ProtocolError as exc:  # (as if the hub were down: no history)
            log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
            return []

    def subscribers(self, channel: str) -> int:
        return self.link.ask_or(0, answers.CHAT_SUBSCRIBERS, channel)

    def subscribe(
        self, channel: str, callback: Callable[[ChatMessage], None]
    ) -> Callable[[], None]:
        sub = self.link.add_sub(lambda data: callback(wire.chat_from_wire(data)))
        self._subs[sub] = (channel, callback)
        with contextlib.suppress(HubDown):
            self.link.call("subscribe_chat", sub, channel)

        def unsubscribe() -> None:
            if self._subs.pop(sub, None) is not None:
                self.link.drop_sub(sub)

        return unsubscribe

    def _say(self, text: str) -> None:
        now = self.clock.time()
        for channel, callback in list(self._subs.values()):
            safely(callback, ChatMessage(channel, "", text, now))

    def _hub_back(self) -> None:
        for sub, (channel, _callback) in list(self._subs.items()):
            with contextlib.suppress(HubDown):
                self.link.call("subscribe_chat", sub, channel)
        self._say(MSG_LINK_BACK)


def _implements_chat(chat: RemoteChat) -> ChatService:
    return chat  # mypy proves here that the remote chat is all that ChatService says
