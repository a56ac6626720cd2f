"""Private rooms: the short code that opens them, and how a typed code or room name is read.

Why a code and not a password: friends read it aloud or paste it into one ``ssh`` line
(``철수+K7QX3@host``), so it is short, case-insensitive, and drawn from an alphabet without
look-alikes (Crockford's base-32 without 0/O, 1/I/L and U). It is unique among live rooms and
is no secret from anyone in the room; the lobby never shows it. Every text here comes from a
client: it is bounded and checked before it is compared with anything.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

from ..i18n import N_

#: Easy to read aloud and to tell apart: no 0/O, 1/I/L, and no U (Crockford drops it too).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 5  # 30**5 ≈ 24 million codes for at most a hundred live rooms
#: Longest text looked at as a code or a room name (anything longer is no code and no name).
TARGET_MAX = 64

NEED_CODE = N_("비공개 방이에요. 방 코드를 입력해 주세요")
WRONG_CODE = N_("방 코드가 맞지 않아요. 방장에게 코드를 다시 확인해 주세요")
NOT_FOUND = N_(
    "'{target}' 방을 찾지 못했어요. 코드가 틀렸거나 방이 없어졌어요. 로비에서 골라 주세요"
)


@dataclass(frozen=True)
class Privacy:
    """A private room's code, and whether the lobby lists it (without the code) at all."""

    code: str
    listed: bool = True

    def to_dict(self) -> dict[str, Any]:
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
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
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
GUESS_WINDOW = 60.0
TOO_MANY_GUESSES = N_("방 코드를 너무 여러 번 틀렸어요. 1분 뒤에 다시 해 주세요")
_TRACKED_MAX = 1000  # nicknames remembered before the stale ones are dropped


class CodeGuesses:
    """Wrong codes per nickname in a sliding window, so that a script cannot walk the 24
    million codes (at five a minute it would take years to hit one of a hundred rooms)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._wrong: dict[str, deque[float]] = {}

    def _recent(self, nick: str) -> deque[float]:
        times = self._wrong.get(nick, deque())
        cutoff = self._now() - GUESS_WINDOW
        while times and times[0] <= cutoff:
            times.popleft()
        return times

    def blocked(self, nick: str) -> bool:
        return len(self._recent(nick)) >= GUESS_LIMIT

    def failed(self, nick: str) -> None:
        if nick not in self._wrong and len(self._wrong) >= _TRACKED_MAX:
            for other in [n for n in self._wrong if not self._recent(n)]:
                del self._wrong[other]
        times = self._recent(nick)
        times.append(self._now())
        self._wrong[nick] = times
