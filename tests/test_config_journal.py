"""Config precedence and validation; the SQLite journal round-trips games exactly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Game, Options
from seotda_tui.cli.data import build_manager
from seotda_tui.config import ConfigError, Settings, load_settings
from seotda_tui.rooms import RoomError
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.rooms.manager import MAX_ROOMS

from .gamekit import random_action


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "seotda.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_are_the_documented_ones() -> None:
    s = load_settings()
    assert s == Settings()
    assert (s.port, s.max_sessions, s.max_sessions_per_ip, s.login_grace) == (2222, 200, 8, 60.0)
    assert (s.idle_timeout, s.auth_failures, s.auth_jail_seconds) == (1800.0, 15, 300.0)


def test_precedence_flags_over_env_over_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[server]\nport = 1111\nmotd = "안녕"\n[limits]\nmax_sessions = 50\n')
    assert load_settings(path).port == 1111
    env = {"SEOTDA_PORT": "3333", "SEOTDA_MAX_SESSIONS": "70"}
    s = load_settings(path, env)
    assert (s.port, s.max_sessions, s.motd) == (3333, 70, "안녕")
    s = load_settings(path, env, {"port": 4444, "max_sessions": None})
    assert (s.port, s.max_sessions) == (4444, 70)


def test_max_rooms_caps_the_servers_open_rooms(tmp_path: Path) -> None:
    """The default keeps the manager's 100; a larger server (``--workers``) may raise it."""
    assert Settings().max_rooms == MAX_ROOMS
    settings = load_settings(env={"SEOTDA_MAX_ROOMS": "2"}, flags={"data_dir": tmp_path})
    manager = build_manager(settings)
    try:
        manager.create_room("철수", "하나", {})
        manager.create_room("영희", "둘", {})
        with pytest.raises(RoomError) as refused:
            manager.create_room("민수", "셋", {})
        assert refused.value.code == "too_many_rooms"
        assert [r.name for r in manager.rooms()] == ["하나", "둘"]
    finally:
        manager.close()


def test_room_defaults_use_the_engine_options(tmp_path: Path) -> None:
    path = write(tmp_path, '[room_defaults]\ncardMode = "three"\nturnSeconds = 30\n')
    assert load_settings(path).room_defaults == Options(card_mode="three", turn_seconds=30)
    bad = write(tmp_path, "[room_defaults]\nstartingChips = 700\n")
    with pytest.raises(ConfigError, match="시작 칩은 500, 1000, 2000, 5000 중 하나여야 해요"):
        load_settings(bad)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[server]\nport = 70000\n", "[server] port"),
        ("[limits]\nmax_sessions = 0\n", "[limits] max_sessions"),
        ("[limits]\nmax_session = 3\n", "[limits] max_session"),
        ("[nope]\nx = 1\n", "[nope]"),
        ('[log]\nlog_format = "xml"\n', "[log] log_format"),
        ("[server\n", "TOML"),
    ],
)
def test_invalid_file_names_the_bad_key(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(write(tmp_path, text))
    assert named in str(info.value)


def test_env_errors_name_the_variable_and_auth_modes_need_their_secret() -> None:
    with pytest.raises(ConfigError, match="SEOTDA_PORT"):
        load_settings(env={"SEOTDA_PORT": "abc"})
    with pytest.raises(ConfigError, match="password"):
        load_settings(flags={"auth_mode": "password"})
    assert load_settings(flags={"password": "s3"}).auth_mode == "password"
    assert "********" in load_settings(flags={"password": "s3"}).describe()


def test_journal_rebuilds_unfinished_games_exactly(tmp_path: Path) -> None:
    path = tmp_path / "data" / "seotda.sqlite3"
    journal = Journal(path)
    options = Options(card_mode="three")
    players = ["철수", "영희", "bob"]
    game = Game.new(options, players, "seed-1")
    journal.start_game(
        GameRecord("r1", "방", "철수", options, "seed-1", players, {"bob": "strong"})
    )
    rng = random.Random(3)
    for _ in range(80):
        move = random_action(game, rng)
        if move is None:
            game.timeout()
            journal.record("r1", None, {})
        else:
            game.apply(*move)
            journal.record("r1", *move)
    journal.close()
    (saved,) = Journal(path).open_games()
    assert saved.players == players and saved.bots == {"bob": "strong"} and saved.options == options
    assert saved.rebuild().state_hash() == game.state_hash()


def test_finished_games_keep_their_result(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    journal.start_game(GameRecord("r2", "방", "a", Options(), "s", ["a", "b"], {}))
    journal.finish("r2", {"aborted": "roomClosed"})
    assert journal.open_games() == []
    assert journal.finished_games()[0]["result"] == {"aborted": "roomClosed"}


def test_journal_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "games.sqlite3"
    Journal(path).close()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o077 == 0
