"""The typed action methods (``Game.bet``, ``choose``, ``rejoin``, ``gusa_choice``, ``rebuy``,
``ready``) are thin wrappers over ``act``: the same events and state as the action dicts, the
same refusals."""

from __future__ import annotations

import random

import pytest

from engine import Game, IllegalAction, Options
from engine.betting import BET_KINDS
from engine.types import Event

from .gamekit import random_action, random_options


def _typed(game: Game, pid: str, action: dict[str, object]) -> list[Event]:
    """``action`` sent through its typed method."""
    kind = action["type"]
    if kind == "choose":
        ids = action["cardIds"]
        assert isinstance(ids, list)
        return game.choose(pid, ids)
    if kind == "pickShared":  # issue 36 한장공유
        card = action["cardId"]
        assert isinstance(card, int)
        return game.pick_shared(pid, card)
    if kind in ("rejoin", "rebuy", "gusaChoice"):
        accept = action["accept"]
        assert isinstance(accept, bool)
        if kind == "gusaChoice":  # issue 36
            return game.gusa_choice(pid, accept)
        return game.rejoin(pid, accept) if kind == "rejoin" else game.rebuy(pid, accept)
    if kind == "ready":
        return game.ready(pid)
    if kind == "draw":  # issue 36 후회의 섯다
        return game.draw(pid)
    return game.bet(pid, next(b for b in BET_KINDS if b == kind))


@pytest.mark.parametrize("seed", range(12))
def test_typed_methods_play_the_same_game_as_action_dicts(seed: int) -> None:
    rng = random.Random(seed)
    options = random_options(rng)
    players = [f"p{i}" for i in range(rng.randint(2, options.max_players))]
    by_dict = Game.new(options, players, seed)
    by_method = Game.new(options, players, seed)
    kinds: set[str] = set()
    for _ in range(400):
        if by_dict.finished:
            break
        step = random_action(by_dict, rng)
        if step is None:
            assert by_method.timeout() == by_dict.timeout()
            continue
        pid, action = step
        kinds.add(action["type"])
        assert _typed(by_method, pid, action) == by_dict.act(pid, action)
        assert by_method.state_hash() == by_dict.state_hash()
    assert by_method.to_dict() == by_dict.to_dict()
    assert len(kinds) >= 2  # (the game got past a single kind of move)


def test_a_typed_method_refuses_like_its_dict_and_changes_nothing() -> None:
    game = Game.new(Options(), ["a", "b", "c"], 3)
    idle = next(p for p in game.players if p not in game.pending()["players"])
    before = game.state_hash()
    with pytest.raises(IllegalAction) as typed:
        game.bet(idle, "call")
    with pytest.raises(IllegalAction) as plain:
        game.act(idle, {"type": "call"})
    assert (typed.value.code, str(typed.value)) == (plain.value.code, str(plain.value))
    assert typed.value.code == "notYourTurn"
    with pytest.raises(IllegalAction) as same:
        game.choose(idle, [4, 4])
    assert same.value.code == "sameCard"
    with pytest.raises(IllegalAction) as ready:
        game.ready(idle)
    assert ready.value.code == "notHandEnd"
    assert game.state_hash() == before
