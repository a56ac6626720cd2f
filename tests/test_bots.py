"""Bots: always legal, deterministic, and blind to everything outside their own view."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import Game, Options
from engine.dealing import StackedDeck
from engine.types import View
from seotda_tui.rooms.bots import LEVELS, decide, hand_equity

from .gamekit import held, random_options


def seen(game: Game, pid: str) -> View:
    """``pid``'s view as a bot is handed it (``RoomUpdate.view``: the view as a plain dict)."""
    return game.view(pid)


def play(seed: int, options: Options, levels: dict[str, str]) -> Game:
    game = Game.new(options, list(levels), seed)
    steps = 0
    while not game.finished:
        steps += 1
        assert steps < 50000
        acted = False
        for pid in game.pending()["players"]:
            action = decide(levels[pid], seen(game, pid), options, seed)
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
    options = dataclasses.replace(random_options(rng), hand_limit=10, end_condition="hands")
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
        mine = held(game, "me")
        others = [c for c in range(20) if c not in mine]
        random.Random(seed).shuffle(others)
        deck = StackedDeck()
        deck.rig({"me": mine, "x": others[:2], "y": others[2:4]})
        twin = Game.new(options, ["me", "x", "y"], seed, deal=deck)
        assert held(twin, "x") == others[:2] and held(twin, "y") == others[2:4]
        assert game.view("me") == twin.view("me")
        for level in LEVELS:
            assert decide(level, seen(game, "me"), options, 1) == decide(
                level, seen(twin, "me"), options, 1
            )


def test_strong_bot_picks_the_best_pair_in_three_card_mode() -> None:
    options = Options(card_mode="three")
    deck = StackedDeck()
    deck.rig({"me": [0, 14, 6], "x": [3, 5, 7]})  # 1광, 8광, then 4월 열끗
    game = Game.new(options, ["me", "x"], 2, deal=deck)
    while (actor := game.view(None).get("actor")) is not None:
        game.apply(actor, {"type": "check"})
    assert held(game, "me") == [0, 14, 6]
    assert decide("strong", seen(game, "me"), options) == {"type": "choose", "cardIds": [0, 14]}


def test_equity_orders_hands_sensibly() -> None:
    options = Options()
    assert hand_equity([4, 14], options) > 0.99  # 38광땡
    assert (
        hand_equity([18, 19], options)
        > hand_equity([1, 3], options)
        > hand_equity([11, 15], options)
    )
    assert 0.0 < hand_equity([19], options) < 1.0


@pytest.mark.parametrize("level", ["cautious", "strong"])
def test_a_bot_fires_a_losing_gusa_and_keeps_a_winning_one(level: str) -> None:
    """Issue 36 구사 선택권: a bot's 구사 that would lose fires (a rematch beats a sure loss); one
    that already wins (gusaWhenWinning=rematch) is declined, and the bot takes the pot."""
    for other, when, fires in (([0, 2], "win", True), ([9, 13], "rematch", False)):
        options = Options(deal_mode="oneRound", gusa_choice=True, gusa_when_winning=when)
        deck = StackedDeck()
        deck.rig({"me": [7, 16], "x": other})  # 구사 (4띠 + 9열) vs 알리, or vs 2끗 (5띠 + 7띠)
        game = Game.new(options, ["me", "x"], 2, deal=deck)
        while (actor := game.view(None).get("actor")) is not None:
            game.apply(actor, {"type": "check"})
        assert game.pending()["players"] == ["me"]
        action = decide(level, seen(game, "me"), options, 1)
        assert action == {"type": "gusaChoice", "accept": fires}
        events = game.apply("me", action)
        assert any(e["type"] == "rematch" for e in events) == fires
        if not fires:
            assert [e["player"] for e in events if e["type"] == "payout"] == ["me"]
