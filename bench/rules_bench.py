"""Rules-core throughput: ``evaluate`` calls/s and 6-player ``resolve`` calls/s on one core.

Inputs are random deals from a seeded ``random.Random``, prepared before the timed loops, so the
figures measure the engine only. Not a test: it prints figures and the issue's targets.

    .venv/bin/python bench/rules_bench.py [--seed N] [--repeat N] [--profile]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time

from engine import DECK, Options, evaluate, resolve

EVALUATE_TARGET = 2_000_000
RESOLVE_TARGET = 200_000
N_PAIRS = 200_000
N_SHOWDOWNS = 50_000
PLAYERS = tuple(f"p{i}" for i in range(6))


def pin_to_one_core() -> str:
    """Run on a single CPU where the OS allows it (Python is single-threaded anyway)."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def make_pairs(rng: random.Random, n: int):
    return [tuple(rng.sample(DECK, 2)) for _ in range(n)]


def make_showdowns(rng: random.Random, n: int):
    showdowns = []
    for _ in range(n):
        cards = rng.sample(DECK, 12)
        showdowns.append({p: (cards[2 * i], cards[2 * i + 1]) for i, p in enumerate(PLAYERS)})
    return showdowns


def time_evaluate(pairs, options: Options) -> float:
    start = time.perf_counter()
    for a, b in pairs:
        evaluate(a, b, options)
    return len(pairs) / (time.perf_counter() - start)


def time_resolve(showdowns, options: Options) -> float:
    start = time.perf_counter()
    for hands in showdowns:
        resolve(hands, options)
    return len(showdowns) / (time.perf_counter() - start)


def measure(label: str, fn, data, options: Options, repeat: int, target: int) -> None:
    fn(data[:1000], options)  # warm-up: builds and caches the hand table
    rates = []
    for _ in range(repeat):
        gc.collect()
        rates.append(fn(data, options))
    best, median = max(rates), statistics.median(rates)
    verdict = "OK" if median >= target else "BELOW TARGET"
    print(
        f"{label:<22} best {best:>12,.0f}/s   median {median:>12,.0f}/s   "
        f"target {target:>10,}/s   {verdict}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile the resolve loop")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {pin_to_one_core()}, seed {args.seed}")
    rng = random.Random(args.seed)
    pairs = make_pairs(rng, N_PAIRS)
    showdowns = make_showdowns(rng, N_SHOWDOWNS)

    for name, options in (
        ("default rules", Options()),
        (
            "loose/upToJang/split",
            Options(ttaengjabi="loose", mung_gusa="upToJang", tie_rule="split"),
        ),
    ):
        print(f"-- {name}")
        measure("evaluate", time_evaluate, pairs, options, args.repeat, EVALUATE_TARGET)
        measure(
            "resolve (6 players)", time_resolve, showdowns, options, args.repeat, RESOLVE_TARGET
        )

    if args.profile:
        import cProfile
        import pstats

        options = Options()
        profiler = cProfile.Profile()
        profiler.runcall(time_resolve, showdowns, options)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
