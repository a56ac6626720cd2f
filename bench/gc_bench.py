"""Memory of screens opened and closed over real SSH, before and after, and what a full GC costs.

Why (issue 30): the server raises its GC thresholds so full collections are rare; a closed
screen that Textual leaves in reference cycles then stays until one runs. Two measures:

``--sessions K --opens N [--before REV]``
    The real server (``python -m seotda_tui`` in a subprocess, its own GC tuning) and K real
    asyncssh clients, each opening and closing help N times (``?``, then Esc, each waited for
    on a ``pyte`` screen). Prints the server's RSS and CPU time before and after. With
    ``--before REV`` the same is run first against a checkout of REV (a ``git worktree``), so
    both figures come from one run on one box.

``--pause 50,300``
    A full collection's pause at realistic heap sizes: the server in this process (with
    ``cli.process.tune_garbage_collector``), K sessions in the lobby from a client subprocess, then
    ``gc.collect()`` timed (median of 3) and the live objects it walked — the price of
    collecting the old generation on a schedule instead of leaving nothing in it.

    .venv/bin/python bench/gc_bench.py --sessions 4 --opens 200 --before 37cda44
    .venv/bin/python bench/gc_bench.py --pause 50,300
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import asyncssh
import pyte

ROOT = Path(__file__).resolve().parent.parent
SIZE = (100, 30)
WELCOME, HELP = "님 환영해요", "족보"


class Auth(asyncssh.SSHClient):
    """Keyless open-mode login: the nickname's passphrase, set on first use."""

    def __init__(self, nick: str) -> None:
        self.passphrase = f"{nick}-gc-bench"

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        return [self.passphrase for _ in prompts]

    def password_auth_requested(self) -> None:
        return None


class Terminal(asyncssh.SSHClientSession[bytes]):
    """One player's screen (``pyte``)."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(*SIZE)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self.stream.feed(data)
        self.changed.set()

    def shows(self, text: str) -> bool:
        return any(text in line for line in self.screen.display)

    async def until(self, shown: bool, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.shows(text) != shown:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{text!r} {'never shown' if shown else 'never gone'}")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass


async def login(port: int, nick: str) -> tuple[asyncssh.SSHClientConnection, Any, Terminal]:
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=nick,
        known_hosts=None,
        client_factory=lambda: Auth(nick),
        client_keys=None,
        agent_path=None,
    )
    chan, session = await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=SIZE, encoding=None
    )
    term = cast(Terminal, session)
    await term.until(True, WELCOME)
    return conn, chan, term


def server_cmd(python: str, tmp: Path, sessions: int) -> list[str]:
    limit = str(sessions + 50)
    return [
        python, "-m", "seotda_tui", "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(tmp / "hostkeys"), "--data-dir", str(tmp / "data"),
        "--max-sessions", limit, "--max-sessions-per-ip", limit,
        "--connect-rate", "10000", "--connect-burst", limit,
        "--max-pending-logins", limit, "--max-pending-logins-per-ip", limit,
        "--registrations-per-ip", "0", "--idle-timeout", "0", "--shutdown-notice", "0",
    ]  # fmt: skip


def proc_figures(pid: int) -> tuple[float, float]:
    """(RSS in MiB, CPU seconds) of process ``pid``."""
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_help(args: argparse.Namespace, cwd: Path, label: str) -> None:
    """The real server from ``cwd``; K sessions open and close help N times each."""
    with tempfile.TemporaryDirectory(prefix="gc-bench-") as tmp:
        proc = await asyncio.create_subprocess_exec(
            *server_cmd(sys.executable, Path(tmp), args.sessions),
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(cwd), "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stderr is not None
        port = 0
        while not port:
            line = (await asyncio.wait_for(proc.stderr.readline(), 60)).decode()
            if not line:
                raise RuntimeError("the server exited")
            if m := re.search(r"event=listening addr=\S*:(\d+)", line):
                port = int(m.group(1))
        drain = asyncio.create_task(proc.stderr.read())
        try:
            players = [await login(port, f"gc{n}") for n in range(args.sessions)]

            async def player(term: Terminal, chan: Any, opens: int) -> None:
                for _ in range(opens):
                    chan.write(b"?")
                    await term.until(True, HELP)
                    chan.write(b"\x1b")
                    await term.until(False, HELP)

            # a few first: the caches every server fills once (styles, rows) are not growth
            await asyncio.gather(*(player(t, c, args.warm_up) for _conn, c, t in players))
            rss0, cpu0 = proc_figures(proc.pid)
            started = time.monotonic()
            await asyncio.gather(*(player(t, c, args.opens) for _conn, c, t in players))
            took = time.monotonic() - started
            await asyncio.sleep(2)  # what is freed by the young collections
            rss1, cpu1 = proc_figures(proc.pid)
            opens = args.sessions * args.opens
            print(
                f"{label}: {args.sessions} sessions × {args.opens} help opens in {took:.0f} s:"
                f" RSS {rss0:.0f} → {rss1:.0f} MiB (+{(rss1 - rss0) * 1024 / opens:.0f} KiB"
                f" per open), server CPU {cpu1 - cpu0:.1f} s"
                f" ({(cpu1 - cpu0) * 1000 / opens:.0f} ms per open and close)",
                flush=True,
            )
            for conn, _chan, _term in players:
                conn.close()
        finally:
            proc.terminate()
            await proc.wait()
            drain.cancel()


async def run_open_help(args: argparse.Namespace) -> None:
    if args.before:
        tree = Path(tempfile.mkdtemp(prefix="gc-bench-before-")) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), args.before],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        for mo in (ROOT / "seotda_tui" / "locale").glob("*/LC_MESSAGES/*.mo"):  # built, not in git
            shutil.copy(mo, tree / mo.relative_to(ROOT))
        try:
            await open_help(args, tree, f"before ({args.before})")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
            shutil.rmtree(tree.parent, ignore_errors=True)
    await open_help(args, ROOT, "after (this tree)")


async def clients(port: int, count: int) -> None:
    """The client side of ``--pause``: ``count`` sessions in the lobby until stdin closes."""
    players = [await login(port, f"p{n}") for n in range(count)]
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for conn, _chan, _term in players:
        conn.close()


async def pauses(counts: list[int]) -> None:
    from seotda_tui.cli import process, single
    from seotda_tui.config import load_settings
    from seotda_tui.ssh.server import ServerConfig, start_server

    with tempfile.TemporaryDirectory(prefix="gc-bench-") as tmp:
        most = max(counts) + 50
        settings = load_settings(
            env={},
            flags={
                "host": "127.0.0.1", "port": 0, "hostkey_dir": Path(tmp) / "hostkeys",
                "data_dir": Path(tmp) / "data", "max_sessions": most,
                "max_sessions_per_ip": most, "connect_rate": 10000.0, "connect_burst": most,
                "max_pending_logins": most, "max_pending_logins_per_ip": most,
                "registrations_per_ip": 0, "idle_timeout": 0.0, "shutdown_notice": 0.0,
            },
        )  # fmt: skip
        factory, cleanup = single.build_app_factory(settings)
        process.tune_garbage_collector()
        handle = await start_server(ServerConfig(app_factory=factory, settings=settings))
        try:
            for count in counts:
                child = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--clients", str(handle.port), str(count),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=str(ROOT),
                )  # fmt: skip
                assert child.stdout is not None and child.stdin is not None
                await asyncio.wait_for(child.stdout.readline(), 900)
                await asyncio.sleep(2)
                objects = len(gc.get_objects())
                times = []
                for _ in range(3):
                    started = time.perf_counter()
                    gc.collect()
                    times.append(time.perf_counter() - started)
                    await asyncio.sleep(0.5)
                print(
                    f"{count} sessions in the lobby: {objects:,} objects in the collected"
                    f" generations, a full collection pauses {statistics.median(times) * 1000:.0f}"
                    f" ms (median of 3; {', '.join(f'{t * 1000:.0f}' for t in times)})",
                    flush=True,
                )
                child.stdin.close()
                await child.wait()
                await asyncio.sleep(2)
        finally:
            await handle.close()
            cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--opens", type=int, default=200, help="help opens per session")
    parser.add_argument("--warm-up", type=int, default=5, help="opens per session first")
    parser.add_argument("--before", help="a git revision to measure first (a worktree)")
    parser.add_argument("--pause", help="session counts for the full-collection pause, e.g. 50,300")
    parser.add_argument("--clients", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.clients:
        asyncio.run(clients(*args.clients))
    elif args.pause:
        asyncio.run(pauses([int(n) for n in args.pause.split(",")]))
    else:
        asyncio.run(run_open_help(args))


if __name__ == "__main__":
    main()
