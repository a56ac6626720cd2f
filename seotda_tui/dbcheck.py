"""Start-up check of the server's SQLite files: refuse a damaged one clearly, before anything opens it.

Why: a file that is not a database ended start-up with a raw traceback, and a damaged page was
found only later (or never), while games were journaled on top of it. :func:`check_database`
opens the file without creating it and runs ``PRAGMA quick_check`` (every page and index entry,
without the slow cross-checks of ``integrity_check``); the server's ``main()`` prints the
one-line :func:`damaged_message` and exits non-zero when a file fails.

A missing or empty file is fine: the journal and the store create their own.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

#: The longest quote of SQLite's complaint in the message (quick_check may list hundreds).
_DETAIL_CHARS = 120


class DamagedDatabase(Exception):
    """``str()`` is the one-line Korean/English message for the operator."""


def check_database(path: Path) -> None:
    """Raise :class:`DamagedDatabase` when ``path`` exists but is not a sound SQLite database."""
    try:
        if not path.exists() or path.stat().st_size == 0:
            return
    except OSError as exc:
        raise DamagedDatabase(damaged_message(path, exc.strerror or str(exc))) from exc
    db = None
    try:
        # mode=rw: never create the file; a WAL left by a crash is recovered as the server would
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True)
        rows = db.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as exc:
        raise DamagedDatabase(damaged_message(path, str(exc))) from exc
    finally:
        if db is not None:
            db.close()
    problems = [str(row[0]) for row in rows if row and row[0] != "ok"]
    if problems:
        raise DamagedDatabase(damaged_message(path, problems[0]))


def damaged_message(path: Path, detail: str) -> str:
    lines = [line for line in detail.splitlines() if line.strip() and not line.startswith("***")]
    detail = " ".join((lines[0] if lines else detail).split())[:_DETAIL_CHARS]  # one line
    return (
        f"데이터 파일이 손상됐어요 (damaged database): {path} ({detail}). "
        "백업에서 되살리거나, 빈 상태로 시작하려면 -wal/-shm 파일과 함께 다른 곳으로 옮겨 주세요 "
        "(restore it from a backup, or move it and its -wal/-shm files aside to start empty)."
    )
