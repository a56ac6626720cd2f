"""The command line: --config, flags for every setting, SEOTDA_* env, --check-config."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from engine import Options
from seotda_tui import cli
from seotda_tui.cli import process, single
from seotda_tui.cli.args import build_parser
from seotda_tui.config import KEYS, Settings, load_settings
from seotda_tui.ssh.auth import Identity
from seotda_tui.ssh.hostkey import HOST_KEY_NAME
from seotda_tui.ssh.server import ServerConfig

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "deploy" / "seotda.toml.example"


def run_main(
    capsys: pytest.CaptureFixture[str], *argv: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    code = cli.main(list(argv), environ=env or {})
    out, err = capsys.readouterr()
    return code, out, err


def test_every_setting_has_a_flag() -> None:
    parser = build_parser()
    dests = {action.dest for action in parser._actions}
    assert {key.name for key in KEYS} <= dests
    options = {opt for action in parser._actions for opt in action.option_strings}
    assert {
        "--config",
        "--check-config",
        "--host",
        "--port",
        "--hostkey-dir",
        "--data-dir",
        "--password",
        "--authorized-keys",
        "--reconnect-grace",
        "--max-sessions",
    } <= options


def test_check_config_prints_the_effective_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "seotda.toml"
    path.write_text(
        "[server]\nport = 1111\n[limits]\nmax_sessions = 50\nidle_timeout = 60\n"
        '[room_defaults]\ncardMode = "three"\n'
    )
    env = {"SEOTDA_PORT": "3333", "SEOTDA_MAX_SESSIONS": "70", "SEOTDA_PASSWORD": "hunter2"}
    code, out, err = run_main(
        capsys,
        "--config",
        str(path),
        "--check-config",
        "--max-sessions",
        "90",
        "--hostkey-dir",
        str(tmp_path / "hk"),
        env=env,
    )
    assert (code, err) == (0, "")
    assert "port = 3333" in out  # env over file
    assert "max_sessions = 90" in out  # flag over env
    assert "idle_timeout = 60.0" in out  # file over default
    assert 'auth_mode = "password"' in out and "hunter2" not in out  # masked
    assert 'cardMode = "three"' in out
    assert not (tmp_path / "hk").exists()  # checking creates nothing


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        (["--port", "99999"], {}, "--port"),
        (["--max-sessions", "many"], {}, "--max-sessions"),
        (["--log-format", "xml"], {}, "--log-format"),
        ([], {"SEOTDA_CONNECT_RATE": "fast"}, "SEOTDA_CONNECT_RATE"),
        ([], {"SEOTDA_AUTH_MODE": "keys"}, "authorized_keys"),
        (["--authorized-keys", "/nonexistent/keys"], {}, "authorized_keys"),
    ],
)
def test_bad_settings_are_named_on_stderr(
    capsys: pytest.CaptureFixture[str], argv: list[str], env: dict[str, str], named: str
) -> None:
    code, out, err = run_main(capsys, *argv, "--check-config", env=env)
    assert code == 2 and out == ""
    assert named in err


def test_bad_key_in_the_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "seotda.toml"
    path.write_text("[limits]\nmax_sesions = 3\n")
    code, _, err = run_main(capsys, "--config", str(path), "--check-config")
    assert code == 2 and "[limits] max_sesions" in err
    code, _, err = run_main(capsys, "--config", str(tmp_path / "missing.toml"), "--check-config")
    assert code == 2 and "missing.toml" in err


def test_a_secret_the_mode_would_ignore_is_an_error() -> None:
    with pytest.raises(ValueError, match="open"):
        load_settings(env={"SEOTDA_AUTH_MODE": "open", "SEOTDA_PASSWORD": "x"})
    with pytest.raises(ValueError, match="keys"):
        load_settings(flags={"auth_mode": "password", "password": "x", "authorized_keys": "k"})
    both = load_settings(flags={"password": "x", "authorized_keys": "k"})
    assert both.auth_mode == "keys"  # a key list plus a password for keyless players


def test_open_host_key_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "hk"
    keys.mkdir(mode=0o700)
    (keys / HOST_KEY_NAME).write_text("not really a key")
    (keys / HOST_KEY_NAME).chmod(0o600)
    code, _, err = run_main(capsys, "--hostkey-dir", str(keys), "--check-config")
    assert code == 0, err
    keys.chmod(0o750)
    code, _, err = run_main(capsys, "--hostkey-dir", str(keys), "--check-config")
    assert code == 2 and "hostkey_dir" in err and f"chmod 700 {keys}" in err


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("restore_logging")
def test_main_hands_the_settings_to_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The environment comes from main's argument (read once), not from os.environ."""
    seen: dict[str, Any] = {}

    def fake_factory(settings: Settings) -> tuple[Any, None]:
        seen["factory_settings"] = settings
        return (lambda identity, ctx: None), None

    async def fake_serve(config: ServerConfig, cleanup: Any = None) -> None:
        seen["config"] = config

    monkeypatch.setattr(single, "build_app_factory", fake_factory)
    monkeypatch.setattr(single, "serve", fake_serve)
    monkeypatch.setenv("SEOTDA_MAX_SESSIONS", "1")  # must be ignored: environ={} below
    code = cli.main(
        [
            "--max-sessions-per-ip",
            "3",
            "--idle-timeout",
            "90",
            "--hostkey-dir",
            str(tmp_path / "hk"),
            "--log-format",
            "json",
        ],
        environ={"SEOTDA_CONNECT_BURST": "4", "SEOTDA_RECONNECT_GRACE": "15"},
    )
    assert code == 0
    settings = seen["config"].settings
    assert seen["factory_settings"] is settings
    assert (settings.max_sessions, settings.max_sessions_per_ip) == (200, 3)
    assert (settings.idle_timeout, settings.connect_burst, settings.reconnect_grace) == (
        90.0,
        4,
        15.0,
    )
    assert settings.log_format == "json"


def test_the_example_file_lists_every_setting_with_its_default() -> None:
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    listed = {
        name for section, table in data.items() if section != "room_defaults" for name in table
    }
    assert listed == {key.name for key in KEYS}
    for key in KEYS:
        assert key.name in data[key.section], key.name
    assert load_settings(EXAMPLE) == Settings()


def test_installed_entry_point_checks_config(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    env["SEOTDA_MAX_SESSIONS"] = "12"
    done = subprocess.run(
        [sys.executable, "-m", "seotda_tui", "--config", str(EXAMPLE), "--check-config"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "max_sessions = 12" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "seotda_tui", "--check-config", "--port", "-1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2 and "--port" in bad.stderr


def test_the_room_manager_and_apps_get_their_settings(tmp_path: Path) -> None:
    path = tmp_path / "seotda.toml"
    path.write_text(
        '[server]\nmotd = "금요일 밤 9시"\n[limits]\nreconnect_grace = 15\n'
        '[room_defaults]\ncardMode = "three"\n'
    )
    settings = load_settings(path, flags={"data_dir": tmp_path / "data"})
    factory, cleanup = single.build_app_factory(settings)
    manager = cleanup.__self__  # type: ignore[attr-defined]  # the RoomManager's close()
    assert manager.reconnect_grace == 15.0
    assert manager.room_defaults == Options(card_mode="three")

    class Ctx:
        idle_exempt = None

    ctx = Ctx()
    app = factory(Identity("철수", None, "127.0.0.1"), ctx)  # type: ignore[arg-type]
    assert app.motd == "금요일 밤 9시"  # type: ignore[attr-defined]
    assert callable(ctx.idle_exempt) and ctx.idle_exempt() is False  # not in a room


def test_server_start_up_raises_the_gc_thresholds_and_freezes_its_own_objects() -> None:
    import gc

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)  # CPython's defaults
        gc.unfreeze()
        process.tune_garbage_collector()
        assert gc.get_threshold() == process.GC_THRESHOLDS
        assert all(new >= old for new, old in zip(process.GC_THRESHOLDS, (700, 10, 10)))
        assert gc.get_freeze_count() > 10_000  # what start-up made is out of the collections
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
