"""Rooms: the shared in-process manager that drives the engine, and what its callers may use.

Callers (the UI, the tests) import from here: the room API (:mod:`.api`: the ``RoomService``
Protocol every caller types its manager as, and the plain data it takes and gives:
``RoomSummary``, ``RoomUpdate``, ``RoomError`` and its codes, the statuses) and the in-process
``RoomManager`` that implements it. ``Room``, its mutable state, stays inside (:mod:`.model`).
"""

from .api import (
    FINISHED,
    PLAYING,
    ROOM_ERROR_CODES,
    WAITING,
    RoomError,
    RoomErrorCode,
    RoomService,
    RoomSummary,
    RoomUpdate,
)
from .manager import RoomManager
from .model import ROOM_NAME_CELLS

__all__ = [
    "FINISHED",
    "PLAYING",
    "ROOM_ERROR_CODES",
    "ROOM_NAME_CELLS",
    "WAITING",
    "RoomError",
    "RoomErrorCode",
    "RoomManager",
    "RoomService",
    "RoomSummary",
    "RoomUpdate",
]
