"""The game state's saved form (``Game.to_dict``, engine/state.py's ``Saved*`` TypedDicts): the
same keys in the same order as the dataclasses, nothing shared with the live state, and an
older snapshot missing a defaulted field still loads (with the default)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any, NotRequired, get_origin, get_type_hints

from engine import Game
from engine.pots import Pot
from engine.state import (
    GameState,
    Hand,
    RoundPlayer,
    SavedGame,
    SavedHand,
    SavedPot,
    SavedRoundPlayer,
    SavedSeat,
    Seat,
)

from .gamekit import random_action, random_options

SAVED = [
    (Seat, SavedSeat),
    (RoundPlayer, SavedRoundPlayer),
    (Pot, SavedPot),
    (Hand, SavedHand),
    (GameState, SavedGame),
]


def _field_names(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _defaulted(cls: type) -> set[str]:
    missing = dataclasses.MISSING
    return {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is not missing or f.default_factory is not missing
    }


def _optional(saved: type) -> set[str]:
    """The NotRequired keys (``__optional_keys__`` misses them on 3.11 with postponed
    annotations)."""
    hints = get_type_hints(saved, include_extras=True)
    return {key for key, hint in hints.items() if get_origin(hint) is NotRequired}


def test_each_saved_typeddict_has_its_dataclass_fields():
    for cls, saved in SAVED:
        assert set(get_type_hints(saved)) == set(_field_names(cls)), cls.__name__
        # a key may be missing only where the field has a default (the loader fills it in)
        assert _optional(saved) <= _defaulted(cls), cls.__name__
    assert "shares" in _optional(SavedPot)  # (the helper sees them)


def _games(n: int, steps: int):
    """Games part-way through (every few steps), with pots, rematches and results in them."""
    for seed in range(n):
        rng = random.Random(seed)
        options = random_options(rng)
        ids = [f"p{i}" for i in range(rng.randint(2, options.max_players))]
        game = Game.new(options, ids, seed)
        for step in range(steps):
            if game.finished:
                break
            move = random_action(game, rng)
            game.timeout() if move is None else game.apply(*move)
            if step % 9 == 0:
                yield game
        yield game


def _check_order(plain: Any, cls: type) -> None:
    assert list(plain) == _field_names(cls), cls.__name__


def test_snapshots_keep_the_field_order():
    """The old reflective writer wrote each dataclass's fields in order: so does the typed one."""
    seen = set()
    for game in _games(12, 200):
        plain: Any = game.to_dict()
        _check_order(plain, GameState)
        for seat in plain["seats"]:
            _check_order(seat, Seat)
        hand = plain["hand"]
        if hand is None:
            continue
        _check_order(hand, Hand)
        for player in hand["players"].values():
            _check_order(player, RoundPlayer)
        for pot in hand["carried_pots"] + hand["rematch_pots"]:
            _check_order(pot, Pot)
            seen.add("pot")
        seen.add("hand")
    assert seen == {"hand", "pot"}


def _wreck(value: Any) -> None:
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list)):
        for child in list(children):
            _wreck(child)
        value.clear()


def test_a_snapshot_shares_nothing_with_the_state():
    for game in _games(8, 300):
        before = json.dumps(game.to_dict())
        _wreck(game.to_dict())
        assert json.dumps(game.to_dict()) == before


def _strip_optional(plain: Any) -> None:
    """Remove every key a snapshot may lack (as one written before those fields existed)."""
    for key in _optional(SavedGame):
        plain.pop(key)
    for seat in plain["seats"]:
        for key in _optional(SavedSeat):
            seat.pop(key)
    hand = plain["hand"]
    if hand is not None:
        for key in _optional(SavedHand):
            hand.pop(key)
        for player in hand["players"].values():
            for key in _optional(SavedRoundPlayer):
                player.pop(key)
        for pot in hand["carried_pots"] + hand["rematch_pots"]:
            for key in _optional(SavedPot):
                pot.pop(key)


def test_an_older_snapshot_without_defaulted_keys_loads_with_the_defaults():
    game = next(g for g in _games(4, 40) if g.state.hand and g.state.hand.players)
    plain: Any = game.to_dict()
    _strip_optional(plain)
    loaded = Game.from_dict(plain).state
    assert loaded.seats == [Seat(s.id, s.seat, s.stack) for s in game.state.seats]
    hand = game.state.hand
    assert loaded.hand == Hand(
        hand.hand_no,
        hand.dealer_seat,
        players={pid: RoundPlayer(pid) for pid in hand.players},
        carried_pots=[Pot(p.amount) for p in hand.carried_pots],
        rematch_pots=[Pot(p.amount) for p in hand.rematch_pots],
    )
    assert loaded.phase == "playing" and loaded.joining == [] and loaded.result is None
