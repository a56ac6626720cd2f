"""Engine throughput: random-play hands/s vs pokerkit's 6-max NLHE, and the cost of one view.

Prints figures, asserts nothing. ``make bench`` runs it (pokerkit comes from the ``bench`` extra).
Targets (issue "Engine game flow"): ≥10× pokerkit's hands/s, one 6-player view < 50 µs.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game, Options  # noqa: E402

PLAYERS = [f"p{i}" for i in range(6)]


def seotda_hands_per_second(seconds: float) -> tuple[float, int]:
    """Whole hands of default-option Seotda, random legal actions, no views."""
    rng = random.Random(7)
    options = Options(hand_limit=50)
    hands = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        game = Game.new(options, PLAYERS, seed)
        seed += 1
        while not game.finished:
            pending = game.pending()
            if pending["phase"] == "handEnd":
                game.timeout()
                continue
            pid = pending["players"][0]
            legal = game.legal_actions(pid)
            choice = legal[rng.randrange(len(legal))]
            action = {"type": choice["type"]}
            if "accept" in choice:
                action["accept"] = choice["accept"]
            game.apply(pid, action)
        hands += game.state.hands_played
    return hands / (time.perf_counter() - start), hands


def pokerkit_hands_per_second(seconds: float) -> tuple[float, int] | None:
    """6-max no-limit hold'em in pokerkit, random legal actions (fold/check-call/min-max raise)."""
    try:
        from pokerkit import Automation, NoLimitTexasHoldem
    except ImportError:
        return None
    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    rng = random.Random(7)
    hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = NoLimitTexasHoldem.create_state(automations, True, 0, (5, 10), 10, (1000,) * 6, 6)
        while state.status:
            r = rng.random()
            if r < 0.15 and state.can_fold():
                state.fold()
            elif r < 0.3 and state.can_complete_bet_or_raise_to():
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                state.complete_bet_or_raise_to(rng.randint(low, high))
            elif state.can_check_or_call():
                state.check_or_call()
            else:
                state.fold()
        hands += 1
    return hands / (time.perf_counter() - start), hands


def view_microseconds(repeats: int = 20000) -> float:
    """One player's view of a 6-player table mid-hand (second street, bets on the table)."""
    game = Game.new(Options(), PLAYERS, 11)
    for kind in ("ping", "call", "half", "call", "call", "call", "call"):
        pid = game.pending()["players"][0]
        legal = {a["type"] for a in game.legal_actions(pid)}
        game.apply(pid, {"type": kind if kind in legal else "call"})
    viewer = game.players[2]
    start = time.perf_counter()
    for _ in range(repeats):
        game.view(viewer)
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    seconds = float(os.environ.get("BENCH_SECONDS", "5"))
    seotda, seotda_hands = seotda_hands_per_second(seconds)
    print(f"seotda engine  : {seotda:10,.0f} hands/s  ({seotda_hands} hands, 6 players, defaults)")
    poker = pokerkit_hands_per_second(seconds)
    if poker is None:
        print("pokerkit       : not installed (pip install -e '.[bench]')")
    else:
        print(f"pokerkit NLHE  : {poker[0]:10,.0f} hands/s  ({poker[1]} hands, 6-max)")
        ratio = seotda / poker[0]
        print(
            f"ratio          : {ratio:10.1f}×   (target ≥ 10×) {'OK' if ratio >= 10 else 'BELOW'}"
        )
    micro = view_microseconds()
    print(
        f"view           : {micro:10.1f} µs per 6-player view  (target < 50 µs) {'OK' if micro < 50 else 'BELOW'}"
    )


if __name__ == "__main__":
    main()
