"""Storage faults on demand: a journal whose SQLite connection fails its writes like a full disk,
and (as root) a real one: a tiny tmpfs filled to the last byte."""

from __future__ import annotations

import contextlib
import errno
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

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


@contextlib.contextmanager
def tiny_tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs (needs root): {done.stderr.decode(errors='replace').strip()}"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(path: Path) -> None:
    """Write until the filesystem says it is full."""
    with path.open("wb", buffering=0) as f:  # (unbuffered: closing has nothing left to write)
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
