"""The room manager's own public events, beside the engine's (``engine.types.Event``).

Why typed here: every session's log is made of both kinds, so :data:`RoomEvent` is their union
and a reader narrows on ``event["type"]`` like it does for the engine's. The shapes are what the
manager has always sent (the wire and the old journals' replays carry them unchanged).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from engine.types import Event


class RoomOpenEvent(TypedDict):
    type: Literal["roomOpen"]
    host: str
    name: str


class JoinEvent(TypedDict):
    """Someone sat down in the waiting room (``bot``: a bot's level, when a host added one)."""

    type: Literal["join"]
    player: str
    bot: NotRequired[str]


class PresenceEvent(TypedDict):
    """Someone started watching, or a seated player's session dropped or came back."""

    type: Literal["watch", "offline", "online"]
    player: str


class LeftEvent(TypedDict):
    """Someone left the room (``by``: the host who removed them; ``bot``: a bot was taken off)."""

    type: Literal["unwatch", "leaveRoom"]
    player: str
    by: NotRequired[str]
    bot: NotRequired[bool]


class HostEvent(TypedDict):
    """A new host: handed over (``by`` the old one), or the next in line after the host left."""

    type: Literal["host"]
    player: str
    by: NotRequired[str]


class HostActEvent(TypedDict):
    """The host locked or unlocked the room, or gave it a new code."""

    type: Literal["locked", "unlocked", "codeChanged"]
    by: str


class ReadmittedEvent(TypedDict):
    type: Literal["readmitted"]
    players: list[str]
    by: str


class OptionsChangedEvent(TypedDict):
    """The host's new rules: each change as ``[field, old, new]`` (each session says it in its
    own language)."""

    type: Literal["optionsChanged"]
    by: str
    changes: list[list[object]]


class GameStartEvent(TypedDict):
    type: Literal["gameStart"]
    players: list[str]


class RoomMarkEvent(TypedDict):
    """The room's game finished, or the room's journal works again (rooms/pause.py)."""

    type: Literal["roomFinished", "resumed"]


ManagerEvent = (
    RoomOpenEvent
    | JoinEvent
    | PresenceEvent
    | LeftEvent
    | HostEvent
    | HostActEvent
    | ReadmittedEvent
    | OptionsChangedEvent
    | GameStartEvent
    | RoomMarkEvent
)
#: One public event of a room's log: the engine's or the manager's.
RoomEvent = Event | ManagerEvent
