"""Who is in a room: opening one, sitting, watching, leaving, and the host's moderation.

Why its own module: these are the room manager's membership rules, apart from the game driving
(:mod:`.play`) they end in. Each checks (the registry's code and limits, :mod:`.moderation`'s
rules), changes the :class:`~.model.Room`, and hands the change's events to
:meth:`~.play.GameDriver.changed`, which pushes them. A spectator's seat at the next hand of a
running game is the engine's to give (``GameDriver.join_next_hand``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Literal

from engine import Options

from ..i18n import N_
from ..logs import log_event
from . import mid_join, moderation
from .events import LeftEvent, RoomEvent
from .model import PLAYING, Room, RoomError, RoomSummary
from .play import GameDriver
from .pushes import Pushes
from .registry import RoomRegistry, clean_name

log = logging.getLogger("seotda.rooms")

MAX_SPECTATORS = 30


class Seating:
    """The manager's membership and moderation calls (the manager arms resumed rooms first)."""

    def __init__(self, registry: RoomRegistry, play: GameDriver, pushes: Pushes) -> None:
        self._registry = registry
        self._play = play
        self._pushes = pushes

    # ------------------------------------------------------------------ opening and entering
    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, object],
        private: bool,
        listed: bool,
    ) -> RoomSummary:
        """Open a room with ``host`` in its first seat; bad options raise the engine's OptionsError.

        A ``private`` room gets a fresh code; ``listed=False`` keeps it out of the lobby list.
        """
        registry = self._registry
        if not isinstance(options, Options):
            options = Options.from_dict(options)
        registry.check_free(host)
        registry.check_new_room(host)
        room_id = registry.new_room_id()
        room = Room(room_id, clean_name(name, host), host, options, players=[host])
        if private:
            room.privacy = registry.new_privacy(listed)
        registry.add(room)
        registry.where[host] = room_id
        log_event(log, "room_created", room=room_id, host=host, name=room.name, private=private)
        self._play.changed(room, [{"type": "roomOpen", "host": host, "name": room.name}])
        return room.summary()

    def direct_join(self, target: str, nick: str) -> str:
        """``ssh 철수+CODE@host``: take a seat in that room, or watch when it is playing or
        full; returns its id. Raises RoomError when no live room answers to ``target``."""
        room = self._registry.find_for(target, nick)
        code = room.privacy.code if room.privacy else None
        if room.has(nick):
            return room.id
        try:
            self.join(room.id, nick, code)
        except RoomError:
            self.watch(room.id, nick, code)
        return room.id

    def _entering(self, room_id: str, nick: str, code: str | None) -> Room:
        """What sitting down and watching both check first: the room, that ``nick`` is in no
        other room, the private room's code, and that ``nick`` has no seat here yet."""
        room = self._registry.get(room_id)
        self._registry.check_free(nick, room_id)
        self._registry.check_code(room, nick, code)
        if nick in room.players:
            raise RoomError("already_seated", "이미 이 방에 앉아 있어요")
        return room

    def join(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Take a free seat before the game starts (a spectator of the room may sit down);
        while it runs, a spectator is queued for a seat at the next hand (issue 32)."""
        room = self._entering(room_id, nick, code)
        moderation.check_entry(room, nick)
        if room.status == PLAYING and nick in room.spectators and room.game is not None:
            self._play.join_next_hand(room, nick)
            return
        if room.status == PLAYING:
            raise RoomError("game_running", "게임이 이미 시작됐어요. 관전은 할 수 있어요")
        if len(room.players) >= room.options.max_players:
            raise RoomError(
                "room_full", N_("자리가 없어요 (최대 {n}명)"), n=room.options.max_players
            )
        if nick in room.spectators:
            room.spectators.remove(nick)
        room.players.append(nick)
        self._registry.where[nick] = room_id
        if room.host is None:
            room.host = nick
        self._play.changed(room, [{"type": "join", "player": nick}])

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Watch a room at any time, without a seat."""
        room = self._entering(room_id, nick, code)
        if nick in room.spectators:
            return
        moderation.check_entry(room, nick)
        if len(room.spectators) >= MAX_SPECTATORS:
            raise RoomError("too_many_spectators", "관전자가 너무 많아요")
        room.spectators.append(nick)
        self._registry.where[nick] = room_id
        recorder = self._registry.recorder
        if recorder is not None and room.status == PLAYING:
            recorder.watched(room.journal_key, nick)  # (the hand history; may fail)
        self._play.changed(room, [{"type": "watch", "player": nick}])

    # ------------------------------------------------------------------ leaving
    def leave(self, room_id: str, nick: str) -> None:
        """Leave the room. In a running game the seat stays with the engine, which auto-dies for it."""
        room = self._registry.rooms.get(room_id)
        if room is None:
            self._registry.where.pop(nick, None)
            return
        self.leave_room(room, nick)

    def leave_room(self, room: Room, nick: str, by: str | None = None) -> None:
        """``nick`` leaves (``by`` the host who removed them, if so); see :meth:`leave`."""
        events: list[RoomEvent] = []
        if nick in room.spectators:
            room.spectators.remove(nick)
            events.append(_left("unwatch", nick, by))
            if nick in mid_join.queued(room):  # no seat at the next hand for someone gone
                events += self._play.engine(room, nick, {"type": "leave"})
        elif nick in room.players:
            timer = room.offline.pop(nick, None)
            if timer is not None:
                timer.cancel()
            room.players.remove(nick)
            events.append(_left("leaveRoom", nick, by))
            if room.status == PLAYING and room.game is not None and nick in room.game.players:
                room.left.append(nick)
                events += self._play.engine(room, nick, {"type": "leave"})
        else:
            return
        if self._registry.where.get(nick) == room.id:
            del self._registry.where[nick]
        events += room.fix_host()
        self._play.changed(room, events)

    # ------------------------------------------------------------------ moderation (the host)
    def remove(self, room_id: str, host: str, nick: str) -> None:
        """The host removes a player (between hands) or a spectator, who may not come back
        until ``readmit``; their sessions get a last ``closed`` push with the notice."""
        room = self._registry.get(room_id)
        moderation.check_remove(room, host, nick)
        room.barred.add(nick)
        log_event(log, "player_removed", room=room.id, host=host, player=nick)
        recorder = self._registry.recorder
        if recorder is not None:
            recorder.unseen(room.journal_key, nick)  # (the hand history; may fail)
        if room.privacy is not None:
            self._registry.new_code(room)  # a fresh nickname with the old code finds nothing
        self._journal_room(room)
        self._pushes.removed(room, nick, moderation.REMOVED_NOTICE, (("room", room.name),))
        self.leave_room(room, nick, by=host)
        if room.privacy is not None and room.id in self._registry.rooms:
            self._play.changed(room, [{"type": "codeChanged", "by": host}])

    def set_locked(self, room_id: str, host: str, locked: bool) -> None:
        """The host locks the room (nobody new sits or watches) or unlocks it."""
        room = self._registry.get(room_id)
        events = moderation.lock(room, host, locked)
        if events:
            self._journal_room(room)
            self._play.changed(room, events)

    def hand_host(self, room_id: str, host: str, nick: str) -> None:
        """The host hands the role to another seated, connected human."""
        room = self._registry.get(room_id)
        self._play.changed(room, moderation.hand_host(room, host, nick))

    def readmit(self, room_id: str, host: str) -> None:
        """The host lets everyone they removed from this room come back."""
        room = self._registry.get(room_id)
        events = moderation.readmit(room, host)
        if events:
            self._journal_room(room)
            self._play.changed(room, events)

    def change_code(self, room_id: str, host: str) -> None:
        """The host gives a private room a new code (those inside see it; the old one opens
        nothing)."""
        room = self._registry.get(room_id)
        moderation.check_code_change(room, host)
        self._registry.new_code(room)
        self._journal_room(room)
        log_event(log, "code_changed", room=room.id, host=host)
        self._play.changed(room, [{"type": "codeChanged", "by": host}])

    def change_options(
        self, room_id: str, host: str, options: Options | Mapping[str, object]
    ) -> None:
        """The host changes the room's rules between games (not while one runs); everyone in
        the room is pushed them, and the log says what changed (rooms/moderation.py)."""
        room = self._registry.get(room_id)
        if not isinstance(options, Options):
            options = Options.from_dict(options)
        event = moderation.change_options(room, host, options)
        if event is not None:
            fields = ",".join(str(change[0]) for change in event["changes"])
            log_event(log, "options_changed", room=room.id, host=host, fields=fields)
            self._play.changed(room, [event])

    def _journal_room(self, room: Room) -> None:
        """A running game's room keeps its code, bars and lock across a restart."""
        if self._registry.recorder is not None:
            self._registry.recorder.room_changed(room)  # (may fail: logged, the room goes on)


def _left(kind: Literal["unwatch", "leaveRoom"], nick: str, by: str | None) -> LeftEvent:
    """``nick`` stopped watching or left a seat (``by``: the host who removed them)."""
    event: LeftEvent = {"type": kind, "player": nick}
    if by:
        event["by"] = by
    return event
