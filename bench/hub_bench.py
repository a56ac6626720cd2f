#!/usr/bin/env python3
"""How long a worker's loop waits for the rooms process (``--workers N``): one call's round trip.

    .venv/bin/python bench/hub_bench.py [--calls 2000]

Starts the rooms process (``python -m seotda_tui`` with the hub role, a temporary data dir),
connects one :class:`~seotda_tui.cluster.link.HubLink` as a worker does, and times
``room_of`` (a query answered from memory), and ``act`` of two seated players calling and
checking through hands (an engine step, a journal write with ``synchronous=FULL``, the pushes to
both subscriptions, then the answer). Prints p50 / p95 / p99 / max in microseconds. This is
what each UI call to the manager costs a worker's event loop (README "Architecture").
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from seotda_tui.cluster.link import HubLink  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))]


def line(name: str, values: list[float]) -> str:
    us = [v * 1e6 for v in values]
    return (
        f"{name:<32} n={len(us):<5} p50 {pct(us, 50):7.0f}  p95 {pct(us, 95):7.0f}  "
        f"p99 {pct(us, 99):7.0f}  max {max(us):7.0f} µs"
    )


async def run(calls: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="seotda-hub-bench-"))
    sock = tmp / "hub.sock"
    env = os.environ | {"SEOTDA_CLUSTER_ROLE": "hub", "SEOTDA_CLUSTER_SOCKET": str(sock)}
    hub = subprocess.Popen(
        [sys.executable, "-m", "seotda_tui", "--workers", "2", "--data-dir", str(tmp / "data"),
         "--hostkey-dir", str(tmp / "hostkeys"), "--log-level", "warning"],
        cwd=str(ROOT), env=env,
    )  # fmt: skip
    try:
        link = HubLink(sock, 0)
        await link.start()
        pushes: list[Any] = []
        for nick in ("가", "나"):
            link.call("session_connected", nick)
        room = link.call("create_room", "가", "bench", {}, False, True)["id"]
        link.call("join", room, "나", None)
        for nick in ("가", "나"):
            link.call("subscribe_room", link.add_sub(pushes.append), room, nick)
        link.call("start", room, "가")
        queries, acts = [], []
        refusals = 0
        for _ in range(calls):
            t = time.perf_counter()
            link.call("room_of", "가")
            queries.append(time.perf_counter() - t)
        for _ in range(calls):
            update = pushes[-1]
            view = update["view"] or {}
            acted = False
            for nick in ("가", "나"):
                mine = next((p for p in reversed(pushes) if p["viewer"] == nick), update)
                legal = (mine["view"] or {}).get("legalActions") or []
                if not legal:
                    continue
                kinds = [a["type"] for a in legal]
                kind = next(
                    (k for k in ("check", "call", "ready", "rebuy") if k in kinds), kinds[0]
                )
                action = {"type": kind, **({"accept": True} if kind == "rebuy" else {})}
                t = time.perf_counter()
                refused = link.call("act", room, nick, dict(action))
                acts.append(time.perf_counter() - t)
                refusals += refused is not None
                acted = True
                break
            if not acted:
                if view.get("finished") or update["room"]["status"] == "finished":
                    link.call("start", room, "가")
                else:
                    await asyncio.sleep(0.05)
        print(line("room_of (memory)", queries))
        print(line("act (engine + journal + pushes)", acts), f"({refusals} refused)")
        link.close()
    finally:
        hub.terminate()
        hub.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    asyncio.run(run(ap.parse_args().calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
