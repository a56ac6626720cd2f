"""Which rooms live in this process, who is in which, and the limits on opening and finding them.

Why its own module: every part of the room manager (:mod:`.manager`) works on the same rooms —
seating, the game driving, the sessions, the pushes — and each needs to find a room, a nickname's
room, or the journal the rooms write to. :class:`RoomRegistry` is that shared state with the
rules that read only it: a room's id and private code, the lobby's list, a typed code or name
looked up (with the wrong-code limits of :class:`~.private.CodeGuesses`), a nickname in one room
at a time, and how many rooms one address may host. No pushes and no engine here.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable

from ..addresses import address_key
from ..i18n import N_
from ..sanitize import clean_text
from .model import ROOM_NAME_CELLS, Room, RoomError, RoomSummary
from .private import (
    NEED_CODE,
    NOT_FOUND,
    TARGET_MAX,
    TOO_MANY_GUESSES,
    WRONG_CODE,
    CodeGuesses,
    Privacy,
    code_matches,
    new_code,
    normalize_code,
)
from .recording import GameRecorder
from .records import GameRecords

MAX_ROOMS = 100
#: Rooms whose hosts are connected from one address (a NAT of a few friends fits).
MAX_ROOMS_PER_ADDRESS = 3
TOO_MANY_ROOMS = N_("방이 너무 많아요. 잠시 뒤에 다시 만들어 주세요")
TOO_MANY_FROM_ADDRESS = N_(
    "이 주소에서 연 방이 너무 많아요 (최대 {n}개). 있는 방이 닫힌 뒤에 다시 만들어 주세요"
)


def clean_name(name: str, host: str) -> str:
    """A room's name as shown: printable, at most :data:`ROOM_NAME_CELLS` wide, never empty."""
    return clean_text(name, ROOM_NAME_CELLS) or f"{host}의 방"


def code_for(room: Room, nick: str) -> str | None:
    """A private room's code for ``nick``: only those in the room (seated or watching) see it."""
    if room.privacy is None or not room.has(nick):
        return None
    return room.privacy.code


class RoomRegistry:
    """The rooms by id, each nickname's room, the sessions' addresses, and the stores written to.

    The manager and its collaborators share one; ``recorder`` and ``records`` become None when
    the manager closes.
    """

    def __init__(
        self,
        now: Callable[[], float],
        max_rooms: int = MAX_ROOMS,
        max_rooms_per_address: int = MAX_ROOMS_PER_ADDRESS,
        recorder: GameRecorder | None = None,
        records: GameRecords | None = None,
    ) -> None:
        self.rooms: dict[str, Room] = {}
        self.where: dict[str, str] = {}  # nick -> the one room it is in
        self.addresses: dict[str, str] = {}  # nick -> its session's address (address_key)
        self.max_rooms = max_rooms
        self.max_rooms_per_address = max_rooms_per_address
        #: The journal the games are written to (None: none is kept).
        self.recorder = recorder
        #: Players' records (:mod:`.records`): each finished game is counted here, if set.
        self.records = records
        self._guesses = CodeGuesses(now)  # wrong private-room codes

    def close(self) -> None:
        """The manager's shutdown: forget every room, close the stores."""
        self.rooms.clear()
        self.where.clear()
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        if self.records is not None:
            self.records.close()
            self.records = None

    # ------------------------------------------------------------------ looking up
    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError("room_gone", "방이 없어졌어요")
        return room

    def listing(self, unlisted: bool = False) -> list[RoomSummary]:
        """The lobby's list; ``unlisted=True`` adds the private rooms their hosts hid."""
        return [
            r.summary()
            for r in self.rooms.values()
            if unlisted or r.privacy is None or r.privacy.listed
        ]

    def find(self, target: str) -> Room | None:
        """The live room a typed code opens, else the public room of that name (the first).

        Private rooms are found by their code only, never by their name.
        """
        if not isinstance(target, str) or len(target) > TARGET_MAX:
            return None
        code = normalize_code(target)
        for room in self.rooms.values():
            if code is not None and room.privacy is not None and room.privacy.code == code:
                return room
        name = clean_text(target, TARGET_MAX)
        for room in self.rooms.values():
            if room.privacy is None and name and room.name == name:
                return room
        return None

    def find_for(self, target: str, nick: str) -> Room:
        """:meth:`find` for ``nick`` joining directly: a miss shaped like a code is a guess,
        counted (and held back) like a wrong code."""
        address = self.addresses.get(nick, "")
        if self._guesses.blocked(nick, address):
            raise RoomError("too_many_guesses", TOO_MANY_GUESSES)
        found = self.find(target)
        if found is None:
            if normalize_code(target) is not None:
                self._guesses.failed(nick, address)  # shaped like a code: a guess
            raise RoomError(
                "room_not_found", NOT_FOUND, target=clean_text(target, ROOM_NAME_CELLS) or "?"
            )
        return found

    # ------------------------------------------------------------------ checks
    def check_code(self, room: Room, nick: str, code: str | None) -> None:
        """A private room lets in those who know its code (or are in it already)."""
        if room.privacy is None or room.has(nick):
            return
        if code is None:
            raise RoomError("need_code", NEED_CODE)
        address = self.addresses.get(nick, "")
        if self._guesses.blocked(nick, address, room.id):
            raise RoomError("too_many_guesses", TOO_MANY_GUESSES)
        if not code_matches(room.privacy, code):
            self._guesses.failed(nick, address, room.id)
            raise RoomError("wrong_code", WRONG_CODE)

    def check_free(self, nick: str, room_id: str | None = None) -> None:
        """A nickname is in at most one room at a time."""
        where = self.where.get(nick)
        if where is not None and where != room_id and where in self.rooms:
            raise RoomError(
                "in_other_room",
                N_("이미 '{room}' 방에 있어요. 먼저 나가 주세요"),
                room=self.rooms[where].name,
            )

    def check_new_room(self, host: str) -> None:
        """At most ``max_rooms`` rooms, and ``max_rooms_per_address`` hosted from ``host``'s
        address."""
        if len(self.rooms) >= self.max_rooms:
            raise RoomError("too_many_rooms", TOO_MANY_ROOMS)
        address = self.addresses.get(host)
        if address is None:
            return
        hosted = sum(
            1
            for r in self.rooms.values()
            if r.host is not None and self.addresses.get(r.host) == address
        )
        if hosted >= self.max_rooms_per_address:
            raise RoomError(
                "too_many_from_address", TOO_MANY_FROM_ADDRESS, n=self.max_rooms_per_address
            )

    # ------------------------------------------------------------------ changes
    def new_room_id(self) -> str:
        """Random, so ids (and the journal keys made from them) never repeat across restarts."""
        while True:
            room_id = uuid.uuid4().hex[:12]
            if room_id not in self.rooms:
                return room_id

    def new_privacy(self, listed: bool) -> Privacy:
        """A private room's privacy with a code no live room has."""
        return Privacy(new_code(self._codes()), listed)

    def new_code(self, room: Room) -> None:
        """A private room's code changes (the old one opens nothing)."""
        assert room.privacy is not None
        room.privacy = dataclasses.replace(room.privacy, code=new_code(self._codes()))

    def _codes(self) -> set[str]:
        return {r.privacy.code for r in self.rooms.values() if r.privacy is not None}

    def add(self, room: Room) -> None:
        """A new room (or one resumed from the journal, whose code may clash: then a fresh one)."""
        if room.privacy is not None and room.privacy.code in self._codes():
            room.privacy = self.new_privacy(room.privacy.listed)
        self.rooms[room.id] = room

    def drop(self, room: Room) -> None:
        """A closed room: gone, and nobody is in it any more."""
        self.rooms.pop(room.id, None)
        for nick in [n for n, r in self.where.items() if r == room.id]:
            del self.where[nick]

    def seen_at(self, nick: str, address: str) -> None:
        """``nick``'s session connected from ``address`` (for the per-address limits)."""
        if address:
            self.addresses[nick] = address_key(address)
