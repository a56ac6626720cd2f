"""Which SSH key owns which nickname, kept in SQLite so it survives restarts.

A nickname becomes bound to the first public key that logs in with it; from
then on only that key may use the name. The queries are tiny and local, so
they run synchronously on the event loop.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

DB_NAME = "seotda.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS nickname_keys (
    nickname        TEXT PRIMARY KEY,
    key_fingerprint TEXT NOT NULL,
    first_seen      REAL NOT NULL,
    last_seen       REAL NOT NULL
)
"""


class NicknameStore:
    """Nickname → key-fingerprint bindings in ``<data_dir>/seotda.sqlite3`` (WAL mode)."""

    def __init__(self, data_dir: Path) -> None:
        data_dir = Path(data_dir)
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = data_dir / DB_NAME
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        os.chmod(self.path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    def key_for(self, nickname: str) -> str | None:
        """The fingerprint bound to ``nickname``, or None if the name is still free."""
        row = self._db.execute(
            "SELECT key_fingerprint FROM nickname_keys WHERE nickname = ?", (nickname,)
        ).fetchone()
        return row[0] if row else None

    def bind(self, nickname: str, key_fingerprint: str) -> str:
        """Bind ``nickname`` to the key unless already bound; return the owning fingerprint.

        The insert-or-ignore makes two simultaneous first logins safe: exactly
        one key wins and both callers see which.
        """
        now = time.time()
        self._db.execute(
            "INSERT OR IGNORE INTO nickname_keys VALUES (?, ?, ?, ?)",
            (nickname, key_fingerprint, now, now),
        )
        owner = self.key_for(nickname)
        assert owner is not None
        if owner == key_fingerprint:
            self._db.execute(
                "UPDATE nickname_keys SET last_seen = ? WHERE nickname = ?", (now, nickname)
            )
        return owner

    def close(self) -> None:
        self._db.close()
