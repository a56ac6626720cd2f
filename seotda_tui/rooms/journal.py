"""Crash-safe game journal in SQLite: a room's options, seed, seats and every applied action.

An action is committed (one transaction, WAL, ``synchronous=FULL``) before anyone sees its effect,
so after a crash ``Game.replay(options, players, seed, log)`` rebuilds exactly what players saw.
Finished games keep their result until :meth:`Journal.prune` drops those older than the server's
``journal_keep_days``; unfinished games are never pruned (a restart resumes them). Nothing here
knows about sockets or screens.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, final

from engine import Game, Options
from engine.types import Action, GameResult

from .. import metrics
from ..dbcheck import refuse_newer_schema
from ..migrations import Step, latest, migrate, run_script

_DAY = 86400.0
#: The size of :meth:`Journal.probe`'s row: a few pages, more than any one action needs.
PROBE_BYTES = 16 * 1024
_AUTO_VACUUM_INCREMENTAL = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    room_id     TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    host        TEXT NOT NULL,
    options     TEXT NOT NULL,
    seed        TEXT NOT NULL,
    players     TEXT NOT NULL,
    bots        TEXT NOT NULL DEFAULT '{}',
    started_at  REAL NOT NULL,
    finished_at REAL,
    result      TEXT,
    privacy     TEXT,
    moderation  TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    room_id TEXT NOT NULL REFERENCES games(room_id),
    seq     INTEGER NOT NULL,
    player  TEXT,
    action  TEXT NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (room_id, seq)
);
"""
#: Who played or watched each game (the hand-history list, :mod:`.history`); added later, so a
#: journal without it gets it filled from its games' players once.
_SEEN_SCHEMA = """
CREATE TABLE seen_by (
    room_id TEXT NOT NULL,
    nick    TEXT NOT NULL,
    PRIMARY KEY (room_id, nick)
);
CREATE INDEX seen_by_nick ON seen_by (nick);
INSERT OR IGNORE INTO seen_by (room_id, nick)
    SELECT games.room_id, players.value FROM games, json_each(games.players) AS players;
"""


def _version_1(db: sqlite3.Connection) -> None:
    """Every journal before version 1 (none was stamped): its tables are made where missing,
    and what was added later (the private rooms' and moderation's columns, the hand history's
    table, filled from its games' players) where a file from before lacks it. Rows stay."""
    run_script(db, _SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    for name in ("privacy", "moderation"):  # their rows keep NULL
        if name not in columns:
            db.execute(f"ALTER TABLE games ADD COLUMN {name} TEXT")
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'seen_by'"
    ).fetchone():
        run_script(db, _SEEN_SCHEMA)


#: The journal's migrations (:mod:`seotda_tui.migrations`); a change to the schema adds one.
MIGRATIONS = (Step(1, _version_1),)
#: The journal's schema version (``PRAGMA user_version``): a file a newer server wrote says a
#: higher number and is refused.
SCHEMA_VERSION = latest(MIGRATIONS)

#: One journaled step: who (``None``: the timeout) and the action applied, as the engine's
#: :data:`~engine.types.Action` (what a session sent, checked by ``Game.apply``; the manager's own
#: ``{"type": "leave"}`` …; a timeout's ``{}``). Stored as its JSON, read back as it was written.
Entry = tuple[str | None, Action]
#: A room's extra state the journal keeps as JSON (a private room's code, the host's bars and
#: lock): written from their TypedDicts (``private.PrivacyDict``, ``recording.ModerationDict``);
#: read back untrusted (their readers check the shape).
RoomState = Mapping[str, object]


@final  # (so ``"ranking" in result`` tells it from a GameResult)
class AbortedResult(TypedDict):
    """What a game closed before its end records instead of its result (why)."""

    aborted: str


#: A finished game's ``result`` column: the engine's result, or why it was aborted.
Finish = GameResult | AbortedResult


class FinishedRow(TypedDict):
    """One finished game (:meth:`Journal.finished_games`)."""

    roomId: str
    name: str
    finishedAt: float
    result: Finish | None


class SeenRow(TypedDict):
    """One game of a nickname's hand history (:meth:`Journal.games_seen_by`)."""

    key: str
    name: str
    players: list[str]
    finishedAt: float
    result: Finish | None


@dataclass(frozen=True)
class GameRecord:
    """What the journal keeps of a game when it starts: with the seed, enough to replay it.

    ``room_id`` is the journal's key (room and game number, see ``recording.game_key``)."""

    room_id: str
    name: str
    host: str
    options: Options
    seed: str
    players: list[str]
    bots: dict[str, str]
    privacy: RoomState | None = field(default=None, kw_only=True)  # rooms/private.py
    #: the host's bars and lock (rooms/moderation.py), so a restart keeps them with the room
    moderation: RoomState | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class JournaledGame(GameRecord):
    """An unfinished game as it was journaled; ``rebuild()`` replays it."""

    log: list[Entry]
    last_at: float

    def rebuild(self) -> Game:
        return Game.replay(self.options, self.players, self.seed, self.log)


class Journal:
    """``clock`` is wall time: timestamps outlive the process, so the event loop's monotonic
    clock (the room manager's) cannot be used; tests pass a fake one."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        # Seeds rebuild every hidden card: the journal is private to the server's user.
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.touch(mode=0o600, exist_ok=True)
        os.chmod(path, 0o600)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        refuse_newer_schema(self._db, path, SCHEMA_VERSION)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        migrate(self._db, path, MIGRATIONS)
        self._clock = clock
        self._seq: dict[str, int] = {}

    def close(self) -> None:
        self._db.close()

    def _write(self, *statements: tuple[str, tuple[object, ...]]) -> int:
        """Run ``statements`` in one transaction; on any error roll it back and raise.

        Returns the last statement's rowcount. A failed write (e.g. "database or disk is full")
        leaves nothing behind, so the caller may simply try again later. Timed for the metrics
        (``seotda_journal_write_seconds``): the players wait for it.
        """
        with metrics.journal_write():
            try:
                self._db.execute("BEGIN")
                rowcount = 0
                for sql, params in statements:
                    rowcount = self._db.execute(sql, params).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.rollback()
                raise
        return rowcount

    def probe(self, room_id: str) -> None:
        """Is the journal writable again? Raises like :meth:`record` would.

        A row as big as :data:`PROBE_BYTES` is added to ``room_id``'s actions and removed in
        the same transaction: the commit needs fresh pages and WAL frames, as a real action
        does. (Rewriting an existing row in place succeeded on a full disk while the next
        action failed, so a room resumed after a second and paused again at once.)
        """
        self._write(
            (
                "INSERT INTO actions (room_id, seq, player, action, at) VALUES (?, -1, NULL, ?, 0)",
                (room_id, "0" * PROBE_BYTES),
            ),
            ("DELETE FROM actions WHERE room_id = ? AND seq = -1", (room_id,)),
        )

    def start_game(self, game: GameRecord) -> None:
        self._write(
            ("DELETE FROM actions WHERE room_id = ?", (game.room_id,)),
            (
                "INSERT OR REPLACE INTO games (room_id, name, host, options, seed, players, bots,"
                " started_at, privacy, moderation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game.room_id,
                    game.name,
                    game.host,
                    json.dumps(game.options.to_dict()),
                    game.seed,
                    json.dumps(game.players, ensure_ascii=False),
                    json.dumps(game.bots, ensure_ascii=False),
                    self._clock(),
                    _json_or_null(game.privacy),
                    _json_or_null(game.moderation),
                ),
            ),
            ("DELETE FROM seen_by WHERE room_id = ?", (game.room_id,)),
            *(
                (
                    "INSERT OR IGNORE INTO seen_by (room_id, nick) VALUES (?, ?)",
                    (game.room_id, nick),
                )
                for nick in game.players
            ),
        )
        self._seq[game.room_id] = 0

    def watched(self, room_id: str, nick: str) -> None:
        """``nick`` watched this game: it is in their hand history (as spectators saw it)."""
        self._write(
            ("INSERT OR IGNORE INTO seen_by (room_id, nick) VALUES (?, ?)", (room_id, nick))
        )

    def unseen(self, room_id: str, nick: str) -> None:
        """``nick`` was removed from the game: it leaves their hand history (and its replay)."""
        self._write(("DELETE FROM seen_by WHERE room_id = ? AND nick = ?", (room_id, nick)))

    def forget_nickname(self, nick: str) -> int:
        """A released nickname starts with no hand history; returns how many games it left."""
        return self._write(("DELETE FROM seen_by WHERE nick = ?", (nick,)))

    def seated_in_open_games(self, nick: str) -> list[str]:
        """Unfinished games (a restart resumes them) in which ``nick`` still has a seat."""
        return [
            game.room_id
            for game in self.open_games()
            if nick in game.players
            and nick not in game.bots
            and game.rebuild().seat_status(nick) not in ("left", "eliminated")
        ]

    def room_changed(
        self, room_id: str, privacy: RoomState | None, moderation: RoomState | None
    ) -> None:
        """A running game's room got a new code, bar or lock: a restart resumes it so."""
        self._write(
            (
                "UPDATE games SET privacy = ?, moderation = ? WHERE room_id = ?",
                (_json_or_null(privacy), _json_or_null(moderation), room_id),
            )
        )

    def record(self, room_id: str, player: str | None, action: Action) -> None:
        """Append one applied action (``player=None`` = a timeout) in its own transaction."""
        seq = self._seq.get(room_id)
        if seq is None:
            row = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM actions WHERE room_id = ?", (room_id,)
            ).fetchone()
            seq = int(row[0])
        seq += 1
        self._write(
            (
                "INSERT INTO actions (room_id, seq, player, action, at) VALUES (?, ?, ?, ?, ?)",
                (room_id, seq, player, json.dumps(action, ensure_ascii=False), self._clock()),
            )
        )
        self._seq[room_id] = seq

    def finish(self, room_id: str, result: Finish | None) -> None:
        self._write(
            (
                "UPDATE games SET finished_at = ?, result = ? WHERE room_id = ?",
                (self._clock(), json.dumps(result, ensure_ascii=False), room_id),
            )
        )
        self._seq.pop(room_id, None)

    def prune(self, keep_days: int) -> int:
        """Delete games finished more than ``keep_days`` days ago, with their actions, in one
        transaction; returns how many games went. ``keep_days <= 0`` keeps everything.

        Unfinished games (``finished_at IS NULL``) are never touched: a restart resumes them.
        """
        if keep_days <= 0:
            return 0
        cutoff = self._clock() - keep_days * _DAY
        old = "finished_at IS NOT NULL AND finished_at < ?"
        removed = self._write(
            (
                f"DELETE FROM actions WHERE room_id IN (SELECT room_id FROM games WHERE {old})",
                (cutoff,),
            ),
            (
                f"DELETE FROM seen_by WHERE room_id IN (SELECT room_id FROM games WHERE {old})",
                (cutoff,),
            ),
            (f"DELETE FROM games WHERE {old}", (cutoff,)),
        )
        if removed > 0:
            self._reclaim_space()
        return removed

    def _reclaim_space(self) -> None:
        """Give freed pages back only where that is cheap (``auto_vacuum = INCREMENTAL``).

        (``FULL`` shrinks the file at each commit by itself.) Otherwise freed pages are reused by
        new games, so the file stops growing; a full ``VACUUM`` would block every game while it
        rewrites the file.
        """
        (mode,) = self._db.execute("PRAGMA auto_vacuum").fetchone()
        if mode == _AUTO_VACUUM_INCREMENTAL:
            # (executescript: ``execute`` steps this pragma once, which frees a single page)
            self._db.executescript("PRAGMA incremental_vacuum")

    def open_games(self) -> list[JournaledGame]:
        """Every game that was started and never finished, with its action log."""
        games: list[JournaledGame] = []
        rows = self._db.execute(
            "SELECT room_id, name, host, options, seed, players, bots, started_at, privacy,"
            " moderation FROM games WHERE finished_at IS NULL ORDER BY started_at"
        ).fetchall()
        for room_id, name, host, options, seed, players, bots, started, privacy, mod in rows:
            log_rows = self._db.execute(
                "SELECT player, action, at FROM actions WHERE room_id = ? ORDER BY seq", (room_id,)
            ).fetchall()
            games.append(
                JournaledGame(
                    room_id=room_id,
                    name=name,
                    host=host,
                    options=Options.from_dict(json.loads(options)),
                    seed=seed,
                    players=json.loads(players),
                    bots=json.loads(bots),
                    log=[(p, json.loads(a)) for p, a, _ in log_rows],
                    last_at=log_rows[-1][2] if log_rows else started,
                    privacy=json.loads(privacy) if privacy else None,
                    moderation=json.loads(mod) if mod else None,
                )
            )
        return games

    def finished_games(self, limit: int = 50) -> list[FinishedRow]:
        rows = self._db.execute(
            "SELECT room_id, name, finished_at, result FROM games WHERE finished_at IS NOT NULL"
            " ORDER BY finished_at DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [
            {"roomId": r, "name": n, "finishedAt": f, "result": json.loads(res) if res else None}
            for r, n, f, res in rows
        ]

    def games_seen_by(self, nick: str, limit: int) -> list[SeenRow]:
        """``nick``'s finished games (played or watched), newest first: the hand-history list."""
        rows = self._db.execute(
            f"SELECT {_SEEN_COLUMNS} FROM seen_by AS s JOIN games AS g ON g.room_id = s.room_id"
            " WHERE s.nick = ? AND g.finished_at IS NOT NULL"
            " ORDER BY g.finished_at DESC LIMIT ?",
            (nick, limit),
        ).fetchall()
        return [_seen_row(row) for row in rows]

    def finished_game(self, key: str, nick: str) -> tuple[SeenRow, JournaledGame] | None:
        """One finished game (its list row, and the game with its log) if ``nick`` played or
        watched it; else None."""
        row = self._db.execute(
            f"SELECT {_SEEN_COLUMNS}, g.host, g.options, g.seed, g.bots"
            " FROM seen_by AS s JOIN games AS g ON g.room_id = s.room_id"
            " WHERE s.room_id = ? AND s.nick = ? AND g.finished_at IS NOT NULL",
            (key, nick),
        ).fetchone()
        if row is None:
            return None
        seen = _seen_row(row[:5])
        host, options, seed, bots = row[5:]
        log_rows = self._db.execute(
            "SELECT player, action FROM actions WHERE room_id = ? ORDER BY seq", (key,)
        ).fetchall()
        return seen, JournaledGame(
            room_id=key,
            name=seen["name"],
            host=host,
            options=Options.from_dict(json.loads(options)),
            seed=seed,
            players=seen["players"],
            bots=json.loads(bots),
            log=[(p, json.loads(a)) for p, a in log_rows],
            last_at=seen["finishedAt"],
        )


def _json_or_null(value: RoomState | None) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value is not None else None


_SEEN_COLUMNS = "g.room_id, g.name, g.players, g.finished_at, g.result"


def _seen_row(row: tuple[str, str, str, float, str | None]) -> SeenRow:
    key, name, players, finished, result = row
    return {
        "key": key,
        "name": name,
        "players": json.loads(players),
        "finishedAt": finished,
        "result": json.loads(result) if result else None,
    }
