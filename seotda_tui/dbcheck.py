"""Start-up check of the server's data folder and SQLite files: refuse what cannot be used, with
one line that says what is really wrong, before anything opens them.

Why: a file that is not a database ended start-up with a raw traceback, and a damaged page was
found only later (or never), while games were journaled on top of it. Worse, a healthy journal
in a read-only folder was called damaged, inviting the operator to move it aside, and an empty
(truncated) journal was taken for a new one, silently starting without every game it held.

So :func:`check_data_dir` and :func:`check_database` tell three cases apart, each with its own
one-line message (Korean, then English) for ``main()`` to print before it exits non-zero:

* :class:`NoAccess` — the server's user may not write the folder or the file (permission
  denied, or a read-only file system): the file is fine, the fix is the permissions or the mount;
* :class:`EmptyDatabase` — a file of 0 bytes: what it held is gone (truncated by a full disk, an
  unfinished copy); restore it, or delete it to start empty on purpose;
* :class:`DamagedDatabase` — SQLite says the file is not a database or is corrupt
  (``PRAGMA quick_check``: every page and index entry, without ``integrity_check``'s slow
  cross-checks).

A missing file is fine: the journal and the store create their own.

A fourth case is about versions, not damage: :class:`NewerSchema` — the file's schema version
(``PRAGMA user_version``) is past what this seotda-server knows, so a newer one wrote it (a
downgrade without restoring the backup taken before the upgrade). Each store refuses such a
file when it opens it (:func:`refuse_newer_schema`, one guard for all of them), and
:func:`check_database` says it at start-up, before anything is opened: reading or migrating a
schema it does not know would misread, or damage, the newer server's data.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from . import __version__

#: The longest quote of SQLite's complaint in the message (quick_check may list hundreds).
_DETAIL_CHARS = 120
#: SQLite's primary result codes that mean the file itself is bad; any other failure (cannot
#: open, read-only, I/O, locked) says nothing about the file's contents.
_DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_ACCESS_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}
_SIDE_FILES = ("-wal", "-shm")


class DataFileProblem(Exception):
    """``str()`` is the one-line Korean/English message for the operator."""


class DamagedDatabase(DataFileProblem):
    """The file is not a sound SQLite database."""


class EmptyDatabase(DataFileProblem):
    """The file is there but holds 0 bytes."""


class NoAccess(DataFileProblem):
    """The server's user may not write the folder or the file (the file itself may be fine)."""


class NewerSchema(DataFileProblem):
    """A newer seotda-server wrote the file: its schema version is past the one this code knows."""


def schema_version(db: sqlite3.Connection) -> int:
    """The file's schema version (``PRAGMA user_version``; 0 in a new or never-stamped file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def refuse_newer_schema(db: sqlite3.Connection, path: Path, known: int) -> int:
    """The file's schema version; raise :class:`NewerSchema` (and close ``db``) when it is past
    ``known``, the newest version the calling store can read. Every store calls this before it
    creates or migrates anything (:func:`seotda_tui.migrations.migrate` does, and stamps)."""
    found = schema_version(db)
    if found > known:
        db.close()
        raise NewerSchema(newer_schema_message(path, found, known))
    return found


def check_data_dir(folder: Path) -> None:
    """Raise :class:`NoAccess` when ``folder`` exists but this user cannot create files in it
    (SQLite makes ``-wal``/``-shm`` files beside each database). A missing folder is made later."""
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise NoAccess(no_access_message(folder, folder))


def check_database(path: Path, known_version: int | None = None) -> None:
    """Raise a :class:`DataFileProblem` when ``path`` exists but cannot be used as it is: also
    (:class:`NewerSchema`) when its schema version is past ``known_version``, if given."""
    try:
        if not path.exists():
            return
        for file in (path, *(Path(f"{path}{suffix}") for suffix in _SIDE_FILES)):
            if file.exists() and not os.access(file, os.R_OK | os.W_OK):
                raise NoAccess(no_access_message(file, path.parent))
        if path.stat().st_size == 0 and not _has_log(path):
            raise EmptyDatabase(empty_message(path))
    except OSError as exc:
        raise DamagedDatabase(damaged_message(path, exc.strerror or str(exc))) from exc
    db = None
    try:
        # mode=rw: never create the file; a WAL left by a crash is recovered as the server would
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True)
        rows = db.execute("PRAGMA quick_check").fetchall()
        found = schema_version(db)
    except sqlite3.Error as exc:
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and code & 0xFF not in _DAMAGE_CODES:
            raise DataFileProblem(open_failure_message(path, exc)) from exc
        raise DamagedDatabase(damaged_message(path, str(exc))) from exc
    finally:
        if db is not None:
            db.close()
    problems = [str(row[0]) for row in rows if row and row[0] != "ok"]
    if problems:
        raise DamagedDatabase(damaged_message(path, problems[0]))
    if known_version is not None and found > known_version:
        raise NewerSchema(newer_schema_message(path, found, known_version))


def _has_log(path: Path) -> bool:
    """A write-ahead log with something in it (an empty file beside it may still be whole)."""
    log = Path(f"{path}-wal")
    return log.exists() and log.stat().st_size > 0


def damaged_message(path: Path, detail: str) -> str:
    lines = [line for line in detail.splitlines() if line.strip() and not line.startswith("***")]
    detail = " ".join((lines[0] if lines else detail).split())[:_DETAIL_CHARS]  # one line
    return (
        f"데이터 파일이 손상됐어요 (damaged database): {path} ({detail}). "
        "백업에서 되살리거나, 빈 상태로 시작하려면 -wal/-shm 파일과 함께 다른 곳으로 옮겨 주세요 "
        "(restore it from a backup, or move it and its -wal/-shm files aside to start empty)."
    )


def empty_message(path: Path) -> str:
    return (
        f"데이터 파일이 비어 있어요 (empty database file, 0 bytes): {path}. "
        "들어 있던 기록이 잘려 나갔을 수 있어요(디스크가 가득 찼거나 복사가 덜 끝났을 때). "
        "백업에서 되살리고, 정말 빈 상태로 시작하려면 이 파일을 지워 주세요 "
        "(it may have been truncated, e.g. by a full disk or an unfinished copy: restore it from "
        "a backup; to start empty on purpose, delete the file)."
    )


def newer_schema_message(path: Path, found: int, known: int) -> str:
    return (
        f"데이터 파일이 더 새 버전의 seotda-server 로 만들어졌어요 (database written by a newer "
        f"seotda-server): {path} (스키마 schema {found}; seotda-server {__version__} 은(는) "
        f"{known} 까지만 알아요 / this version knows up to {known}). 새 버전을 다시 설치하거나, "
        "업그레이드 전에 받아 둔 백업을 되살려 주세요. 파일은 그대로 두세요 (install the newer "
        "version again, or restore the backup of the data folder taken before the upgrade; leave "
        'this file as it is: deploy/SELF_HOSTING.md, "Upgrades and rollback").'
    )


def no_access_message(path: Path, folder: Path) -> str:
    """``path`` (the folder or a file in ``folder``) may not be written by this user."""
    user = _user()
    if _read_only_mount(folder):
        fix = (
            f"{folder} 이(가) 읽기 전용 파일 시스템에 있어요. 쓰기 가능하게 다시 마운트하거나 "
            "data_dir 을 쓸 수 있는 곳으로 바꿔 주세요 "
            f"(read-only file system: remount it read-write, or point data_dir elsewhere)"
        )
    else:
        fix = (
            f"서버를 실행하는 사용자({user})가 {folder} 와 그 안의 파일을 읽고 쓸 수 있게 해 주세요 "
            f"(permission denied: e.g. chown -R {user} {folder} && chmod 700 {folder})"
        )
    return (
        f"데이터 파일에 쓸 수 없어요 (cannot write): {path}. {fix}. "
        "파일은 손상되지 않았으니 옮기거나 지우지 마세요 (the data is not damaged: do not move "
        "or delete it)."
    )


def open_failure_message(path: Path, exc: BaseException) -> str:
    """One line for a data file that is sound (or not yet there) but cannot be opened or set
    up: no access, a full disk, a folder where the file should be."""
    folder = path.parent
    denied = isinstance(exc, OSError) and exc.errno in _ACCESS_ERRNOS
    if denied or _no_access(path) or _no_access(_existing(folder)):
        return no_access_message(path, _existing(folder))
    detail = " ".join(str(exc).split())[:_DETAIL_CHARS]
    return (
        f"데이터 파일을 열 수 없어요 (cannot open database): {path} ({detail}). "
        "디스크 공간과 폴더 권한을 확인해 주세요 (check free disk space and permissions)."
    )


def _no_access(path: Path) -> bool:
    """Whether ``path`` exists and this user may not write it (access(2) also says EROFS)."""
    try:
        if not path.exists():
            return False
    except OSError:
        return False
    mode = os.W_OK | (os.X_OK if path.is_dir() else os.R_OK)
    return not os.access(path, mode)


def _existing(folder: Path) -> Path:
    """``folder``, or its nearest ancestor that exists (where a missing one would be made)."""
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(_existing(folder)).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return str(os.geteuid())
