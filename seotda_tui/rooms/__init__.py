"""Rooms: the shared in-process manager that drives the engine, and what its callers may use.

Callers (the UI, the tests) import from here: the manager, and the plain data it takes and
gives (``RoomSummary``, ``RoomUpdate``, ``RoomError`` and its codes, the statuses). ``Room``, its mutable
state, stays inside (:mod:`.model`).
"""

from .manager import RoomManager
from .model import (
    FINISHED,
    PLAYING,
    ROOM_ERROR_CODES,
    ROOM_NAME_CELLS,
    WAITING,
    RoomError,
    RoomErrorCode,
    RoomSummary,
    RoomUpdate,
)

__all__ = [
    "FINISHED",
    "PLAYING",
    "ROOM_ERROR_CODES",
    "ROOM_NAME_CELLS",
    "WAITING",
    "RoomError",
    "RoomErrorCode",
    "RoomManager",
    "RoomSummary",
    "RoomUpdate",
]
