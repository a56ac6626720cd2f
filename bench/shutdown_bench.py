#!/usr/bin/env python3
"""How long SIGTERM takes with many players: the documented promise is "within 10 seconds".

    .venv/bin/python bench/shutdown_bench.py --sessions 300
    .venv/bin/python bench/shutdown_bench.py --sessions 300 --notice 2   # the default notice

Starts ``python -m seotda_tui`` in a subprocess, logs ``--sessions`` asyncssh clients in (a PTY
each), waits until every lobby is painted, sends SIGTERM and reports: wall time from the signal to the process's
exit, the server's CPU time in that span (``/proc/PID/stat``), when each phase's log line came
(``event=shutdown`` … ``event=stopped``) and how many clients saw the goodbye. Nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[1]
LOBBY_MARK = "님 환영해요".encode()
GOODBYE_MARK = "서버 점검으로".encode()


class _Auth(asyncssh.SSHClient):
    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name: str, instr: str, lang: str, prompts: object) -> list[str]:
        return []


class Player(asyncssh.SSHClientSession[bytes]):
    def __init__(self) -> None:
        self.data = bytearray()
        self.lobby = asyncio.Event()
        self.closed = asyncio.Event()

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self.data += data
        if not self.lobby.is_set() and LOBBY_MARK in self.data:
            self.lobby.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def main(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="seotda-shutdown-"))
    limit = str(args.sessions + 10)
    cmd = [
        *(os.environ.get("SHUTDOWN_BENCH_CMD", "").split() or [sys.executable, "-m", "seotda_tui"]), "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(tmp / "hostkeys"), "--data-dir", str(tmp / "data"),
        "--max-sessions", limit, "--max-sessions-per-ip", limit, "--connect-rate", "10000",
        "--connect-burst", limit, "--idle-timeout", "0",
        "--shutdown-notice", str(args.notice),
    ]  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stderr is not None
    stamps: list[tuple[float, str]] = []
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def read() -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            stamps.append((time.monotonic(), line))
            if line.startswith("PROBE"):
                print(f"{line} (bench clock {time.monotonic():.3f})")
            m = re.search(r"event=listening addr=\S*:(\d+)", line)
            if m and not port.done():
                port.set_result(int(m.group(1)))

    reader = asyncio.create_task(read())
    players: list[Player] = []
    conns: list[asyncssh.SSHClientConnection] = []
    sem = asyncio.Semaphore(args.parallel)

    async def login(i: int) -> None:
        async with sem:
            conn, _ = await asyncssh.create_connection(
                _Auth, "127.0.0.1", await port, username=f"p{i:03d}",
                known_hosts=None, agent_path=None, config=None,
            )  # fmt: skip
            player = Player()
            await conn.create_session(
                lambda: player, term_type="xterm-256color", term_size=(100, 30), encoding=None
            )
            await asyncio.wait_for(player.lobby.wait(), 120)
            conns.append(conn)
            players.append(player)

    try:
        await asyncio.wait_for(port, 30)
        t0 = time.monotonic()
        await asyncio.gather(*(login(i) for i in range(args.sessions)))
        print(f"{args.sessions} sessions in the lobby after {time.monotonic() - t0:.1f} s; "
              f"server RSS {rss_mb(proc.pid):.0f} MiB")  # fmt: skip
        await asyncio.sleep(1.0)
        cpu0 = cpu_seconds(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        last_cpu = cpu0
        while proc.returncode is None:
            try:
                last_cpu = cpu_seconds(proc.pid)
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
            try:
                await asyncio.wait_for(proc.wait(), 0.05)
            except TimeoutError:
                pass
        wall = time.monotonic() - sent
        await asyncio.wait_for(reader, 5)
        goodbyes = sum(GOODBYE_MARK in p.data for p in players)
        print(f"SIGTERM → exit: {wall:.2f} s wall, ≥ {last_cpu - cpu0:.2f} s server CPU "
              f"(last sample before exit), exit code {proc.returncode}")  # fmt: skip
        print(f"goodbye seen by {goodbyes}/{len(players)} clients")
        after = [(t - sent, line) for t, line in stamps if t >= sent]
        gone = [t for t, line in after if "event=disconnect" in line]
        if gone:
            print(f"  {len(gone)} × event=disconnect from +{gone[0]:.2f} s to +{gone[-1]:.2f} s")
        for t, line in after:
            if "event=disconnect" not in line and "PROBE" not in line:
                print(f"  +{t:6.2f} s  {line[:160]}")
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for conn in conns:
            conn.abort()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--notice", type=float, default=2.0, help="--shutdown-notice (default 2)")
    ap.add_argument("--parallel", type=int, default=8, help="logins at a time")
    asyncio.run(main(ap.parse_args()))
