"""A data file that cannot be used stops start-up with one line that says what is really wrong,
never a traceback: damaged (a truncated file, a garbage header, one damaged page), empty (0
bytes: never taken for a new one), or not writable (a read-only data folder: never called
damaged, and nothing moved).

The real server runs as a subprocess (``python -m seotda_tui``) on such a data folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Options
from seotda_tui.dbcheck import DamagedDatabase, DataFileProblem, EmptyDatabase, check_database
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.rooms.records_db import DB_NAME as RECORDS
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


def server_command(data: Path) -> list[str]:
    return [
        sys.executable, "-m", "seotda_tui", "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(data.parent / "hostkeys"), "--data-dir", str(data),
    ]  # fmt: skip


def run_server(
    data: Path, command: list[str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    return subprocess.run(
        command or server_command(data),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The server stopped with one line on stderr and no traceback: that line."""
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


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
    with pytest.raises(DamagedDatabase):
        check_database(path)
    before = path.read_bytes()
    done = run_server(data)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(path) in lines[0] and "손상" in lines[0] and "damaged" in lines[0]
    assert "백업" in lines[0] and "backup" in lines[0]
    assert path.read_bytes() == before  # the check changed nothing


def test_missing_and_sound_files_pass_an_empty_one_does_not(tmp_path: Path) -> None:
    check_database(tmp_path / "nothing.sqlite3")
    make_journal(tmp_path / "games.sqlite3")
    check_database(tmp_path / "games.sqlite3")
    assert not (tmp_path / "nothing.sqlite3").exists()  # never created by the check
    (tmp_path / "empty.sqlite3").touch()
    with pytest.raises(EmptyDatabase, match="empty.sqlite3"):
        check_database(tmp_path / "empty.sqlite3")


def test_an_unreadable_path_is_reported_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "games.sqlite3"
    folder.mkdir()  # a folder where the file should be
    with pytest.raises(DataFileProblem, match="games.sqlite3"):
        check_database(folder)


@pytest.mark.parametrize("name", ["games.sqlite3", DB_NAME, RECORDS])
def test_an_empty_data_file_stops_start_up_and_says_it_is_empty(tmp_path: Path, name: str) -> None:
    """0 bytes (truncated by a full disk, an unfinished copy): the server used to start as if
    it were new, without every game (or every nickname's key) the file had held."""
    data = tmp_path / "data"
    data.mkdir()
    (data / name).touch()
    try:
        done = run_server(data, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the server started on an empty data file")
    line = one_line(done)
    assert str(data / name) in line and "비어 있어요" in line and "empty" in line
    assert "백업" in line and "backup" in line and "손상" not in line
    assert (data / name).stat().st_size == 0  # left as it was


def read_only(data: Path) -> list[str]:
    """The server's command line with ``data`` read-only to it: as root (whom file modes do not
    stop) in a mount namespace of its own where ``data`` is bind-mounted read-only; as another
    user, with the folder's write bits off (restored by the caller)."""
    if os.geteuid() != 0:
        data.chmod(0o500)
        return server_command(data)
    unshare = shutil.which("unshare")
    works = (
        unshare is not None and subprocess.run([unshare, "-m", "true"], check=False).returncode == 0
    )
    if unshare is None or not works:
        pytest.skip("running as root without mount namespaces (unshare -m): no read-only folder")
    folder = shlex.quote(str(data))
    mount = f'mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && exec "$@"'
    return [unshare, "-m", "sh", "-c", mount, "sh", *server_command(data)]


def test_a_read_only_data_dir_is_not_called_damaged(tmp_path: Path) -> None:
    """A healthy journal in a folder the server may not write: the line says so, with the
    folder and the fix, and tells the operator not to move the data (it used to say damaged
    and invite moving it aside)."""
    data = tmp_path / "data"
    data.mkdir()
    make_journal(data / "games.sqlite3")
    make_store(data / DB_NAME)
    before = {p.name: p.read_bytes() for p in data.iterdir()}
    command = read_only(data)
    try:
        line = one_line(run_server(data, command))
    finally:
        data.chmod(0o700)
    assert "손상됐어요" not in line and "damaged database" not in line
    assert str(data) in line and "쓸 수 없어요" in line
    assert "read-only file system" in line or "permission denied" in line
    assert "옮기거나 지우지 마세요" in line and "do not move" in line
    assert {p.name: p.read_bytes() for p in data.iterdir()} == before


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
