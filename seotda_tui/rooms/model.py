"""The manager's mutable state of one room (:class:`Room`): only :mod:`.manager` and its
collaborators (bots, journal, storage faults) touch it.

What callers get (:class:`RoomSummary`, :class:`RoomUpdate`, :class:`RoomError`, the statuses)
is the room API's, :mod:`.api`; it is re-exported here for the collaborators' imports.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from engine import Game, Options
from engine.types import GameResult

from .api import (
    FINISHED,
    PLAYING,
    ROOM_ERROR_CODES,
    STATUS_LABELS,
    WAITING,
    LobbyCallback,
    RoomCallback,
    RoomError,
    RoomErrorCode,
    RoomSummary,
    RoomUpdate,
)
from .clock import Cancellable
from .events import RoomEvent
from .private import Privacy

if TYPE_CHECKING:
    from .journal import Entry
    from .records import GameTally

__all__ = [  # the room API's names, re-exported (see the module doc)
    "FINISHED",
    "LOG_LIMIT",
    "PLAYING",
    "ROOM_ERROR_CODES",
    "ROOM_NAME_CELLS",
    "STATUS_LABELS",
    "WAITING",
    "LobbyCallback",
    "Room",
    "RoomCallback",
    "RoomError",
    "RoomErrorCode",
    "RoomSummary",
    "RoomUpdate",
    "SeatDriver",
]

LOG_LIMIT = 300
ROOM_NAME_CELLS = 20


class SeatDriver(Protocol):
    """What a room keeps of the driver that plays one of its bot seats."""

    errors: int  # actions the game refused (should stay 0; counted for tests and logs)

    def stop(self) -> None: ...


@dataclass
class Room:
    """Mutable room state; only the manager touches it."""

    id: str
    name: str
    host: str | None
    options: Options
    players: list[str] = field(default_factory=list)
    spectators: list[str] = field(default_factory=list)
    status: str = WAITING
    game: Game | None = None
    offline: dict[str, Cancellable | None] = field(default_factory=dict)  # None = grace over
    grace_ends: dict[str, float] = field(default_factory=dict)  # clock time each grace ends
    left: list[str] = field(default_factory=list)
    log: deque[RoomEvent] = field(default_factory=lambda: deque(maxlen=LOG_LIMIT))
    result: GameResult | None = None
    timer: Cancellable | None = None
    timer_seq: int = 0
    deadline_at: float | None = None
    pending_key: tuple[object, ...] | None = None  # Game.decision_key()
    pending_players: frozenset[str] = frozenset()
    subscribers: dict[int, tuple[str, RoomCallback]] = field(default_factory=dict)
    bots: dict[str, str] = field(default_factory=dict)  # bot nickname -> level, in seat order
    bot_players: dict[str, SeatDriver] = field(default_factory=dict)  # (bot_seats.BotPlayer)
    seed: str = ""  # the current game's seed
    game_no: int = 0  # games started in this room (journal key = f"{id}-{game_no}")
    journal_key: str | None = None
    paused_since: float | None = None  # the clock's time the journal first failed (rooms/pause.py)
    backlog: list[Entry] = field(default_factory=list)  # (rooms/pause.py)
    retry_timer: Cancellable | None = None
    retry_count: int = 0
    pause_logged: bool = False  # this pause's room_paused line was written (room_resumed follows)
    pause_logged_at: float | None = None
    tally: GameTally | None = None  # the running game's counts for the records (rooms/records.py)
    locked: bool = False  # see rooms/moderation.py
    barred: set[str] = field(default_factory=set)
    privacy: Privacy | None = None  # a private room's code (rooms/private.py)

    @property
    def paused(self) -> bool:
        return self.paused_since is not None

    def humans(self) -> list[str]:
        return [p for p in self.players if p not in self.bots]

    def summary(self) -> RoomSummary:
        return RoomSummary(
            id=self.id,
            name=self.name,
            host=self.host,
            players=tuple(self.players),
            max_players=self.options.max_players,
            spectators=tuple(self.spectators),
            status=self.status,
            offline=tuple(p for p in self.players if p in self.offline),
            left=tuple(self.left),
            options=self.options,
            bots=tuple(p for p in self.players if p in self.bots),
            grace_ends=tuple(
                (p, self.grace_ends[p])
                for p in self.players
                if self.offline.get(p) is not None and p in self.grace_ends
            ),
            locked=self.locked,
            barred=tuple(sorted(self.barred)),
            private=self.privacy is not None,
            listed=self.privacy is None or self.privacy.listed,
        )

    def has(self, nick: str) -> bool:
        """Is ``nick`` in the room already (seated or watching)?"""
        return nick in self.players or nick in self.spectators

    def viewer_for(self, nick: str) -> str | None:
        """A seated player of the current game sees their own cards; anyone else the public view."""
        if self.game is not None and nick in self.players and nick in self.game.players:
            return nick
        return None

    def cancel_timer(self) -> None:
        """Stop the engine's deadline (and forget the decision it was for)."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = None
        self.deadline_at = None
        self.pending_key = None
        self.pending_players = frozenset()

    def fix_host(self) -> list[RoomEvent]:
        """A human host again if the host left (or was never one): the first online human."""
        if self.host in self.players and self.host not in self.bots:
            return []
        humans = self.humans()
        online = [p for p in humans if p not in self.offline]
        candidates = online or humans
        new_host = candidates[0] if candidates else None
        self.host = new_host
        return [{"type": "host", "player": new_host}] if new_host else []
