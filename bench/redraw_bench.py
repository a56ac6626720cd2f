"""CPU of one table redraw (the hot path: every push to every session at the table).

Why: each push redraws the table screen of every session watching the room, in the one shared
process. For each size and card mode, a five-player table one action into its first hand: the
mean CPU time (``time.process_time``) of ``REDRAWS`` redraws that alternate between the update
before and after that action (so the widgets really change), with and without the frame each
one paints (the pilot's pause), after a warm-up.

    .venv/bin/python bench/redraw_bench.py
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from engine import Options
from seotda_tui.testing import Table

PLAYERS = ["영희", "철수", "민수", "지영", "동수"]
WARM_UP = 20


def _redraw(screen: Any) -> None:
    screen._redraw()  # (the same name before and after issue 34's presenter)


async def measure(size: tuple[int, int], mode: str, redraws: int) -> None:
    async with Table.open(PLAYERS, options=Options(card_mode=mode), seed=3, size=size) as t:
        actor = t.actor
        assert actor is not None
        watcher = next(p for p in PLAYERS if p != actor)
        screen = t.screen(watcher)
        before = screen.latest
        await t.act(
            actor,
            {
                "type": next(
                    a["type"] for a in t.legal(actor) if a["type"] in ("call", "check", "bbing")
                )
            },
        )
        after = screen.latest
        updates = [before, after]
        for _ in range(WARM_UP):
            screen.latest = updates[_ % 2]
            _redraw(screen)
            await t.settle()
        start = time.process_time()
        for i in range(redraws):
            screen.latest = updates[i % 2]
            _redraw(screen)
        bare = (time.process_time() - start) / redraws
        start = time.process_time()
        for i in range(redraws):
            screen.latest = updates[i % 2]
            _redraw(screen)
            await t.pilot(watcher).pause()
        painted = (time.process_time() - start) / redraws
        print(
            f"{size[0]}x{size[1]} {mode:5} redraw {bare * 1e6:7.0f} µs CPU"
            f"   redraw+paint {painted * 1e3:6.2f} ms CPU"
        )


async def main(redraws: int) -> None:
    for size in ((80, 24), (100, 30), (200, 60)):
        for mode in ("two", "three"):
            await measure(size, mode, redraws)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redraws", type=int, default=200)
    asyncio.run(main(parser.parse_args().redraws))
