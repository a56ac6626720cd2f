"""Records and leaderboard queries with many recorded games (#18: under 10 ms at 100,000).

Fills a temporary ``records.sqlite3`` with ``--games`` finished games (2–6 seats from
``--players`` registered names, some seats guests or bots), then times each query the records
screens make (the own record, the last five games, both leaderboards) and the write of one more
game, as wall and CPU time per call (median and worst of ``--repeat``). Prints figures, asserts
nothing::

    .venv/bin/python bench/records_bench.py [--games 100000] [--players 2000] [--repeat 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from seotda_tui.rooms.records_db import GameRecord, PlayerResult, RecordStore  # noqa: E402


def a_game(rng: random.Random, n: int, names: list[str]) -> GameRecord:
    seats = rng.randint(2, 6)
    players = rng.sample(names, seats)
    places = {p: place for place, p in enumerate(players, 1)}
    guests = rng.randrange(0, seats)  # the last seats are guests or bots: not recorded
    hands = rng.randint(10, 50)
    results = []
    for p in players[: seats - guests]:
        history = [1000]
        for _ in range(hands):
            history.append(max(0, history[-1] + rng.randint(-200, 200)))
        results.append(
            PlayerResult(
                p, places[p], 1000, history[-1], rng.randrange(2), hands, rng.randrange(hands),
                rng.randrange(1000), "장땡", rng.randrange(2), rng.randrange(2), rng.randrange(3),
                tuple(history),
            )
        )  # fmt: skip
    return GameRecord(f"bench-{n}", 1e9 + n, hands, "hands", places, tuple(results))


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, float, float]:
    """(median wall, worst wall, median CPU, worst CPU) in milliseconds."""
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - w) * 1e3)
        cpus.append((time.process_time() - c) * 1e3)
    return statistics.median(walls), max(walls), statistics.median(cpus), max(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(18)
    names = [f"선수{i}" for i in range(args.players)]
    with tempfile.TemporaryDirectory() as tmp:
        store = RecordStore(Path(tmp) / "records.sqlite3")
        start = time.perf_counter()
        batch = 2000
        for first in range(0, args.games, batch):
            store.add_games(
                [a_game(rng, n, names) for n in range(first, min(first + batch, args.games))]
            )
        fill = time.perf_counter() - start
        size = (Path(tmp) / "records.sqlite3").stat().st_size / 2**20
        print(
            f"filled {store.game_count():,} games ({args.players:,} names) in {fill:.1f} s, {size:.0f} MiB"
        )
        someone = names[0]
        extra = iter(range(args.games, args.games + args.repeat))
        queries: list[tuple[str, Callable[[], object]]] = [
            ("own record (player)", lambda: store.player(someone)),
            ("last 5 games (recent)", lambda: store.recent(someone, 5)),
            ("rating leaderboard (top 5)", lambda: store.by_rating(5)),
            ("wins leaderboard (top 5)", lambda: store.by_wins(5)),
            ("the records screen (all four)", lambda: (store.player(someone), store.recent(someone, 5),
                                                       store.by_rating(5), store.by_wins(5))),
            ("write one more game", lambda: store.add_games([a_game(rng, next(extra), names)])),
        ]  # fmt: skip
        print(
            f"{'query':32} {'wall med':>9} {'wall max':>9} {'cpu med':>8} {'cpu max':>8}  (ms, target < 10)"
        )
        for label, fn in queries:
            wall, wall_max, cpu, cpu_max = timed(fn, args.repeat)
            print(f"{label:32} {wall:9.3f} {wall_max:9.3f} {cpu:8.3f} {cpu_max:8.3f}")
        store.close()


if __name__ == "__main__":
    main()
