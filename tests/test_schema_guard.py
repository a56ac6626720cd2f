"""Downgrade safety: every SQLite store refuses a file whose schema version is newer than the
code knows (a newer seotda-server wrote it), with one clear line, and the server stops at start
with that line, never a traceback (issue 33 item 4).

Each case makes the file with the current code, raises its ``PRAGMA user_version`` past the
store's ``SCHEMA_VERSION`` as a newer release would, and opens it again.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from seotda_tui import __version__
from seotda_tui.cli.data import DataFileError, opened, unopenable_message
from seotda_tui.dbcheck import NewerSchema, check_database, newer_schema_message, schema_version
from seotda_tui.rooms import journal, records_db
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.records_db import RecordStore
from seotda_tui.ssh import store
from seotda_tui.ssh.bans import BanStore
from seotda_tui.ssh.store import NicknameStore
from tests.test_dbcheck import one_line, run_server


def open_journal(data: Path) -> Callable[[], object]:
    return lambda: Journal(data / "games.sqlite3")


def open_records(data: Path) -> Callable[[], object]:
    return lambda: RecordStore(data / records_db.DB_NAME)


def open_nicknames(data: Path) -> Callable[[], object]:
    return lambda: NicknameStore(data)


def open_bans(data: Path) -> Callable[[], object]:
    return lambda: BanStore(data)


#: store → (how it opens a data folder, its file, the newest schema it knows)
STORES: dict[str, tuple[Callable[[Path], Callable[[], object]], str, int]] = {
    "journal": (open_journal, "games.sqlite3", journal.SCHEMA_VERSION),
    "records": (open_records, records_db.DB_NAME, records_db.SCHEMA_VERSION),
    "nicknames": (open_nicknames, store.DB_NAME, store.SCHEMA_VERSION),
    "bans": (open_bans, store.DB_NAME, store.SCHEMA_VERSION),
}


def made_by_a_newer_release(path: Path, version: int) -> None:
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {version}")
        db.execute("CREATE TABLE IF NOT EXISTS from_the_future (x)")
    db.close()


def assert_says_newer(message: str, path: Path, found: int, known: int) -> None:
    assert str(path) in message
    assert "더 새 버전" in message and "newer seotda-server" in message
    assert f"schema {found}" in message and f"knows up to {known}" in message
    assert __version__ in message
    assert "백업" in message and "backup" in message and "SELF_HOSTING" in message


@pytest.mark.parametrize("name", sorted(STORES))
def test_a_store_refuses_a_file_a_newer_version_wrote(tmp_path: Path, name: str) -> None:
    open_in, file, known = STORES[name]
    path = tmp_path / file
    if name == "bans":  # the nickname store stamps the file the two share (the server makes it)
        NicknameStore(tmp_path).close()
    open_in(tmp_path)().close()  # type: ignore[attr-defined]
    with sqlite3.connect(path) as db:
        assert schema_version(db) == known  # the current code says its version in the file
    db.close()
    made_by_a_newer_release(path, known + 1)
    with pytest.raises(NewerSchema) as refused:
        open_in(tmp_path)()
    assert_says_newer(str(refused.value), path, known + 1, known)
    with sqlite3.connect(path) as db:  # left as the newer release wrote it
        assert schema_version(db) == known + 1
    db.close()


@pytest.mark.parametrize("name", sorted(STORES))
def test_a_store_opens_its_own_version_and_older_files(tmp_path: Path, name: str) -> None:
    """The guard refuses only what is newer: the file at its version, or at 0 (written before
    the version was stamped: the journal and the nickname file said none), opens and is
    stamped."""
    open_in, file, known = STORES[name]
    open_in(tmp_path)().close()  # type: ignore[attr-defined]
    open_in(tmp_path)().close()  # type: ignore[attr-defined]
    if name in ("journal", "nicknames", "bans"):
        made_by_a_newer_release(tmp_path / file, 0)
        open_in(tmp_path)().close()  # type: ignore[attr-defined]
        with sqlite3.connect(tmp_path / file) as db:
            assert schema_version(db) == (known if name != "bans" else 0)
        db.close()


def test_the_start_up_check_and_the_wiring_say_the_same_line(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    Journal(path).close()
    check_database(path, journal.SCHEMA_VERSION)
    made_by_a_newer_release(path, journal.SCHEMA_VERSION + 3)
    check_database(path)  # without a known version it is only a sound database
    with pytest.raises(NewerSchema) as checked:
        check_database(path, journal.SCHEMA_VERSION)
    assert_says_newer(str(checked.value), path, journal.SCHEMA_VERSION + 3, journal.SCHEMA_VERSION)
    # what a worker or the rooms process opens goes through cli.data.opened: the same line
    with pytest.raises(DataFileError) as failed:
        opened(path, lambda: Journal(path))
    assert unopenable_message(failed.value.path, failed.value.cause) == str(checked.value)


@pytest.mark.parametrize("file", ["games.sqlite3", store.DB_NAME, records_db.DB_NAME])
def test_the_server_stops_at_start_with_one_line_on_a_newer_file(tmp_path: Path, file: str) -> None:
    data = tmp_path / "data"
    Journal(data / "games.sqlite3").close()
    NicknameStore(data).close()
    RecordStore(data / records_db.DB_NAME).close()
    known = {"games.sqlite3": journal.SCHEMA_VERSION, store.DB_NAME: store.SCHEMA_VERSION}
    version = known.get(file, records_db.SCHEMA_VERSION)
    made_by_a_newer_release(data / file, version + 1)
    before = (data / file).read_bytes()
    line = one_line(run_server(data, timeout=30))
    assert_says_newer(line, data / file, version + 1, version)
    assert (data / file).read_bytes() == before


def test_self_hosting_quotes_the_line_and_names_the_section_it_points_to() -> None:
    """The refusal points to SELF_HOSTING's upgrade and rollback section: it exists, quotes the
    line as the server prints it, and has no stand-in for the project's address."""
    text = (Path(__file__).resolve().parents[1] / "deploy" / "SELF_HOSTING.md").read_text()
    line = newer_schema_message(Path("/var/lib/seotda/data/records.sqlite3"), 2, 1)
    assert "## 8. Upgrades and rollback" in text and '"Upgrades and rollback"' in line
    assert line.split("; seotda-server")[0] in text  # up to the version, which will change
    # the upgrade steps name the real place to upgrade from (the TLS proxy examples of
    # section 11 use RFC 2606's example.com for the player's own domain, on purpose)
    upgrades = text.split("## 8. Upgrades and rollback")[1].split("\n## ")[0]
    assert not re.search(r"<[^>]*(URL|url|repositor)[^>]*>", upgrades)
    assert "example.com" not in upgrades
