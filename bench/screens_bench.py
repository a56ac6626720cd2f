"""CPU and memory of opening and closing screens, in-process through Textual's pilot.

Why: every session shares one process and event loop, so what an open costs, and what a
closed screen leaves behind, is paid server-wide. For each screen: the mean CPU time
(``time.process_time``) of an open (the key until the pilot settles) over ``--cycles``
opens after a warm-up, and the bytes that those cycles allocated and still hold
(``tracemalloc``, started after the warm-up, after a collection), per cycle.

    .venv/bin/python bench/screens_bench.py --cycles 20
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import tracemalloc
from types import SimpleNamespace

from textual.pilot import Pilot

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table
from seotda_tui.ui.app import make_app_factory

SIZE = (100, 30)
WARM_UP = 5


async def measure(
    name: str, pilot: Pilot[None], open_keys: str, close_keys: str, cycles: int
) -> None:
    async def press(keys: str) -> None:
        for key in keys.split():
            await pilot.press(key)
        await pilot.pause()

    async def run(n: int) -> float:
        spent = 0.0
        for _ in range(n):
            start = time.process_time()
            await press(open_keys)
            spent += time.process_time() - start
            await press(close_keys)
        return spent / n

    await run(WARM_UP)
    cpu = await run(cycles)
    gc.collect()
    tracemalloc.start(1)
    await run(cycles)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"{name:28} open {cpu * 1000:6.0f} ms CPU   held {held / cycles / 1024:7.1f} KiB per cycle"
    )


async def main(cycles: int) -> None:
    manager = RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    app = make_app_factory(manager)(SimpleNamespace(nickname="a"), None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await measure("new-room form (n, Esc)", pilot, "n", "escape", cycles)
        await measure("lobby chat (t, Esc)", pilot, "t", "escape", cycles)
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        await measure("help at a table (F1, Esc)", t.pilot("a"), "f1", "escape", cycles)
        await measure("leave question (q, n)", t.pilot("a"), "q", "n", cycles)
    async with Table.open(["a", "b"], seed=3, size=SIZE, start=False) as t:
        await measure("leave room, rejoin (q, Enter)", t.pilot("b"), "q", "enter", cycles)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cycles", type=int, default=20)
    asyncio.run(main(parser.parse_args().cycles))
