"""The rooms process of ``--workers N``: the one RoomManager, ChatHub and global limits, served
to the workers over a unix socket (frames of :mod:`.protocol`).

Why one process: a table holds players from several workers, and the journal, the bots, the
chat and the limits that must count every connection (per address, in all, the auth jail, who is
logged in under a nickname) need one owner. It runs no Textual, so it costs little CPU: the
workers render.

Each worker connection is handled on the hub's event loop, one frame at a time and to its end:
a call runs the manager method synchronously, whose callbacks write pushes to every subscribed
worker's transport before the answer goes back, so a worker sees a call's pushes in the order the
in-process manager would have made them. When a worker's connection closes (it died, or was
killed), its sessions are disconnected from the manager: their seats are held by the usual
reconnect grace, and their subscriptions, limit counts and nickname claims are dropped.

A restarted hub knows nothing of the limits: each worker's first call tells it what that worker
holds (``restore``: its counted sessions, auth failures, the jail, nickname guesses and locks,
pending logins). Until every worker has done so (or :data:`SETTLE_SECONDS` passed), no login is
admitted (``restoring``): counting from zero would let a full server take as many again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import OptionsError

from ..logs import log_event
from ..rooms import RoomError, RoomManager, RoomSummary, RoomUpdate
from ..rooms.chat import ChatHub, ChatMessage
from ..ssh.admission import PendingLogins
from ..ssh.browser_links import BrowserLinks
from ..ssh.guessing import NameGuard
from ..ssh.limits import AuthJail, ConnectLimiter, SessionCounts
from ..ssh.registration import Registrations
from . import protocol as wire
from .calls import ROOM_CALLS, RoomCall

log = logging.getLogger("seotda.cluster")

#: A worker whose unread pushes pass this is stuck: it is dropped (its sessions go offline).
MAX_BACKLOG = 64 * 1024 * 1024
#: An operation that holds the hub's loop longer than this is logged (``hub_slow_op``).
SLOW_OP_MS = 50
#: A restarted hub admits no login until every worker told it what it holds, or this long.
SETTLE_SECONDS = 5.0


@dataclass
class GlobalLimits(SessionCounts):
    """The limits the workers share: sessions in all and per address, the auth jail, the
    connection rate, pending logins (each known by its worker and that worker's token), wrong
    passphrases per nickname (``names``), new nicknames per address (``registrations``), and
    which worker holds each nickname (so a second login elsewhere replaces the first)."""

    max_sessions: int
    max_sessions_per_ip: int
    jail: AuthJail
    connects: ConnectLimiter
    pending: PendingLogins[tuple[WorkerLink, int]]
    admitted: int = 0
    per_address: Counter[str] = field(default_factory=Counter)
    holders: dict[str, WorkerLink] = field(default_factory=dict)
    names: NameGuard = field(default_factory=lambda: NameGuard(10, 600.0))
    registrations: Registrations = field(default_factory=lambda: Registrations(10))
    #: How far each pending login got, as its worker reported it (``pending``'s progress: the
    #: one that got least far is evicted first).
    progress: dict[object, int] = field(default_factory=dict)
    #: One-time browser links (a key-held nickname's way into a browser): made by the worker
    #: of the SSH session that asks, redeemed by whichever worker the browser lands on.
    links: BrowserLinks = field(default_factory=BrowserLinks)


class WorkerLink(asyncio.Protocol):
    """One worker's connection to the hub."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.worker = -1
        self.transport: asyncio.Transport | None = None
        self._reader = wire.FrameReader()
        self._greeted = False
        self.subs: dict[int, Callable[[], None]] = {}  # its subscription id -> unsubscribe
        self.sessions: Counter[str] = Counter()  # nicknames connected through it
        self.admitted: list[str] = []  # addresses it counted against the global limits
        self.pending: set[int] = set()  # its pending logins' tokens

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, message: Mapping[str, object]) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(wire.frame(message))
        if self.transport.get_write_buffer_size() > MAX_BACKLOG:
            log_event(log, "worker_stuck", level=logging.WARNING, worker=self.worker)
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        try:
            for message in self._reader.feed(data):
                if not self._greeted:
                    self.worker = wire.check_hello(message)
                    self._greeted = True
                    self.send(wire.hello(-1))
                    log_event(log, "worker_joined", worker=self.worker)
                    continue
                self.hub.handle(self, message)
        except wire.ProtocolError as exc:
            log_event(
                log, "worker_protocol", level=logging.ERROR, worker=self.worker, error=str(exc)
            )
            if self.transport is not None:
                self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.hub.worker_gone(self)


class Hub:
    """Serves one manager, chat hub and set of limits to the workers (see the module doc)."""

    def __init__(
        self,
        manager: RoomManager,
        chat: ChatHub,
        limits: GlobalLimits,
        *,
        restarted_with: int = 0,
        settle: float = SETTLE_SECONDS,
    ) -> None:
        """``restarted_with``: the number of workers, when this hub replaces one that died
        (then logins wait for every worker's ``restore``, see the module doc)."""
        self.manager, self.chat, self.limits = manager, chat, limits
        self.links: set[WorkerLink] = set()
        self._waiting_for = set(range(restarted_with))  # workers yet to restore
        self._restored: set[int] = set()  # workers that told this hub what they hold
        self._settle_until = time.monotonic() + settle if restarted_with else 0.0
        self._server: asyncio.AbstractServer | None = None

    async def listen(self, path: Path) -> None:
        path.unlink(missing_ok=True)  # a hub killed -9 leaves its socket file behind
        loop = asyncio.get_running_loop()
        self._server = await loop.create_unix_server(lambda: self._link(), str(path))
        os.chmod(path, 0o600)
        rooms = len(self.manager.rooms(unlisted=True))
        log_event(log, "hub_listening", pid=os.getpid(), socket=str(path), rooms=rooms)

    def _link(self) -> WorkerLink:
        link = WorkerLink(self)
        self.links.add(link)
        return link

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for link in list(self.links):
            if link.transport is not None:
                link.transport.close()

    # ------------------------------------------------------------------ frames
    def handle(self, link: WorkerLink, message: Mapping[str, object]) -> None:
        kind, op, args = message.get("t"), message.get("op"), message.get("a", [])
        if not isinstance(op, str) or not isinstance(args, list) or kind not in ("q", "n"):
            raise wire.ProtocolError(f"bad frame {str(message)[:80]}")
        handler = _OPS.get(op)
        reply: dict[str, object] = {"t": "r", "i": message.get("i")}
        started = time.perf_counter()
        try:
            if handler is None:
                raise wire.ProtocolError(f"unknown op {op[:40]}")
            reply["v"] = handler(self, link, *args)
        except RoomError as exc:  # (the template and values: the worker's UI translates)
            reply.update(wire.room_error_to_wire(exc))
        except OptionsError as exc:
            reply.update(e="options", m=exc.template, a=wire.values_to_wire(exc.values))
        except wire.ProtocolError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad call must not end the hub
            log_event(log, "hub_call_failed", level=logging.ERROR, exc_info=True, op=op)
            reply.update(e="fail", m=type(exc).__name__)
        if kind == "q":
            link.send(reply)
        took = round((time.perf_counter() - started) * 1000)
        if took > SLOW_OP_MS:
            log_event(log, "hub_slow_op", level=logging.WARNING, op=op, ms=took)

    def worker_gone(self, link: WorkerLink) -> None:
        """A worker's connection closed: its sessions are disconnected, its counts dropped."""
        self.links.discard(link)
        for unsubscribe in list(link.subs.values()):
            unsubscribe()
        link.subs.clear()
        for nick, count in list(link.sessions.items()):
            for _ in range(count):
                self.manager.session_disconnected(nick)
        link.sessions.clear()
        for ip in link.admitted:
            self.limits.release(ip)
        link.admitted.clear()
        for token in link.pending:
            self.limits.pending.discard((link, token))
            self.limits.progress.pop((link, token), None)
        link.pending.clear()
        for nick in [n for n, holder in self.limits.holders.items() if holder is link]:
            del self.limits.holders[nick]
        if link.worker >= 0:
            log_event(log, "worker_left", worker=link.worker)

    # ------------------------------------------------------------------ subscriptions
    def _subscribe_room(self, link: WorkerLink, sub: int, room_id: str, nick: str) -> None:
        def push(update: RoomUpdate) -> None:
            now = self.manager.clock.time()
            link.send({"t": "p", "s": sub, "k": "room", "v": wire.update_to_wire(update, now)})

        link.subs[sub] = self.manager.subscribe_room(room_id, nick, push)

    def _subscribe_lobby(self, link: WorkerLink, sub: int) -> None:
        def push(rooms: list[RoomSummary]) -> None:
            now = self.manager.clock.time()
            data = [wire.summary_to_wire(r, now) for r in rooms]
            link.send({"t": "p", "s": sub, "k": "lobby", "v": data})

        link.subs[sub] = self.manager.subscribe_lobby(push)

    def _subscribe_chat(self, link: WorkerLink, sub: int, channel: str) -> None:
        def push(message: ChatMessage) -> None:
            link.send({"t": "p", "s": sub, "k": "chat", "v": wire.chat_to_wire(message)})

        link.subs[sub] = self.chat.subscribe(channel, push)

    def _unsubscribe(self, link: WorkerLink, sub: int) -> None:
        unsubscribe = link.subs.pop(sub, None)
        if unsubscribe is not None:
            unsubscribe()

    # ------------------------------------------------------------------ sessions and limits
    def _session_connected(self, link: WorkerLink, nick: str, address: str = "") -> str | None:
        link.sessions[nick] += 1
        return self.manager.session_connected(nick, str(address))

    def _session_disconnected(self, link: WorkerLink, nick: str) -> None:
        if link.sessions[nick] <= 0:
            return
        link.sessions[nick] -= 1
        if link.sessions[nick] <= 0:
            del link.sessions[nick]
        self.manager.session_disconnected(nick)

    def _restoring(self) -> bool:
        if self._waiting_for and time.monotonic() < self._settle_until:
            return True
        if self._waiting_for:
            log_event(log, "hub_settled", level=logging.WARNING, missing=len(self._waiting_for))
            self._waiting_for.clear()
        return False

    def _restore(self, link: WorkerLink, held: Mapping[str, object]) -> dict[str, object]:
        """What ``link``'s worker holds (sent first on each connect): counted again here. The
        answer is every jail and nickname lock this hub knows (a worker started since holds
        none of them).

        Sessions and pending logins were given back when its last connection closed; failures
        are counted here only the first time (a worker that reconnects to this same hub, after
        a call that timed out, would count them twice)."""
        for ip in _texts(held.get("admitted")):
            self.limits.count(ip)
            link.admitted.append(ip)
        if link.worker not in self._restored:
            self._restored.add(link.worker)
            self._restore_failures(held)
        pending = held.get("pending")
        for entry in pending if isinstance(pending, list) else ():
            if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[1], int):
                ip, token, level = str(entry[0]), entry[1], int(entry[2])
                self._pending_admit(link, ip, token, told=True)
                self._pending_progress(link, token, level)
        self._waiting_for.discard(link.worker)
        log_event(
            log,
            "worker_restored",
            worker=link.worker,
            sessions=len(link.admitted),
            pending=len(link.pending),
        )
        return {"jailed": self.limits.jail.held()[1], "locks": self.limits.names.held()[1]}

    def _restore_failures(self, held: Mapping[str, object]) -> None:
        """A worker's auth failures and jails, nickname guesses and locks, new nicknames (see
        _restore)."""
        failures, jailed = held.get("failures"), held.get("jailed")
        if isinstance(failures, dict) and isinstance(jailed, dict):
            ages = {
                str(k): [float(a) for a in v] for k, v in failures.items() if isinstance(v, list)
            }
            left = {str(k): float(v) for k, v in jailed.items() if isinstance(v, (int, float))}
            self.limits.jail.restore(ages, left)
        names = held.get("names")
        if isinstance(names, list) and len(names) == 3 and all(isinstance(n, dict) for n in names):
            self.limits.names.restore(*names)
        spent = held.get("registrations")
        if isinstance(spent, dict):
            self.limits.registrations.restore(
                {str(k): float(v) for k, v in spent.items() if isinstance(v, (int, float))}
            )

    def _auth_failed(self, _link: WorkerLink, ip: str) -> bool:
        """Count a failed login; a jail is told to every worker (it holds it for a restart,
        and keeps it while the hub is away)."""
        jailed = self.limits.jail.failure(ip)
        if jailed:
            for link in list(self.links):
                link.send({"t": "jail", "ip": ip, "s": self.limits.jail.seconds})
        return jailed

    def _name_failed(self, _link: WorkerLink, nick: str) -> bool:
        """A wrong passphrase for ``nick`` at any worker; a lock is told to every worker."""
        locked = self.limits.names.failure(str(nick))
        if locked:
            for link in list(self.links):
                link.send({"t": "name_lock", "nick": nick, "s": self.limits.names.seconds})
        return locked

    def _admit(self, link: WorkerLink, ip: str) -> str | None:
        if self._restoring():
            return "restoring"
        refusal = self.limits.admit(ip)
        if refusal is None:
            link.admitted.append(ip)
        return refusal

    def _release(self, link: WorkerLink, ip: str) -> None:
        if ip in link.admitted:
            link.admitted.remove(ip)
            self.limits.release(ip)

    def _pending_admit(
        self, link: WorkerLink, ip: str, token: int, *, told: bool = False
    ) -> list[str | int | None]:
        """[refusal, None] or [None, a token of the caller's to hang up on]; a pending login
        evicted at another worker (or, ``told``, at any) is told to that worker."""
        reason, evicted = self.limits.pending.admit(ip, (link, token))
        if reason is not None:
            return [reason, None]
        link.pending.add(token)
        if evicted is None:
            return [None, None]
        holder, victim = evicted
        holder.pending.discard(victim)
        self.limits.progress.pop(evicted, None)
        if holder is link and not told:
            return [None, victim]
        holder.send({"t": "evict", "token": victim, "by": ip})
        return [None, None]

    def _pending_discard(self, link: WorkerLink, token: int) -> None:
        if token in link.pending:
            link.pending.discard(token)
            self.limits.pending.discard((link, token))
        self.limits.progress.pop((link, token), None)

    def _pending_progress(self, link: WorkerLink, token: int, level: int) -> None:
        """How far one of ``link``'s pending logins got (its worker tells each change)."""
        if token in link.pending:
            self.limits.progress[(link, token)] = int(level)

    def _claim(self, link: WorkerLink, nick: str) -> None:
        """``nick`` logged in through ``link``: a session under it on another worker ends."""
        previous = self.limits.holders.get(nick)
        self.limits.holders[nick] = link
        if previous is not None and previous is not link:
            previous.send({"t": "kick", "nick": nick})

    def _unclaim(self, link: WorkerLink, nick: str) -> None:
        if self.limits.holders.get(nick) is link:
            del self.limits.holders[nick]


def _texts(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _room_op(call: RoomCall) -> Callable[..., Any]:
    """A room call served by the manager: the frame's arguments decoded by the call's codecs
    (every one came from a worker, and often a player: the manager checks them as it checks the
    in-process UI's), its answer encoded."""
    name = call.name

    def handler(hub: Hub, _link: WorkerLink, *args: object) -> object:
        positional, keywords = call.from_wire(list(args))
        answer = getattr(hub.manager, name)(*positional, **keywords)
        return call.answer_to_wire(answer, hub.manager.clock.time())

    return handler


#: The room calls the hub serves itself: a subscription's callback is the worker's id (its
#: pushes name it), and a session is counted against its worker's link.
_ROOM_OWN: dict[str, Callable[..., Any]] = {
    "session_connected": Hub._session_connected,
    "session_disconnected": Hub._session_disconnected,
    "subscribe_room": Hub._subscribe_room,
    "subscribe_lobby": Hub._subscribe_lobby,
}
#: The room API (rooms/api.py's RoomService), one op per method: derived, never listed by hand.
ROOM_OPS: dict[str, Callable[..., Any]] = {
    name: _ROOM_OWN.get(name) or _room_op(call) for name, call in ROOM_CALLS.items()
}

# op -> handler(hub, link, *args): the room API's, then the chat's and the shared limits'.
_OPS: dict[str, Callable[..., Any]] = {
    **ROOM_OPS,
    "subscribe_chat": Hub._subscribe_chat,
    "unsubscribe": Hub._unsubscribe,
    "chat_post": lambda h, _l, channel, nick, text: h.chat.post(channel, nick, text),
    "chat_quick": lambda h, _l, channel, nick, number: h.chat.quick(channel, nick, int(number)),
    "chat_notice": lambda h, _l, channel, text: h.chat.notice(channel, text),
    "chat_history": lambda h, _l, channel: [wire.chat_to_wire(m) for m in h.chat.history(channel)],
    "chat_subscribers": lambda h, _l, channel: h.chat.subscribers(channel),
    "admit": Hub._admit,
    "release": Hub._release,
    "connect_allowed": lambda h, _l, ip: h.limits.connects.allow(ip),
    "auth_failed": Hub._auth_failed,
    "restore": Hub._restore,
    "name_locked": lambda h, _l, nick, ip: h.limits.names.locked(str(nick), str(ip)),
    "name_failed": Hub._name_failed,
    "name_success": lambda h, _l, nick, ip: h.limits.names.success(str(nick), str(ip)),
    "registration_allowed": lambda h, _l, ip: h.limits.registrations.allowed(str(ip)),
    "registered": lambda h, _l, ip: h.limits.registrations.restore({str(ip): 1.0}),
    "jail_remaining": lambda h, _l, ip: h.limits.jail.remaining(ip),
    "pending_admit": Hub._pending_admit,
    "pending_discard": Hub._pending_discard,
    "pending_progress": Hub._pending_progress,
    "claim": Hub._claim,
    "unclaim": Hub._unclaim,
    "link_issue": lambda h, _l, nick: h.limits.links.issue(str(nick)),
    "link_redeem": lambda h, _l, nick, token: h.limits.links.redeem(str(nick), str(token)),
}
