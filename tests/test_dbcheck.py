"""A damaged journal or nickname store stops start-up with one clear line, never a traceback.

The real server runs as a subprocess (``python -m seotda_tui``) on a data folder holding a
truncated file, a file with a garbage header, or a file with one damaged page.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Options
from seotda_tui.dbcheck import DamagedDatabase, check_database
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.ssh.store import DB_NAME

ROOT = Path(__file__).resolve().parents[1]
PAGE = 4096


def make_journal(path: Path) -> None:
    journal = Journal(path)
    for game in range(40):
        key = f"room{game}-1"
        journal.start_game(GameRecord(key, "방", "a", Options(), "seed", ["a", "b"], {}))
        for _ in range(20):
            journal.record(key, "a", {"type": "call"})
    journal.close()


def make_store(path: Path) -> None:
    """Any SQLite file with some pages (the store's schema is its own business)."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)")
        db.executemany("INSERT INTO t VALUES (?, ?)", [(f"n{i}", "x" * 200) for i in range(300)])
    db.close()


def truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2 + 100)


def garbage_header(path: Path) -> None:
    with path.open("r+b") as f:
        f.write(b"this is not a database at all!!!" * 2)


def damaged_page(path: Path) -> None:
    """Scribble over the cells of a page in the middle: the file still opens."""
    middle = path.stat().st_size // PAGE // 2
    with path.open("r+b") as f:
        f.seek(middle * PAGE + 8)
        f.write(b"\x5a" * 900)


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated": truncate,
    "garbage_header": garbage_header,
    "damaged_page": damaged_page,
}
FILES: dict[str, Callable[[Path], None]] = {"games.sqlite3": make_journal, DB_NAME: make_store}


def run_server(data: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    command = [
        sys.executable, "-m", "seotda_tui", "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(data.parent / "hostkeys"), "--data-dir", str(data),
    ]  # fmt: skip
    return subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_damaged_file_stops_start_up_with_one_clear_line(
    tmp_path: Path, name: str, damage: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / name
    FILES[name](path)
    check_database(path)  # sound before the damage
    DAMAGES[damage](path)
    before = path.read_bytes()
    done = run_server(data)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0] and "손상" in lines[0] and "damaged" in lines[0]
    assert "백업" in lines[0] and "backup" in lines[0]
    assert path.read_bytes() == before  # the check changed nothing


def test_missing_empty_and_sound_files_pass(tmp_path: Path) -> None:
    check_database(tmp_path / "nothing.sqlite3")
    (tmp_path / "empty.sqlite3").touch()
    check_database(tmp_path / "empty.sqlite3")
    make_journal(tmp_path / "games.sqlite3")
    check_database(tmp_path / "games.sqlite3")
    assert not (tmp_path / "nothing.sqlite3").exists()  # never created by the check


def test_an_unreadable_path_is_reported_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "games.sqlite3"
    folder.mkdir()  # a folder where the file should be
    with pytest.raises(DamagedDatabase, match="games.sqlite3"):
        check_database(folder)


def test_a_data_dir_that_cannot_hold_the_journal_stops_start_up_with_one_line(
    tmp_path: Path,
) -> None:
    """Sound files that cannot be opened (here the data dir is a file; a full disk is the same
    path): one line naming the journal and what to check, no traceback."""
    data = tmp_path / "data"
    data.write_text("not a folder")
    done = run_server(data)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(data / "games.sqlite3") in lines[0]
    assert "열 수 없어요" in lines[0] and "disk space" in lines[0]


def test_a_records_file_that_cannot_be_opened_is_named_in_the_one_line(tmp_path: Path) -> None:
    """The records database is opened after the journal: its own path is named, not the
    journal's (here its write-ahead log cannot be created: a folder stands in its place)."""
    data = tmp_path / "data"
    (data / "records.sqlite3-wal").mkdir(parents=True)
    done = run_server(data)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(data / "records.sqlite3") in lines[0] and "games.sqlite3" not in lines[0]
