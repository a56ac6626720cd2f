"""A worker's one connection to the rooms process (:mod:`.hub`): calls that wait for their
answer, pushed frames, and reconnecting when the hub is restarted.

Why calls wait: see :mod:`.remote`. The wait is bounded (:data:`CALL_TIMEOUT`); while the hub is
down every call raises :class:`HubDown` at once (no waiting at all), and the link reconnects in
the background, then tells whoever asked (:meth:`HubLink.when_back`).

Each time it connects (the first time, and after every loss) the worker first tells the hub
what it holds (:meth:`HubLink.when_connected`: a restarted hub knows nothing of it).

Pushes (room updates, the lobby list, chat lines, "this nickname logged in elsewhere", "hang
up on this pending login", "this address is jailed", "this nickname is locked") come on the
same socket; those that arrive while a call waits are delivered before it returns, as the
in-process manager calls its subscribers inside the call that caused them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from engine import OptionsError

from ..logs import log_event
from . import protocol as wire
from .answers import Answer

log = logging.getLogger("seotda.cluster")
T = TypeVar("T")
F = TypeVar("F")

#: The longest a worker's loop waits for one answer before it counts the hub as gone.
CALL_TIMEOUT = 5.0
RETRY_SECONDS = 0.2
#: A call that keeps the worker's loop waiting longer than this is logged (``hub_slow_call``).
SLOW_CALL_MS = 100


class HubDown(ConnectionError):
    """The rooms process cannot be reached right now (an OSError: at start-up, the server
    says so in one log line)."""


class BadAnswer(HubDown):
    """The hub answered, but not with what the op answers (:meth:`HubLink.ask`): treated as a
    hub that cannot be used right now (already logged, saying what)."""


Push = Callable[[object], None]  # decodes its own (wire.update_from_wire …)


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
        self.on_evict: Callable[[int, str], None] | None = None
        self.on_jail: Callable[[str, float], None] | None = None
        self.on_name_lock: Callable[[str, float], None] | None = None
        self._on_connected: list[Callable[[], None]] = []
        self._on_lost: list[Callable[[], None]] = []
        self._on_back: list[Callable[[], None]] = []
        self._retry: asyncio.Task[None] | None = None
        self._closed = False

    def when_connected(self, callback: Callable[[], None]) -> None:
        """``callback()`` after each connect (the first too), before the when_back callbacks."""
        self._on_connected.append(callback)

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
        self._connected()

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
        sock.setblocking(False)  # (the loop's reader; a call or notify waits with a timeout)
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
            safely(callback)
        if not self._closed:
            self._retry = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        while not self._connect():
            await asyncio.sleep(RETRY_SECONDS)
        log_event(log, "hub_back", worker=self.worker)
        self._connected()
        for callback in self._on_back:
            safely(callback)

    def _connected(self) -> None:
        for callback in self._on_connected:
            safely(callback)

    # ------------------------------------------------------------------ frames
    def _readable(self) -> None:
        if self._sock is None:
            return
        try:
            # Never waits (the socket is non-blocking here): a call made earlier in this loop
            # pass may already have read what made it readable. (A socket left with a timeout
            # once froze the worker for the whole timeout here.)
            data = self._sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._lost()
            return
        self._feed(data, None)

    def _feed(self, data: bytes, waiting: int | None) -> dict[str, object] | None:
        """Deliver every whole frame; returns the answer to call ``waiting`` if it came."""
        answer = None
        try:
            for message in self._reader.feed(data):
                if message.get("t") == "r":
                    if message.get("i") == waiting:
                        answer = message
                    continue
                try:
                    self._deliver(message)
                except wire.ProtocolError as exc:  # a whole frame, but malformed: skipped
                    log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
        except wire.ProtocolError as exc:  # the stream itself: no frame after it can be read
            log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
            self._lost()
        return answer

    def _deliver(self, message: dict[str, object]) -> None:
        """A push or a notice from the hub, checked (:func:`wire.decoded`) before it is acted on."""
        kind = message.get("t")
        if kind == "p":
            push = wire.decoded(wire.Push, message, "push")
            callback = self._subs.get(push["s"])
            if callback is not None:
                safely(callback, push["v"])
        elif kind == "kick" and self.on_kick is not None:
            safely(self.on_kick, wire.decoded(wire.Kick, message, "kick")["nick"])
        elif kind == "evict" and self.on_evict is not None:
            evict = wire.decoded(wire.Evict, message, "evict")
            safely(self.on_evict, evict["token"], evict["by"])
        elif kind == "jail" and self.on_jail is not None:
            jail = wire.decoded(wire.Jail, message, "jail")
            safely(self.on_jail, jail["ip"], jail["s"])
        elif kind == "name_lock" and self.on_name_lock is not None:
            lock = wire.decoded(wire.NameLock, message, "name_lock")
            safely(self.on_name_lock, lock["nick"], lock["s"])

    def call(self, op: str, *args: Any) -> Any:
        """Run ``op`` on the hub and return its value; RoomError/OptionsError as the manager
        raised them; HubDown when it cannot be reached (then it reconnects)."""
        sock = self._sock
        if sock is None:
            raise HubDown(op)
        i = next(self._ids)
        started = time.monotonic()
        deadline = started + self.timeout
        try:
            sock.settimeout(self.timeout)
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
                self._sock.setblocking(False)
            waited = round((time.monotonic() - started) * 1000)
            if waited > SLOW_CALL_MS:
                log_event(log, "hub_slow_call", level=logging.WARNING, op=op, ms=waited)
        error = answer.get("e")
        if error == "room":
            try:
                refusal = wire.room_error_from_wire(answer)
            except wire.ProtocolError as exc:
                raise HubDown(f"{op}: {exc}") from exc
            raise refusal
        if error == "options":
            raise OptionsError(str(answer.get("m")), **wire.values_from_wire(answer.get("a")))
        if error is not None:
            raise HubDown(f"{op}: {answer.get('m')}")
        return answer.get("v")

    def call_or(self, fallback: Any, op: str, *args: Any) -> Any:
        """:meth:`call`, or ``fallback`` while the hub cannot be reached (queries and limits
        that have an answer meanwhile)."""
        try:
            return self.call(op, *args)
        except HubDown:
            return fallback

    def ask(self, answer: Answer[T], *args: Any) -> T:
        """:meth:`call` of ``answer``'s op, its answer checked against its type
        (:mod:`.answers`). One that does not fit is logged (``hub_protocol``, saying what) and
        raised as :class:`BadAnswer`, a HubDown: whoever asked has its answer for a hub it
        cannot use (the room calls report one as ``hub_down`` the same way)."""
        data = self.call(answer.op, *args)
        try:
            return answer.decode(data)
        except wire.ProtocolError as exc:
            log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
            raise BadAnswer(answer.op) from exc

    def ask_or(self, fallback: F, answer: Answer[T], *args: Any) -> T | F:
        """:meth:`ask`, or ``fallback`` while the hub cannot be reached or answers amiss."""
        try:
            return self.ask(answer, *args)
        except HubDown:
            return fallback

    def notify(self, op: str, *args: Any) -> None:
        """``op`` without waiting for (or getting) an answer; dropped while the hub is down."""
        if self._sock is None:
            return
        sock = self._sock
        try:
            sock.settimeout(self.timeout)  # (a frame is sent whole or the hub counts as gone)
            sock.sendall(wire.frame({"t": "n", "op": op, "a": list(args)}))
        except OSError:
            self._lost()
        else:
            sock.setblocking(False)

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


def safely(callback: Callable[..., None], *args: object) -> None:
    """Run a push's or a notice's callback; what it raises is logged, never the link's end (a
    push that does not decode is logged as ``hub_protocol``, saying what was malformed)."""
    try:
        callback(*args)
    except wire.ProtocolError as exc:
        log_event(log, "hub_protocol", level=logging.ERROR, error=str(exc))
    except Exception:
        log.exception("cluster callback failed")
