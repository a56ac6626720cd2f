#!/usr/bin/env python3
"""How long SIGTERM takes with many players: the documented promise is "within 10 seconds".

    .venv/bin/python bench/shutdown_bench.py --sessions 300
    .venv/bin/python bench/shutdown_bench.py --sessions 300 --notice 2   # the default notice

Starts ``python -m seotda_tui`` in a subprocess, logs ``--sessions`` asyncssh clients in (a
PTY each), waits until every lobby is painted, sends SIGTERM and reports: wall time from the
signal to the process's exit, the server's CPU time in that span (``/proc/PID/stat``), when
each step's log line came (``event=shutdown`` … ``event=stopped``) and how many clients saw the
goodbye. Nothing asserted. ``--root``/``--python``/``--old-flags`` run another checkout (e.g.
main, for a before/after figure).
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
from collections.abc import Sequence
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[1]
LOBBY_MARK = "님 환영해요".encode()
GOODBYE_MARK = "서버 점검으로".encode()
PASSPHRASE = "shutdown-bench-passphrase"


class _Auth(asyncssh.SSHClient):
    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Sequence[tuple[str, bool]]
    ) -> list[str]:
        return [PASSPHRASE for _ in prompts]  # a keyless nickname's passphrase (set, confirm)


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
        args.python, "-m", "seotda_tui", "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(tmp / "hostkeys"), "--data-dir", str(tmp / "data"),
        "--max-sessions", limit, "--max-sessions-per-ip", limit, "--connect-rate", "10000",
        "--connect-burst", limit, "--idle-timeout", "0",
        "--shutdown-notice", str(args.notice),
    ]  # fmt: skip
    if not args.old_flags:
        cmd += ["--max-pending-logins", limit, "--max-pending-logins-per-ip", limit]
        cmd += ["--registrations-per-ip", "0"]  # every player a new name from 127.0.0.1
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=args.root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
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
        many = ("event=disconnect", "event=kick_timeout")
        for event in many:
            times = [t for t, line in after if event in line]
            if times:
                print(f"  {len(times)} × {event} from +{times[0]:.2f} s to +{times[-1]:.2f} s")
        for t, line in after:
            if not any(event in line for event in many):
                print(f"  +{t:6.2f} s  {line[:200]}")
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
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to run (for comparisons)")
    ap.add_argument("--python", default=sys.executable, help="the server's interpreter")
    ap.add_argument("--old-flags", action="store_true", help="a checkout without pending caps")
    ap.add_argument("--parallel", type=int, default=8, help="logins at a time")
    asyncio.run(main(ap.parse_args()))
