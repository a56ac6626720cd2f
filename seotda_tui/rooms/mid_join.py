"""Joining a running game at the next hand (issue 32): the room's side of ``Game.join``.

Why here: the engine decides whether a seat can be had (``Game.check_join``) and seats the
queued player when the next hand starts; the room only turns the engine's refusal into a
:class:`RoomError` its screens can show in either language, and moves the player from the
spectators to the seated players once the engine says ``seated``. The manager sends the join
through its journal like any engine change, so a restart replays it.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import Refusal

from ..i18n import N_
from .events import RoomEvent
from .model import Room, RoomError

#: What the table says beside the own place until the hand starts (the whole of it)...
QUEUED = N_("다음 판부터 앉아요 · 이번 판이 끝나면 학교를 내고 참가해요")
#: ... and the short line the spectator reads as ``j`` is pressed (the message row is short).
QUEUED_SHORT = N_("다음 판부터 앉아요")


def refused(refusal: Refusal, room: Room) -> RoomError:
    """The engine's reason a spectator cannot sit down yet, as a room refusal."""
    code = refusal.code
    if code == "midJoinOff":
        return RoomError("mid_join_off", N_("게임이 끝나면 앉을 수 있어요"))
    if code == "tableFull":
        return RoomError("room_full", N_("자리가 없어요 (최대 {n}명)"), n=room.options.max_players)
    if code == "alreadyJoining":
        return RoomError("already_joining", QUEUED_SHORT)
    if code == "noHandsLeft":
        return RoomError("no_hands_left", N_("마지막 판이에요 · 게임이 끝나면 앉아요"))
    if code == "alreadySeated":  # a player who left or went out of this game, now watching
        return RoomError("game_running", N_("게임이 끝나면 다시 앉을 수 있어요"))
    return RoomError("game_running", N_("게임이 이미 시작됐어요. 관전은 할 수 있어요"))


def seat_joined(room: Room, events: Iterable[RoomEvent]) -> list[RoomEvent]:
    """Spectators the engine just seated become the room's players (the first person seated
    in a room without a human host hosts it); returns the room's own events for that."""
    events = list(events)
    out: list[RoomEvent] = []
    for event in events:
        if event["type"] != "seated":
            continue
        nick = event["player"]
        if nick in room.spectators:
            room.spectators.remove(nick)
        if nick not in room.players:
            room.players.append(nick)
    if any(e.get("type") == "seated" for e in events):
        out += room.fix_host()
    return out


def queued(room: Room) -> list[str]:
    """Who waits for a seat at the next hand of the room's game."""
    return room.game.joining if room.game is not None else []
