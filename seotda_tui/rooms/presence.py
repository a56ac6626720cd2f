"""Sessions coming and going, the reconnect grace, and the rooms resumed from the journal.

Why its own module: a seat outlives its session. When the last session of a seated player drops
mid-game the seat stays, offline, for the reconnect grace; the engine hears ``disconnect`` only
when it passes, and ``reconnect`` if the player comes back later. Games resumed from the journal
(:class:`~.recording.JournalResume`) come back with every human seat offline: their grace timers,
deadlines and bots start once the event loop runs (:meth:`Presence.arm`, which the manager calls
first in every call). The manager's module docstring has the full rules.
"""

from __future__ import annotations

from . import mid_join
from .clock import Cancellable, Clock
from .events import RoomEvent
from .model import PLAYING, Room
from .play import GameDriver
from .pushes import Pushes
from .recording import NOT_ARMED, JournalResume
from .registry import RoomRegistry
from .seating import Seating


class Presence:
    """The sessions of each nickname, the offline seats' grace, and the resumed rooms' arming."""

    def __init__(
        self,
        registry: RoomRegistry,
        play: GameDriver,
        seating: Seating,
        pushes: Pushes,
        clock: Clock,
        reconnect_grace: float,
    ) -> None:
        self._registry = registry
        self._play = play
        self._seating = seating
        self._pushes = pushes
        self._clock = clock
        #: Seconds an offline seat waits for its player before the engine hears ``disconnect``.
        self.reconnect_grace = reconnect_grace
        self._sessions: dict[str, int] = {}
        self._unarmed: list[str] = []  # resumed rooms whose timers and bots wait for the loop

    def close(self) -> None:
        self._unarmed = []

    # ------------------------------------------------------------------ sessions
    def session_connected(self, nick: str, address: str = "") -> str | None:
        """A session for ``nick`` opened (from the client ``address``, for the per-address
        limits); returns the room where it holds a seat, if any."""
        self._sessions[nick] = self._sessions.get(nick, 0) + 1
        self._registry.seen_at(nick, address)
        room_id = self._registry.where.get(nick)
        room = self._registry.rooms.get(room_id) if room_id else None
        if room is None or nick not in room.players:
            return None
        if nick in room.offline:
            timer = room.offline.pop(nick)
            events: list[RoomEvent] = [{"type": "online", "player": nick}]
            if timer is not None:
                timer.cancel()  # back within the grace: the engine never knew
            elif room.game is not None and not room.game.finished:
                events += self._play.engine(room, nick, {"type": "reconnect"})
            self._play.changed(room, events)
        return room.id

    def session_disconnected(self, nick: str) -> None:
        """The last session of ``nick`` closed: leave, or keep the seat for the grace period."""
        count = self._sessions.get(nick, 0) - 1
        if count > 0:
            self._sessions[nick] = count
            return
        self._sessions.pop(nick, None)
        self._registry.addresses.pop(nick, None)
        room_id = self._registry.where.get(nick)
        room = self._registry.rooms.get(room_id) if room_id else None
        if room is None:
            return
        playing = room.status == PLAYING and room.game is not None
        if nick in room.players and playing and nick in room.game.players:  # type: ignore[union-attr]
            if nick not in room.offline:
                room.offline[nick] = self._grace_timer(room, nick)
                self._play.changed(room, [{"type": "offline", "player": nick}])
            return
        self._seating.leave(room.id, nick)

    def _grace_timer(self, room: Room, nick: str) -> Cancellable:
        """The grace timer of an offline seat; its end is kept for the table's countdown."""
        room_id = room.id
        room.grace_ends[nick] = self._clock.time() + self.reconnect_grace
        return self._clock.call_later(self.reconnect_grace, lambda: self._grace_over(room_id, nick))

    def _grace_over(self, room_id: str, nick: str) -> None:
        room = self._registry.rooms.get(room_id)
        if room is None or nick not in room.offline or room.offline[nick] is None:
            return
        room.offline[nick] = None
        if room.status == PLAYING and room.game is not None:
            self._play.changed(room, self._play.engine(room, nick, {"type": "disconnect"}))

    # ------------------------------------------------------------------ the journal
    def resume(self) -> list[str]:
        """Rebuild every unfinished journaled game into a room; returns their ids."""
        registry = self._registry
        if registry.recorder is None:
            return []
        tallies = registry.records is not None
        resumer = JournalResume(registry.recorder, tallies)
        rooms = resumer.resume(registry.rooms, registry.new_room_id)
        for room in rooms:
            registry.add(room)  # (a code a live room took meanwhile: a fresh one)
            for nick in room.humans():
                registry.where.setdefault(nick, room.id)
        resumed = [room.id for room in rooms]
        self._unarmed += resumed
        self.arm()
        self._pushes.push_lobby()
        return resumed

    def arm(self) -> None:
        """Start the grace timers, deadlines and bots of resumed rooms once the loop runs."""
        if not self._unarmed:
            return
        try:
            self._clock.time()
        except RuntimeError:  # LoopClock before the event loop runs: try again on the next call
            return
        room_ids, self._unarmed = self._unarmed, []
        for room_id in room_ids:
            room = self._registry.rooms.get(room_id)
            if room is None or room.status != PLAYING:
                continue
            for nick, timer in list(room.offline.items()):
                if timer is NOT_ARMED:
                    room.offline[nick] = self._grace_timer(room, nick)
            for bot in room.bots:
                self._play.bots.start(room, bot)
            # spectators queued for the next hand are gone with the old process (issue 32)
            events: list[RoomEvent] = []
            for nick in mid_join.queued(room):
                events += self._play.engine(room, nick, {"type": "leave"})
            self._play.changed(room, events, force=True)
