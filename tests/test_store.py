"""Nickname → key bindings: first key wins, and the binding survives a restart."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from seotda_tui.store import DB_NAME, NicknameStore


def test_unbound_name_has_no_key(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.key_for("철수") is None
    store.close()


def test_first_key_wins(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.bind("철수", "SHA256:aaa") == "SHA256:aaa"
    assert store.bind("철수", "SHA256:bbb") == "SHA256:aaa"
    assert store.key_for("철수") == "SHA256:aaa"
    assert store.bind("영희", "SHA256:aaa") == "SHA256:aaa"  # one key may own several names
    store.close()


def test_bindings_persist_across_reopen(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    store.bind("철수", "SHA256:aaa")
    store.close()
    again = NicknameStore(tmp_path)
    assert again.key_for("철수") == "SHA256:aaa"
    again.close()


def test_two_connections_racing_agree_on_the_owner(tmp_path: Path) -> None:
    first, second = NicknameStore(tmp_path), NicknameStore(tmp_path)
    assert first.bind("철수", "SHA256:aaa") == "SHA256:aaa"
    assert second.bind("철수", "SHA256:bbb") == "SHA256:aaa"
    first.close()
    second.close()


def test_database_is_private_and_in_wal_mode(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = NicknameStore(data)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / DB_NAME).stat().st_mode) == 0o600
    store.close()
    with sqlite3.connect(data / DB_NAME) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
