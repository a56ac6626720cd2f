"""Pruning the game journal: long-finished games go with all their rows, nothing else does."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path

import pytest

from engine import Game, Options
from seotda_tui import cli
from seotda_tui.cli.data import journal_path
from seotda_tui.cli.housekeeping import journal_pruning
from seotda_tui.config import ConfigError, Settings, load_settings, text_value
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.rooms.recording import prune_journal

from .ssh_harness import wait_until

DAY = 86400.0
PLAYERS = ["a", "b"]

#: The journal's tables as the first journal version wrote them (``finished_at`` included):
#: files written before pruning existed must open, prune and resume in place.
OLD_SCHEMA = """
CREATE TABLE games (
    room_id     TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    host        TEXT NOT NULL,
    options     TEXT NOT NULL,
    seed        TEXT NOT NULL,
    players     TEXT NOT NULL,
    bots        TEXT NOT NULL DEFAULT '{}',
    started_at  REAL NOT NULL,
    finished_at REAL,
    result      TEXT
);
CREATE TABLE actions (
    room_id TEXT NOT NULL REFERENCES games(room_id),
    seq     INTEGER NOT NULL,
    player  TEXT,
    action  TEXT NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (room_id, seq)
);
"""


class Wall:
    """A settable wall clock for the journal's timestamps."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def play(journal: Journal, key: str, moves: int = 4, finish: bool = True) -> Game:
    """Journal a real game of ``moves`` timeouts (replayable), finished or left running."""
    game = Game.new(Options(), PLAYERS, f"seed-{key}")
    journal.start_game(GameRecord(key, "방", "a", Options(), f"seed-{key}", PLAYERS, {}))
    for _ in range(moves):
        game.timeout()
        journal.record(key, None, {})
    if finish:
        journal.finish(key, {"aborted": "roomClosed"})
    return game


def rows_per_table(path: Path, key: str) -> dict[str, int]:
    """How many rows ``key`` has in every table with a ``room_id`` column."""
    with sqlite3.connect(path) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {}
        for table in tables:
            columns = {c[1] for c in db.execute(f"PRAGMA table_info({table})")}
            if "room_id" in columns:
                sql = f"SELECT COUNT(*) FROM {table} WHERE room_id = ?"
                counts[table] = db.execute(sql, (key,)).fetchone()[0]
    return counts


def freelist(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA freelist_count").fetchone()[0])


# ---------------------------------------------------------------- the journal


def test_old_finished_games_go_with_all_their_rows_recent_and_unfinished_stay(
    tmp_path: Path,
) -> None:
    path, wall = tmp_path / "g.sqlite3", Wall()
    journal = Journal(path, clock=wall)
    play(journal, "old-1")
    play(journal, "old-2", finish=False)  # aborted below, so finished like any other
    journal.finish("old-2", {"aborted": "journalError"})
    running = play(journal, "open-1", finish=False)
    wall.now += 25 * DAY
    play(journal, "recent-1")
    wall.now += 15 * DAY  # old-*: 40 days ago, recent-1: 15 days ago
    assert journal.prune(30) == 2
    assert rows_per_table(path, "old-1") == {"games": 0, "actions": 0, "seen_by": 0}
    assert rows_per_table(path, "old-2") == {"games": 0, "actions": 0, "seen_by": 0}
    assert rows_per_table(path, "recent-1") == {"games": 1, "actions": 4, "seen_by": 2}
    assert rows_per_table(path, "open-1") == {"games": 1, "actions": 4, "seen_by": 2}
    assert [g["roomId"] for g in journal.finished_games()] == ["recent-1"]
    (saved,) = journal.open_games()
    assert saved.room_id == "open-1" and saved.rebuild().state_hash() == running.state_hash()
    assert journal.prune(30) == 0  # nothing left to do


def test_the_cutoff_is_keep_days_before_now(tmp_path: Path) -> None:
    wall = Wall()
    journal = Journal(tmp_path / "g.sqlite3", clock=wall)
    play(journal, "g-1")
    wall.now += 7 * DAY - 1
    assert journal.prune(7) == 0
    wall.now += 2
    assert journal.prune(7) == 1


def test_keep_days_zero_keeps_everything(tmp_path: Path) -> None:
    path, wall = tmp_path / "g.sqlite3", Wall()
    journal = Journal(path, clock=wall)
    play(journal, "done-1")
    play(journal, "open-1", finish=False)
    wall.now += 10_000 * DAY
    assert journal.prune(0) == 0
    assert rows_per_table(path, "done-1") == {"games": 1, "actions": 4, "seen_by": 2}
    assert len(journal.open_games()) == 1


def test_a_failed_prune_deletes_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path, wall = tmp_path / "g.sqlite3", Wall()
    journal = Journal(path, clock=wall)
    play(journal, "old-1")
    wall.now += 40 * DAY
    with sqlite3.connect(path) as db:  # the games delete fails after the actions delete ran
        db.execute(
            "CREATE TRIGGER no_delete BEFORE DELETE ON games BEGIN SELECT RAISE(ABORT, 'x'); END"
        )
    with pytest.raises(sqlite3.DatabaseError):
        journal.prune(30)
    assert rows_per_table(path, "old-1") == {
        "games": 1,
        "actions": 4,
        "seen_by": 2,
    }  # one transaction
    with caplog.at_level(logging.INFO, logger="seotda.rooms"):
        assert prune_journal(journal, 30) == 0  # the server's wrapper logs instead of raising
    (record,) = [record_fields(r) for r in caplog.records]
    assert record == {"event": "journal_error", "op": "prune"}


def test_pruning_is_logged_only_when_games_went(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wall = Wall()
    journal = Journal(tmp_path / "g.sqlite3", clock=wall)
    play(journal, "old-1")
    with caplog.at_level(logging.INFO, logger="seotda.rooms"):
        assert prune_journal(journal, 30) == 0
        assert caplog.records == []
        wall.now += 31 * DAY
        assert prune_journal(journal, 30) == 1
    (record,) = [record_fields(r) for r in caplog.records]
    assert record == {"event": "journal_pruned", "games": 1, "keep_days": 30}


def test_an_unfinished_old_game_is_still_resumed_by_the_room_manager(tmp_path: Path) -> None:
    path, wall = tmp_path / "g.sqlite3", Wall()
    journal = Journal(path, clock=wall)
    running = play(journal, "abcd1234-1", finish=False)
    play(journal, "ef567890-1")
    wall.now += 365 * DAY
    assert journal.prune(30) == 1
    journal.close()
    m = RoomManager(clock=FakeClock(), journal=Journal(path, clock=wall))
    (room,) = m.rooms()
    assert (room.id, room.status) == ("abcd1234", "playing")
    assert m.live_game(room.id).state_hash() == running.state_hash()
    m.close()


def test_a_database_from_before_pruning_opens_prunes_and_resumes(tmp_path: Path) -> None:
    """The schema already had ``finished_at``: an old file is used in place, nothing rewritten."""
    path = tmp_path / "games.sqlite3"
    now = time.time()
    game = Game.new(Options(), PLAYERS, "s")
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        insert = (
            "INSERT INTO games (room_id, name, host, options, seed, players, started_at,"
            " finished_at, result) VALUES (?, '방', 'a', ?, 's', '[\"a\", \"b\"]', ?, ?, ?)"
        )
        options = json.dumps(Options().to_dict())
        db.execute(insert, ("old-1", options, now - 41 * DAY, now - 40 * DAY, '{"x": 1}'))
        db.execute(insert, ("new-1", options, now - 2 * DAY, now - DAY, "null"))
        db.execute(insert, ("open-1", options, now - 90 * DAY, None, None))
        for seq in (1, 2, 3):
            game.timeout()
            for key in ("old-1", "open-1"):
                db.execute(
                    "INSERT INTO actions VALUES (?, ?, NULL, '{}', ?)", (key, seq, now - 40 * DAY)
                )
        schema_before = db.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    journal = Journal(path)
    assert journal.prune(30) == 1
    assert rows_per_table(path, "old-1") == {"games": 0, "actions": 0, "seen_by": 0}
    assert [g["roomId"] for g in journal.finished_games()] == ["new-1"]
    (saved,) = journal.open_games()
    assert saved.room_id == "open-1" and saved.rebuild().state_hash() == game.state_hash()
    play(journal, "later-1")  # and it keeps journaling
    journal.close()
    with sqlite3.connect(path) as db:  # only the hand history's table was added (and filled)
        after = db.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name != 'seen_by' ORDER BY name"
        ).fetchall()
        seen = db.execute("SELECT room_id, nick FROM seen_by ORDER BY room_id, nick").fetchall()
    # nothing rewritten: only the private rooms' (#18) and moderation's (#30) columns were added
    added = ", privacy TEXT, moderation TEXT)"
    assert [(sql.replace(added, ")") if sql else sql,) for (sql,) in after] == schema_before
    assert seen == [(k, p) for k in ("later-1", "new-1", "open-1") for p in ("a", "b")]
    assert path.stat().st_mode & 0o777 == 0o600  # made private like a new journal


def test_freed_pages_are_returned_only_with_incremental_auto_vacuum(tmp_path: Path) -> None:
    plain, incremental = tmp_path / "plain.sqlite3", tmp_path / "incremental.sqlite3"
    with sqlite3.connect(incremental) as db:  # must be chosen before the first table exists
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        db.execute("CREATE TABLE marker (x)")
    for path in (plain, incremental):
        wall = Wall()
        journal = Journal(path, clock=wall)
        for n in range(20):
            play(journal, f"g-{n}", moves=60)
        wall.now += 31 * DAY
        assert journal.prune(30) == 20
        journal.close()
    assert freelist(plain) > 0  # reused by later games, never vacuumed (that would block)
    assert freelist(incremental) == 0


# ---------------------------------------------------------------- the running server


def settings_for(tmp_path: Path, keep_days: int) -> Settings:
    return load_settings(flags={"data_dir": tmp_path, "journal_keep_days": keep_days})


async def test_the_server_prunes_at_start_up_and_then_periodically(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, 30)
    past = Journal(journal_path(settings), clock=lambda: time.time() - 40 * DAY)
    play(past, "old-1")
    play(past, "open-1", finish=False)
    async with journal_pruning(settings, every=0.05):
        assert rows_per_table(journal_path(settings), "old-1")["games"] == 0  # at start-up
        play(past, "old-2")
        await wait_until(lambda: rows_per_table(journal_path(settings), "old-2")["games"] == 0)
        assert rows_per_table(journal_path(settings), "old-2") == {
            "games": 0,
            "actions": 0,
            "seen_by": 0,
        }
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "journal-prune"]
    assert [g.room_id for g in past.open_games()] == ["open-1"]
    past.close()


async def test_the_server_never_prunes_with_keep_days_zero(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, 0)
    past = Journal(journal_path(settings), clock=lambda: time.time() - 400 * DAY)
    play(past, "old-1")
    async with journal_pruning(settings, every=0.01):
        # nothing pruned at start and no pruning task left running for later
        assert not [t for t in asyncio.all_tasks() if t.get_name() == "journal-prune"]
    assert rows_per_table(journal_path(settings), "old-1")["games"] == 1
    past.close()


# ---------------------------------------------------------------- the setting


def test_journal_keep_days_defaults_to_30_and_follows_the_precedence(tmp_path: Path) -> None:
    assert Settings().journal_keep_days == 30 == load_settings().journal_keep_days
    path = tmp_path / "seotda.toml"
    path.write_text("[server]\njournal_keep_days = 7\n", encoding="utf-8")
    assert load_settings(path).journal_keep_days == 7
    env = {"SEOTDA_JOURNAL_KEEP_DAYS": "0"}
    assert load_settings(path, env).journal_keep_days == 0
    flags = {"journal_keep_days": text_value("journal_keep_days", "90")}
    assert load_settings(path, env, flags).journal_keep_days == 90
    assert "journal_keep_days = 30" in Settings().describe().split("[auth]")[0]


@pytest.mark.parametrize("value", ["-1", "1.5", '"30"', "true"])
def test_a_bad_journal_keep_days_in_the_file_names_the_key(tmp_path: Path, value: str) -> None:
    path = tmp_path / "seotda.toml"
    path.write_text(f"[server]\njournal_keep_days = {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    message = str(info.value)
    assert "[server] journal_keep_days" in message and "0 이상의 정수여야 해요" in message


def test_journal_keep_days_lives_in_the_server_section(tmp_path: Path) -> None:
    path = tmp_path / "seotda.toml"
    path.write_text("[limits]\njournal_keep_days = 7\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"알 수 없는 설정이에요: \[limits\] journal_keep_days"):
        load_settings(path)


def test_bad_journal_keep_days_from_env_or_flag_names_where_it_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(ConfigError, match="SEOTDA_JOURNAL_KEEP_DAYS: 0 이상의 정수여야 해요"):
        load_settings(env={"SEOTDA_JOURNAL_KEEP_DAYS": "forever"})
    assert cli.main(["--check-config", "--journal-keep-days", "-3"], environ={}) == 2
    assert "--journal-keep-days: 0 이상의 정수여야 해요" in capsys.readouterr().err
    assert cli.main(["--check-config", "--journal-keep-days", "5"], environ={}) == 0
    assert "journal_keep_days = 5" in capsys.readouterr().out
