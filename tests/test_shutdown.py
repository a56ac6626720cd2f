"""Shutting down: players are told, apps end, connections close, the process exits 0 in time."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from asyncio.subprocess import Process
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from seotda_tui.ssh.state import DisconnectReason

from .ssh_harness import ProbeFactory, SSHHarness, connect
from .tiers import sized

ROOT = Path(__file__).resolve().parent.parent
NOTICE = "서버 점검으로 잠시 후 종료돼요"
GOODBYE = "조금 뒤에 다시 접속해 주세요"


async def test_players_see_the_notice_in_the_app_then_a_goodbye(tmp_path: Path) -> None:
    apps = ProbeFactory()
    server = SSHHarness(tmp_path, apps, shutdown_notice=0.5)
    await server.start()
    loop = asyncio.get_running_loop()
    try:
        async with server.connect("alice") as a, server.connect("bob") as b:
            await a.wait_for("안녕 alice")
            await b.wait_for("안녕 bob")
            started = loop.time()
            closing = asyncio.create_task(server.stop())
            await a.wait_for("서버 점검으로", timeout=2)  # a toast while the app still runs
            assert not a.closed.is_set()
            await asyncio.wait_for(closing, 10)
            assert 0.5 <= loop.time() - started < 5
            for client in (a, b):
                await client.wait_closed()
                out = client.output_text
                # the goodbye comes after the app left the alternate screen
                assert out.rindex(NOTICE) > out.rindex("\x1b[?1049l")
                assert client.exit_status == 1
            assert [app.disconnects for app in apps.apps] == [
                [DisconnectReason.SERVER_SHUTDOWN]
            ] * 2
    finally:
        await server.stop()


@asynccontextmanager
async def _server_process(
    tmp_path: Path, *flags: str
) -> AsyncIterator[tuple[Process, int, list[str]]]:
    """``python -m seotda_tui`` on 127.0.0.1:<free port>: the process, its port, its log lines."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "seotda_tui",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--hostkey-dir",
        str(tmp_path / "hostkeys"),
        "--data-dir",
        str(tmp_path / "data"),
        *flags,
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    lines: list[str] = []
    listening: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def read_stderr() -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            lines.append(line)
            match = re.search(r"event=listening addr=\S*:(\d+)", line)
            if match and not listening.done():
                listening.set_result(int(match.group(1)))

    reader = asyncio.create_task(read_stderr())
    try:
        port = await asyncio.wait_for(listening, 15)
        yield proc, port, lines
        await asyncio.wait_for(reader, 5)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        reader.cancel()


async def _sigterm(proc: Process) -> float:
    """Send SIGTERM, check the exit code is 0; how long the process took to go."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    proc.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(proc.wait(), 15)
    assert code == 0
    return loop.time() - started


async def test_sigterm_tells_players_and_exits_zero_within_ten_seconds(tmp_path: Path) -> None:
    async with _server_process(tmp_path, "--shutdown-notice", "0.5") as (proc, port, lines):
        async with connect(port, "철수") as client:
            await client.wait_for("철수님 환영해요", timeout=10)  # the game app is up
            waiting = asyncio.ensure_future(_sigterm(proc))
            await client.wait_for_output(NOTICE, timeout=10)
            await client.wait_closed(timeout=10)
            assert await waiting < 10
    log = "\n".join(lines)
    assert "event=shutdown sessions=1" in log
    assert re.search(r"event=disconnect user=철수 .*reason=server_shutdown", log), log
    assert "event=stopped" in log
    assert "Traceback" not in log, log


async def test_sigterm_with_many_players_keeps_the_ten_seconds(tmp_path: Path) -> None:
    """A modest crowd (the 300-session figures are in BENCHMARKS.md, bench/shutdown_bench.py):
    every player is told and sees the goodbye, and the whole shutdown fits the one budget.
    12 players under make test, 50 under make soak (tests/tiers.py)."""
    players = sized(12, 50)
    flags: tuple[str, ...] = ("--max-sessions-per-ip", str(players), "--connect-rate", "0")
    flags += ("--registrations-per-ip", str(players))  # (each a new name, from one address)
    async with (
        _server_process(tmp_path, *flags, "--shutdown-notice", "1") as (proc, port, lines),
        AsyncExitStack() as stack,
    ):
        clients = [
            await stack.enter_async_context(connect(port, f"p{i:02d}")) for i in range(players)
        ]
        for client in clients:
            await client.wait_for_output("\x1b[?1049h", timeout=30)
        assert await _sigterm(proc) < 10
        for client in clients:
            await client.wait_closed(timeout=5)
            assert GOODBYE in client.output_text
    log = "\n".join(lines)
    assert f"event=shutdown sessions={players}" in log
    assert re.search(r"event=stopped .*cut_off=0", log), log
    assert "Traceback" not in log and "shutdown_overrun" not in log, log


async def test_the_watchdog_ends_a_process_whose_loop_never_yields(tmp_path: Path) -> None:
    """The last resort of the 10 s promise: a thread, so a main thread stuck in pure Python
    (here a busy loop, in the server hundreds of apps' callbacks) cannot hold it up."""
    code = "from seotda_tui.cli.process import arm_watchdog\narm_watchdog(0.3)\nwhile 1: pass\n"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=ROOT, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), 15)
    assert proc.returncode == 0
    assert b"shutdown_overrun" in err
