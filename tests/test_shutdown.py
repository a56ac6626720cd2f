"""Shutting down: players are told, apps end, connections close, the process exits 0 in time."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

from seotda_tui.session import DisconnectReason

from .ssh_harness import ProbeFactory, SSHHarness, connect

ROOT = Path(__file__).resolve().parent.parent
NOTICE = "서버 점검으로 잠시 후 종료돼요"


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


async def test_sigterm_tells_players_and_exits_zero_within_ten_seconds(tmp_path: Path) -> None:
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
        "--shutdown-notice",
        "0.5",
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
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
        async with connect(port, "철수") as client:
            await client.wait_for_output("\x1b[?1049h", timeout=10)  # the game app is up
            await asyncio.sleep(0.3)
            loop = asyncio.get_running_loop()
            started = loop.time()
            proc.send_signal(signal.SIGTERM)
            await client.wait_for_output(NOTICE, timeout=10)
            await client.wait_closed(timeout=10)
            code = await asyncio.wait_for(proc.wait(), 10)
            assert code == 0
            assert loop.time() - started < 10
        await asyncio.wait_for(reader, 5)
        log = "\n".join(lines)
        assert "event=shutdown sessions=1" in log
        assert re.search(r"event=disconnect user=철수 .*reason=server_shutdown", log), log
        assert "event=stopped" in log
        assert "Traceback" not in log, log
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        reader.cancel()
