"""Nickname holders: first credential wins, look-alikes are one indexed lookup, old stores migrate."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from seotda_tui.ssh.store import DB_NAME, Holder, NicknameStore


def test_unbound_name_has_no_key(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.key_for("철수") is None
    assert store.holder("철수") is None
    store.close()


def test_first_key_wins(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.bind("철수", "SHA256:aaa")
    assert not store.bind("철수", "SHA256:bbb")
    assert store.key_for("철수") == "SHA256:aaa"
    assert store.bind("영희", "SHA256:aaa")  # one key may own several names
    assert store.bind("철수", "SHA256:aaa")  # and comes back to them
    store.close()


def test_a_passphrase_and_a_key_never_share_a_name(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.set_passphrase("hv", "scrypt$1$1$1$00$00")
    assert not store.bind("hv", "SHA256:aaa")
    assert not store.set_passphrase("hv", "scrypt$1$1$1$11$11")
    assert store.holder("hv") == Holder(None, "scrypt$1$1$1$00$00")
    assert store.bind("철수", "SHA256:aaa")
    assert not store.set_passphrase("철수", "scrypt$1$1$1$00$00")
    store.close()


def test_a_lookalike_of_a_registered_name_cannot_be_registered(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    assert store.bind("victim", "SHA256:aaa")
    assert store.lookalike("v\u0456ctim") == "victim"  # Cyrillic і
    assert store.lookalike("victim") is None  # a name is not its own look-alike
    assert not store.set_passphrase("v\u0456ctim", "scrypt$1$1$1$00$00")
    assert not store.bind("v\u0456ctim", "SHA256:bbb")
    assert store.holder("v\u0456ctim") is None
    store.close()


def test_release_frees_the_name(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    store.set_passphrase("hv", "scrypt$1$1$1$00$00")
    assert store.release("hv") == Holder(None, "scrypt$1$1$1$00$00")
    assert store.release("hv") is None
    assert store.bind("hv", "SHA256:aaa")
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
    assert first.bind("철수", "SHA256:aaa")
    assert not second.bind("철수", "SHA256:bbb")
    assert not second.set_passphrase("철수", "scrypt$1$1$1$00$00")
    assert second.key_for("철수") == "SHA256:aaa"
    first.close()
    second.close()


def test_an_old_store_is_migrated_without_losing_bindings(tmp_path: Path) -> None:
    """Version 1 kept only nickname_keys; its rows (look-alikes included) move over."""
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        db.execute(
            "CREATE TABLE nickname_keys (nickname TEXT PRIMARY KEY, key_fingerprint TEXT NOT NULL,"
            " first_seen REAL NOT NULL, last_seen REAL NOT NULL)"
        )
        db.executemany(
            "INSERT INTO nickname_keys VALUES (?, ?, ?, ?)",
            [
                ("철수", "SHA256:aaa", 1.0, 2.0),
                ("victim", "SHA256:bbb", 1.0, 2.0),
                ("v\u0456ctim", "SHA256:ccc", 1.0, 2.0),
            ],
        )
    store = NicknameStore(tmp_path)
    assert store.key_for("철수") == "SHA256:aaa"
    assert store.key_for("victim") == "SHA256:bbb"
    assert store.key_for("v\u0456ctim") == "SHA256:ccc"
    assert not store.bind("철수", "SHA256:zzz")
    assert store.lookalike("vict\u0456m") in ("victim", "v\u0456ctim")
    store.close()
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert tables == {"nicknames"}
        plan = " ".join(
            str(r[-1])
            for r in db.execute(
                "EXPLAIN QUERY PLAN SELECT nickname FROM nicknames WHERE skeleton = 'x'"
            )
        )
        assert "nicknames_by_skeleton" in plan
    again = NicknameStore(tmp_path)  # opening it again changes nothing
    assert again.key_for("철수") == "SHA256:aaa"
    again.close()


def test_database_is_private_and_in_wal_mode(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = NicknameStore(data)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / DB_NAME).stat().st_mode) == 0o600
    store.close()
    with sqlite3.connect(data / DB_NAME) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
