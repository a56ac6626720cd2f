"""Rooms: the shared in-process manager that drives the engine, and what its callers may use.

Callers (the UI, the tests) import from here; the modules inside are the manager's own.
"""

from .manager import RoomManager
from .model import (
    FINISHED,
    PLAYING,
    ROOM_NAME_CELLS,
    WAITING,
    Room,
    RoomError,
    RoomSummary,
    RoomUpdate,
)

__all__ = [
    "FINISHED",
    "PLAYING",
    "ROOM_NAME_CELLS",
    "WAITING",
    "Room",
    "RoomError",
    "RoomManager",
    "RoomSummary",
    "RoomUpdate",
]
