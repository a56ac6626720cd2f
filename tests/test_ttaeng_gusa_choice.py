"""Issue 36's two rules from the spec's "later" list, played through the public API with rigged
decks (the deal hook): 땡값 (``ttaengValue``: who died pays a 땡/광땡 winner) and 구사 선택권
(``gusaChoice``: the 구사 holder decides whether it fires). docs/rules.md §5.5, §6.3, §6.5."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import Game, Options
from engine.dealing import StackedDeck

from .gamekit import act, must_fail, new_game, random_action, total_chips
from .test_showdown import ALI, GUSA, GWANG_38, JANG, MUNG_GUSA, TTAENG_5, TTAENGJABI, card

WEAK = ("2띠", "8일")  # 망통
WEAK_2 = ("6띠", "7띠")  # 3끗
KKUT_2 = ("5띠", "7띠")  # 2끗
KKUT_5_A = ("2열", "3띠")
KKUT_5_B = ("6열", "9띠")


def ids(pair: tuple[str, str]) -> list[int]:
    return [card(c).id for c in pair]


def stacks(game: Game) -> dict[str, int]:
    return {s["id"]: s["stack"] for s in game.view(None)["seats"]}


def of_type(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e["type"] == kind]


def c_dies(hands: dict[str, tuple[str, str]], **opts: Any) -> tuple[Game, list[Any]]:
    """One round (2장 한 번에): a pings, b calls, c dies; a and b show down."""
    cards = {p: ids(pair) for p, pair in hands.items()}
    game, (a, b, c) = new_game(3, 4, cards=cards, deal_mode="oneRound", **opts)
    act(game, a, "ping")
    act(game, b, "call")
    events = act(game, c, "die")
    assert game.view(None).get("handPhase") == "handEnd"
    return game, events


# ---------------------------------------------------------------- 땡값


@pytest.mark.parametrize(
    ("winner_hand", "value", "each"),
    [
        (TTAENG_5, "school", 10),  # 일땡~구땡: one school
        (TTAENG_5, "double", 20),
        (JANG, "school", 20),  # 장땡: two
        (GWANG_38, "school", 20),  # 광땡: two
        (GWANG_38, "double", 40),
    ],
)
def test_who_died_pays_the_ttaeng_winner_and_a_loser_at_the_showdown_does_not(
    winner_hand: tuple[str, str], value: str, each: int
) -> None:
    game, events = c_dies({"a": winner_hand, "b": ALI, "c": WEAK}, ttaeng_value=value)
    # school 10 each, a's ping 10 and b's call 10: pot 50; a nets 30 from it
    assert stacks(game) == {"a": 1030 + each, "b": 980, "c": 990 - each}
    (paid,) = of_type(events, "ttaengValue")
    name = game.view(None)["showdown"][0]["name"]  # (a shows first: the dealer)
    assert paid == {
        "type": "ttaengValue",
        "player": "c",
        "winner": "a",
        "amount": each,
        "name": name,
    }
    assert game.view("b")["ttaeng"] == {
        "winner": "a",
        "name": name,
        "each": each,
        "payments": [{"player": "c", "amount": each}],
    }
    assert game.chips_in_play() == total_chips(game)


def test_off_by_default_and_no_view_key() -> None:
    game, events = c_dies({"a": TTAENG_5, "b": ALI, "c": WEAK})
    assert not of_type(events, "ttaengValue")
    assert "ttaeng" not in game.view(None)
    assert stacks(game) == {"a": 1030, "b": 980, "c": 990}


def test_a_win_by_ttaengjabi_pays_none() -> None:
    game, events = c_dies({"a": TTAENGJABI, "b": TTAENG_5, "c": WEAK}, ttaeng_value="double")
    assert game.view(None)["results"][0]["reason"] == "ttaengjabi"
    assert not of_type(events, "ttaengValue") and "ttaeng" not in game.view(None)


def test_a_plain_win_pays_none() -> None:
    game, events = c_dies({"a": ALI, "b": WEAK_2, "c": WEAK}, ttaeng_value="double")
    assert not of_type(events, "ttaengValue")


def test_a_win_by_fold_shows_no_ttaeng_and_pays_none() -> None:
    cards = {"a": ids(JANG), "b": ids(ALI), "c": ids(WEAK)}
    game, (a, b, c) = new_game(3, 4, cards=cards, deal_mode="oneRound", ttaeng_value="double")
    act(game, a, "ping")
    act(game, b, "die")
    events = act(game, c, "die")
    assert of_type(events, "payout")[0]["reason"] == "fold"
    assert not of_type(events, "ttaengValue")


def test_a_payer_pays_at_most_what_they_hold() -> None:
    cards = {"a": ids(JANG), "b": ids(ALI), "c": ids(WEAK)}
    game, (a, b, c) = new_game(
        3, 4, cards=cards, stacks={"c": 25}, deal_mode="oneRound", ttaeng_value="double"
    )
    act(game, a, "ping")
    act(game, b, "call")
    events = act(game, c, "die")  # c holds 15 after the school; 장땡 doubled asks 40
    (paid,) = of_type(events, "ttaengValue")
    assert paid["amount"] == 15 and stacks(game)["c"] == 0
    assert stacks(game)["a"] == 1030 + 15
    assert game.chips_in_play() == 1000 + 1000 + 25
    game.timeout()  # everyone ready: c is busted (rebuy asked)
    assert game.view(None)["phase"] == "rebuy" and game.view(None)["rebuyPending"] == ["c"]


def test_nothing_is_paid_until_the_rematch_has_a_winner_and_the_original_dead_pay() -> None:
    deck = StackedDeck()
    deck.rig({"a": ids(KKUT_5_A), "b": ids(KKUT_5_B), "c": ids(WEAK)}, hand=1)  # a·b tie
    deck.rig({"a": ids(TTAENG_5), "b": ids(ALI)}, hand=1, rematch=1)
    game, (a, b, c) = new_game(3, 4, deck=deck, deal_mode="oneRound", ttaeng_value="school")
    act(game, a, "ping")
    act(game, b, "call")
    events = act(game, c, "die")
    assert game.view(None).get("rematchReason") == "tie"
    assert not of_type(events, "ttaengValue") and "ttaeng" not in game.view(None)
    events = game.timeout()  # ready: the rematch of a and b
    assert game.view(None).get("rematchNo") == 1
    act(game, a, "check")
    events = act(game, b, "check")
    (paid,) = of_type(events, "ttaengValue")
    assert (paid["player"], paid["winner"], paid["amount"]) == ("c", "a", 10)  # died before
    assert stacks(game) == {"a": 1030 + 10, "b": 980, "c": 990 - 10}


def test_who_died_in_the_rematch_pays_too_but_who_rejoined_and_called_does_not() -> None:
    deck = StackedDeck()
    four = {"a": ids(GUSA), "b": ids(ALI), "c": ids(WEAK), "d": ids(WEAK_2)}
    deck.rig(four, hand=1)  # a 구사 vs b 알리: a 구사 rematch; c and d died
    deck.rig({"a": ids(WEAK_2), "b": ids(TTAENG_5), "c": ids(KKUT_5_A)}, hand=1, rematch=1)
    game, (a, b, c, d) = new_game(
        4, 6, deck=deck, deal_mode="oneRound", rejoin_cost="half", ttaeng_value="school"
    )
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    act(game, d, "die")
    game.timeout()  # ready: c and d are asked to rejoin, for half the pot (60 // 2)
    assert game.view(None)["rejoin"] == {"players": [c, d], "cost": 30}
    act(game, c, "rejoin", accept=True)
    act(game, d, "rejoin", accept=False)
    assert game.view(None).get("rematchNo") == 1
    actor = game.view(None).get("actor")
    while actor is not None:
        act(game, actor, "check" if actor != a else "die")
        actor = game.view(None).get("actor")
    ttaeng = game.view(None)["ttaeng"]
    paid = {p["player"]: p["amount"] for p in ttaeng["payments"] or []}
    assert paid == {a: 10, d: 10}  # a died in the rematch, d in the hand; c called and lost
    assert ttaeng["winner"] == b
    assert game.chips_in_play() == total_chips(game)


# ---------------------------------------------------------------- 구사 선택권


def gusa_vs_ali(**opts: Any) -> tuple[Game, list[Any]]:
    """a holds 구사, b 알리 (§6.4 example 6): the 구사 fires; both checked to the showdown."""
    cards = {"a": ids(GUSA), "b": ids(ALI)}
    game, (a, b) = new_game(2, 3, cards=cards, deal_mode="oneRound", gusa_choice=True, **opts)
    act(game, a, "check")
    return game, act(game, b, "check")


def test_the_holder_is_asked_and_nobody_else_may_answer() -> None:
    game, events = gusa_vs_ali()
    assert of_type(events, "showdown") and of_type(events, "gusaChoiceOpen") == [
        {"type": "gusaChoiceOpen", "players": ["a"]}
    ]
    assert not of_type(events, "pot") and not of_type(events, "payout")
    assert game.pending() == {"phase": "gusaChoice", "players": ["a"], "seconds": 20}
    assert [(x["type"], x.get("accept")) for x in game.legal_actions("a")] == [
        ("gusaChoice", True),
        ("gusaChoice", False),
    ]
    assert game.legal_actions("b") == []
    for viewer in ("a", "b", None):
        assert game.view(viewer)["gusaChoice"] == {"players": ["a"]}
        assert game.view(viewer)["pot"] == 20
    must_fail(game, "b", {"type": "gusaChoice", "accept": False}, "notGusaChoosing")
    must_fail(game, "a", {"type": "gusaChoice"}, "needAnswer")
    must_fail(game, "a", {"type": "check"}, "notBetting")
    assert game.chips_in_play() == total_chips(game)


def test_declined_the_hand_is_judged_as_if_the_check_were_not_met() -> None:
    game, _ = gusa_vs_ali()
    events = act(game, "a", "gusaChoice", accept=False)
    assert events[0] == {"type": "gusaChoice", "player": "a", "accept": False}
    (payout,) = of_type(events, "payout")
    assert (payout["player"], payout["amount"]) == ("b", 20)
    assert game.view(None)["handPhase"] == "handEnd" and "gusaChoice" not in game.view(None)
    assert stacks(game) == {"a": 990, "b": 1010}


@pytest.mark.parametrize("how", ["accept", "timeout", "leave"])
def test_accepted_timed_out_or_left_the_rematch_happens(how: str) -> None:
    game, _ = gusa_vs_ali()
    if how == "accept":
        events = act(game, "a", "gusaChoice", accept=True)
    elif how == "timeout":
        events = game.timeout()
        assert {"type": "timeout", "player": "a", "action": "gusaChoice"} in events
    else:
        events = game.leave("a")
    assert {"type": "gusaChoice", "player": "a", "accept": True} in events
    (rematch,) = of_type(events, "rematch")
    assert rematch["reason"] == "gusa" and rematch["participants"] == ["a", "b"]


def test_with_refund_a_declined_gusa_loses_and_an_accepted_one_refunds() -> None:
    game, _ = gusa_vs_ali(gusa_outcome="refund")
    events = act(game, "a", "gusaChoice", accept=True)
    assert [r["type"] for r in game.view(None)["results"]] == ["refund"]
    assert stacks(game) == {"a": 1000, "b": 1000} and of_type(events, "return")
    game, _ = gusa_vs_ali(gusa_outcome="refund")
    act(game, "a", "gusaChoice", accept=False)
    assert stacks(game) == {"a": 990, "b": 1010}


def test_a_gusa_that_already_wins_may_take_the_win() -> None:
    """gusaWhenWinning=rematch (§6.4 example 8): declining keeps the plain win."""
    cards = {"a": ids(GUSA), "b": ids(KKUT_2), "c": ids(WEAK)}
    game, (a, b, c) = new_game(
        3, 4, cards=cards, deal_mode="oneRound", gusa_choice=True, gusa_when_winning="rematch"
    )
    for p in (a, b, c):
        act(game, p, "check")
    assert game.pending()["players"] == [a]
    events = act(game, a, "gusaChoice", accept=False)
    assert [(e["player"], e["amount"]) for e in of_type(events, "payout")] == [(a, 30)]


def test_two_holders_in_one_pot_each_decide_theirs() -> None:
    """a 멍구사 (upTo8) and b 구사 against c's 8땡-less hand: both fire; b declines, a's stays."""
    cards = {"a": ids(MUNG_GUSA), "b": ids(("4띠", "9띠")), "c": ids(ALI)}
    game, (a, b, c) = new_game(3, 4, cards=cards, deal_mode="oneRound", gusa_choice=True)
    for p in (a, b, c):
        act(game, p, "check")
    assert game.pending()["players"] == [a, b]
    act(game, b, "gusaChoice", accept=False)
    assert game.pending() == {"phase": "gusaChoice", "players": [a], "seconds": 20}
    events = act(game, a, "gusaChoice", accept=True)
    assert of_type(events, "rematch")[0]["reason"] == "mungGusa"


def test_gusa_off_or_choice_off_asks_nobody() -> None:
    for gusa, choice in ((True, False), (False, True)):
        cards = {"a": ids(GUSA), "b": ids(ALI)}
        game, (a, b) = new_game(
            2, 3, cards=cards, deal_mode="oneRound", gusa=gusa, gusa_choice=choice
        )
        act(game, a, "check")
        events = act(game, b, "check")
        assert not of_type(events, "gusaChoiceOpen")
        assert game.view(None)["handPhase"] == "handEnd"


def test_a_game_saved_in_the_middle_of_the_choice_resumes_identically() -> None:
    game, _ = gusa_vs_ali(ttaeng_value="school")
    saved = game.to_dict()
    clone = Game.from_dict(saved)
    assert clone.pending() == game.pending() and clone.view("a") == game.view("a")
    assert act(clone, "a", "gusaChoice", accept=False) == act(game, "a", "gusaChoice", accept=False)
    assert clone.state_hash() == game.state_hash()


def test_random_play_with_both_rules_conserves_chips_ends_and_replays() -> None:
    """Random legal play with 구사 dealt often: every game ends, chips are conserved, every
    listed action is accepted, and the log replays to the same state."""
    asked = paid = 0
    for seed in range(12):
        rng = random.Random(seed)
        options = Options(
            deal_mode=rng.choice(("oneRound", "twoRounds")),
            gusa_choice=True,
            ttaeng_value=rng.choice(("school", "double")),
            gusa_outcome=rng.choice(("rematch", "refund")),
            rejoin_cost=rng.choice(("none", "half")),
            starting_chips=500,
            base_unit=20,
            hand_limit=10,
        )
        deck = _GusaOften(rng)
        players = ["p0", "p1", "p2", "p3"][: rng.randint(2, 4)]
        game = Game.new(options, players, seed, deal=deck)
        log: list[tuple[str | None, dict[str, Any]]] = []
        for _ in range(3000):
            if game.finished:
                break
            move = random_action(game, rng)
            events = game.timeout() if move is None else game.apply(*move)
            log.append((None, {}) if move is None else move)
            asked += len(of_type(events, "gusaChoiceOpen"))
            paid += len(of_type(events, "ttaengValue"))
            assert game.chips_in_play() == total_chips(game)
        assert game.finished
        again = Game.replay(options, players, seed, log, deal=deck.recorded())
        assert again.state_hash() == game.state_hash()
    assert asked and paid


class _GusaOften:
    """A deal hook giving a random receiver a 구사 or a 땡 in half the matches; it records the
    orders it dealt so a replay deals the same."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.orders: list[list[int]] = []

    def __call__(self, request: Any) -> list[int]:
        deck = list(request.deck)
        if not any(request.held.values()) and self.rng.random() < 0.5:
            pid = self.rng.choice(request.receivers)
            pair = self.rng.choice(((7, 16), (6, 16), (8, 9), (18, 19), (4, 14)))
            stacked = StackedDeck()
            stacked.rig({pid: list(pair)})
            deck = stacked(request)
        self.orders.append(deck)
        return deck

    def recorded(self) -> Any:
        orders = iter(list(self.orders))
        return lambda request: next(orders)
