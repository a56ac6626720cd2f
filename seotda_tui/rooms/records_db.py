"""Players' records in SQLite (``<data_dir>/records.sqlite3``): statistics, never balances.

Why its own file: the journal prunes finished games after ``journal_keep_days``; records
outlive that, so they keep only what the records screen shows, per registered name. Chips stay
virtual (docs/rules.md §12): a record says how a game went, nothing is carried into the next room.

Each finished game is one transaction: a ``games`` row, one ``results`` row per recorded
player, and that player's running totals in ``players`` (so the own record and the
leaderboards are index lookups, not sums over every game: under 10 ms with 100,000 games,
``bench/records_bench.py``).

Rating (shown in the records screen's help): everyone starts at :data:`START_RATING`; after a
game each recorded player is compared with every other seat of that game, one pair at a
time, Elo-style: ``expected = 1 / (1 + 10 ** ((other - own) / 400))``, actual 1 for a better
place, ½ for the same, 0 for a worse one, and the rating moves by
``K / (seats - 1) * (actual - expected)`` summed over the pairs (:data:`K_FACTOR`). Bots and
unregistered names count with :data:`START_RATING` and are never rated themselves. The
rating leaderboard lists players with at least :data:`MIN_RATED_GAMES` games.

땡값 (issue 36's ``ttaengValue``): each result and each player's totals count the 땡값 paid and
received, in chips and in hands (schema version 2; a version-1 file's rows count none: the
option did not exist when they were written).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..migrations import Step, latest, migrate

DB_NAME = "records.sqlite3"
START_RATING = 1000.0
K_FACTOR = 32.0
MIN_RATED_GAMES = 3
#: The records file's migrations (:mod:`seotda_tui.migrations`): what brings a file to each
#: ``PRAGMA user_version``.
MIGRATIONS = (
    Step(
        1,
        """
    CREATE TABLE games (
        id          INTEGER PRIMARY KEY,
        game_key    TEXT NOT NULL UNIQUE,
        finished_at REAL NOT NULL,
        seats       INTEGER NOT NULL,
        hands       INTEGER NOT NULL,
        reason      TEXT NOT NULL
    );
    CREATE TABLE results (
        game_id      INTEGER NOT NULL REFERENCES games(id),
        player       TEXT NOT NULL,
        place        INTEGER NOT NULL,
        seats        INTEGER NOT NULL,
        chips_start  INTEGER NOT NULL,
        chips_end    INTEGER NOT NULL,
        rebuys       INTEGER NOT NULL,
        hands_played INTEGER NOT NULL,
        hands_won    INTEGER NOT NULL,
        best_value   INTEGER,
        best_name    TEXT,
        ttaengjabi   INTEGER NOT NULL,
        amhaeng      INTEGER NOT NULL,
        rematches    INTEGER NOT NULL,
        history      TEXT NOT NULL,
        finished_at  REAL NOT NULL,
        PRIMARY KEY (player, game_id)
    );
    CREATE INDEX results_recent ON results (player, finished_at DESC);
    CREATE TABLE players (
        player     TEXT PRIMARY KEY,
        games      INTEGER NOT NULL,
        wins       INTEGER NOT NULL,
        hands_won  INTEGER NOT NULL,
        chips_won  INTEGER NOT NULL,
        chips_lost INTEGER NOT NULL,
        best_value INTEGER,
        best_name  TEXT,
        ttaengjabi INTEGER NOT NULL,
        amhaeng    INTEGER NOT NULL,
        rematches  INTEGER NOT NULL,
        place_sum  INTEGER NOT NULL,
        rating     REAL NOT NULL
    );
    CREATE INDEX players_by_rating ON players (rating DESC);
    CREATE INDEX players_by_wins ON players (wins DESC, games);
    """,
    ),
    Step(
        2,  # issue 36 땡값: paid and received, chips and hands (old rows: none)
        """
    ALTER TABLE results ADD COLUMN ttaeng_paid INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN ttaeng_paid_hands INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN ttaeng_received INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN ttaeng_received_hands INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN ttaeng_paid INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN ttaeng_paid_hands INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN ttaeng_received INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN ttaeng_received_hands INTEGER NOT NULL DEFAULT 0;
    """,
    ),
)
SCHEMA_VERSION = latest(MIGRATIONS)


@dataclass(frozen=True)
class TtaengTotals:
    """땡값 (issue 36) a player paid and received: chips, and in how many hands."""

    paid: int = 0
    paid_hands: int = 0
    received: int = 0
    received_hands: int = 0

    def __bool__(self) -> bool:
        return bool(self.paid_hands or self.received_hands)


@dataclass(frozen=True)
class PlayerResult:
    """One recorded player's game, as :class:`~seotda_tui.rooms.records.GameTally` counted it."""

    player: str
    place: int
    chips_start: int
    chips_end: int
    rebuys: int
    hands_played: int
    hands_won: int
    best_value: int | None
    best_name: str | None
    ttaengjabi: int
    amhaeng: int
    rematches: int
    history: tuple[int, ...]  # chips after each hand, starting with the starting stack
    ttaeng: TtaengTotals = TtaengTotals()  # issue 36 땡값

    @property
    def net(self) -> int:
        """Chips won (or lost, negative) net of the starting stack and every rebuy's."""
        return self.chips_end - self.chips_start * (1 + self.rebuys)


@dataclass(frozen=True)
class GameRecord:
    """A finished game: ``places`` holds every seat's place (bots and guests too, for the
    rating); ``results`` only the registered players'."""

    game_key: str
    finished_at: float
    hands: int
    reason: str
    places: dict[str, int]
    results: tuple[PlayerResult, ...]


@dataclass(frozen=True)
class PlayerRecord:
    """A player's totals: the records screen's own record and the table's panel."""

    player: str
    games: int
    wins: int
    hands_won: int
    chips_won: int
    chips_lost: int
    best_name: str | None
    ttaengjabi: int
    amhaeng: int
    rematches: int
    average_place: float
    rating: float
    ttaeng: TtaengTotals = TtaengTotals()


@dataclass(frozen=True)
class RecentGame:
    """One of a player's last games, with its chip history for the sparkline."""

    finished_at: float
    place: int
    seats: int
    net: int
    hands_played: int
    history: tuple[int, ...]


class RecordStore:
    """The records file; synchronous (each call is one indexed query or one transaction)."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, timeout=5.0)
        os.chmod(path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        migrate(self._db, path, MIGRATIONS)  # a newer server's file is refused

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ writes
    def add_games(self, games: Sequence[GameRecord]) -> None:
        """Record ``games`` in one transaction; a game key already recorded is skipped (a retry
        after a write that did commit must not count twice)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for game in games:
                self._add(game)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _add(self, game: GameRecord) -> None:
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO games (game_key, finished_at, seats, hands, reason) "
            "VALUES (?, ?, ?, ?, ?)",
            (game.game_key, game.finished_at, len(game.places), game.hands, game.reason),
        )
        if cursor.rowcount != 1:
            return
        game_id = cursor.lastrowid
        ratings = self._ratings(game.places)
        new_ratings = rate(game.places, ratings, [r.player for r in game.results])
        for r in game.results:
            t = r.ttaeng
            self._db.execute(
                f"INSERT INTO results ({_RESULT_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id, r.player, r.place, len(game.places), r.chips_start, r.chips_end,
                    r.rebuys, r.hands_played, r.hands_won, r.best_value, r.best_name,
                    r.ttaengjabi, r.amhaeng, r.rematches, json.dumps(list(r.history)),
                    game.finished_at, t.paid, t.paid_hands, t.received, t.received_hands,
                ),
            )  # fmt: skip
            self._db.execute(
                "INSERT INTO players (player, games, wins, hands_won, chips_won, chips_lost,"
                " ttaengjabi, amhaeng, rematches, place_sum, rating)"
                " VALUES (?, 0, 0, 0, 0, 0, 0, 0, 0, 0, ?) ON CONFLICT (player) DO NOTHING",
                (r.player, START_RATING),
            )
            self._db.execute(
                "UPDATE players SET games = games + 1, wins = wins + ?, hands_won = hands_won + ?,"
                " chips_won = chips_won + ?, chips_lost = chips_lost + ?,"
                " best_name = CASE WHEN ? IS NOT NULL AND (best_value IS NULL OR ? > best_value)"
                "   THEN ? ELSE best_name END,"
                " best_value = CASE WHEN ? IS NOT NULL AND (best_value IS NULL OR ? > best_value)"
                "   THEN ? ELSE best_value END,"
                " ttaengjabi = ttaengjabi + ?, amhaeng = amhaeng + ?, rematches = rematches + ?,"
                " place_sum = place_sum + ?, rating = ?,"
                " ttaeng_paid = ttaeng_paid + ?, ttaeng_paid_hands = ttaeng_paid_hands + ?,"
                " ttaeng_received = ttaeng_received + ?,"
                " ttaeng_received_hands = ttaeng_received_hands + ? WHERE player = ?",
                (
                    int(r.place == 1), r.hands_won, max(r.net, 0), max(-r.net, 0),
                    r.best_value, r.best_value, r.best_name,
                    r.best_value, r.best_value, r.best_value,
                    r.ttaengjabi, r.amhaeng, r.rematches, r.place, new_ratings[r.player],
                    t.paid, t.paid_hands, t.received, t.received_hands, r.player,
                ),
            )  # fmt: skip

    def forget(self, nick: str) -> int:
        """A released nickname starts with no record (``--release-nickname``): its results and
        totals go, the games stay (others' records count them); returns the results removed."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            removed = self._db.execute("DELETE FROM results WHERE player = ?", (nick,)).rowcount
            self._db.execute("DELETE FROM players WHERE player = ?", (nick,))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return int(removed)

    def _ratings(self, players: Iterable[str]) -> dict[str, float]:
        names = list(players)
        marks = ",".join("?" * len(names))
        rows = self._db.execute(
            f"SELECT player, rating FROM players WHERE player IN ({marks})", names
        ).fetchall()
        return {name: float(rating) for name, rating in rows}

    # ------------------------------------------------------------------ queries
    def player(self, nick: str) -> PlayerRecord | None:
        row = self._db.execute(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE player = ?", (nick,))
        found = row.fetchone()
        return _player(found) if found else None

    def recent(self, nick: str, limit: int = 5) -> list[RecentGame]:
        """The last ``limit`` games of ``nick``, newest first."""
        rows = self._db.execute(
            "SELECT finished_at, place, seats, chips_end - chips_start * (1 + rebuys),"
            " hands_played, history FROM results WHERE player = ?"
            " ORDER BY finished_at DESC LIMIT ?",
            (nick, limit),
        ).fetchall()
        return [
            RecentGame(at, place, seats, net, hands, tuple(json.loads(history)))
            for at, place, seats, net, hands, history in rows
        ]

    def by_rating(self, limit: int = 10, min_games: int = MIN_RATED_GAMES) -> list[PlayerRecord]:
        rows = self._db.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players INDEXED BY players_by_rating"
            " WHERE games >= ? ORDER BY rating DESC LIMIT ?",
            (min_games, limit),
        ).fetchall()
        return [_player(row) for row in rows]

    def by_wins(self, limit: int = 10) -> list[PlayerRecord]:
        rows = self._db.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players INDEXED BY players_by_wins"
            " WHERE wins > 0 ORDER BY wins DESC, games LIMIT ?",
            (limit,),
        ).fetchall()
        return [_player(row) for row in rows]

    def game_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])


_PLAYER_COLUMNS = (
    "player, games, wins, hands_won, chips_won, chips_lost, best_name, ttaengjabi, amhaeng,"
    " rematches, place_sum, rating,"
    " ttaeng_paid, ttaeng_paid_hands, ttaeng_received, ttaeng_received_hands"
)
#: The results columns :meth:`RecordStore._add` writes, named (version 2 appended four).
_RESULT_COLUMNS = (
    "game_id, player, place, seats, chips_start, chips_end, rebuys, hands_played, hands_won,"
    " best_value, best_name, ttaengjabi, amhaeng, rematches, history, finished_at,"
    " ttaeng_paid, ttaeng_paid_hands, ttaeng_received, ttaeng_received_hands"
)


def _player(row: tuple[Any, ...]) -> PlayerRecord:
    player, games, wins, hands_won, won, lost, best, ttaeng, amhaeng, rematches, places, rating = (
        row[:12]
    )
    paid, paid_hands, received, received_hands = (int(n) for n in row[12:])
    count = int(games)
    return PlayerRecord(
        player=str(player),
        games=count,
        wins=int(wins),
        hands_won=int(hands_won),
        chips_won=int(won),
        chips_lost=int(lost),
        best_name=None if best is None else str(best),
        ttaengjabi=int(ttaeng),
        amhaeng=int(amhaeng),
        rematches=int(rematches),
        average_place=int(places) / count if count else 0.0,
        rating=float(rating),
        ttaeng=TtaengTotals(paid, paid_hands, received, received_hands),
    )


def rate(
    places: dict[str, int], ratings: dict[str, float], rated: Iterable[str]
) -> dict[str, float]:
    """The new ratings of the ``rated`` seats after a game (the module docstring's formula)."""
    seats = len(places)
    k = K_FACTOR / max(seats - 1, 1)
    now = {p: ratings.get(p, START_RATING) for p in places}
    new: dict[str, float] = {}
    for player in rated:
        own, delta = now[player], 0.0
        for other, place in places.items():
            if other == player:
                continue
            expected = 1.0 / (1.0 + 10.0 ** ((now[other] - own) / 400.0))
            mine = places[player]
            actual = 1.0 if mine < place else 0.5 if mine == place else 0.0
            delta += k * (actual - expected)
        new[player] = own + delta
    return new
