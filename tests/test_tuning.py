"""``seotda_tui/tuning/``: overrides are checked before use, and a crash never shows locals.

The crash tests go through the real server and real SSH clients; they run in both halves of
``make test`` (tuning on, then ``SEOTDA_STOCK_TEXTUAL=1``)."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

import pytest
from rich.traceback import Traceback
from textual.events import Key
from textual.screen import Screen

from seotda_tui import tuning
from seotda_tui.ssh.state import SessionContext

from .ssh_harness import ProbeApp, ProbeFactory, ssh_server

SECRET = "7광-3광-비밀패"


class SecretApp(ProbeApp):
    """Raises on ``!`` with a player's cards in a local variable (and in an attribute)."""

    def on_key(self, event: Key) -> None:
        if event.character == "!":
            my_cards = SECRET  # what Textual's own crash report would print, as a local
            self.hand = my_cards
            raise RuntimeError("secret app exploded on purpose")
        super().on_key(event)


class SecretFactory(ProbeFactory):
    def __call__(self, identity: Any, ctx: SessionContext) -> ProbeApp:
        app = SecretApp(identity, ctx)
        self.apps.append(app)
        return app


def _logged_text(records: list[logging.LogRecord]) -> str:
    parts = []
    for record in records:
        parts.append(record.getMessage())
        parts.append(repr(record.__dict__))
        if record.exc_info and record.exc_info[1] is not None:
            parts.append("".join(traceback.format_exception(*record.exc_info)))
    return "\n".join(parts)


async def _crash_one_session(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> str:
    """Crash one player's app over SSH; everything that player's terminal received."""
    caplog.set_level(logging.DEBUG)
    apps = SecretFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("alice") as client:
        await client.wait_for("안녕 alice")
        await client.type("!")
        await client.wait_closed()
        assert "문제가 생겨" in client.output_text  # the session did crash
        return client.output_text


async def test_a_crash_report_has_no_locals(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    terminal = await _crash_one_session(tmp_path, caplog)
    logged = _logged_text(caplog.records)
    assert "secret app exploded on purpose" in logged  # the report itself was logged
    assert "on_key" in logged  # with its frames
    assert SECRET not in logged
    assert SECRET not in terminal


async def test_without_the_guard_the_report_is_withheld(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fail closed: if rich could not be made to drop locals, no report is written at all."""
    extract = Traceback.extract.__func__.__wrapped__  # type: ignore[attr-defined]
    monkeypatch.setattr(Traceback, "extract", classmethod(extract))  # rich as shipped
    enabled = tuning.enabled
    monkeypatch.setattr(tuning, "enabled", lambda name: name != "crash_report" and enabled(name))
    terminal = await _crash_one_session(tmp_path, caplog)
    logged = _logged_text(caplog.records)
    assert "app_crash_report_withheld" in logged
    assert SECRET not in logged
    assert SECRET not in terminal


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let :func:`tuning.install` run again (its patches are idempotent)."""
    monkeypatch.setattr(tuning, "_report", None)
    monkeypatch.setattr(tuning, "_stock", None)
    monkeypatch.setattr(tuning, "_active", {})


def _warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_the_tested_versions_turn_everything_on(
    fresh: None, caplog: pytest.LogCaptureFixture
) -> None:
    report = tuning.install(stock=False)
    assert report == dict.fromkeys(tuning.MODULES)
    assert all(tuning.enabled(name) for name in tuning.MODULES)
    assert not _warnings(caplog)


def test_an_untested_version_keeps_its_overrides_off_with_one_warning(
    fresh: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(tuning.TESTED, "textual", "7.9")
    report = tuning.install(stock=False)
    assert "is not the tested 7.9.x" in str(report["compositor"])
    assert not tuning.enabled("compositor") and not tuning.enabled("paint_now")
    assert report["crash_report"] is None  # rich's own override is unaffected
    [warning] = _warnings(caplog)
    assert warning.seotda_fields["overrides"].startswith("compositor,strip_caches")  # type: ignore[attr-defined]


def test_a_changed_private_method_keeps_that_override_off(
    fresh: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Screen, "_on_timer_update", lambda self, when: None)
    report = tuning.install(stock=False)
    assert report["paint_now"] == "Screen._on_timer_update(self, when) has other parameters"
    assert [name for name, why in report.items() if why] == ["paint_now"]
    [warning] = _warnings(caplog)
    assert "paint_now" in warning.seotda_fields["why"]  # type: ignore[attr-defined]


def test_stock_keeps_only_the_guards(fresh: None, caplog: pytest.LogCaptureFixture) -> None:
    report = tuning.install(stock=True)
    assert {name for name, why in report.items() if why is None} == {
        "crash_report",
        "stray_output",
        "colour_depth",
        "unlinked_nodes",
        "xterm_parser",
    }
    assert set(report.values()) == {None, "stock_textual"}
    assert not _warnings(caplog)


def test_the_setting_reaches_install(tmp_path: Path) -> None:
    from seotda_tui.cli.args import parse_args, settings_from

    args = parse_args(["--stock-textual", "--hostkey-dir", str(tmp_path)])
    assert settings_from(args, {}).stock_textual is True
    assert settings_from(parse_args(["--hostkey-dir", str(tmp_path)]), {}).stock_textual is False
    env = {tuning.STOCK_ENV: "1"}
    assert settings_from(parse_args(["--hostkey-dir", str(tmp_path)]), env).stock_textual
    assert tuning.stock_from_env(env) and not tuning.stock_from_env({})


def test_without_the_colour_depth_guard_clients_still_get_only_their_depth(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback: consoles keep rich's own depth (the same for all), and each frame is still
    lowered to the client's."""
    from rich.console import Console
    from textual.app import App

    from seotda_tui.ui.driver import ChannelLink, prepare_app

    monkeypatch.delattr(Console, "_color_system", raising=False)
    real = Console.__init__

    def without(self: Console, *args: object, **kwargs: object) -> None:
        real(self, *args, **kwargs)  # type: ignore[arg-type]
        self.__dict__.pop("_color_system", None)

    monkeypatch.setattr(Console, "__init__", without)
    report = tuning.install(stock=False)
    assert report["colour_depth"] == "Console._color_system is missing"
    monkeypatch.setattr(Console, "__init__", real)
    app: App[None] = App()
    before = app.console._color_system
    link = ChannelLink(lambda data: None, (80, 24))
    prepare_app(app, link, "standard")
    assert app.console._color_system == before  # left alone
    assert link.lower_colours is not None
    assert "38;2" not in link.lower_colours("\x1b[38;2;10;200;30mx")
