"""What the room manager pushes: each subscribed session its own update, the lobby its list.

Why its own module: a push is where the rooms' state becomes what one viewer may see — their own
redacted ``game.view(viewer)``, the change's public events, and, in a private room, its code
for those inside only (:func:`~.registry.code_for`). :class:`Pushes` holds the subscriptions and
builds every :class:`RoomUpdate`; it changes no room. Callbacks run synchronously; one that
raises is logged and skipped, so the other sessions still get theirs.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import logging
from collections.abc import Callable
from typing import TypeVar

from engine.types import View

from .. import metrics
from .events import RoomEvent
from .model import (
    FINISHED,
    PLAYING,
    WAITING,
    LobbyCallback,
    Room,
    RoomCallback,
    RoomError,
    RoomSummary,
    RoomUpdate,
)
from .registry import RoomRegistry, code_for

log = logging.getLogger("seotda.rooms")
_T = TypeVar("_T")

#: The states the rooms gauge reports, each every time (zeros too).
_ROOM_STATES = (WAITING, PLAYING, "paused", FINISHED)

Events = tuple[RoomEvent, ...]


class Pushes:
    """The lobby's and the rooms' subscribers, and the updates they are pushed."""

    def __init__(self, registry: RoomRegistry) -> None:
        self._registry = registry
        self._lobby_subs: dict[int, LobbyCallback] = {}
        self._sub_ids = itertools.count(1)
        self._last_lobby: tuple[RoomSummary, ...] | None = None
        self._room_counts: dict[str, int] = {}  # as the metrics last heard them
        self.count_rooms()  # zeros from the start (then on every change)

    def close(self) -> None:
        """Shutdown: nobody is pushed anything any more."""
        for room in self._registry.rooms.values():
            room.subscribers.clear()
        self._lobby_subs.clear()

    @property
    def lobby_subscribers(self) -> int:
        return len(self._lobby_subs)

    # ------------------------------------------------------------------ subscribing
    def subscribe_lobby(self, callback: LobbyCallback) -> Callable[[], None]:
        """``callback(rooms)`` now and on every change of the lobby list."""
        sub = next(self._sub_ids)
        self._lobby_subs[sub] = callback
        self.call(callback, self._registry.listing())
        return lambda: self._lobby_subs.pop(sub, None) and None

    def subscribe_room(self, room: Room, nick: str, callback: RoomCallback) -> Callable[[], None]:
        """Push ``nick``'s view of the room now (a snapshot with the log) and after every change."""
        if not room.has(nick):
            raise RoomError("not_in_room", "이 방에 들어와 있지 않아요")
        sub = next(self._sub_ids)
        room.subscribers[sub] = (nick, callback)
        self.call(callback, self.update(room, nick, tuple(room.log), snapshot=True))
        room_id, rooms = room.id, self._registry.rooms

        def unsubscribe() -> None:
            current = rooms.get(room_id)
            if current is not None:
                current.subscribers.pop(sub, None)

        return unsubscribe

    # ------------------------------------------------------------------ pushing
    def update(
        self,
        room: Room,
        nick: str,
        events: Events,
        snapshot: bool = False,
        closed: bool = False,
        cache: dict[str | None, View] | None = None,
    ) -> RoomUpdate:
        """``nick``'s update: their own view (shared with the same viewer's via ``cache``)."""
        viewer = room.viewer_for(nick)
        view = None
        if room.game is not None:
            if cache is not None and viewer in cache:
                view = cache[viewer]
            else:
                # shares nothing with the state: no copy needed
                view = room.game.view(viewer)
                if cache is not None:
                    cache[viewer] = view
        return RoomUpdate(
            room=room.summary(),
            viewer=viewer,
            view=view,
            events=copy.deepcopy(events) if snapshot else events,
            deadline_at=room.deadline_at,  # (a moment on the rooms' clock: rooms/api.py)
            result=room.result,
            snapshot=snapshot,
            closed=closed,
            paused=room.paused,
            code=None if closed else code_for(room, nick),
        )

    def push(self, room: Room, events: Events) -> None:
        """Every subscriber of the room its update of this change."""
        cache: dict[str | None, View] = {}
        for nick, callback in list(room.subscribers.values()):
            self.call(callback, self.update(room, nick, events, cache=cache))

    def closed(self, room: Room) -> None:
        """The room is gone: a last ``closed`` update to each subscriber, then none."""
        subscribers = list(room.subscribers.values())
        room.subscribers.clear()
        for nick, callback in subscribers:
            self.call(callback, self.update(room, nick, (), closed=True))

    def removed(
        self, room: Room, nick: str, template: str, values: tuple[tuple[str, str], ...]
    ) -> None:
        """``nick`` was removed: their sessions get a last ``closed`` update with the notice
        (``template`` formatted with ``values``) and are unsubscribed."""
        for sub, (who, callback) in list(room.subscribers.items()):
            if who == nick:
                del room.subscribers[sub]
                last = self.update(room, nick, (), closed=True)
                shown = dataclasses.replace(
                    last,
                    notice=template.format(**dict(values)),
                    notice_template=template,
                    notice_values=values,
                )
                self.call(callback, shown)

    def push_lobby(self) -> None:
        """The lobby's subscribers the list, when it changed."""
        self.count_rooms()
        rooms = tuple(self._registry.listing())
        if rooms == self._last_lobby:
            return
        self._last_lobby = rooms
        for callback in list(self._lobby_subs.values()):
            self.call(callback, list(rooms))

    def count_rooms(self) -> None:
        """The rooms gauge by state (every room, the private ones too), when it changed."""
        counts = dict.fromkeys(_ROOM_STATES, 0)
        for room in self._registry.rooms.values():
            counts["paused" if room.paused else room.status] += 1
        if counts != self._room_counts:
            self._room_counts = counts
            metrics.rooms(counts)

    @staticmethod
    def call(callback: Callable[[_T], None], arg: _T) -> None:
        """One session's failing callback must not stop the others' updates."""
        try:
            callback(arg)
        except Exception:
            log.exception("room subscriber failed")
