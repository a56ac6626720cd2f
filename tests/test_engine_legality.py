"""One legality source: over many seeded states in every phase and option set, every action
``legal_actions`` lists is accepted, and every other one is refused with a reason and no change.

The candidate actions at a state are every kind for every seated player and a stranger: the eight
bets, ``choose`` with each pair of the own cards and with a card not held, both answers to rejoin,
rebuy and the 구사 choice (issue 36), ready, and the three system events (accepted exactly when their ``check_*`` passes).
Betting amounts are the engine's own (a client never sends one): they are checked against the
chips each accepted action moved, and at and around the stack/to-call bounds in ``betting``.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, IllegalAction, Options
from engine.betting import BET_ACTIONS, RAISES, BetContext, check
from engine.betting import legal_actions as bet_legal_actions
from engine.dealing import DealRequest, StackedDeck
from engine.types import LegalAction

from .gamekit import random_action, random_options

PLAYER_KINDS = (
    *BET_ACTIONS,
    "choose",
    "pickShared",
    "draw",
    "rejoin",
    "rebuy",
    "gusaChoice",
    "ready",
)
SYSTEM_KINDS = ("leave", "disconnect", "reconnect", "join")

#: Option sets that force each phase to come up often (small stacks: all-ins and busts).
FAMILIES: dict[str, dict[str, Any]] = {
    "two-card": dict(starting_chips=500, base_unit=20, max_raise="full"),
    "two-rounds": dict(deal_mode="twoRounds", starting_chips=500, base_unit=20),
    "three-card": dict(card_mode="three", starting_chips=500, base_unit=20, tie_rule="rematch"),
    # issue 36 인디언 섯다: the two-rounds flow, other views (it shares two-rounds' game budget)
    "indian": dict(card_mode="indian", starting_chips=500, base_unit=20),
    # issue 36 한장공유: the 선 picks the shared card (one of the one-round family's games)
    "shared": dict(card_mode="shared", starting_chips=500, base_unit=20),
    # issue 36 후회의 섯다: draw, choose two of four (sharing three-card's game budget)
    "regret": dict(card_mode="regret", starting_chips=500, base_unit=20),
    # (issue 36: the 구사 dealt here is also chosen, and 땡값 is paid by who died)
    "rejoin": dict(
        deal_mode="oneRound",
        rejoin_cost="half",
        starting_chips=500,
        base_unit=20,
        gusa_choice=True,
        ttaeng_value="double",
    ),
    "rebuy": dict(starting_chips=500, base_unit=20, rebuy="limited", rebuy_limit=2),
    "rebuy-unlimited-hands": dict(
        starting_chips=500, base_unit=20, rebuy="unlimited", end_condition="hands", hand_limit=10
    ),
}
#: Phases each family must have been checked in (``pending()["phase"]``).
MUST_SEE: dict[str, set[str]] = {
    "two-card": {"betting", "handEnd"},
    "two-rounds": {"betting", "handEnd"},
    "three-card": {"betting", "choose", "handEnd"},
    "indian": {"betting", "handEnd"},
    "shared": {"pickShared", "betting", "handEnd"},
    "regret": {"draw", "choose", "betting", "handEnd"},
    "rejoin": {"betting", "handEnd", "rejoin", "gusaChoice"},
    "rebuy": {"betting", "handEnd", "rebuy", "finished"},
    "rebuy-unlimited-hands": {"betting", "handEnd", "rebuy", "finished"},
}
GAMES = 6
#: Families that share a budget play fewer games (the variants add no time to the suite).
GAMES_OF = {"two-rounds": 3, "indian": 3, "two-card": 4, "shared": 2, "three-card": 4, "regret": 2}
CHECK_EVERY = 5
#: A 구사 (4+9) for the first player and weak hands for the rest: a rematch others may rejoin.
GUSA_TABLE = ([7, 17], [0, 3], [9, 13], [11, 19], [1, 5])


def _plain(game: Game) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


def _own_cards(game: Game, pid: str) -> list[int]:
    """The player's cards as their own view shows them (public API, no state reads)."""
    for seat in game.view(pid)["seats"]:
        if seat["id"] == pid:
            return [c["id"] for c in seat.get("cards", []) if "hidden" not in c]
    return []


def _candidates(game: Game, pid: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [{"type": kind} for kind in BET_ACTIONS]
    own = _own_cards(game, pid)
    pairs = [list(p) for p in itertools.combinations(own, 2)]
    stranger = next(c for c in range(20) if c not in own)
    pairs.append([own[0] if own else (stranger + 1) % 20, stranger])
    actions += [{"type": "choose", "cardIds": p} for p in pairs]
    actions += [{"type": "pickShared", "cardId": c} for c in (0, 7, 19)]  # issue 36 한장공유
    actions.append({"type": "draw"})  # issue 36 후회의 섯다
    answers = ("rejoin", "rebuy", "gusaChoice")
    actions += [{"type": k, "accept": a} for k in answers for a in (True, False)]
    actions.append({"type": "ready"})
    return actions


def _listing(
    legal: list[dict[str, Any]], action: dict[str, Any], own: list[int]
) -> dict[str, Any] | None:
    """The ``legal_actions`` entry that allows ``action`` (a choice: any two own cards)."""
    for entry in legal:
        if entry["type"] != action["type"]:
            continue
        if "accept" in entry and entry["accept"] != action.get("accept"):
            continue
        if action["type"] == "choose" and not all(i in own for i in action["cardIds"]):
            return None
        return entry
    return None


def _check_for(game: Game, pid: str, action: dict[str, Any]) -> Any:
    kind = action["type"]
    if kind in BET_ACTIONS:
        return game.check_bet(pid, kind)
    if kind == "choose":
        return game.check_choose(pid, action["cardIds"])
    if kind == "pickShared":
        return game.check_pick_shared(pid, action["cardId"])
    if kind in ("rejoin", "rebuy"):
        return getattr(game, f"check_{kind}")(pid, action["accept"])
    if kind == "gusaChoice":
        return game.check_gusa_choice(pid, action["accept"])
    return getattr(game, f"check_{kind}")(pid)


def _chips_moved(events: list[Any], pid: str, kind: str) -> int | None:
    if kind == "die":  # a fold moves no chips
        return 0 if any(e["type"] == "fold" and e["player"] == pid for e in events) else None
    wanted = "bet" if kind in BET_ACTIONS else kind
    for e in events:
        if e["type"] == wanted and e.get("player") == pid:
            return int(e["amount"])
    return None


def _check_state(game: Game, stats: dict[str, set[str]]) -> None:
    before = _plain(game)
    snapshot = game.to_dict()
    stats["phases"].add(game.pending()["phase"])
    for pid in [*game.players, "stranger"]:
        legal = [dict(a) for a in game.legal_actions(pid)]
        assert all(a["type"] in PLAYER_KINDS for a in legal)
        own = _own_cards(game, pid) if pid != "stranger" else []
        for action in _candidates(game, pid):
            entry = _listing(legal, action, own)
            expected = entry is not None
            verdict = _check_for(game, pid, action)
            assert (verdict is None) == expected, (pid, action, legal, verdict)
            if not expected:
                with pytest.raises(IllegalAction) as info:
                    game.apply(pid, action)
                assert str(info.value) and info.value.code == verdict.code, action
                assert str(info.value) == verdict.message
                assert _plain(game) == before, f"refused {action} changed the state"
                stats["refused"].add(info.value.code)
                continue
            assert entry is not None
            trial = Game.from_dict(snapshot)
            stack = next(s["stack"] for s in trial.view(pid)["seats"] if s["id"] == pid)
            events = trial.act(pid, action)
            assert events, action
            stats["accepted"].add(action["type"])
            if action["type"] in BET_ACTIONS or action["type"] == "rejoin":
                assert _chips_moved(events, pid, action["type"]) == entry["amount"], action
                assert 0 <= entry["amount"] <= stack
            if "allIn" in entry:
                assert entry["allIn"] == (entry["amount"] > 0 and entry["amount"] == stack)
            # amounts come from the engine only: a client's amount, near or at the real one, is refused
            for delta in (-1, 0, 1):
                with pytest.raises(IllegalAction) as info:
                    game.apply(pid, {**action, "amount": entry["amount"] + delta})
                assert info.value.code == "extraField"
        for kind in SYSTEM_KINDS:  # a system event: accepted exactly when its check passes
            verdict = getattr(game, f"check_{kind}")(pid)
            with pytest.raises(IllegalAction) as info:
                game.act(pid, {"type": kind})  # never a player's own action
            assert info.value.code == "systemOnly"
            if verdict is not None:
                with pytest.raises(IllegalAction) as info:
                    getattr(game, kind)(pid)
                assert info.value.refusal == verdict
            else:
                trial = Game.from_dict(snapshot)
                assert trial.apply(pid, {"type": kind})
        assert _plain(game) == before


def _walk(
    options: Options,
    seed: int,
    stats: dict[str, set[str]],
    max_steps: int = 4000,
    gusa: bool = False,
) -> None:
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(rng.randint(3 if gusa else 2, min(5, options.max_players)))]

    def gusa_deals(request: DealRequest) -> list[int]:
        """Half the hands: the 구사 table's cards to the players dealt in, in deal order."""
        stacked = StackedDeck()
        fresh = request.rematch_no == 0 and not any(request.held.values())
        if fresh and rng.random() < 0.5:
            stacked.rig(dict(zip(request.receivers, GUSA_TABLE)))
        return stacked(request)

    game = Game.new(options, ids, seed, deal=gusa_deals if gusa else None)
    for step in range(max_steps):
        short = ("rebuy", "rejoin", "gusaChoice", "finished")
        if step % CHECK_EVERY == 0 or game.pending()["phase"] in short:
            _check_state(game, stats)  # (the short answer phases and the end: every state)
        if game.finished:
            return
        if rng.random() < 0.01:  # the room manager's events now and then
            pid, kind = rng.choice(ids), rng.choice(["disconnect", "reconnect", "reconnect"])
            if getattr(game, f"check_{kind}")(pid) is None:
                getattr(game, kind)(pid)
            continue
        move = random_action(game, rng)
        if move is None:
            game.timeout()
        else:
            game.apply(*move)
    _check_state(game, stats)


def _new_stats() -> dict[str, set[str]]:
    return {"phases": set(), "refused": set(), "accepted": set()}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_listed_actions_accepted_others_refused(family: str) -> None:
    stats = _new_stats()
    options = Options(**FAMILIES[family])
    for seed in range(GAMES_OF.get(family, GAMES)):
        _walk(options, seed * 7919 + len(family), stats, gusa=family == "rejoin")
    missing = MUST_SEE[family] - stats["phases"]
    assert not missing, f"{family}: never checked in {missing}"
    assert {"notParticipant", "notYourTurn"} <= stats["refused"]


def test_random_option_sets() -> None:
    stats = _new_stats()
    rng = random.Random(17)
    for seed in range(15):
        _walk(random_options(rng), seed, stats, max_steps=300)
    assert {"betting", "handEnd"} <= stats["phases"]
    assert {"die", "ready"} <= stats["accepted"]


# ------------------------------------------------------------------ betting amounts at the bounds
@st.composite
def bet_contexts(draw: st.DrawFn) -> BetContext:
    base = draw(st.sampled_from([2, 10, 20, 50]))
    current = draw(st.integers(0, 400))
    committed = draw(st.integers(0, current))
    to_call = current - committed
    pot = draw(st.integers(0, 2000)) + current
    near = [1, base - 1, base, base + 1, to_call - 1, to_call, to_call + 1, 2 * to_call]
    # the game only asks a player with chips (an all-in player never acts)
    stack = draw(st.sampled_from([max(1, s) for s in near]) | st.integers(1, 3000))
    return BetContext(
        stack=stack,
        committed_round=committed,
        current_bet=current,
        opened=draw(st.booleans()) or current > 0,
        acted=draw(st.booleans()),
        pot=pot,
        base_unit=base,
        max_raise=draw(st.sampled_from(["half", "full"])),
    )


@settings(max_examples=400, deadline=None)
@given(bet_contexts())
def test_bet_amounts_at_the_bounds(ctx: BetContext) -> None:
    legal: dict[str, LegalAction] = {a["type"]: a for a in bet_legal_actions(ctx)}
    assert "die" in legal
    for kind in BET_ACTIONS:
        amount, refusal = check(kind, ctx)
        assert (kind in legal) == (refusal is None)
        if refusal is not None:
            assert refusal.message and amount == 0
            continue
        assert legal[kind]["amount"] == amount
        assert 0 <= amount <= ctx.stack
        assert legal[kind]["allIn"] == (amount > 0 and amount == ctx.stack)
        if kind == "call":
            assert amount == min(ctx.to_call, ctx.stack) > 0
        if kind in RAISES:
            assert ctx.stack > ctx.to_call  # a raise needs more than the call
            assert amount == ctx.stack or amount - ctx.to_call >= ctx.base_unit
    if ctx.stack <= ctx.to_call:
        assert not RAISES & legal.keys()
    if ctx.to_call > 0:
        assert "call" in legal
