"""Bots in rooms: their names, and the driver that plays a bot's seat through the room manager.

A bot is a seat like any other. Its driver (:class:`BotPlayer`) holds no game: it subscribes to
the room under the bot's nickname, so the manager pushes it exactly what a person in that seat
would get (``game.view(bot)`` plus public events), and it answers with ``manager.act``, the same
call a person's screen makes. After each push that asks something of the bot it waits a short,
human-like moment (0.8–2.0 s on the manager's clock) and then asks :func:`seotda_tui.rooms.bots.decide`.

Both the delay and the decision are deterministic from the game's seed and what the bot can see,
so a game with bots replays the same way (and its journal is the same) for the same seed and the
same human moves. The bot never sees the seed itself (the seed fixes the deck): it gets a one-way
salt derived from it (:func:`bot_salt`).

Bot nicknames look like ``봇1(신중)``: ``봇`` + a number is reserved (see
:func:`seotda_tui.sanitize.validate_nickname`), so no SSH user can take or imitate one.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Callable, Mapping
from typing import Protocol

from engine.types import GameResult, PlainAction, View

from ..i18n import N_
from . import bots
from .clock import Cancellable, Clock
from .events import RoomEvent
from .model import PLAYING, Room, RoomCallback, RoomError, RoomUpdate

log = logging.getLogger("seotda.rooms")

#: Short level names used in bot nicknames: 봇1(신중), 봇2(강함), 봇3(무작위).
BOT_TAGS: dict[str, str] = {"cautious": "신중", "strong": "강함", "random": "무작위"}
#: The level a bot gets when the host does not choose one.
DEFAULT_LEVEL = "cautious"
#: Thinking time of a bot before it acts, in seconds (uniform in this range, seeded).
BOT_DELAY = (0.8, 2.0)

assert set(BOT_TAGS) == set(bots.LEVELS)

#: The end reason of a game with bots in which no person was left in play (each left, went
#: bust or was offline past the grace): the room's word for it, in the result in place of the
#: engine's ``disconnected`` (which counts the bots as people).
BOTS_ONLY = "botsOnly"


def bot_name(number: int, level: str) -> str:
    return f"봇{number}({BOT_TAGS[level]})"


def next_bot_name(taken: set[str] | list[str] | tuple[str, ...], level: str) -> str:
    """The lowest free ``봇N`` number in a room (numbers are per room, whatever the level)."""
    used = set()
    for nick in taken:
        if nick.startswith("봇") and "(" in nick:
            digits = nick[1 : nick.index("(")]
            if digits.isdigit():
                used.add(int(digits))
    number = 1
    while number in used:
        number += 1
    return bot_name(number, level)


def bot_salt(seed: str) -> str:
    """The per-game randomness a bot may use: derived from the seed, but not the seed."""
    return hashlib.sha256(f"seotda-bot:{seed}".encode()).hexdigest()[:16]


def _turn_key(view: View) -> tuple[object, ...]:
    """What identifies one question to the bot; a new key means a new decision to make."""
    pending = view.get("pending") or {}
    return (
        view.get("phase"),
        view.get("handsPlayed"),
        view.get("handNo"),
        view.get("rematchNo"),
        view.get("street"),
        view.get("handPhase"),
        view.get("actor"),
        view.get("currentBet"),
        view.get("pot"),
        pending.get("phase"),
        tuple(sorted(a["type"] for a in view.get("legalActions", []))),
    )


class BotTable(Protocol):
    """What a bot's driver uses of the room manager: what a person's screen uses."""

    def subscribe_room(
        self, room_id: str, nick: str, callback: RoomCallback
    ) -> Callable[[], None]: ...

    def act(self, room_id: str, nick: str, action: Mapping[str, object]) -> None: ...


#: A manager-originated engine change for a seat (journaled; waits while the room is paused).
EngineChange = Callable[[Room, str, PlainAction], list[RoomEvent]]


class BotPlayer:
    """Plays one bot's seat in one room. Create it after the bot took its seat; ``stop()`` it."""

    def __init__(
        self,
        manager: BotTable,
        clock: Clock,
        room_id: str,
        nick: str,
        level: str,
        salt: Callable[[], str],
    ) -> None:
        self.manager = manager
        self.clock = clock
        self.room_id = room_id
        self.nick = nick
        self.level = level
        self._salt = salt
        self._timer: Cancellable | None = None
        self._key: tuple[object, ...] | None = None
        self._update: RoomUpdate | None = None
        self._stopped = False
        self.errors = 0  # refused actions (should stay 0; counted for tests and logs)
        self._unsubscribe = manager.subscribe_room(room_id, nick, self.on_update)

    def stop(self) -> None:
        self._stopped = True
        self._cancel()
        unsubscribe, self._unsubscribe = self._unsubscribe, lambda: None
        unsubscribe()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._key = None

    # Called by the manager inside other calls: only look and arm a timer, never call back.
    def on_update(self, update: RoomUpdate) -> None:
        if self._stopped:
            return
        if update.closed:
            self._stopped = True
            self._cancel()
            return
        self._update = update
        view = update.view
        if update.room.status != PLAYING or update.paused:  # (paused: the journal failed)
            self._cancel()
            return
        if view is None or update.viewer != self.nick:
            self._cancel()
            return
        if not view.get("legalActions"):
            self._cancel()
            return
        key = _turn_key(view)
        if key == self._key and self._timer is not None:
            return  # still the same question (e.g. others answering a simultaneous phase)
        self._cancel()
        self._key = key
        low, high = BOT_DELAY
        rng = random.Random(repr((self._salt(), self.nick, key)))
        self._timer = self.clock.call_later(rng.uniform(low, high), self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._key = None
        update = self._update
        if self._stopped or update is None or update.view is None:
            return
        action = bots.decide(self.level, update.view, update.room.options, self._salt())
        if action is None:
            return
        try:
            self.manager.act(self.room_id, self.nick, action)
        except RoomError as error:
            self.errors += 1
            log.warning("bot %s in room %s was refused: %s", self.nick, self.room_id, error)


class BotSeats:
    """The room manager's bot seats: who sits where, and the drivers that play them.

    The manager owns one; it checks the room exists and pushes the change (the events returned).
    """

    def __init__(self, table: BotTable, clock: Clock, engine: EngineChange) -> None:
        self._table = table
        self._clock = clock
        self._engine = engine

    def add(self, room: Room, nick: str, level: str) -> tuple[str, list[RoomEvent]]:
        """The host seats a bot (before a game starts): its nickname, e.g. ``봇1(신중)``, and
        the events. Start its driver (:meth:`start`) once the change is pushed."""
        if level not in BOT_TAGS:
            raise RoomError("unknown_bot", "그런 봇은 없어요")
        if nick != room.host:
            raise RoomError("not_host", "방장만 봇을 넣을 수 있어요")
        if room.status == PLAYING:
            raise RoomError("game_running", "게임 중에는 봇을 넣을 수 없어요")
        if len(room.players) >= room.options.max_players:
            raise RoomError(
                "room_full", N_("자리가 없어요 (최대 {n}명)"), n=room.options.max_players
            )
        bot = next_bot_name(room.players, level)
        room.players.append(bot)
        room.bots[bot] = level
        return bot, [{"type": "join", "player": bot, "bot": level}]

    def remove(self, room: Room, nick: str, bot: str | None) -> tuple[str, list[RoomEvent]]:
        """The host takes a bot's seat away (``None`` = the last bot added): its name and the
        events."""
        if nick != room.host:
            raise RoomError("not_host", "방장만 봇을 뺄 수 있어요")
        if room.status == PLAYING:
            raise RoomError("game_running", "게임 중에는 봇을 뺄 수 없어요")
        seated = [p for p in room.players if p in room.bots]
        if bot is None:
            if not seated:
                raise RoomError("no_bots", "뺄 봇이 없어요")
            bot = seated[-1]
        elif bot not in seated:
            raise RoomError("not_a_bot", "그 자리는 봇이 아니에요")
        driver = room.bot_players.pop(bot, None)
        if driver is not None:
            driver.stop()
        room.players.remove(bot)
        del room.bots[bot]
        return bot, [{"type": "leaveRoom", "player": bot, "bot": True}]

    def start(self, room: Room, bot: str) -> None:
        """(Re)start the driver of ``room``'s bot seat ``bot``."""
        old = room.bot_players.pop(bot, None)
        if old is not None:
            old.stop()
        room.bot_players[bot] = BotPlayer(
            self._table,
            self._clock,
            room.id,
            bot,
            room.bots[bot],
            lambda: bot_salt(room.seed),
        )

    @staticmethod
    def _no_human_in_play(room: Room) -> bool:
        """Bots are seated and no human in the game has a connection and a chance."""
        game = room.game
        if not room.bots or game is None:
            return False
        return not any(
            pid not in room.bots
            and game.is_connected(pid)
            and game.seat_status(pid) not in ("left", "eliminated")
            for pid in game.players
        )

    def end_reason(self, room: Room, result: GameResult | None) -> GameResult | None:
        """``result`` with the real reason when the game ended as only bots were left: a person
        who went bust is still connected, so "at most one person connected" would be untrue."""
        if result and result.get("reason") == "disconnected" and self._no_human_in_play(room):
            result["reason"] = BOTS_ONLY
        return None if result is None else result.copy()

    def humans_gone(self, room: Room) -> list[RoomEvent]:
        """Bots never keep a game going alone: with no human still in it, disconnect the bots."""
        game = room.game
        if game is None or game.finished or not self._no_human_in_play(room):
            return []
        events: list[RoomEvent] = []
        for pid in game.players:
            if (
                pid in room.bots
                and game.is_connected(pid)
                and game.seat_status(pid) != "left"
                and not game.finished
            ):
                events += self._engine(room, pid, {"type": "disconnect"})
        return events
