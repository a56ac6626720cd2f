"""Structured logs: the formats, what a session logs, what is refused, and what never appears."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from seotda_tui.logs import JsonFormatter, KeyValueFormatter, log_event, setup_logging

from .ssh_harness import ProbeFactory, key_pair, open_connection, ssh_server, wait_until


def _record(logger: logging.Logger, formatter: logging.Formatter, emit) -> str:
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(formatter)
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    try:
        emit()
    finally:
        logger.removeHandler(handler)
    return buf.getvalue()


def test_kv_lines_are_one_line_and_escape_hostile_values() -> None:
    log = logging.getLogger("test.kv")
    out = _record(
        log,
        KeyValueFormatter(),
        lambda: log_event(
            log,
            "refused",
            reason="nickname",
            user='evil\x1b[2J\n ts=forged "x"',
            ip="10.0.0.1",
            n=3,
            ratio=0.25,
            key=None,
            ok=True,
            empty="",
        ),
    )
    assert out.count("\n") == 1
    line = out.rstrip("\n")
    assert re.match(
        r"ts=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=info logger=test\.kv "
        r"event=refused reason=nickname ",
        line,
    )
    assert "\x1b" not in line and 'user="evil\\u001b[2J\\n ts=forged \\"x\\""' in line
    assert 'ip=10.0.0.1 n=3 ratio=0.25 key=none ok=true empty=""' in line


def test_kv_keeps_korean_and_puts_tracebacks_in_one_field() -> None:
    log = logging.getLogger("test.kv2")

    def emit() -> None:
        log.info("안녕 %s", "철수")
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            log_event(log, "session_error", level=logging.ERROR, exc_info=True, user="영희")

    lines = _record(log, KeyValueFormatter(), emit).splitlines()
    assert len(lines) == 2
    assert lines[0].endswith('msg="안녕 철수"')
    assert "level=error" in lines[1] and "user=영희" in lines[1]
    assert 'exc="Traceback (most recent call last):\\n' in lines[1]
    assert "RuntimeError: boom" in lines[1]


def test_json_lines_parse_and_escape_c1_controls() -> None:
    log = logging.getLogger("test.json")
    out = _record(
        log,
        JsonFormatter(),
        lambda: log_event(
            log,
            "connect",
            user="철수\x9b31m",
            size="80x24",
            level=logging.WARNING,
            n=1,
            path=Path("/x"),
        ),
    )
    assert "\x9b" not in out
    data = json.loads(out)
    assert data["event"] == "connect" and data["level"] == "warning" and data["n"] == 1
    assert data["user"] == "철수\\u009b31m" and data["path"] == "/x"


def test_setup_logging_replaces_its_own_handler() -> None:
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    try:
        first, second = io.StringIO(), io.StringIO()
        setup_logging(first, "warning", "kv")
        setup_logging(second, "info", "json")
        log_event(logging.getLogger("test.setup"), "hello", x=1)
        assert first.getvalue() == ""
        assert json.loads(second.getvalue())["event"] == "hello"
    finally:
        root.handlers[:] = before
        root.setLevel(level)


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """Everything logged during the test, formatted as the server would (kv)."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield buf
    root.removeHandler(handler)
    root.setLevel(level)


def events(buf: io.StringIO, name: str) -> list[str]:
    return [line for line in buf.getvalue().splitlines() if f" event={name} " in line + " "]


async def test_a_session_logs_connect_and_disconnect(tmp_path: Path, captured: io.StringIO) -> None:
    apps = ProbeFactory()
    key = key_pair()
    async with ssh_server(tmp_path, apps) as server:
        async with server.connect("철수", key=key, size=(100, 30), term_type="xterm") as c:
            await c.wait_for("안녕 철수")
        await wait_until(lambda: events(captured, "disconnect"))
    (connect,) = events(captured, "connect")
    assert "user=철수 ip=127.0.0.1 key=SHA256:" in connect
    assert key.get_fingerprint("sha256") in connect
    assert "term=xterm size=100x30" in connect and "client=SSH-2.0-AsyncSSH" in connect
    (disconnect,) = events(captured, "disconnect")
    assert re.search(r"user=철수 ip=127\.0\.0\.1 reason=client_left duration=\d", disconnect)
    assert events(captured, "listening") and events(captured, "stopped")


async def test_passwords_never_reach_the_log(tmp_path: Path, captured: io.StringIO) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, password="s3cret-pw") as server:
        with pytest.raises(asyncssh.PermissionDenied):
            await open_connection(server.port, "alice", password="wrong-guess-77")
        async with server.connect("bob", key=key_pair()) as c:  # in-session prompt for a new key
            await c.wait_for("서버 비밀번호")
            await c.type("typed-wrong-88\r")
            await c.wait_for("맞지 않아요")
            await c.type("s3cret-pw\r")
            await c.wait_for("안녕 bob")
        async with server.connect("carol", password="s3cret-pw") as c:
            await c.wait_for("안녕 carol")
    text = captured.getvalue()
    for secret in ("s3cret-pw", "wrong-guess-77", "typed-wrong-88"):
        assert secret not in text
    assert len(events(captured, "auth_failed")) == 3  # kbdint, password, in-session
    assert "method=session-password" in text


async def test_every_refused_request_is_logged(tmp_path: Path, captured: io.StringIO) -> None:
    apps = ProbeFactory()
    (tmp_path / "xauth").write_bytes(b"")
    async with ssh_server(tmp_path, apps) as server:
        for attempt in ("exec", "sftp"):  # one connection each: one session channel per connection
            async with await open_connection(server.port, "alice") as conn:
                with pytest.raises(asyncssh.ChannelOpenError):
                    if attempt == "exec":
                        await conn.run("cat /etc/shadow")
                    else:
                        await conn.start_sftp_client()
        conn = await open_connection(
            server.port, "alice", agent_forwarding=True, agent_path=str(tmp_path / "agent.sock")
        )
        try:
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.open_connection("127.0.0.1", 25)
            with pytest.raises(asyncssh.ChannelListenError):
                await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 25)
            chan, _ = await conn.create_session(
                asyncssh.SSHClientSession,
                term_type="xterm",
                x11_forwarding="ignore_failure",
                x11_display="127.0.0.1:0",
                x11_auth_path=str(tmp_path / "xauth"),
            )
            assert not await chan._make_request(b"frobnicate")
            await conn._make_global_request(b"frob@example.com")
            with pytest.raises(asyncssh.ChannelOpenError):  # a second session channel
                await conn.create_session(asyncssh.SSHClientSession, term_type="xterm")
            await wait_until(  # the last refusals are logged before the connection goes
                lambda: (
                    {"x11_forwarding", "global_request", "second_session"}
                    <= {line.split("reason=")[1].split()[0] for line in events(captured, "refused")}
                ),
                what="the refusals to be logged",
            )
        finally:
            conn.close()
            await conn.wait_closed()
        async with server.connect("bob", term_type=None) as c:
            await c.wait_closed()
    reasons = [re.search(r"reason=(\S+)", line).group(1) for line in events(captured, "refused")]
    assert set(reasons) == {  # (agent forwarding is asked for on every session channel)
        "exec",
        "subsystem",
        "port_forwarding",
        "remote_forwarding",
        "agent_forwarding",
        "x11_forwarding",
        "channel_request",
        "global_request",
        "second_session",
        "no_pty",
    }
    text = captured.getvalue()
    assert "/etc/shadow" not in text  # exec commands are not logged, only their length
    assert "what=sftp" in text and "what=frobnicate" in text and "to=127.0.0.1:25" in text
    assert all("ip=127.0.0.1" in line for line in events(captured, "refused"))


async def test_crash_reports_carry_no_local_variables(
    tmp_path: Path, captured: io.StringIO
) -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Crashy(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("ready")

        def on_key(self, event: object) -> None:
            my_cards = "-".join(["HIDDEN", "38", "GWANGTTAENG"])  # noqa: F841  # must not show
            raise RuntimeError("crash on purpose")

    async with ssh_server(tmp_path, lambda identity, ctx: Crashy()) as server:
        async with server.connect("alice") as c:
            await c.wait_for("ready")  # drawn: the app takes keys now
            await c.type("x")
            await c.wait_closed()
    text = captured.getvalue()
    assert "RuntimeError" in text and "crash on purpose" in text  # the report is logged
    assert "HIDDEN-38-GWANGTTAENG" not in text and "HIDDEN-38-GWANGTTAENG" not in c.output_text
