"""The host's moderation rules: remove someone, lock the room, hand the host role on, change
a private room's code.

The rules only; :class:`~seotda_tui.rooms.manager.RoomManager` applies them (its ``remove``,
``set_locked``, ``hand_host``, ``readmit`` and ``change_code``) and pushes the change. What
they decide:

* **Remove** a player or a spectator (not a bot: ``remove_bot`` is for those; not the host).
  A seated player of a running game only between hands (the hand's result is shown, or the
  game asks for rebuys): from then on their seat is handled exactly as a voluntary leave
  (§5.7: it pays 학교 and dies every later hand until its chips run out). Mid-hand it is
  refused, so a removal never takes a live pot away. The removed nickname is *barred*: it can
  neither sit nor watch in that room again until the host lets the barred back in
  (``readmit``). Locking and unlocking do not touch the bars. A bar is per nickname, so in a
  private room a removal also changes the code (a fresh nickname with the old code finds
  nothing), and the running game leaves the removed person's hand history from then on.
* **Lock**: nobody new may sit or watch (a spectator already in the room may still sit down);
  the lobby shows the lock.
* **Hand the host role** to another seated, connected human.
* **Change the code** of a private room (those inside see the new one; the old one opens
  nothing).
* **Change the rules** (the room's options) between games: in the waiting room or after a
  game ended, never while one runs; the seated count must still fit the new rules. The
  privacy, the lock and the bars stay as they were. Nothing to journal: a game's options go
  into the journal when it starts (a finished game's record keeps the rules it was played by).

Bars, the lock and the code go into the journal with a running game, so a room rebuilt from
it after a restart keeps them (a waiting room is not journaled: it does not survive a restart).
"""

from __future__ import annotations

from engine import Options, OptionsError
from engine.options import SPECS

from ..i18n import N_
from .events import OptionsChangedEvent, RoomEvent
from .model import PLAYING, Room, RoomError

NOT_HOST = N_("방장만 할 수 있어요")
BARRED = N_("방장이 이 방에서 내보냈어요. 방장이 다시 받아 주기 전에는 들어갈 수 없어요")
LOCKED = N_("방장이 방을 잠가서 들어갈 수 없어요")
NOT_PRIVATE = N_("공개 방에는 코드가 없어요")
RULES_MID_GAME = N_("게임 중에는 규칙을 바꿀 수 없어요. 게임이 끝나면 바꿀 수 있어요")
#: What the removed player reads, back in the lobby.
REMOVED_NOTICE = N_("'{room}' 방의 방장이 나를 방에서 내보냈어요")

#: Engine phases between two hands: the hand's payout is done.
_BETWEEN_HANDS = frozenset({"handEnd", "rebuy", "finished"})


def check_host(room: Room, nick: str) -> None:
    if nick != room.host:
        raise RoomError("not_host", NOT_HOST)


def check_entry(room: Room, nick: str) -> None:
    """May ``nick`` sit or watch? Someone already watching may sit even when it is locked."""
    if nick in room.barred:
        raise RoomError("barred", BARRED)
    if room.locked and nick not in room.players and nick not in room.spectators:
        raise RoomError("locked", LOCKED)


def mid_hand(room: Room, nick: str) -> bool:
    """Is ``nick`` in a hand still being played (chips at stake)?"""
    game = room.game
    if room.status != PLAYING or game is None or nick not in game.players:
        return False
    if game.seat_status(nick) in ("eliminated", "left"):
        return False
    return game.pending()["phase"] not in _BETWEEN_HANDS


def check_remove(room: Room, host: str, target: str) -> None:
    check_host(room, host)
    if target == host:
        raise RoomError("remove_self", "자기 자신은 내보낼 수 없어요")
    if target in room.bots:
        raise RoomError("remove_bot", "봇은 - 키로 빼 주세요")
    if target not in room.players and target not in room.spectators:
        raise RoomError("target_absent", N_("{target}님은 이 방에 없어요"), target=target)
    if target in room.players and mid_hand(room, target):
        raise RoomError("mid_hand", "판이 진행 중이에요. 이 판이 끝난 뒤에 내보낼 수 있어요")


def lock(room: Room, host: str, locked: bool) -> list[RoomEvent]:
    check_host(room, host)
    if room.locked == locked:
        return []
    room.locked = locked
    return [{"type": "locked" if locked else "unlocked", "by": host}]


def hand_host(room: Room, host: str, target: str) -> list[RoomEvent]:
    check_host(room, host)
    if target == host:
        raise RoomError("already_host", "이미 방장이에요")
    if target not in room.humans():
        raise RoomError("target_not_seated", "방장은 이 방에 앉아 있는 사람에게만 넘길 수 있어요")
    if target in room.offline:
        raise RoomError("target_offline", N_("{target}님은 지금 연결이 끊겨 있어요"), target=target)
    room.host = target
    return [{"type": "host", "player": target, "by": host}]


def check_code_change(room: Room, host: str) -> None:
    check_host(room, host)
    if room.privacy is None:
        raise RoomError("not_private", NOT_PRIVATE)


def readmit(room: Room, host: str) -> list[RoomEvent]:
    check_host(room, host)
    if not room.barred:
        return []
    players = sorted(room.barred)
    room.barred.clear()
    return [{"type": "readmitted", "players": players, "by": host}]


def change_options(room: Room, host: str, options: Options) -> OptionsChangedEvent | None:
    """The host's new rules for the next game (None: nothing changed); the event lists each change as
    ``[field, old, new]`` so every session can say it in its own language."""
    check_host(room, host)
    if room.status == PLAYING:
        raise RoomError("game_running", RULES_MID_GAME)
    try:
        if len(room.players) > options.max_players:  # (a room of one may still wait)
            options.check_players(len(room.players))
    except OptionsError as exc:
        raise RoomError("player_count", exc.template, **exc.values) from exc
    changes: list[list[object]] = [
        [spec.field, getattr(room.options, spec.field), getattr(options, spec.field)]
        for spec in SPECS
        if getattr(room.options, spec.field) != getattr(options, spec.field)
    ]
    if not changes:
        return None
    room.options = options
    return {"type": "optionsChanged", "by": host, "changes": changes}
