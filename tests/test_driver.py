"""The SSH driver on its own: bytes in, Textual events out, output to one link only."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pyte
import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.widgets import Static

from seotda_tui import tuning
from seotda_tui.tuning.xterm_parser import PublicParser
from seotda_tui.ui.colour_isolation import client_color_system
from seotda_tui.ui.driver import (
    MAX_COLUMNS,
    MAX_ROWS,
    ChannelLink,
    clamp_size,
    color_system_for,
    prepare_app,
    run_app,
)

from .ssh_harness import wait_until as until


class Terminal:
    """Stands in for the SSH channel: whatever the app writes lands in a pyte screen."""

    def __init__(self, size: tuple[int, int] = (80, 24)) -> None:
        self.screen = pyte.Screen(*size)
        self._stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.writes: list[bytes] = []  # one per channel write, i.e. per SSH packet
        self.link = ChannelLink(self._write, size)

    def _write(self, data: bytes) -> None:
        self.raw += data
        self.writes.append(data)
        self._stream.feed(data)

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)


class KeyLogApp(App[None]):
    """Records every key and resize it receives."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[events.Key] = []
        self.sizes: list[Size] = []
        self.deliveries: list[events.DeliveryFailed] = []

    def compose(self) -> ComposeResult:
        yield Static("키 기록기")

    def on_key(self, event: events.Key) -> None:
        self.keys.append(event)

    def on_resize(self, event: events.Resize) -> None:
        self.sizes.append(event.size)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        self.deliveries.append(event)

    @property
    def chars(self) -> str:
        return "".join(k.character or "" for k in self.keys)


@asynccontextmanager
async def running(
    app: App[Any], term: Terminal, color: str | None = "256"
) -> AsyncIterator[asyncio.Task[None]]:
    prepare_app(app, term.link, color)
    task = asyncio.create_task(run_app(app, term.link))
    await until(
        lambda: app.is_running and term.link.driver is not None and term.link.driver.input_enabled
    )
    try:
        yield task
    finally:
        app.exit()
        await asyncio.wait_for(task, 5)


@pytest.fixture(params=["textual", "public"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Input read by Textual's parser, or (its check failed) by the one of public names."""
    if request.param == "public":
        enabled = tuning.enabled
        monkeypatch.setattr(
            tuning, "enabled", lambda name: name != "xterm_parser" and enabled(name)
        )
    return str(request.param)


async def test_the_parser_and_the_kitty_keys_follow_the_check(parser: str) -> None:
    """Kitty keys are asked for only where the parser reads them (Textual's)."""
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        driver = term.link.driver
        assert driver is not None
        assert isinstance(driver._parser, PublicParser) == (parser == "public")
        assert (b"\x1b[>25u" in term.raw) == (parser == "textual")
        term.link.feed("가\x1b[A\x1b[200~붙여\x1b[201~\r".encode())
        await until(lambda: [k.key for k in app.keys] == ["가", "up", "enter"])


async def test_renders_to_the_link_and_restores_the_terminal() -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        await until(lambda: "키 기록기" in term.text)
        assert term.raw.startswith(b"\x1b[?1049h")  # alternate screen first
    assert term.raw.endswith(b"\x1b[?1049l\x1b[?25h\x1b[?1004l")  # and left at the end


async def test_a_frame_is_one_channel_write(parser: str) -> None:
    """Textual writes a frame in three pieces when the terminal has synchronized output; each
    channel write is an SSH packet, so the driver joins them."""
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        term.link.feed(b"\x1b[?2026;2$y")  # the terminal answers: synchronized output supported
        await until(lambda: app._sync_available)
        await until(lambda: "키 기록기" in term.text)
        term.writes.clear()
        app.query_one(Static).update("새 글자")
        await until(lambda: "새 글자" in term.text)
        frames = [w for w in term.writes if "새 글자".encode() in w]
        assert frames
        for frame in frames:
            assert frame.startswith(b"\x1b[?2026h") and frame.endswith(b"\x1b[?2026l")
        term.writes.clear()
        app.bell()  # a write Textual does not flush still leaves within a turn of the loop
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert b"\x07" in b"".join(term.writes)


async def test_hangul_split_byte_by_byte_arrives_whole(parser: str) -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        for byte in "철수 ok".encode():
            term.link.feed(bytes([byte]))
            await asyncio.sleep(0.005)  # a pace, not a wait: one read a byte
        await until(lambda: app.chars == "철수 ok")


async def test_lone_escape_becomes_the_escape_key(parser: str) -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        term.link.feed(b"\x1b")
        await until(lambda: [k.key for k in app.keys] == ["escape"])


async def test_a_sequence_that_breaks_textuals_parser_is_dropped_and_typing_goes_on() -> None:
    """ESC[97;1:3u makes Textual's parser raise ValueError and leaves it a dead generator:
    before, every later key of that session raised too."""
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        term.link.feed(b"a")
        await until(lambda: app.chars == "a")
        term.link.feed(b"\x1b[97;1:3u")
        driver = term.link.driver
        assert driver is not None
        await until(lambda: driver.parser_resets == 1)  # the sequence went alone
        term.link.feed(b"b")
        await until(lambda: app.chars == "ab")
        assert driver.parser_resets == 1


async def test_escape_sequence_split_across_packets_is_one_key(parser: str) -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        term.link.feed(b"\x1b")
        # two reads, one loop turn apart: well inside Textual's escape delay (a real-time sleep
        # here became longer than that delay when make test's workers starved the process)
        await asyncio.sleep(0)
        term.link.feed(b"[A")
        await until(lambda: bool(app.keys))
        await asyncio.sleep(0.2)  # longer than the escape delay: nothing else may follow
        assert [k.key for k in app.keys] == ["up"]


async def test_window_change_resizes_and_is_clamped() -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        assert app.size == Size(80, 24)
        term.link.resize(200, 60)
        await until(lambda: app.size == Size(200, 60))
        term.link.resize(100_000, 100_000)
        await until(lambda: app.size == Size(MAX_COLUMNS, MAX_ROWS))
        term.link.resize(80, 24)
        await until(lambda: app.size == Size(80, 24))


async def test_in_band_resize_typed_by_the_client_is_ignored(parser: str) -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        term.link.feed(b"\x1b[48;60;200;0;0t")
        term.link.feed(b"z")
        await until(lambda: app.chars == "z")
        await asyncio.sleep(0.05)  # an absence: a Resize, had one been made, would be in by now
        assert app.size == Size(80, 24)


async def test_input_sent_before_the_app_started_is_kept(parser: str) -> None:
    term = Terminal()
    term.link.feed("먼저".encode())
    app = KeyLogApp()
    async with running(app, term):
        await until(lambda: app.chars == "먼저")


async def test_screenshots_are_not_saved_on_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        app.deliver_screenshot()
        await until(lambda: bool(app.deliveries))
    assert list(tmp_path.iterdir()) == []


async def test_prints_go_to_the_log_not_to_any_terminal(caplog: pytest.LogCaptureFixture) -> None:
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        with caplog.at_level(logging.WARNING, logger="seotda.app.stdout"):
            print("새어 나온 출력")
            await until(lambda: "새어 나온 출력" in caplog.text)
    assert "새어 나온 출력".encode() not in term.raw


async def test_interleaved_apps_leave_sys_stdout_as_it_was() -> None:
    before = sys.stdout, sys.stderr
    t1, t2 = Terminal(), Terminal()
    a1, a2 = KeyLogApp(), KeyLogApp()
    prepare_app(a1, t1.link, "256")
    prepare_app(a2, t2.link, "256")
    task1 = asyncio.create_task(run_app(a1, t1.link))
    await until(lambda: a1.is_running)
    task2 = asyncio.create_task(run_app(a2, t2.link))
    await until(lambda: a2.is_running)
    a1.exit()  # first in, first out: the order redirect_stdout can't undo
    await task1
    a2.exit()
    await task2
    assert (sys.stdout, sys.stderr) == before


async def test_two_apps_keep_their_own_colour_depth() -> None:
    t256, tnone = Terminal(), Terminal()
    a256, anone = KeyLogApp(), KeyLogApp()
    async with running(a256, t256, "256"), running(anone, tnone, None):
        await until(lambda: "키 기록기" in t256.text and "키 기록기" in tnone.text)
        assert client_color_system(a256) == "256" and client_color_system(anone) is None
    assert b"38;5;" in t256.raw and b"38;2;" not in t256.raw
    assert b"38;5;" not in tnone.raw and b"38;2;" not in tnone.raw


@pytest.mark.parametrize(
    ("term", "env", "expected"),
    [
        ("xterm-256color", {}, "256"),
        ("tmux-256color", {}, "256"),
        ("xterm-256color", {"COLORTERM": "truecolor"}, "truecolor"),
        ("xterm", {"COLORTERM": "24bit"}, "truecolor"),
        ("xterm-direct", {}, "truecolor"),
        ("xterm", {}, "standard"),
        ("linux", {}, "standard"),
        ("vt100", {}, "standard"),
        ("dumb", {}, None),
        ("xterm-256color", {"NO_COLOR": "1"}, None),
        (None, {}, "standard"),
    ],
)
def test_colour_depth_comes_from_the_client(
    term: str | None, env: dict[str, str], expected: str | None
) -> None:
    assert color_system_for(term, env) == expected


def test_clamp_size() -> None:
    assert clamp_size(0, 0) == (80, 24)
    assert clamp_size(10**6, 10**6) == (MAX_COLUMNS, MAX_ROWS)
    assert clamp_size(200, 60) == (200, 60)


async def test_no_process_wide_state_is_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    watched = [signal.SIGWINCH, signal.SIGTSTP, signal.SIGCONT, signal.SIGINT, signal.SIGTERM]
    handlers = {sig: signal.getsignal(sig) for sig in watched}
    environ = dict(os.environ)
    term = Terminal()
    app = KeyLogApp()
    async with running(app, term):
        driver = term.link.driver
        assert driver is not None
        assert not driver.can_suspend and not driver.is_headless and not driver.is_inline
        assert {sig: signal.getsignal(sig) for sig in watched} == handlers
    assert {sig: signal.getsignal(sig) for sig in watched} == handlers
    assert dict(os.environ) == environ
