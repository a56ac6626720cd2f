"""The one migration helper every SQLite store uses (issue 34): steps run in order from the
file's version, all in one transaction that a failing step rolls back, and a newer file is
refused by the shared guard. The stores' own old layouts are tested with each store
(test_store, test_journal_prune, test_records, test_schema_guard)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from seotda_tui import migrations
from seotda_tui.dbcheck import NewerSchema, refuse_newer_schema, schema_version
from seotda_tui.migrations import Step, latest, migrate, run_script, statements


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def steps_that_log(ran: list[int]) -> tuple[Step, ...]:
    """Version 1 and 3 are SQL, 2 a function; each step leaves its number in ``log``."""

    def second(db: sqlite3.Connection) -> None:
        ran.append(2)
        db.execute("INSERT INTO log VALUES (2)")

    return (
        Step(1, "CREATE TABLE log (step INTEGER); INSERT INTO log VALUES (1);"),
        Step(2, second),
        Step(3, "INSERT INTO log VALUES (3)"),
    )


def logged(path: Path) -> list[int]:
    db = connect(path)
    try:
        return [row[0] for row in db.execute("SELECT step FROM log ORDER BY rowid")]
    finally:
        db.close()


def test_a_new_file_runs_every_step_in_order_and_is_stamped(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    db = connect(path)
    assert migrate(db, path, steps_that_log([])) == 0  # the version it had
    assert schema_version(db) == 3
    db.close()
    assert logged(path) == [1, 2, 3]


def test_an_older_file_runs_only_the_steps_past_its_version(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    db = connect(path)
    migrate(db, path, steps_that_log([])[:2])  # an older release knew steps 1 and 2
    assert schema_version(db) == 2
    ran: list[int] = []
    assert migrate(db, path, steps_that_log(ran)) == 2
    assert ran == [] and schema_version(db) == 3  # step 2 did not run again
    assert migrate(db, path, steps_that_log(ran)) == 3  # at its version: nothing runs
    db.close()
    assert ran == [] and logged(path) == [1, 2, 3]


def test_a_file_another_process_migrated_meanwhile_is_not_migrated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version is read again under the write lock: between this connection's first look
    (version 0) and its BEGIN IMMEDIATE, another one (the CLI beside the server) migrated."""
    path = tmp_path / "a.sqlite3"
    first, other = connect(path), connect(path)

    def other_migrates_after_the_first_look(db: sqlite3.Connection, at: Path, known: int) -> int:
        found = refuse_newer_schema(db, at, known)
        if db is first and found == 0:
            migrate(other, path, steps_that_log([]))
        return found

    monkeypatch.setattr(migrations, "refuse_newer_schema", other_migrates_after_the_first_look)
    ran: list[int] = []
    assert migrate(first, path, steps_that_log(ran)) == 3  # found at 3 under the lock
    assert ran == [] and schema_version(first) == 3
    first.close()
    other.close()
    assert logged(path) == [1, 2, 3]


def test_a_failing_step_rolls_back_every_step_and_keeps_the_old_version(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    db = connect(path)
    migrate(db, path, steps_that_log([])[:1])

    def broken(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO log VALUES (3)")
        raise RuntimeError("step 3 failed")

    steps = (*steps_that_log([])[:2], Step(3, broken))
    with pytest.raises(RuntimeError, match="step 3 failed"):
        migrate(db, path, steps)
    assert not db.in_transaction
    assert schema_version(db) == 1  # neither 2 nor 3: step 2's row went too
    db.close()
    assert logged(path) == [1]
    db = connect(path)  # and the fixed steps still bring it up
    migrate(db, path, steps_that_log([]))
    db.close()
    assert logged(path) == [1, 2, 3]


def test_a_failing_sql_step_rolls_back_too(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    db = connect(path)
    steps = (Step(1, "CREATE TABLE t (x); INSERT INTO missing VALUES (1);"),)
    with pytest.raises(sqlite3.OperationalError, match="no such table: missing"):
        migrate(db, path, steps)
    assert schema_version(db) == 0
    assert db.execute("SELECT name FROM sqlite_master").fetchall() == []  # t is gone
    db.close()


def test_a_newer_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    db = connect(path)
    db.execute("PRAGMA user_version = 4")
    ran: list[int] = []
    with pytest.raises(NewerSchema) as refused:
        migrate(db, path, steps_that_log(ran))
    assert "schema 4" in str(refused.value) and "knows up to 3" in str(refused.value)
    assert ran == []
    with pytest.raises(sqlite3.ProgrammingError):  # the guard closed it
        db.execute("SELECT 1")
    db = connect(path)
    assert schema_version(db) == 4
    assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
    db.close()


def test_steps_must_rise() -> None:
    assert latest((Step(2, ""),)) == 2  # a step may skip versions (0 -> 2)
    for bad in ((), (Step(0, ""),), (Step(2, ""), Step(1, "")), (Step(1, ""), Step(1, ""))):
        with pytest.raises(ValueError):
            latest(bad)


def test_a_script_is_cut_into_whole_statements() -> None:
    script = """
    CREATE TABLE t (x TEXT); -- a comment; with a semicolon
    INSERT INTO t VALUES ('a;b');
    CREATE TRIGGER t_copy AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;
    SELECT 3
    """
    found = [" ".join(s.split()) for s in statements(script)]
    assert found == [
        "CREATE TABLE t (x TEXT);",
        "-- a comment; with a semicolon INSERT INTO t VALUES ('a;b');",
        "CREATE TRIGGER t_copy AFTER INSERT ON t BEGIN SELECT 1; SELECT 2; END;",
        "SELECT 3 ;",
    ]
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("BEGIN")
    run_script(db, script)  # inside the caller's transaction: executescript would commit it
    assert db.in_transaction
    assert db.execute("SELECT x FROM t").fetchall() == [("a;b",)]
    db.execute("ROLLBACK")
    assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
    db.close()
