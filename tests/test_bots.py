"""Bots: always legal, deterministic, and blind to everything outside their own view."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options
from seotda_tui.rooms.bots import LEVELS, decide, hand_equity

from .gamekit import random_options


def play(seed: int, options: Options, levels: dict[str, str]) -> Game:
    game = Game.new(options, list(levels), seed)
    steps = 0
    while not game.finished:
        steps += 1
        assert steps < 50000
        acted = False
        for pid in game.pending()["players"]:
            action = decide(levels[pid], game.view(pid), options, seed)
            if action is not None:
                game.apply(pid, action)  # an illegal choice would raise IllegalAction here
                acted = True
                break
        if not acted:
            game.timeout()
    return game


@pytest.mark.parametrize("seed", range(40))
def test_bots_play_whole_games_legally_under_random_options(seed: int) -> None:
    rng = random.Random(seed)
    options = random_options(rng).replace(hand_limit=10, end_condition="hands")
    n = rng.randint(2, options.max_players)
    levels = {f"bot{i}": rng.choice(list(LEVELS)) for i in range(n)}
    game = play(seed, options, levels)
    assert game.result() is not None


def test_bot_games_are_deterministic_and_replay() -> None:
    options = Options(hand_limit=10)
    levels = {"a": "strong", "b": "cautious", "c": "random"}
    first = play(9, options, levels)
    second = play(9, options, levels)
    assert first.state_hash() == second.state_hash()


def test_bot_decision_depends_only_on_its_own_view() -> None:
    """Two games that differ only in an opponent's hidden cards give the same view and choice."""
    options = Options(deal_mode="oneRound")
    for seed in range(30):
        game = Game.new(options, ["me", "x", "y"], seed)
        twin = Game.from_dict(game.to_dict())
        hand = twin.state.hand
        mine = set(hand.players["me"].hand)
        others = [c for c in range(20) if c not in mine]
        random.Random(seed).shuffle(others)
        hand.players["x"].hand = others[:2]
        hand.players["y"].hand = others[2:4]
        assert game.view("me") == twin.view("me")
        for level in LEVELS:
            assert decide(level, game.view("me"), options, 1) == decide(
                level, twin.view("me"), options, 1
            )


def test_strong_bot_picks_the_best_pair_in_three_card_mode() -> None:
    options = Options(card_mode="three")
    game = Game.new(options, ["me", "x"], 2)
    game.state.hand.players["me"].hand = [0, 14]  # 1광, 8광
    game.state.hand.players["x"].hand = [3, 5]
    for pid in list(game.state.hand.participants):
        game.apply(pid, {"type": "check"})
    game.state.hand.players["me"].hand = [0, 14, 6]  # + 4월 열끗
    game.state.hand.players["x"].hand = [3, 5, 7]
    assert decide("strong", game.view("me"), options) == {"type": "choose", "cardIds": [0, 14]}


def test_equity_orders_hands_sensibly() -> None:
    options = Options()
    assert hand_equity([4, 14], options) > 0.99  # 38광땡
    assert (
        hand_equity([18, 19], options)
        > hand_equity([1, 3], options)
        > hand_equity([11, 15], options)
    )
    assert 0.0 < hand_equity([19], options) < 1.0
