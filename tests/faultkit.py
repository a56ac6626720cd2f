"""Storage faults on demand: a journal whose SQLite connection fails its writes like a full disk."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from seotda_tui.rooms.journal import Journal

DISK_FULL = "database or disk is full"
_WRITES = ("INSERT", "UPDATE", "DELETE")


class FailingConnection:
    """Wraps the journal's ``sqlite3.Connection``; while ``full`` (and ``which(sql, params)``
    accepts the statement) every write raises what SQLite raises on a full disk. ``writes`` notes each
    write statement tried, with the time ``clock`` gives, and whether it failed."""

    def __init__(self, db: sqlite3.Connection, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock
        self.full = False
        self.which: Callable[[str, Any], bool] = lambda sql, params: True
        self.writes: list[tuple[float, str, bool]] = []

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        if sql.lstrip().upper().startswith(_WRITES):
            failing = self.full and self.which(sql, params)
            self.writes.append((self.clock(), sql.split()[0].upper(), failing))
            if failing:
                raise sqlite3.OperationalError(DISK_FULL)
        return self.db.execute(sql, params)

    def failed_at(self) -> list[float]:
        return [at for at, _, failed in self.writes if failed]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def faulty_journal(path: Path, clock: Callable[[], float]) -> tuple[Journal, FailingConnection]:
    journal = Journal(path)
    conn = FailingConnection(journal._db, clock)  # test-only: the fault goes under the journal
    journal._db = conn  # type: ignore[assignment]
    return journal, conn
