"""The real server with ``--workers N`` as a subprocess, for tests/test_workers*.py.

Each worker also listens on a port of its own (the test-only ``SEOTDA_CLUSTER_OWN_PORTS``),
so a test chooses which worker each client lands on; ``cluster.shared`` is the port all of
them accept on. The log says each worker's port and pid, and the hub's pid.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WAIT = 20.0


@dataclass
class Cluster:
    proc: asyncio.subprocess.Process  # the supervisor
    shared: int  # the port every worker accepts on
    log: Path

    def text(self) -> str:
        return self.log.read_text("utf-8", "replace")

    def workers(self) -> list[tuple[int, int]]:
        """(own port, pid) of each worker, in the order they came up (restarts come last)."""
        found = re.findall(r"event=worker_port addr=127\.0\.0\.1:(\d+) pid=(\d+)", self.text())
        return [(int(port), int(pid)) for port, pid in found]

    def hub_pids(self) -> list[int]:
        return [int(p) for p in re.findall(r"event=hub_listening pid=(\d+)", self.text())]

    def children(self) -> dict[str, list[int]]:
        """pids of the supervisor's live children by their part (from /proc)."""
        found: dict[str, list[int]] = {"hub": [], "worker": []}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                status = (entry / "status").read_text()
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            parent = re.search(r"PPid:\s+(\d+)", status)
            if parent is None or int(parent.group(1)) != self.proc.pid:
                continue
            for role in ("hub", "worker"):
                if f"SEOTDA_CLUSTER_ROLE={role}".encode() in environ:
                    found[role].append(int(entry.name))
        return found

    async def wait_log(self, pattern: str, count: int = 1, timeout: float = WAIT) -> None:
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while len(re.findall(pattern, self.text())) < count:
            if loop.time() > until:
                raise AssertionError(f"no {count}× {pattern!r} in the log:\n{self.text()[-3000:]}")
            await asyncio.sleep(0.05)


def kill_9(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


@asynccontextmanager
async def cluster(
    base: Path,
    workers: int,
    *extra: str,
    tag: str = "c",
    environ: Mapping[str, str] | None = None,
) -> AsyncIterator[Cluster]:
    """``python -m seotda_tui --workers N --port 0 ...`` with each worker on its own port too
    (``environ``: more of the children's environment, e.g. ``TMPDIR``)."""
    log = base / f"cluster-{tag}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    env["SEOTDA_CLUSTER_OWN_PORTS"] = "0"
    env.update(environ or {})
    args: Sequence[str] = (
        "--workers", str(workers), "--host", "127.0.0.1", "--port", "0",
        "--hostkey-dir", str(base / "hostkeys"), "--data-dir", str(base / "data"),
        "--shutdown-notice", "0", *extra,
    )  # fmt: skip
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "seotda_tui", *args,
            cwd=str(ROOT), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    handle = Cluster(proc, 0, log)
    try:
        await handle.wait_log(r"event=worker_port", workers, timeout=60)
        found = re.search(r"event=cluster_listening addr=127\.0\.0\.1:(\d+)", handle.text())
        assert found is not None
        handle.shared = int(found.group(1))
        yield handle
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
