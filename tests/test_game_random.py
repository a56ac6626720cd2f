"""§10 properties over many random games: conservation, secrecy, replay, round-trip, termination."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import Game, IllegalAction

from .gamekit import (
    ILLEGAL_SAMPLES,
    hidden_ids_of_others,
    leaks,
    random_action,
    random_options,
    total_chips,
)
from .tiers import sized

# games: make test's 100 ~9 s of CPU (200 had grown to ~20 s as the options and modes grew), make
# soak's 1,000
SEEDS = sized(100, 1000)
MAX_STEPS = 20000


def _play(seed: int, check_every: int) -> None:
    rng = random.Random(seed)
    options = random_options(rng)
    n = rng.randint(2, options.max_players)
    ids = [f"p{i}" for i in range(n)]
    game = Game.new(options, ids, seed)
    log: list[tuple[str | None, dict[str, Any]]] = []
    events_seen = list(game.last_events)
    shared_checked = False  # once per game at a hand end with a showdown, besides every 500 steps
    for step in range(MAX_STEPS):
        if game.finished:
            break
        if rng.random() < 0.06:  # a random (mostly illegal) action changes nothing when refused
            pid = rng.choice(ids + ["stranger"])
            bad = rng.choice(ILLEGAL_SAMPLES)
            before = game.state_hash()
            try:
                events = game.apply(pid, bad)
            except IllegalAction as exc:
                assert str(exc)
                assert game.state_hash() == before
            else:
                log.append((pid, bad))
                events_seen += events
        if rng.random() < 0.01:
            pid = rng.choice(ids)
            kind = rng.choice(
                ["disconnect", "reconnect", "leave"]
                if rng.random() < 0.2
                else ["disconnect", "reconnect"]
            )
            try:
                events_seen += game.apply(pid, {"type": kind})
                log.append((pid, {"type": kind}))
            except IllegalAction:
                pass
        if game.finished:
            break
        move = random_action(game, rng)
        if move is None:
            events = game.timeout()
            log.append((None, {}))
        else:
            events = game.apply(*move)
            log.append(move)
        events_seen += events
        assert game.chips_in_play() == total_chips(game)
        assert all(game.stack(p) >= 0 for p in ids)
        if step % check_every == 0 or game.finished:
            for viewer in ids + [None]:
                secret = hidden_ids_of_others(game, viewer)
                assert not leaks(game.view(viewer), secret), (seed, step, viewer)
                assert not leaks(events, secret)
            json.dumps(game.view(ids[0]))
        showdown_seen = game.pending()["phase"] == "handEnd" and bool(
            game.view(None).get("showdown")
        )
        if step % 500 == 0 or game.finished or (showdown_seen and not shared_checked):
            _check_views_share_nothing(game, ids[:2] + [None])
            shared_checked = shared_checked or showdown_seen
    assert game.finished, f"seed {seed} did not finish"
    result = game.result()
    assert result is not None and len(result["ranking"]) == n
    # Replay from the log reproduces the state exactly; to_dict round-trips.
    replayed = Game.replay(options, ids, seed, log)
    assert replayed.state_hash() == game.state_hash()
    clone = Game.from_dict(game.to_dict())
    assert clone.state_hash() == game.state_hash()


def _wreck(value: Any) -> None:
    """Empty every dict and list inside ``value`` (as a careless screen could)."""
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list)):
        for child in list(children):
            _wreck(child)
        value.clear()


def _check_views_share_nothing(game: Game, viewers: list[str | None]) -> None:
    """The room manager hands views to screens without copying them: wrecking one must not
    change the state, a later view, or another viewer's view."""
    before = game.state_hash()
    views = {viewer: game.view(viewer) for viewer in viewers}
    expected = copy.deepcopy(views)
    for n, viewer in enumerate(viewers):
        _wreck(views[viewer])
        assert game.state_hash() == before
        assert game.view(viewer) == expected[viewer]
        assert all(views[v] == expected[v] for v in viewers[n + 1 :])


@pytest.mark.parametrize("block", range(10))
def test_random_games_keep_every_invariant(block: int) -> None:
    for seed in range(block * SEEDS // 10, (block + 1) * SEEDS // 10):
        _play(seed, check_every=20)


def test_round_trip_mid_game_continues_identically() -> None:
    rng = random.Random(5)
    options = random_options(rng)
    game = Game.new(options, ["a", "b", "c", "d"], "mid")
    for _ in range(60):
        move = random_action(game, rng)
        game.timeout() if move is None else game.apply(*move)
    clone = Game.from_dict(game.to_dict())
    for _ in range(200):
        if game.finished:
            break
        move = random_action(game, rng)
        if move is None:
            assert game.timeout() == clone.timeout()
        else:
            assert game.apply(*move) == clone.apply(*move)
        assert clone.state_hash() == game.state_hash()
