"""One way for every SQLite store to bring its file up to the schema this code knows.

Why: the journal, the records and the nickname file each had their own way (tables added by
what was missing, numbered scripts, a one-off table move), stamped their version differently,
and only some ran in a transaction. Now a store declares its :class:`Step` list, oldest first,
each naming the schema version (``PRAGMA user_version``) a file has once it ran, and
:func:`migrate` runs the steps past the file's version in one transaction, then says the new
version in the file. A file a newer seotda-server wrote is refused by the one guard,
:func:`~seotda_tui.dbcheck.refuse_newer_schema`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .dbcheck import refuse_newer_schema, schema_version


@dataclass(frozen=True)
class Step:
    """What turns a file at the previous step's version (0 before the first) into one at
    ``version``: SQL statements, or a function given the connection (inside the transaction:
    it must not commit, so no ``executescript``; :func:`run_script` runs SQL one statement at a
    time)."""

    version: int
    apply: str | Callable[[sqlite3.Connection], None]


def latest(steps: Sequence[Step]) -> int:
    """The version a file has after every step: the last one's. The versions must rise (a
    version may be skipped: a step can take a file from 0 to 2)."""
    versions = [step.version for step in steps]
    if not versions or versions[0] < 1 or versions != sorted(set(versions)):
        raise ValueError(f"migration steps must have rising versions from 1 up: {versions}")
    return versions[-1]


def migrate(db: sqlite3.Connection, path: Path, steps: Sequence[Step]) -> int:
    """Bring the file behind ``db`` (opened with ``isolation_level=None``) to :func:`latest`:
    every step past its version, in order, then the version stamped, all in one transaction
    (``BEGIN IMMEDIATE``: two processes opening an old file migrate it once). A step that fails
    rolls everything back, so the file keeps the version it had. A file past the steps (a newer
    server's) raises :class:`~seotda_tui.dbcheck.NewerSchema` and ``db`` is closed. Returns the
    version the file had."""
    known = latest(steps)
    if refuse_newer_schema(db, path, known) == known:
        return known  # the usual open: nothing to write, no write lock taken
    db.execute("BEGIN IMMEDIATE")
    try:
        found = schema_version(db)  # read again under the lock: another process may have migrated
        for step in steps:
            if step.version > found:
                if isinstance(step.apply, str):
                    run_script(db, step.apply)
                else:
                    step.apply(db)
        if found < known:
            db.execute(f"PRAGMA user_version = {int(known)}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # some errors (a full disk) end the transaction themselves
            db.execute("ROLLBACK")
        raise
    refuse_newer_schema(db, path, known)  # written meanwhile by a newer server
    return found


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Run the SQL statements of ``script`` one at a time, inside the caller's transaction
    (``executescript`` would commit it first)."""
    for statement in statements(script):
        db.execute(statement)


def statements(script: str) -> list[str]:
    """``script`` cut into whole statements (a ``;`` inside a string, a comment or a trigger's
    body does not end one; :func:`sqlite3.complete_statement` decides)."""
    found: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if _has_sql(pending):
                found.append(pending)
            pending = ""
    if _has_sql(pending[:-1]):  # the last statement without its own ';'
        found.append(pending[:-1])
    return found


def _has_sql(text: str) -> bool:
    """Whether ``text`` holds more than whitespace, ``;`` and comments."""
    lines = [line.split("--", 1)[0] for line in text.splitlines()]
    return bool("".join(lines).replace(";", "").strip())
