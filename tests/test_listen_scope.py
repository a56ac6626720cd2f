"""The start-up line that says who can reach the server (issue 33 item 5): on every network
interface (the default ``0.0.0.0``, ``::`` or ``""``) a warning that says so and how to keep it on
the machine (``--host 127.0.0.1``); on a loopback address, that players elsewhere cannot connect."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seotda_tui.addresses import (
    EVERY_INTERFACE_SCOPE,
    ONE_ADDRESS_SCOPE,
    THIS_MACHINE_SCOPE,
    listen_scope,
)
from seotda_tui.config import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("host", "scope"),
    [
        ("0.0.0.0", EVERY_INTERFACE_SCOPE),
        ("::", EVERY_INTERFACE_SCOPE),
        ("", EVERY_INTERFACE_SCOPE),
        ("127.0.0.1", THIS_MACHINE_SCOPE),
        ("127.0.1.1", THIS_MACHINE_SCOPE),
        ("::1", THIS_MACHINE_SCOPE),
        ("localhost", THIS_MACHINE_SCOPE),
        ("192.0.2.7", ONE_ADDRESS_SCOPE),
        ("2001:db8::7", ONE_ADDRESS_SCOPE),
    ],
)
def test_the_scope_of_each_kind_of_host(host: str, scope: str) -> None:
    found, note = listen_scope(host, 2222)
    assert found == scope
    if scope == EVERY_INTERFACE_SCOPE:
        assert "every network interface" in note and "port 2222" in note
        assert "--host 127.0.0.1" in note
    elif scope == THIS_MACHINE_SCOPE:
        assert "this machine only" in note and "--host 0.0.0.0" in note
    else:
        assert host in note


def start_up_lines(tmp_path: Path, *flags: str) -> list[str]:
    """The real server's log lines up to its listen_scope line (then it is stopped)."""
    command = [
        sys.executable, "-m", "seotda_tui", "--port", "0", *flags,
        "--data-dir", str(tmp_path / "data"), "--hostkey-dir", str(tmp_path / "keys"),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert server.stderr is not None
    # Raw reads, not readline: a buffered reader may take two lines out of the pipe and hand
    # back one, and select() then waits on an empty pipe for the line already read (under
    # make test's load, 'listening' and 'listen_scope' arrive in one chunk).
    fd = server.stderr.fileno()
    lines: list[str] = []
    pending = b""
    watch = selectors.DefaultSelector()
    watch.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    try:
        while not any("event=listen_scope" in line for line in lines):
            if watch.select(timeout=0.5) and (chunk := os.read(fd, 65536)):
                *done, pending = (pending + chunk).split(b"\n")
                lines += [line.decode() + "\n" for line in done]
                continue
            assert time.monotonic() < deadline, lines
            assert server.poll() is None, (server.returncode, lines)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
    return lines


def test_the_default_host_says_it_listens_on_every_interface(tmp_path: Path) -> None:
    assert Settings().host == "0.0.0.0"  # the default, kept on purpose (README says why)
    lines = start_up_lines(tmp_path)
    (line,) = [line for line in lines if "event=listen_scope" in line]
    assert "level=warning" in line and "scope=every_interface" in line
    assert "addr=0.0.0.0:" in line and "sockets=0.0.0.0:" in line
    assert "every network interface" in line and "--host 127.0.0.1" in line


def test_a_loopback_host_says_it_is_this_machine_only(tmp_path: Path) -> None:
    lines = start_up_lines(tmp_path, "--host", "127.0.0.1")
    (line,) = [line for line in lines if "event=listen_scope" in line]
    assert "level=info" in line and "scope=this_machine" in line
    assert "sockets=127.0.0.1:" in line and "this machine only" in line
    assert "every network interface" not in line.split("note=")[0]
