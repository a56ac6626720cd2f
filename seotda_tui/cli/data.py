"""The data folder's files as every process opens them: where each lives, the start-up check of
them all (:mod:`seotda_tui.dbcheck`), the one line said when one cannot be opened, and the room
manager and the records built on them (the single process's, the rooms process's; a worker opens
the records and the journal to read)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..config import Settings
from ..dbcheck import DataFileProblem
from ..ssh.store import NicknameStore

if TYPE_CHECKING:
    from ..rooms import RoomManager
    from ..rooms.records import GameRecords


T = TypeVar("T")


class DataFileError(Exception):
    """A data file that could not be opened at start-up, with its path for the one-line message."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.path, self.cause = path, cause


def opened(path: Path, open_: Callable[[], T]) -> T:
    """``open_()``, with a failure to open ``path`` raised as :class:`DataFileError`."""
    try:
        return open_()
    except (sqlite3.Error, OSError, DataFileProblem) as exc:
        raise DataFileError(path, exc) from exc


def records_path(settings: Settings) -> Path:
    from seotda_tui.rooms.records_db import DB_NAME as RECORDS_DB

    return settings.data_dir / RECORDS_DB


def journal_path(settings: Settings) -> Path:
    return settings.data_dir / "games.sqlite3"


def check_data_files(settings: Settings) -> str | None:
    """The data folder, the journal, the nickname store and the records, checked before
    anything opens them: the one-line message for the first that cannot be used as it is (no
    write access, empty, damaged, written by a newer version: see :mod:`seotda_tui.dbcheck`),
    or None."""
    from seotda_tui.dbcheck import DataFileProblem, check_data_dir, check_database
    from seotda_tui.rooms.journal import SCHEMA_VERSION as JOURNAL_SCHEMA
    from seotda_tui.rooms.records_db import SCHEMA_VERSION as RECORDS_SCHEMA
    from seotda_tui.ssh.store import DB_NAME
    from seotda_tui.ssh.store import SCHEMA_VERSION as STORE_SCHEMA

    files = (
        (journal_path(settings), JOURNAL_SCHEMA),
        (settings.data_dir / DB_NAME, STORE_SCHEMA),
        (records_path(settings), RECORDS_SCHEMA),
    )
    try:
        check_data_dir(settings.data_dir)
        for path, known in files:
            check_database(path, known)
    except DataFileProblem as exc:
        return str(exc)
    return None


def unopenable_message(path: Path, exc: BaseException) -> str:
    """One line for a data file that is sound (see :func:`check_data_files`) but cannot be
    opened or set up: no write access (said as such), a full disk; a problem the store found
    itself (a newer version's file) says what it is."""
    from seotda_tui.dbcheck import open_failure_message

    if isinstance(exc, DataFileProblem):
        return str(exc)
    return open_failure_message(path, exc)


def build_manager(settings: Settings) -> RoomManager:
    """The one room manager (of the process, or of the rooms process with ``--workers N``)."""
    from seotda_tui.rooms import RoomManager
    from seotda_tui.rooms.journal import Journal

    # The journal: every game is recorded as it is played; a restart resumes unfinished ones.
    return RoomManager(
        reconnect_grace=settings.reconnect_grace,
        room_defaults=settings.room_defaults,
        max_rooms=settings.max_rooms,
        max_rooms_per_address=settings.max_rooms_per_address,
        journal=opened(journal_path(settings), lambda: Journal(journal_path(settings))),
        records=opened(records_path(settings), lambda: open_records(settings)),
    )


def open_records(settings: Settings) -> GameRecords:
    """Players' records, for the names the identity store holds (its own connection to it,
    read at each game's end, so a name released meanwhile is no longer counted)."""
    from seotda_tui.rooms.records import GameRecords
    from seotda_tui.rooms.records_db import RecordStore

    identities = NicknameStore(settings.data_dir)
    return GameRecords(
        RecordStore(records_path(settings)),
        lambda nick: identities.holder(nick) is not None,
        on_close=identities.close,
    )
