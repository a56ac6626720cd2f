"""Records of finished games, counted from the engine's events by the room manager.

Why here: the manager sees every applied engine change (its ``_changed``), so a
:class:`GameTally` per running game counts hands, wins, best hands, specials that took effect
(a pot won by 땡잡이 or 암행어사), rematches and the 땡값 paid and received (issue 36), and notes
each seat's chips after every hand.
At the game's end :class:`GameRecords` turns the tally and the engine's result into a
:class:`~.records_db.GameRecord` for the registered players only (bots and names no key or
passphrase holds are kept out: ``registered`` is the identity store's answer) and writes it.

A failed write never touches the room: records are statistics, so the game is not paused for
them (the journal already keeps the game itself). The record is kept in memory and written
with the next game's (at most :data:`MAX_PENDING` kept; older ones are dropped with a log
line), so a short disk fault loses nothing and a long one costs only statistics.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from engine import Game, Options
from engine.types import GameResult, RankingRow

from ..logs import log_event
from .events import RoomEvent
from .records_db import (
    GameRecord,
    PlayerRecord,
    PlayerResult,
    RecentGame,
    RecordStore,
    TtaengTotals,
)

if TYPE_CHECKING:
    from .journal import Entry

log = logging.getLogger("seotda.rooms")

MAX_PENDING = 100
SPECIAL_REASONS = ("ttaengjabi", "amhaeng")
_T = TypeVar("_T")


class GameTally:
    """One running game's per-seat counts, fed every batch of engine events as it is applied."""

    def __init__(self, options: Options, players: Iterable[str]) -> None:
        self.start_chips = options.starting_chips
        self.players = list(players)
        self.hands_played = dict.fromkeys(self.players, 0)
        self.rematches = dict.fromkeys(self.players, 0)
        self.best: dict[str, tuple[int, str]] = {}
        self.won: dict[str, set[int]] = {p: set() for p in self.players}
        self.specials: dict[str, dict[str, set[int]]] = {
            p: {r: set() for r in SPECIAL_REASONS} for p in self.players
        }
        self.history: dict[str, dict[int, int]] = {p: {} for p in self.players}
        #: 땡값 (issue 36) per seat: chips and the hands of each payment, paid and received
        self.ttaeng_paid: dict[str, dict[int, int]] = {p: {} for p in self.players}
        self.ttaeng_received: dict[str, dict[int, int]] = {p: {} for p in self.players}
        self._hand_no = 0

    def _seat(self, player: str) -> None:
        """Counts for ``player`` from nothing (a seat at the start, or mid-game: issue 32)."""
        if player not in self.hands_played:
            self.players.append(player)
        self.hands_played.setdefault(player, 0)
        self.rematches.setdefault(player, 0)
        self.won.setdefault(player, set())
        self.specials.setdefault(player, {r: set() for r in SPECIAL_REASONS})
        self.history.setdefault(player, {})
        self.ttaeng_paid.setdefault(player, {})
        self.ttaeng_received.setdefault(player, {})

    @classmethod
    def replayed(
        cls,
        options: Options,
        players: Sequence[str],
        seed: str,
        actions: Iterable[Entry],
    ) -> GameTally:
        """The tally of a journaled game, counted again by replaying it (a resumed room)."""
        game = Game.new(options, players, seed)
        tally = cls(options, game.players)
        tally.observe(list(game.last_events), game)
        for player, action in actions:
            events = game.timeout() if player is None else game.apply(player, action)
            tally.observe(list(events), game)
        return tally

    def observe(self, events: Iterable[RoomEvent], game: Game) -> None:
        """Count one applied change; after a hand's end, note every seat's chips."""
        ended: list[int] = []
        for event in events:
            if event["type"] == "seated":
                self._seat(event["player"])
            elif event["type"] == "handStart":
                self._hand_no = event["handNo"]
                for player in event["players"]:
                    if player in self.hands_played:
                        self.hands_played[player] += 1
            elif event["type"] == "showdown":
                for shown in event["hands"]:
                    player, value = shown["player"], shown["value"]
                    if player in self.best and self.best[player][0] >= value:
                        continue
                    self.best[player] = (value, shown["name"])
            elif event["type"] == "payout" and event["player"] in self.won:
                player = event["player"]
                if event["main"]:
                    self.won[player].add(self._hand_no)
                if event["reason"] in SPECIAL_REASONS:
                    self.specials[player][event["reason"]].add(self._hand_no)
            elif event["type"] == "ttaengValue":
                self._ttaeng(self.ttaeng_paid, event["player"], event["amount"])
                self._ttaeng(self.ttaeng_received, event["winner"], event["amount"])
            elif event["type"] == "rematch":
                for player in event["participants"]:
                    if player in self.rematches:
                        self.rematches[player] += 1
            elif event["type"] == "handEnd":
                ended.append(event["handNo"])
        if ended:
            stacks = {seat["id"]: seat["stack"] for seat in game.view(None)["seats"]}
            for player, chips in stacks.items():
                if player in self.history:
                    self.history[player][ended[-1]] = chips

    def _ttaeng(self, book: dict[str, dict[int, int]], player: str, amount: int) -> None:
        if player in book:
            hands = book[player]
            hands[self._hand_no] = hands.get(self._hand_no, 0) + amount

    def result_of(self, row: RankingRow) -> PlayerResult:
        """One seat's :class:`PlayerResult`, from its row of the engine's result ranking."""
        player = str(row["playerId"])
        best = self.best.get(player)
        hands = self.history[player]
        history = [self.start_chips, *(hands[n] for n in sorted(hands))]
        if history[-1] != int(row["finalChips"]):  # e.g. a game that ended mid-hand
            history.append(int(row["finalChips"]))
        return PlayerResult(
            player=player,
            place=int(row["rank"]),
            chips_start=self.start_chips,
            chips_end=int(row["finalChips"]),
            rebuys=int(row["rebuys"]),
            hands_played=self.hands_played[player],
            hands_won=len(self.won[player]),
            best_value=best[0] if best else None,
            best_name=best[1] if best else None,
            ttaengjabi=len(self.specials[player]["ttaengjabi"]),
            amhaeng=len(self.specials[player]["amhaeng"]),
            rematches=self.rematches[player],
            history=tuple(history),
            ttaeng=TtaengTotals(
                paid=sum(self.ttaeng_paid[player].values()),
                paid_hands=len(self.ttaeng_paid[player]),
                received=sum(self.ttaeng_received[player].values()),
                received_hands=len(self.ttaeng_received[player]),
            ),
        )


class GameRecords:
    """The manager's collaborator for records: writes at game end, answers the screens.

    Never raises: a failed write is retried with the next game's (module docstring), a failed
    query answers nothing (``None`` / ``[]``) and is logged.
    """

    def __init__(
        self,
        store: RecordStore,
        registered: Callable[[str], bool],
        clock: Callable[[], float] = time.time,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self._on_close = on_close
        self._registered = registered
        self._clock = clock
        self._pending: list[GameRecord] = []

    def game_finished(
        self, key: str, tally: GameTally, result: GameResult, bots: Iterable[str]
    ) -> None:
        """Record a finished game for its registered players (nothing if it has none)."""
        ranking = result.get("ranking") or []
        skip = set(bots)
        rows = [r for r in ranking if r["playerId"] not in skip and self._is_registered(r)]
        if not rows:
            return
        record = GameRecord(
            game_key=key,
            finished_at=self._clock(),
            hands=int(result.get("stats", {}).get("handsPlayed", 0)),
            reason=str(result.get("reason", "")),
            places={str(r["playerId"]): int(r["rank"]) for r in ranking},
            results=tuple(tally.result_of(r) for r in rows),
        )
        self._pending.append(record)
        if len(self._pending) > MAX_PENDING:
            dropped = self._pending.pop(0)
            log_event(log, "records_dropped", level=logging.ERROR, game=dropped.game_key)
        try:
            self.store.add_games(self._pending)
        except Exception as exc:  # noqa: BLE001 - statistics only: the room goes on
            log_event(
                log,
                "records_error",
                level=logging.ERROR,
                game=key,
                pending=len(self._pending),
                error=str(exc),
            )
            return
        log_event(log, "game_recorded", game=key, players=len(rows), written=len(self._pending))
        self._pending = []

    def _is_registered(self, row: RankingRow) -> bool:
        try:
            return bool(self._registered(str(row["playerId"])))
        except Exception:  # noqa: BLE001 - unknown means not counted, never a crash
            log_event(log, "records_error", level=logging.ERROR, exc_info=True, op="registered")
            return False

    def player(self, nick: str) -> PlayerRecord | None:
        return self._read("player", lambda: self.store.player(nick), None)

    def recent(self, nick: str, limit: int = 5) -> list[RecentGame]:
        return self._read("recent", lambda: self.store.recent(nick, limit), [])

    def by_rating(self, limit: int = 10) -> list[PlayerRecord]:
        return self._read("by_rating", lambda: self.store.by_rating(limit), [])

    def by_wins(self, limit: int = 10) -> list[PlayerRecord]:
        return self._read("by_wins", lambda: self.store.by_wins(limit), [])

    @staticmethod
    def _read(op: str, query: Callable[[], _T], empty: _T) -> _T:
        try:
            return query()
        except Exception:  # noqa: BLE001 - a screen without records, not a crashed session
            log_event(log, "records_error", level=logging.ERROR, exc_info=True, op=op)
            return empty

    def close(self) -> None:
        try:
            self.store.close()
            if self._on_close is not None:
                self._on_close()
        except Exception:  # noqa: BLE001 - shutdown goes on
            log_event(log, "records_error", level=logging.ERROR, exc_info=True, op="close")
