"""Private rooms: the short code that opens them, and how a typed code or room name is read.

Why a code and not a password: friends read it aloud or paste it into one ``ssh`` line
(``철수+K7QX3@host``), so it is short, case-insensitive, and drawn from an alphabet without
look-alikes (Crockford's base-32 without 0/O, 1/I/L and U). It is unique among live rooms and
is no secret from anyone in the room; the lobby never shows it (the host may change it, and a
removal from the room changes it). Every text here comes from a client: it is bounded and
checked before it is compared with anything.

Why eight characters, and how fast anyone may guess (:class:`CodeGuesses`): 30**8 ≈ 6.6 × 10**11
codes. Wrong codes are limited per nickname (5 a minute), per address (10 a minute) and on the
whole server (60 a minute): past the server's figure (or 20 a minute at one room) a nickname or
address that already guessed wrong in the last minute is refused until its minute is over, so a
scan gets about max(60, fresh addresses) guesses a minute. Against ``max_rooms`` = 100 live codes
each guess hits with 100 / 6.6 × 10**11 ≈ 1.5 × 10**-10: at 60 a minute one hit is expected after
about 200 years, at 1,000 fresh addresses a minute after about 13 years. (Five characters, 30**5 ≈
24 million, gave about 3 days at 60 a minute and 4 hours at 1,000.)
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import TypedDict

from ..i18n import N_

#: Easy to read aloud and to tell apart: no 0/O, 1/I/L, and no U (Crockford drops it too).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8  # 30**8 ≈ 6.6 × 10**11 codes (the arithmetic is at the top)
#: Codes made before they were lengthened, still read (a resumed game keeps its code).
OLD_CODE_LENGTHS = frozenset({5})
#: Longest text looked at as a code or a room name (anything longer is no code and no name).
TARGET_MAX = 64

NEED_CODE = N_("비공개 방이에요. 방 코드를 입력해 주세요")
WRONG_CODE = N_("방 코드가 맞지 않아요. 방장에게 코드를 다시 확인해 주세요")
NOT_FOUND = N_(
    "'{target}' 방을 찾지 못했어요. 코드가 틀렸거나 방이 없어졌어요. 로비에서 골라 주세요"
)


class PrivacyDict(TypedDict):
    """What the journal keeps of a private room (its ``privacy`` column)."""

    code: str
    listed: bool


@dataclass(frozen=True)
class Privacy:
    """A private room's code, and whether the lobby lists it (without the code) at all."""

    code: str
    listed: bool = True

    def to_dict(self) -> PrivacyDict:
        return {"code": self.code, "listed": self.listed}

    @classmethod
    def from_dict(cls, data: object) -> Privacy | None:
        """What the journal kept (``None`` for a public room, or anything malformed)."""
        if not isinstance(data, dict):
            return None
        code = normalize_code(data.get("code"))
        if code is None:
            return None
        return cls(code, bool(data.get("listed", True)))


def normalize_code(text: object) -> str | None:
    """The code a player typed (any case, spaces or dashes between), or None if it is none."""
    if not isinstance(text, str) or len(text) > TARGET_MAX:
        return None
    code = "".join(ch for ch in text if ch not in " -").upper()
    if len(code) != CODE_LENGTH and len(code) not in OLD_CODE_LENGTHS:
        return None
    if any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def new_code(taken: Container[str], choice: Callable[[str], str] = secrets.choice) -> str:
    """A fresh code no live room has (``taken``)."""
    while True:
        code = "".join(choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code


def code_matches(privacy: Privacy | None, typed: str | None) -> bool:
    """Does ``typed`` open a room with ``privacy`` (a public room needs nothing)?"""
    if privacy is None:
        return True
    code = normalize_code(typed)
    return code is not None and secrets.compare_digest(code, privacy.code)


#: Wrong codes one nickname may try in :data:`GUESS_WINDOW` seconds (typos, not a scan).
GUESS_LIMIT = 5
#: ... one address (however many nicknames it logs in with).
ADDRESS_GUESS_LIMIT = 10
#: Wrong codes on the whole server, and at one room, in the window: past either, a nickname or
#: address that already guessed wrong in it may not guess again until its window is over.
SERVER_GUESS_LIMIT = 60
ROOM_GUESS_LIMIT = 20
GUESS_WINDOW = 60.0
TOO_MANY_GUESSES = N_("방 코드를 너무 여러 번 틀렸어요. 1분 뒤에 다시 해 주세요")
_TRACKED_MAX = 1000  # nicknames, addresses and rooms remembered before the stale ones are dropped
_EVERYONE = ("*", "")


class CodeGuesses:
    """Wrong codes in a sliding window per nickname, per address, per room and server-wide, so
    that a script cannot walk the codes, not even with a fresh nickname for each guess or from
    many addresses (the figures are at the top). ``address`` is "" when unknown (a caller
    without a session, e.g. a test): then only the nickname, room and server figures count."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._wrong: dict[tuple[str, str], deque[float]] = {}

    def _count(self, key: tuple[str, str]) -> int:
        times = self._wrong.get(key)
        if times is None:
            return 0
        cutoff = self._now() - GUESS_WINDOW
        while times and times[0] <= cutoff:
            times.popleft()
        if not times:
            del self._wrong[key]
        return len(times)

    @staticmethod
    def _keys(nick: str, address: str, room_id: str | None) -> list[tuple[str, str]]:
        keys = [("n", nick), _EVERYONE]
        if address:
            keys.append(("a", address))
        if room_id is not None:
            keys.append(("r", room_id))
        return keys

    def blocked(self, nick: str, address: str = "", room_id: str | None = None) -> bool:
        own = self._count(("n", nick))
        by_address = self._count(("a", address)) if address else 0
        if own >= GUESS_LIMIT or by_address >= ADDRESS_GUESS_LIMIT:
            return True
        crowded = self._count(_EVERYONE) >= SERVER_GUESS_LIMIT or (
            room_id is not None and self._count(("r", room_id)) >= ROOM_GUESS_LIMIT
        )
        return crowded and (own > 0 or by_address > 0)

    def failed(self, nick: str, address: str = "", room_id: str | None = None) -> None:
        keys = self._keys(nick, address, room_id)
        if len(self._wrong) + len(keys) > _TRACKED_MAX:
            for key in list(self._wrong):
                self._count(key)  # (drops the stale ones)
        now = self._now()
        for key in keys:
            self._wrong.setdefault(key, deque()).append(now)
