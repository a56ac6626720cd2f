"""Bot strength: seeded games between bot levels through their own views; prints win rates.

``python bench/bots_bench.py [games]`` — each game seats one bot of each level (plus a second
cautious and random bot for six seats), default options, 20 hands; the winner is rank 1.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game, Options  # noqa: E402
from seotda_tui.rooms.bots import decide  # noqa: E402

SEATS = {"strong": "strong", "cautious": "cautious", "random": "random"}


def play(seed: int, seats: dict[str, str], options: Options) -> dict[str, int]:
    game = Game.new(options, list(seats), seed)
    while not game.finished:
        pending = game.pending()
        acted = False
        for pid in pending["players"]:
            action = decide(seats[pid], game.view(pid), options, seed)
            if action is not None:
                game.apply(pid, action)
                acted = True
                break
        if not acted:
            game.timeout()
    result = game.result()
    assert result is not None
    return {row["playerId"]: row["score"] for row in result["ranking"]}


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    options = Options()
    for label, seats in (
        ("heads-up strong vs cautious", {"strong": "strong", "cautious": "cautious"}),
        ("heads-up strong vs random", {"strong": "strong", "random": "random"}),
        ("heads-up cautious vs random", {"cautious": "cautious", "random": "random"}),
        ("3-way", SEATS),
    ):
        wins: Counter[str] = Counter()
        chips: Counter[str] = Counter()
        for seed in range(games):
            scores = play(seed, seats, options)
            best = max(scores.values())
            for pid, score in scores.items():
                chips[pid] += score - options.starting_chips
                if score == best:
                    wins[pid] += 1
        row = "  ".join(
            f"{pid}: {wins[pid] / games:5.1%} wins, {chips[pid] / games:+7.1f} chips/game"
            for pid in seats
        )
        print(f"{label:30} {row}")


if __name__ == "__main__":
    main()
