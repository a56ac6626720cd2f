"""A worker's side of ``--workers N``: the room manager, chat hub and global limits as the UI and
the SSH server use them, each call sent to the rooms process (:mod:`.hub`).

Why calls wait for their answer: the UI calls the manager synchronously and uses what it returns
(``act``'s refusal, ``join``'s RoomError, ``create_room``'s summary), and so do the tests. A call
is one frame to the hub and one back over a local unix socket; the hub answers from memory (plus
a journal write for a game action), so the worker's loop waits well under a millisecond
(BENCHMARKS.md). Keeping the calls synchronous keeps every screen and every N=1 test unchanged.
The wait is bounded (:data:`CALL_TIMEOUT`); while the hub is down every call fails at once with a
Korean message (no waiting at all), and the link reconnects in the background.

Pushes (room updates, the lobby list, chat lines, "this nickname logged in elsewhere") come on
the same socket; those that arrive while a call waits are delivered before it returns, as the
in-process manager calls its subscribers inside the call that caused them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import socket
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine import Options, OptionsError

from ..logs import log_event
from ..rooms import RoomError, RoomSummary, RoomUpdate
from ..rooms.chat import ChatMessage
from ..rooms.clock import LoopClock
from ..ssh.state import DisconnectReason, Replaceable, SessionRegistry
from . import protocol as wire

log = logging.getLogger("seotda.cluster")

#: The longest a worker's loop waits for one answer before it counts the hub as gone.
CALL_TIMEOUT = 5.0
RETRY_SECONDS = 0.2
MSG_HUB_DOWN = "방 서버와 잠시 연결이 끊겼어요. 곧 다시 이어져요"
#: The chat line's notices (short: the table's chat line leaves them ~30 cells at 80 columns).
MSG_LINK_LOST = "잠시 연결이 끊겼어요"
MSG_LINK_BACK = "다시 연결됐어요"


class HubDown(Exception):
    """The rooms process cannot be reached right now."""


Push = Callable[[Any], None]


class HubLink:
    """The worker's one connection to the hub: blocking calls, pushed frames, reconnects."""

    def __init__(self, path: Path, worker: int, timeout: float = CALL_TIMEOUT) -> None:
        self.path, self.worker, self.timeout = path, worker, timeout
        self._sock: socket.socket | None = None
        self._reader = wire.FrameReader()
        self._ids = itertools.count(1)
        self._subs: dict[int, Push] = {}
        self._sub_ids = itertools.count(1)
        self.on_kick: Callable[[str], None] | None = None
        self._on_lost: list[Callable[[], None]] = []
        self._on_back: list[Callable[[], None]] = []
        self._retry: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def up(self) -> bool:
        return self._sock is not None

    def when_lost(self, callback: Callable[[], None]) -> None:
        self._on_lost.append(callback)

    def when_back(self, callback: Callable[[], None]) -> None:
        self._on_back.append(callback)

    async def start(self, wait: float = 30.0) -> None:
        """Connect (retrying while the hub starts); raises HubDown after ``wait`` seconds."""
        loop = asyncio.get_running_loop()
        until = loop.time() + wait
        while not self._connect():
            if loop.time() > until:
                raise HubDown(f"no hub at {self.path}")
            await asyncio.sleep(RETRY_SECONDS)

    def close(self) -> None:
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
        self._drop()

    def _connect(self) -> bool:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(str(self.path))
            sock.sendall(wire.frame(wire.hello(self.worker)))
            reader = wire.FrameReader()
            while True:
                data = sock.recv(65536)
                if not data:
                    raise OSError("hub closed")
                greeting = next(iter(reader.feed(data)), None)
                if greeting is not None:
                    wire.check_hello(greeting)
                    break
        except (OSError, wire.ProtocolError):
            sock.close()
            return False
        self._sock, self._reader = sock, reader
        asyncio.get_running_loop().add_reader(sock.fileno(), self._readable)
        return True

    def _drop(self) -> None:
        sock, self._sock = self._sock, None
        if sock is None:
            return
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(sock.fileno())
        sock.close()

    def _lost(self) -> None:
        """The hub went away: fail fast from now on, tell the sessions, reconnect."""
        if self._sock is None:
            return
        self._drop()
        log_event(log, "hub_lost", level=logging.WARNING, worker=self.worker)
        for callback in self._on_lost:
            _safely(callback)
        if not self._closed:
            self._retry = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self._connect():
            await asyncio.sleep(RETRY_SECONDS)
        log_event(log, "hub_back", worker=self.worker)
        for callback in self._on_back:
            _safely(callback)

    # ------------------------------------------------------------------ frames
    def _readable(self) -> None:
        if self._sock is None:
            return
        try:
            data = self._sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError, TimeoutError):
            return
        except OSError:
            data = b""
        if not data:
            self._lost()
            return
        self._feed(data, None)

    def _feed(self, data: bytes, waiting: int | None) -> dict[str, Any] | None:
        """Deliver every whole frame; returns the answer to call ``waiting`` if it came."""
        answer = None
        try:
            for message in self._reader.feed(data):
                kind = message.get("t")
                if kind == "r":
                    if message.get("i") == waiting:
                        answer = message
                elif kind == "p":
                    push = self._subs.get(message.get("s", -1))
                    if push is not None:
                        _safely(push, message.get("v"))
                elif kind == "kick" and self.on_kick is not None:
                    _safely(self.on_kick, str(message.get("nick")))
        except wire.ProtocolError as exc:
            log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
            self._lost()
        return answer

    def call(self, op: str, *args: Any) -> Any:
        """Run ``op`` on the hub and return its value; RoomError/OptionsError as the manager
        raised them; HubDown when it cannot be reached (then it reconnects)."""
        sock = self._sock
        if sock is None:
            raise HubDown(op)
        i = next(self._ids)
        deadline = time.monotonic() + self.timeout
        try:
            sock.sendall(wire.frame({"t": "q", "i": i, "op": op, "a": list(args)}))
            answer = None
            while answer is None:
                sock.settimeout(max(0.001, deadline - time.monotonic()))
                data = sock.recv(1 << 20)
                if not data:
                    raise OSError("hub closed")
                answer = self._feed(data, i)
                if self._sock is None:
                    raise OSError("hub protocol")
        except OSError as exc:  # (TimeoutError too: a hub that hangs is treated as gone)
            self._lost()
            raise HubDown(op) from exc
        finally:
            if self._sock is not None:
                self._sock.settimeout(self.timeout)
        error = answer.get("e")
        if error == "room":
            raise RoomError(str(answer.get("m")))
        if error == "options":
            raise OptionsError(str(answer.get("m")))
        if error is not None:
            raise HubDown(f"{op}: {answer.get('m')}")
        return answer.get("v")

    def notify(self, op: str, *args: Any) -> None:
        """``op`` without waiting for (or getting) an answer; dropped while the hub is down."""
        if self._sock is None:
            return
        try:
            self._sock.sendall(wire.frame({"t": "n", "op": op, "a": list(args)}))
        except OSError:
            self._lost()

    def add_sub(self, push: Push) -> int:
        sub = next(self._sub_ids)
        self._subs[sub] = push
        return sub

    def forget_sub(self, sub: int) -> None:
        """A subscription the hub never took (its call was refused)."""
        self._subs.pop(sub, None)

    def drop_sub(self, sub: int) -> None:
        if self._subs.pop(sub, None) is not None:
            self.notify("unsubscribe", sub)


def _text(value: Any) -> str | None:
    """A hub's answer that is a text or nothing (a refusal, a room id, a code)."""
    return value if isinstance(value, str) else None


def _safely(callback: Callable[..., None], *args: Any) -> None:
    try:
        callback(*args)
    except Exception:
        log.exception("cluster callback failed")


@dataclasses.dataclass
class _RoomSub:
    room_id: str
    nick: str
    callback: Callable[[RoomUpdate], None]
    last: RoomUpdate | None = None


class RemoteRoomManager:
    """The :class:`~seotda_tui.rooms.RoomManager` API the UI uses, served by the hub.

    ``records`` and ``history`` are the worker's own read connections to the same SQLite files
    (the hub writes them); ``clock`` is the worker's loop clock (the same monotonic clock as the
    hub's, so a summary's grace end reads the same here).
    """

    def __init__(
        self,
        link: HubLink,
        room_defaults: Options | None = None,
        records: Any = None,
        history: Any = None,
    ) -> None:
        self.link = link
        self.clock = LoopClock()
        self.room_defaults = room_defaults or Options()
        self.records = records
        self.history = history
        self._sessions: Counter[str] = Counter()
        self._rooms: dict[int, _RoomSub] = {}
        self._lobby: dict[int, Callable[[list[RoomSummary]], None]] = {}
        self._lobby_ids = itertools.count(1)
        self._lobby_sub: int | None = None
        self._lobby_rooms: list[RoomSummary] = []
        link.when_back(self._hub_back)

    def close(self) -> None:
        self.link.close()

    # ------------------------------------------------------------------ calls
    def _call(self, op: str, *args: Any) -> Any:
        try:
            return self.link.call(op, *args)
        except HubDown as exc:
            raise RoomError(MSG_HUB_DOWN) from exc

    def rooms(self, *, unlisted: bool = False) -> list[RoomSummary]:
        try:
            return [wire.summary_from_wire(r) for r in self.link.call("rooms", unlisted)]
        except HubDown:
            return list(self._lobby_rooms) if not unlisted else []

    def room(self, room_id: str) -> RoomSummary | None:
        try:
            return wire.maybe_summary(self.link.call("room", room_id))
        except HubDown:
            return None

    def room_of(self, nick: str) -> str | None:
        try:
            return _text(self.link.call("room_of", nick))
        except HubDown:
            return None

    def log(self, room_id: str) -> list[dict[str, Any]]:
        return list(self._call("log", room_id))

    def room_code(self, room_id: str, nick: str) -> str | None:
        try:
            return _text(self.link.call("room_code", room_id, nick))
        except HubDown:
            return None

    def find_room(self, target: str) -> RoomSummary | None:
        return wire.maybe_summary(self._call("find_room", target))

    def direct_join(self, target: str, nick: str) -> str:
        return str(self._call("direct_join", target, nick))

    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, Any],
        *,
        private: bool = False,
        listed: bool = True,
    ) -> RoomSummary:
        data = options.to_dict() if isinstance(options, Options) else dict(options)
        summary = wire.maybe_summary(self._call("create_room", host, name, data, private, listed))
        assert summary is not None
        return summary

    def join(self, room_id: str, nick: str, code: str | None = None) -> None:
        self._call("join", room_id, nick, code)

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        self._call("watch", room_id, nick, code)

    def leave(self, room_id: str, nick: str) -> None:
        self._call("leave", room_id, nick)

    def start(self, room_id: str, nick: str) -> None:
        self._call("start", room_id, nick)

    def act(self, room_id: str, nick: str, action: Mapping[str, Any]) -> str | None:
        try:
            return _text(self.link.call("act", room_id, nick, dict(action)))
        except HubDown:
            return MSG_HUB_DOWN

    def add_bot(self, room_id: str, nick: str, level: str = "cautious") -> str:
        return str(self._call("add_bot", room_id, nick, level))

    def remove_bot(self, room_id: str, nick: str, bot: str | None = None) -> str:
        return str(self._call("remove_bot", room_id, nick, bot))

    def remove(self, room_id: str, host: str, nick: str) -> None:
        self._call("remove", room_id, host, nick)

    def set_locked(self, room_id: str, host: str, locked: bool) -> None:
        self._call("set_locked", room_id, host, locked)

    def hand_host(self, room_id: str, host: str, nick: str) -> None:
        self._call("hand_host", room_id, host, nick)

    def readmit(self, room_id: str, host: str) -> None:
        self._call("readmit", room_id, host)

    # ------------------------------------------------------------------ sessions
    def session_connected(self, nick: str) -> str | None:
        self._sessions[nick] += 1
        try:
            return _text(self.link.call("session_connected", nick))
        except HubDown:
            return None  # told again when the hub is back (_hub_back)

    def session_disconnected(self, nick: str) -> None:
        if self._sessions[nick] <= 0:
            return
        self._sessions[nick] -= 1
        if self._sessions[nick] <= 0:
            del self._sessions[nick]
        self.link.notify("session_disconnected", nick)

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
                _safely(callback, list(self._lobby_rooms))
        else:
            _safely(callback, list(self._lobby_rooms))

        def unsubscribe() -> None:
            self._lobby.pop(key, None)
            if not self._lobby and self._lobby_sub is not None:
                self.link.drop_sub(self._lobby_sub)
                self._lobby_sub = None

        return unsubscribe

    def _lobby_push(self, data: Any) -> None:
        self._lobby_rooms = [wire.summary_from_wire(r) for r in data]
        for callback in list(self._lobby.values()):
            _safely(callback, list(self._lobby_rooms))

    def subscribe_room(
        self, room_id: str, nick: str, callback: Callable[[RoomUpdate], None]
    ) -> Callable[[], None]:
        entry = _RoomSub(room_id, nick, callback)

        def push(data: Any) -> None:
            entry.last = wire.update_from_wire(data)
            callback(entry.last)

        sub = self.link.add_sub(push)
        self._rooms[sub] = entry
        try:
            self._call("subscribe_room", sub, room_id, nick)
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
                    self.link.call("session_connected", nick)
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
                        entry.last, events=(), closed=True, notice=str(exc)
                    )
                    _safely(entry.callback, closed)
            except HubDown:
                return


class RemoteChat:
    """The :class:`~seotda_tui.rooms.chat.ChatHub` API, served by the hub; the link's losses and
    returns are said as system lines in every channel a session here reads."""

    def __init__(self, link: HubLink) -> None:
        self.link = link
        self._subs: dict[int, tuple[str, Callable[[ChatMessage], None]]] = {}
        link.when_lost(lambda: self._say(MSG_LINK_LOST))
        link.when_back(self._hub_back)

    def post(self, channel: str, nick: str, text: str) -> str | None:
        try:
            return _text(self.link.call("chat_post", channel, nick, text))
        except HubDown:
            return MSG_HUB_DOWN

    def notice(self, channel: str, text: str) -> None:
        self.link.notify("chat_notice", channel, text)

    def history(self, channel: str) -> list[ChatMessage]:
        try:
            return [wire.chat_from_wire(m) for m in self.link.call("chat_history", channel)]
        except HubDown:
            return []

    def subscribers(self, channel: str) -> int:
        try:
            return int(self.link.call("chat_subscribers", channel))
        except HubDown:
            return 0

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
        now = time.monotonic()
        for channel, callback in list(self._subs.values()):
            _safely(callback, ChatMessage(channel, "", text, now))

    def _hub_back(self) -> None:
        for sub, (channel, _callback) in list(self._subs.items()):
            with contextlib.suppress(HubDown):
                self.link.call("subscribe_chat", sub, channel)
        self._say(MSG_LINK_BACK)


class RemoteLimits:
    """The SSH server's :class:`~seotda_tui.ssh.server.SharedLimits`, kept by the hub.

    While the hub is down (a second or so, while it restarts) logins are let in uncounted and
    nobody is jailed: refusing everyone meanwhile would be worse. Their release later is a no-op
    at the hub, which never counted them.
    """

    def __init__(self, link: HubLink) -> None:
        self.link = link

    def connect_allowed(self, ip: str) -> bool:
        try:
            return bool(self.link.call("connect_allowed", ip))
        except HubDown:
            return True

    def admit(self, ip: str) -> tuple[str, str] | None:
        try:
            refusal = self.link.call("admit", ip)
        except HubDown:
            return None
        return (str(refusal[0]), str(refusal[1])) if refusal else None

    def release(self, ip: str) -> None:
        self.link.notify("release", ip)

    def auth_failed(self, ip: str) -> bool:
        try:
            return bool(self.link.call("auth_failed", ip))
        except HubDown:
            return False

    def jail_remaining(self, ip: str) -> float:
        try:
            return float(self.link.call("jail_remaining", ip))
        except HubDown:
            return 0.0


class ClusterRegistry(SessionRegistry):
    """Who is logged in, across workers: a login here tells the hub, which tells the worker
    that held the nickname before to end its session (replace-on-relogin)."""

    def __init__(self, link: HubLink) -> None:
        super().__init__()
        self.link = link
        self._mine: dict[str, Replaceable] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        link.on_kick = self._kick
        link.when_back(self._hub_back)

    async def claim(self, nickname: str, session: Replaceable) -> None:
        self._mine[nickname] = session
        self.link.notify("claim", nickname)
        await super().claim(nickname, session)

    def release(self, nickname: str, session: Replaceable) -> None:
        if self._mine.get(nickname) is session:
            del self._mine[nickname]
            self.link.notify("unclaim", nickname)
        super().release(nickname, session)

    def _kick(self, nickname: str) -> None:
        session = self._mine.pop(nickname, None)
        if session is None:
            return
        super().release(nickname, session)
        task = asyncio.get_running_loop().create_task(session.kick(DisconnectReason.REPLACED))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _hub_back(self) -> None:
        for nickname in list(self._mine):
            self.link.notify("claim", nickname)
