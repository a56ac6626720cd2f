"""What the rooms process (:mod:`.hub`) and the workers (:mod:`.remote`) send each other.

Why its own module: both sides must agree on one versioned shape. A frame is a 4-byte
big-endian length and a UTF-8 JSON object (stdlib :mod:`json`: the data is plain dicts, lists,
strings and numbers already — the rooms' boundary, see :mod:`seotda_tui.rooms.api`). The first
frame each way is the hello, carrying :data:`VERSION`; a peer with another version is dropped.

Frames (``t`` is the kind)::

    {"t": "hello", "v": VERSION, "worker": 0}          # worker -> hub, then hub -> worker
    {"t": "q", "i": 7, "op": "join", "a": [...]}       # a call; the hub answers with
    {"t": "r", "i": 7, "v": value}                     #   its value, or
    {"t": "r", "i": 7, "e": "room", "c": "room_gone", "m": "방이 없어졌어요", "a": {}}
                                                       #   a RoomError (e: "fail" = a bug)
    {"t": "n", "op": "unsubscribe", "a": [...]}        # a call nobody waits for
    {"t": "p", "s": 3, "k": "room", "v": {...}}        # a push to the worker's subscription 3
    {"t": "kick", "nick": "철수"}                      # hub -> worker: the nickname logged in elsewhere
    {"t": "evict", "token": 4, "by": "10.0.0.3"}       # hub -> worker: hang up on that pending login
    {"t": "jail", "ip": "10.0.0.3", "s": 300.0}        # hub -> every worker: that address is jailed
    {"t": "name_lock", "nick": "철수", "s": 600.0}      # hub -> every worker: that nickname is locked

A worker's first call after each connect is ``restore`` (what it holds: its counted sessions'
addresses, its auth failures and the jail it knows, its nickname guesses and the locks it knows,
its pending logins), so a restarted hub counts them again.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Mapping
from typing import TypedDict, TypeVar, cast, get_args

from engine import Options, OptionsError
from engine.options import OptionsDict
from engine.types import GameResult, RefusalCode, View

from ..rooms import ROOM_ERROR_CODES, RoomError, RoomSummary, RoomUpdate
from ..rooms.api import RoomErrorCode
from ..rooms.chat import ChatMessage
from ..rooms.events import RoomEvent
from .shape import ShapeError, typed

#: 2: refusals and notices carry their template and values (i18n); 3: restore, jail;
#: 4: a room refusal carries its code (``RoomError.code``); 5: quick chat (``chat_quick``, a chat
#: message's ``canned``); 6: ``act`` refuses with a RoomError like every call (``illegal``
#: carries the engine's code in ``r``); 7: a room update carries the private room's code for its
#: viewer (``RoomUpdate.code``; the ``room_code`` call is gone); 8: times cross as seconds left
#: at sending (``deadline_in``, ``grace_in``; were a deadline relative and grace ends absolute)
VERSION = 8
#: A frame larger than this is a bug or an attack: the connection is dropped.
MAX_FRAME = 16 * 1024 * 1024
_HEADER = struct.Struct(">I")
REFUSAL_CODES: frozenset[str] = frozenset(get_args(RefusalCode))


class ProtocolError(Exception):
    """A peer sent something that is not a frame of this version (or a malformed one)."""


_T = TypeVar("_T")


def decoded(hint: type[_T], data: object, what: str) -> _T:
    """``data`` checked against ``hint`` (:mod:`.shape`); a message that does not fit is a
    :class:`ProtocolError` saying where, e.g. ``malformed room update: view.seats[0].stack:
    expected int, got str``."""
    try:
        return typed(hint, data)
    except ShapeError as exc:
        raise ProtocolError(f"malformed {what}: {exc}") from None


def frame(message: Mapping[str, object]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    return _HEADER.pack(len(body)) + body


class FrameReader:
    """Cuts a byte stream into messages (partial frames wait for the rest)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[dict[str, object]]:
        self._buffer += data
        while len(self._buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buffer)
            if size > MAX_FRAME:
                raise ProtocolError(f"frame of {size} bytes")
            if len(self._buffer) < _HEADER.size + size:
                return
            body = bytes(self._buffer[_HEADER.size : _HEADER.size + size])
            del self._buffer[: _HEADER.size + size]
            try:
                message = json.loads(body)
            except ValueError as exc:
                raise ProtocolError(str(exc)) from exc
            if not isinstance(message, dict):
                raise ProtocolError("not an object")
            yield message


def hello(worker: int) -> dict[str, object]:
    return {"t": "hello", "v": VERSION, "worker": worker}


def check_hello(message: Mapping[str, object]) -> int:
    """The peer's worker number; raises ProtocolError for another version."""
    if message.get("t") != "hello" or message.get("v") != VERSION:
        raise ProtocolError(f"expected hello v{VERSION}, got {str(message)[:80]}")
    worker = message.get("worker")
    return worker if isinstance(worker, int) else -1


# ----------------------------------------------------------------------- the rooms' plain data
# Times: the rooms API gives moments on its own clock (``RoomUpdate.deadline_at``,
# ``RoomSummary.grace_ends``, see rooms/api.py); the wire carries seconds left at sending
# (``…_in``), since the hub's clock and a worker's share no reference point (Python's monotonic
# clock has none across processes; a test's hub runs on a fake one). ``now`` is the sender's
# clock when encoding and the receiver's when decoding, so a moment arrives on the receiver's.


class WireSummary(TypedDict):
    """A :class:`RoomSummary` on the wire."""

    id: str
    name: str
    host: str | None
    players: list[str]
    max_players: int
    spectators: list[str]
    status: str
    offline: list[str]
    left: list[str]
    options: OptionsDict
    bots: list[str]
    grace_in: list[tuple[str, float]]  # (nick, seconds left of the grace at sending)
    locked: bool
    barred: list[str]
    private: bool
    listed: bool


class WireUpdate(TypedDict):
    """A :class:`RoomUpdate` on the wire."""

    room: WireSummary
    viewer: str | None
    view: View | None
    events: list[RoomEvent]
    deadline_in: float | None  # seconds left at sending
    result: GameResult | None
    snapshot: bool
    closed: bool
    paused: bool
    notice: str | None
    notice_template: str | None
    notice_values: list[tuple[str, str]]
    code: str | None


class Push(TypedDict):
    """``{"t": "p", "s": 3, "k": "room", "v": {...}}``: ``v`` is decoded by the subscription."""

    s: int
    v: object


class Kick(TypedDict):
    nick: str


class Evict(TypedDict):
    token: int
    by: str


class Jail(TypedDict):
    ip: str
    s: float


class NameLock(TypedDict):
    nick: str
    s: float


class WireChat(TypedDict):
    """A :class:`ChatMessage` on the wire."""

    channel: str
    nick: str
    text: str
    at: float
    canned: bool


def summary_to_wire(summary: RoomSummary, now: float) -> WireSummary:
    return {
        "id": summary.id,
        "name": summary.name,
        "host": summary.host,
        "players": list(summary.players),
        "max_players": summary.max_players,
        "spectators": list(summary.spectators),
        "status": summary.status,
        "offline": list(summary.offline),
        "left": list(summary.left),
        "options": summary.options.to_dict(),
        "bots": list(summary.bots),
        "grace_in": [(nick, ends - now) for nick, ends in summary.grace_ends],
        "locked": summary.locked,
        "barred": list(summary.barred),
        "private": summary.private,
        "listed": summary.listed,
    }


def summary_from_wire(data: object, now: float) -> RoomSummary:
    """Checked: a malformed summary is a :class:`ProtocolError`."""
    return _summary(decoded(WireSummary, data, "room summary"), now)


def _summary(data: WireSummary, now: float) -> RoomSummary:
    return RoomSummary(
        id=data["id"],
        name=data["name"],
        host=data["host"],
        players=tuple(data["players"]),
        max_players=data["max_players"],
        spectators=tuple(data["spectators"]),
        status=data["status"],
        offline=tuple(data["offline"]),
        left=tuple(data["left"]),
        options=_options(data["options"]),
        bots=tuple(data["bots"]),
        grace_ends=tuple((nick, now + float(left)) for nick, left in data["grace_in"]),
        locked=data["locked"],
        barred=tuple(data["barred"]),
        private=data["private"],
        listed=data["listed"],
    )


_OPTIONS: dict[tuple[tuple[str, object], ...], Options] = {}
_OPTIONS_KEPT = 256


def _options(data: OptionsDict) -> Options:
    """Every push carries its room's options: checked once per distinct set, not per push
    (a worker decodes one per session and change); rules the engine refuses are malformed."""
    key = tuple(sorted(data.items()))
    found = _OPTIONS.get(key)
    if found is None:
        if len(_OPTIONS) >= _OPTIONS_KEPT:
            _OPTIONS.clear()
        try:
            found = _OPTIONS[key] = Options.from_dict(data)
        except OptionsError as exc:
            raise ProtocolError(f"malformed room summary: options: {exc}") from None
    return found


def update_to_wire(update: RoomUpdate, now: float) -> WireUpdate:
    deadline = update.deadline_at
    return {
        "room": summary_to_wire(update.room, now),
        "viewer": update.viewer,
        "view": update.view,
        "events": list(update.events),
        "deadline_in": None if deadline is None else deadline - now,
        "result": update.result,
        "snapshot": update.snapshot,
        "closed": update.closed,
        "paused": update.paused,
        "notice": update.notice,
        "notice_template": update.notice_template,
        "notice_values": list(update.notice_values),
        "code": update.code,
    }


def update_from_wire(data: object, now: float) -> RoomUpdate:
    """Checked, the view and events to their last field: a malformed update is a
    :class:`ProtocolError` (never a session's screen failing on it later)."""
    wire = decoded(WireUpdate, data, "room update")
    left = wire["deadline_in"]
    return RoomUpdate(
        room=_summary(wire["room"], now),
        viewer=wire["viewer"],
        view=wire["view"],
        events=tuple(wire["events"]),
        deadline_at=None if left is None else now + left,
        result=wire["result"],
        snapshot=wire["snapshot"],
        closed=wire["closed"],
        paused=wire["paused"],
        notice=wire["notice"],
        notice_template=wire["notice_template"],
        notice_values=tuple((k, v) for k, v in wire["notice_values"]),
        code=wire["code"],
    )


def values_to_wire(values: dict[str, object]) -> dict[str, str | int | float]:
    """A refusal's template values (names → numbers or text), as JSON keeps them."""
    return {
        str(k): v if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
        for k, v in values.items()
    }


def values_from_wire(data: object) -> dict[str, object]:
    """The values of a refusal from the hub (untrusted shape: anything else is dropped)."""
    if not isinstance(data, dict):
        return {}
    return {
        str(k): v
        for k, v in data.items()
        if isinstance(v, (int, float, str)) and str(k).isidentifier()
    }


def room_error_to_wire(exc: RoomError) -> dict[str, object]:
    """A hub answer's refusal fields: the code travels, so a worker's caller sees the same one."""
    answer: dict[str, object] = {
        "e": "room",
        "c": exc.code,
        "m": exc.template,
        "a": values_to_wire(exc.values),
    }
    if exc.refusal is not None:
        answer["r"] = exc.refusal
    return answer


def room_error_from_wire(answer: Mapping[str, object]) -> RoomError:
    """The refusal a hub answer carries; a code this version does not know is a protocol error."""
    code = answer.get("c")
    if not isinstance(code, str) or code not in ROOM_ERROR_CODES:
        raise ProtocolError(f"unknown room refusal code {str(code)[:40]}")
    template = str(answer.get("m"))
    refused = RoomError(cast(RoomErrorCode, code), template, **values_from_wire(answer.get("a")))
    refusal = answer.get("r")
    if isinstance(refusal, str) and refusal in REFUSAL_CODES:
        refused.refusal = cast(RefusalCode, refusal)
    return refused


def chat_to_wire(message: ChatMessage) -> WireChat:
    return {
        "channel": message.channel,
        "nick": message.nick,
        "text": message.text,
        "at": message.at,
        "canned": message.canned,
    }


def chat_from_wire(data: object) -> ChatMessage:
    """Checked: a malformed chat line is a :class:`ProtocolError`."""
    wire = decoded(WireChat, data, "chat line")
    return ChatMessage(wire["channel"], wire["nick"], wire["text"], wire["at"], wire["canned"])
