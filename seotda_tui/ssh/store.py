"""Who holds which nickname, kept in SQLite so it survives restarts.

A nickname is held by one credential: the SSH key that first used it ("trust on
first use"), or, for a keyless player, the passphrase they chose on first use
(only its salted scrypt hash is kept, see :mod:`seotda_tui.ssh.passphrase`). Each row
also keeps the name's look-alike skeleton (:mod:`seotda_tui.ssh.skeleton`), indexed,
so "is there already a name that looks like this one" is one lookup.

The queries are tiny and local, so they run synchronously on the event loop. The
file is read per login, so an admin may release a name (``--release-nickname``)
from another process while the server runs (WAL mode).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ..dbcheck import refuse_newer_schema
from ..logs import log_event
from ..migrations import Step, latest, migrate, run_script
from .skeleton import skeleton

log = logging.getLogger("seotda.store")

DB_NAME = "seotda.sqlite3"
_DAY = 86400.0


class StoreFull(Exception):
    """A new nickname could not be written (a full disk, a read-only or failing file): nothing
    was registered, and the visitor is told to come back later."""


def connect_data_db(data_dir: Path) -> tuple[Path, sqlite3.Connection]:
    """A connection to ``<data_dir>/seotda.sqlite3`` (the identities' and the bans' tables),
    the file private to the server's user, in WAL mode so the CLI can write while the server
    runs. A file a newer server wrote is refused (:class:`~seotda_tui.dbcheck.NewerSchema`)."""
    data_dir = Path(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = data_dir / DB_NAME
    db = sqlite3.connect(path, isolation_level=None, timeout=5.0)
    os.chmod(path, 0o600)
    refuse_newer_schema(db, path, SCHEMA_VERSION)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return path, db


_SCHEMA = """
CREATE TABLE IF NOT EXISTS nicknames (
    nickname        TEXT PRIMARY KEY,
    skeleton        TEXT NOT NULL,
    key_fingerprint TEXT,
    passphrase      TEXT,
    first_seen      REAL NOT NULL,
    last_seen       REAL NOT NULL,
    CHECK ((key_fingerprint IS NULL) <> (passphrase IS NULL))
);
CREATE INDEX IF NOT EXISTS nicknames_by_skeleton ON nicknames (skeleton);
"""
#: The screen language a registered nickname last chose (``L``); NULL: none yet (the client's
#: LANG or the server's default decides). Added to older databases (:func:`_language_column`).
_LANGUAGE_COLUMN = "language"


def _version_2(db: sqlite3.Connection) -> None:
    """Every file before version 2: version 1 had only ``nickname_keys`` (name → key), whose
    rows move over (no version was stamped before 2, so a file at 0 may hold either table)."""
    run_script(db, _SCHEMA)
    _language_column(db)
    old = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nickname_keys'"
    ).fetchone()
    if old is None:
        return
    rows = db.execute(
        "SELECT nickname, key_fingerprint, first_seen, last_seen FROM nickname_keys"
    ).fetchall()
    db.executemany(
        "INSERT OR IGNORE INTO nicknames (nickname, skeleton, key_fingerprint, "
        "passphrase, first_seen, last_seen) VALUES (?, ?, ?, NULL, ?, ?)",
        [(name, skeleton(name), fp, first, last) for name, fp, first, last in rows],
    )
    db.execute("DROP TABLE nickname_keys")


def _language_column(db: sqlite3.Connection) -> None:
    """A file from before the remembered language gains its (empty) column. Checked at every
    open, not only by a step: 0.3.0 stamped 2 on the files it moved from ``nickname_keys``
    before the column existed."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(nicknames)")}
    if _LANGUAGE_COLUMN not in columns:
        try:
            db.execute(f"ALTER TABLE nicknames ADD COLUMN {_LANGUAGE_COLUMN} TEXT")
        except sqlite3.OperationalError as exc:  # another process (the CLI) just added it
            if "duplicate column" not in str(exc):
                raise


#: The whole file's migrations (:mod:`seotda_tui.migrations`), which :class:`NicknameStore`
#: runs; the bans table is made by :class:`~seotda_tui.ssh.bans.BanStore` where missing.
MIGRATIONS = (Step(2, _version_2),)
#: The schema version of the whole file (``PRAGMA user_version``: the nicknames and the bans
#: tables). A change to either table's shape adds a step.
SCHEMA_VERSION = latest(MIGRATIONS)


@dataclass(frozen=True)
class Holder:
    """The credential that holds a nickname: a key fingerprint or a passphrase hash."""

    key_fingerprint: str | None
    passphrase: str | None


class NicknameStore:
    """Nickname → credential in ``<data_dir>/seotda.sqlite3`` (WAL mode)."""

    def __init__(self, data_dir: Path) -> None:
        self.path, self._db = connect_data_db(data_dir)
        migrate(self._db, self.path, MIGRATIONS)
        _language_column(self._db)

    def holder(self, nickname: str) -> Holder | None:
        """What holds ``nickname``, or None if the name is free."""
        row = self._db.execute(
            "SELECT key_fingerprint, passphrase FROM nicknames WHERE nickname = ?", (nickname,)
        ).fetchone()
        return Holder(row[0], row[1]) if row else None

    def key_for(self, nickname: str) -> str | None:
        """The fingerprint bound to ``nickname`` (None if free or passphrase-held)."""
        holder = self.holder(nickname)
        return holder.key_fingerprint if holder else None

    def lookalike(self, nickname: str) -> str | None:
        """Another registered name that looks like ``nickname`` (same skeleton), if any."""
        row = self._db.execute(
            "SELECT nickname FROM nicknames WHERE skeleton = ? AND nickname <> ? LIMIT 1",
            (skeleton(nickname), nickname),
        ).fetchone()
        return row[0] if row else None

    def _claim(self, nickname: str, key_fingerprint: str | None, passphrase: str | None) -> bool:
        """Register a free name, unless it or a look-alike is registered; True if done.

        One statement, so two simultaneous first logins are safe: exactly one wins.
        """
        now = time.time()
        shape = skeleton(nickname)
        try:
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO nicknames (nickname, skeleton, key_fingerprint, "
                "passphrase, first_seen, last_seen) SELECT ?, ?, ?, ?, ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM nicknames WHERE skeleton = ?)",
                (nickname, shape, key_fingerprint, passphrase, now, now, shape),
            )
        except sqlite3.OperationalError as exc:
            log_event(
                log, "store_write_failed", level=logging.ERROR, what="register", error=str(exc)
            )
            raise StoreFull(str(exc)) from exc
        return cursor.rowcount == 1

    def bind(self, nickname: str, key_fingerprint: str) -> bool:
        """Bind a free ``nickname`` to the key (or note that it already is); True if it is.
        (A name this key holds is only read, so a store that cannot write keeps it usable.)"""
        if self.key_for(nickname) == key_fingerprint:
            self.touch(nickname)
            return True
        return self._claim(nickname, key_fingerprint, None)

    def set_passphrase(self, nickname: str, passphrase_hash: str) -> bool:
        """Let a passphrase hold a free ``nickname``; False if something holds it already."""
        return self._claim(nickname, None, passphrase_hash)

    def touch(self, nickname: str) -> None:
        """Note when the name was last used: bookkeeping, so a store that cannot write (a full
        disk) logs it and the player still gets in."""
        self._bookkeeping(
            "last_seen",
            "UPDATE nicknames SET last_seen = ? WHERE nickname = ?",
            (time.time(), nickname),
        )

    def language(self, nickname: str) -> str | None:
        """The language ``nickname`` last chose (a registered name only), or None."""
        row = self._db.execute(
            "SELECT language FROM nicknames WHERE nickname = ?", (nickname,)
        ).fetchone()
        return str(row[0]) if row and row[0] is not None else None

    def set_language(self, nickname: str, language: str) -> bool:
        """Remember ``language`` for a registered ``nickname``; False if the name is free."""
        return self._bookkeeping(
            "language", "UPDATE nicknames SET language = ? WHERE nickname = ?", (language, nickname)
        )

    def _bookkeeping(self, what: str, sql: str, args: tuple[object, ...]) -> bool:
        """An update a player can do without (False if it changed no row or could not be
        written; the latter is logged)."""
        try:
            return self._db.execute(sql, args).rowcount == 1
        except sqlite3.OperationalError as exc:
            log_event(log, "store_write_failed", level=logging.WARNING, what=what, error=str(exc))
            return False

    def release(self, nickname: str) -> Holder | None:
        """Free ``nickname`` (key binding, passphrase and remembered language); what held it,
        or None if nothing."""
        holder = self.holder(nickname)
        if holder is not None:
            self._db.execute("DELETE FROM nicknames WHERE nickname = ?", (nickname,))
        return holder

    def expired(self, days: int, limit: int, now: float | None = None) -> list[str]:
        """Up to ``limit`` names nobody used after the day they were registered, not used for
        ``days`` days either (oldest first): squatted or forgotten names, for
        ``nickname_expiry_days``. A name used again on a later day is never among them."""
        cutoff = (time.time() if now is None else now) - days * _DAY
        rows = self._db.execute(
            "SELECT nickname FROM nicknames WHERE last_seen < ? AND last_seen < first_seen + ? "
            "ORDER BY last_seen LIMIT ?",
            (cutoff, _DAY, limit),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def release_expired(self, nickname: str, days: int, now: float | None = None) -> bool:
        """Free ``nickname`` if it is still :meth:`expired` (its owner may have just come
        back); True if it was freed."""
        cutoff = (time.time() if now is None else now) - days * _DAY
        cursor = self._db.execute(
            "DELETE FROM nicknames WHERE nickname = ? AND last_seen < ? "
            "AND last_seen < first_seen + ?",
            (nickname, cutoff, _DAY),
        )
        return cursor.rowcount == 1

    def close(self) -> None:
        self._db.close()
