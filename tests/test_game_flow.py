"""§5 hand flow and §10 checklist lines, one named test each.

Decks are rigged through the engine's deal hook (``Game.new(deal=...)``), short stacks through
``Game.new(stacks=...)``; what happened is read from views, events and the game's queries.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import Game, Options
from engine.dealing import DealRequest, StackedDeck
from engine.types import Event, RefusalCode, View

from .gamekit import act, deal_order, held, leaks, must_fail, new_game, seat, stack

# Card ids: (month-1)*2 + (0 if special else 1)
G1, T1, T2, G3, T3, Y4, T4, T5, T6, Y7, G8, N8, Y9, T9, T10 = (
    0,
    1,
    3,
    4,
    5,
    6,
    7,
    9,
    11,
    12,
    14,
    15,
    16,
    17,
    19,
)
Y2, Y6, Y10 = 2, 10, 18
SCHOOL = 10  # the default base unit, paid by everyone at each hand's start


def table(game: Game) -> View:
    """The game as a spectator sees it."""
    return game.view(None)


def hand_phase(game: Game) -> str | None:
    return table(game).get("handPhase")


def finish_hand(game: Game) -> list[Event]:
    """Timeouts until the hand reaches handEnd."""
    events: list[Event] = []
    while hand_phase(game) != "handEnd" and not game.finished:
        events += game.timeout()
    return events


# ---------------------------------------------------------------- §5.4 betting
def test_betting_example_240_chips() -> None:
    game, (a, b, c) = new_game(3)
    assert game.pot_total() == 30
    act(game, a, "ping")
    assert game.pot_total() == 40
    assert {x["type"]: x["amount"] for x in game.legal_actions(b)}["half"] == 35
    act(game, b, "half")
    assert game.pot_total() == 75
    assert {x["type"]: x["amount"] for x in game.legal_actions(c)}["ddadang"] == 70
    act(game, c, "ddadang")
    assert game.pot_total() == 145
    assert [(x["type"], x["amount"]) for x in game.legal_actions(a)] == [("die", 0), ("call", 60)]
    act(game, a, "call")
    assert game.pot_total() == 205
    act(game, b, "call")
    assert game.pot_total() == 240 == 30 + 70 * 3
    assert table(game).get("street") == 1  # round over, second card dealt
    assert all(len(held(game, p)) == 2 for p in (a, b, c))


def test_raise_after_check_or_call_is_refused() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "check")
    act(game, b, "ping")
    act(game, c, "call")
    must_fail(game, a, {"type": "half"}, "roundCapped")
    act(game, a, "call")
    must_fail(game, b, {"type": "half"}, "notYourTurn")


def test_max_raise_half_refuses_full_and_full_costs_the_pot() -> None:
    game, (a, b, c) = new_game(3)
    must_fail(game, a, {"type": "full"}, "fullNotAllowed")
    game, (a, b, c) = new_game(3, max_raise="full")
    act(game, a, "ping")
    full = {x["type"]: x["amount"] for x in game.legal_actions(b)}["full"]
    assert full == 10 + (40 + 10)


def test_raise_below_base_unit_is_lifted_to_base_unit() -> None:
    game, (a, b) = new_game(2, base_unit=50, starting_chips=1000)
    # pot 100: quarter = floor(100/4) = 25 < 50 → 50
    assert {x["type"]: x["amount"] for x in game.legal_actions(a)}["quarter"] == 50


def test_check_and_ping_refused_once_opened() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "ping")
    must_fail(game, b, {"type": "check"}, "alreadyOpened")
    must_fail(game, b, {"type": "ping"}, "alreadyOpened")


def test_all_checks_end_the_round() -> None:
    game, (a, b, c) = new_game(3)
    for p in (a, b, c):
        act(game, p, "check")
    view = table(game)
    assert view.get("street") == 1 and view.get("actor") == a


def test_second_round_first_actor_when_dealer_folded() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "die")
    act(game, b, "check")
    act(game, c, "check")
    assert table(game).get("street") == 1
    assert game.pending()["players"] == [b]


def test_uncalled_excess_is_returned_and_all_in_for_less() -> None:
    game, (a, b) = new_game(2, stacks={"b": 5 + SCHOOL})
    act(game, a, "ping")
    events = act(game, b, "call")
    assert {"type": "bet", "player": b, "action": "call", "amount": 5, "allIn": True} in events
    assert {"type": "return", "player": a, "amount": 5} in events
    # street 2 is skipped (one player can act), straight to showdown
    assert hand_phase(game) == "handEnd"
    assert game.chips_in_play() == 1000 + 15


def test_short_school_is_all_in() -> None:
    game, (a, b, c) = new_game(3, seed=4, stacks={"c": 5})
    assert seat(game, c)["committed"] == 5 and seat(game, c)["allIn"] and stack(game, c) == 0
    assert seat(game, a)["committed"] == SCHOOL and not seat(game, a)["allIn"]
    assert game.pot_total() == 25


def hand_end(game: Game, ready: bool = False) -> None:
    finish_hand(game)
    if ready:
        game.timeout()


# ---------------------------------------------------------------- §5.1 / §5.2 flows
def test_one_round_deal_mode_bets_once_then_shows_down() -> None:
    game, (a, b) = new_game(2, deal_mode="oneRound")
    assert all(len(held(game, p)) == 2 for p in (a, b))
    act(game, a, "check")
    act(game, b, "check")
    assert hand_phase(game) == "handEnd"
    assert table(game).get("showdown") is not None


def test_two_rounds_deals_one_card_then_another() -> None:
    game, (a, b) = new_game(2)
    assert all(len(held(game, p)) == 1 for p in (a, b))
    act(game, a, "check")
    events = act(game, b, "check")
    assert {"type": "dealt", "to": a, "count": 1} in events
    assert all(len(held(game, p)) == 2 for p in (a, b))


def test_fold_ended_hand_reveals_no_cards() -> None:
    game, (a, b) = new_game(2)
    act(game, a, "ping")
    events = act(game, b, "die")
    assert table(game).get("showdown") is None
    secret = set(held(game, a))
    assert len(secret) == 1
    assert (
        not leaks(events, secret)
        and not leaks(game.view(b), secret)
        and not leaks(game.view(None), secret)
    )
    assert stack(game, a) == 1010


def test_three_card_secrecy_and_choose_phase() -> None:
    game, (a, b, c) = new_game(3, card_mode="three")
    assert all(len(held(game, p)) == 2 for p in (a, b, c))
    for p in (a, b, c):
        act(game, p, "check")
    assert game.pending()["phase"] == "choose"
    assert game.pending()["seconds"] == 20 + 10
    hands = {p: held(game, p) for p in (a, b, c)}
    assert all(len(h) == 3 for h in hands.values())
    must_fail(game, a, {"type": "call"}, "notBetting")
    must_fail(game, a, {"type": "choose", "cardIds": [99, hands[a][0]]}, "notYourCard")
    act(game, a, "choose", cardIds=hands[a][:2])
    must_fail(game, a, {"type": "choose", "cardIds": hands[a][1:]}, "alreadyChosen")
    seat_a = seat(game, a, b)
    assert seat_a["chosen"] is True and "chosenIds" not in seat_a
    assert seat(game, a, a)["discardedId"] == hands[a][2]
    log = []
    log += act(game, b, "choose", cardIds=hands[b][1:])
    log += act(game, c, "choose", cardIds=[hands[c][0], hands[c][2]])
    view = table(game)
    assert view.get("handPhase") == "betting" and view.get("street") == 1
    for p in (a, b, c):
        log += act(game, p, "check")
    assert hand_phase(game) == "handEnd"
    discards = {hands[a][2], hands[b][0], hands[c][1]}
    for viewer in (a, b, c, None):
        mine = set(hands.get(viewer, [])) if viewer else set()
        assert not leaks(game.view(viewer), discards - mine)
    assert not leaks(log, discards)
    shown = {p["player"]: {c["id"] for c in p["cards"]} for p in table(game).get("showdown") or []}
    assert shown[a] == set(hands[a][:2])


def test_three_card_timeout_picks_18_gwangttaeng() -> None:
    game, (a, b) = new_game(2, card_mode="three", cards={"a": [G1, G8, Y4], "b": [T2, T3, T5]})
    act(game, a, "check")
    act(game, b, "check")
    assert held(game, a) == [G1, G8, Y4]
    game.timeout()
    assert sorted(seat(game, a, a)["chosenIds"]) == [G1, G8]
    act(game, a, "check")
    act(game, b, "check")
    names = {row["player"]: row["name"] for row in table(game).get("showdown") or []}
    assert names[a] == "18광땡"


# ---------------------------------------------------------------- timeouts, away, disconnect
def test_timeout_checks_when_unopened_and_dies_when_opened() -> None:
    game, (a, b, c) = new_game(3)
    events = game.timeout()
    assert {"type": "bet", "player": a, "action": "check", "amount": 0, "allIn": False} in events
    act(game, b, "ping")
    events = game.timeout()
    assert {"type": "fold", "player": c} in events


def test_away_after_two_timeouts_and_cleared_by_acting() -> None:
    game, (a, b) = new_game(2)
    game.timeout()  # a checks by timeout
    act(game, b, "check")
    assert game.pending() == {"phase": "betting", "players": [a], "seconds": 20}
    events = game.timeout()  # second in a row
    assert {"type": "away", "player": a, "away": True} in events
    assert seat(game, a)["away"] is True
    act(game, b, "check")
    game.timeout()  # handEnd → next hand
    while a not in game.pending()["players"] or game.pending()["phase"] != "betting":
        game.timeout() if game.pending()["players"] != [b] else act(game, b, "check")
    assert game.pending()["seconds"] == 5
    events = act(game, a, "check")
    assert {"type": "away", "player": a, "away": False} in events
    assert seat(game, a)["away"] is False


def test_disconnected_players_turn_waits_then_times_out_then_reconnects() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "disconnect")
    assert game.pending() == {"phase": "betting", "players": [a], "seconds": 20}
    game.timeout()
    assert seat(game, a)["lastAction"] == {"type": "check", "amount": 0}
    act(game, b, "check")
    act(game, c, "check")
    act(game, a, "reconnect")
    act(game, a, "ping")
    assert seat(game, a)["lastAction"] == {"type": "ping", "amount": 10}


def test_game_ends_when_one_connected_player_with_chips_remains() -> None:
    game, (a, b) = new_game(2)
    act(game, a, "ping")
    events = act(game, b, "disconnect")
    assert game.finished and events[-1]["type"] == "gameEnd"
    result = game.result()
    assert result is not None and result["reason"] == "disconnected"
    assert stack(game, a) + stack(game, b) == 2000  # the unfinished hand was voided


def test_left_player_folds_and_auto_dies_after_paying_school() -> None:
    game, (a, b, c) = new_game(3)
    events = act(game, b, "leave")
    assert {"type": "fold", "player": b, "auto": True} in events
    must_fail(game, b, {"type": "ready"}, "leftRoom")
    finish_hand(game)
    game.timeout()
    gone = seat(game, b)
    assert table(game).get("handNo") == 2
    assert gone["inHand"] and gone["folded"] and gone["committed"] == 10
    assert b not in game.pending()["players"]


# ---------------------------------------------------------------- §5.5 rematches
GUSA_DEAL = {"a": [T4, Y9], "b": [G1, T2], "c": [T5, T6]}  # a 구사, b 알리, c 망통


def test_gusa_rematch_keeps_pot_no_new_school_survivors_only() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", cards=GUSA_DEAL)
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    view = table(game)
    assert view.get("rematchReason") == "gusa" and view.get("handPhase") == "handEnd"
    stacks = {p: stack(game, p) for p in (a, b, c)}
    game.timeout()  # ready → rematch (rejoinCost none: no rejoin phase)
    assert table(game).get("rematchNo") == 1 and set(deal_order(game)) == {a, b}
    assert game.pot_total() == 30
    assert {p: stack(game, p) for p in (a, b, c)} == stacks
    assert game.view(None)["rematchReason"] == "gusa"
    assert game.hands_played == 0


def _gusa_with_rejoin(c_stack: int) -> tuple[Game, str, str, str]:
    game, (a, b, c) = new_game(
        3,
        deal_mode="oneRound",
        rejoin_cost="half",
        cards=GUSA_DEAL,
        stacks={"c": c_stack + SCHOOL},
    )
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    game.timeout()
    assert game.pending() == {"phase": "rejoin", "players": [c], "seconds": 15}
    return game, a, b, c


def test_rejoin_half_refused_with_too_few_chips() -> None:
    game, a, b, c = _gusa_with_rejoin(10)
    assert table(game).get("rejoin") == {"players": [c], "cost": 15}
    assert game.legal_actions(c) == [{"type": "rejoin", "accept": False, "amount": 0}]
    must_fail(game, c, {"type": "rejoin", "accept": True}, "shortForRejoin")


def test_rejoin_half_pays_half_the_pot_and_plays() -> None:
    game, a, b, c = _gusa_with_rejoin(100)
    act(game, c, "rejoin", accept=True)
    assert stack(game, c) == 85 and game.pot_total() == 45
    assert set(deal_order(game)) == {a, b, c}


def test_rejoin_timeout_means_not_joining() -> None:
    game, a, b, c = _gusa_with_rejoin(100)
    events = game.timeout()
    assert {"type": "rejoin", "player": c, "accept": False, "amount": 0} in events
    assert set(deal_order(game)) == {a, b}


TIE_DEAL = {"a": [Y2, T3], "b": [Y6, T9], "c": [T5, N8]}  # a, b: 5끗 each; c: 3끗


def test_side_pot_paid_at_once_and_main_pot_tie_rematch() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", cards=TIE_DEAL, stacks={"a": 10 + SCHOOL})
    act(game, a, "ping")  # a all-in for 20 in total
    act(game, b, "half")  # 10 + (40+10)//2 = 35
    act(game, c, "call")
    view = table(game)
    assert view.get("handPhase") == "handEnd"
    assert stack(game, a) == 0
    side = [r for r in view.get("results", []) if r["type"] == "win"]
    # b's net: the 50-chip side pot less the 25 b put into it (issue 32)
    assert side == [
        {"amount": 50, "type": "win", "winners": [b], "reason": "normal", "net": {b: 25}}
    ]
    (kept,) = view.get("pots", [])
    assert kept["amount"] == 60 and set(kept["eligible"]) == {a, b} and kept["main"]
    events = game.timeout()
    # a is all-in and b alone cannot bet: the rematch deals and shows down at once
    start = next(e for e in events if e["type"] == "rematchStart")
    assert start["rematchNo"] == 1 and set(start["players"]) == {a, b}
    assert not any(e["type"] == "school" for e in events)
    paid = sum(e["amount"] for e in events if e["type"] == "payout")
    assert hand_phase(game) == "handEnd"
    left = sum(p["amount"] for p in table(game).get("pots", []))  # kept for the next rematch
    assert paid + left == 60


def test_three_rematches_then_even_split_with_odd_chip_to_dealer_side() -> None:
    # c can only pay 5 of the school (all-in): main pot 15 (a, b, c), side pot 10 (a, b)
    deck = StackedDeck()
    for rematch in range(4):
        deck.rig(TIE_DEAL, hand=1, rematch=rematch)
    game, (a, b, c) = new_game(3, deal_mode="oneRound", stacks={"c": 5}, deck=deck)
    assert seat(game, c)["allIn"] and seat(game, c)["committed"] == 5
    rematches = 0
    for rematch in range(4):
        events: list[Event] = []
        while hand_phase(game) == "betting":
            events += game.timeout()
        assert table(game).get("showdown")
        if rematch < 3:
            view = table(game)
            assert view.get("pots") and view.get("rematchReason") == "tie"
            events = game.timeout()
            rematches += sum(e["type"] == "rematchStart" for e in events)
            assert table(game).get("rematchNo") == rematch + 1
    view = table(game)
    assert not view.get("pots") and rematches == 3
    splits = [r for r in view.get("results", []) if r["reason"] == "rematchCap"]
    assert sorted(r["amount"] for r in splits) == [10, 15]
    first, second = [p for p in deal_order(game) if p in (a, b)]
    main = next(r for r in splits if r["amount"] == 15)
    assert main["winners"] == [first, second]
    paid = {e["player"]: e["amount"] for e in game.timeout() if e["type"] == "payout"}
    assert paid == {}  # payouts happened at the showdown; ready only moves on
    assert game.hands_played == 1  # rematches do not count as hands


def test_split_tie_rule_odd_chips_go_to_winner_nearest_dealer() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", tie_rule="split", cards=TIE_DEAL)
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    (split,) = table(game).get("results", [])
    assert split["type"] == "split" and split["winners"] == [a, b]
    assert stack(game, a) == stack(game, b)


# ---------------------------------------------------------------- §5.6–5.7, §6.6
WIN_DEAL = {"a": [G3, G8], "b": [T2, N8], "c": [T5, T6]}  # a 38광땡, b 1끗, c 1끗


def test_rebuy_and_hands_scores() -> None:
    game, (a, b) = new_game(
        2,
        rebuy="limited",
        rebuy_limit=1,
        hand_limit=10,
        cards={"a": [G3, G8], "b": [T2, N8]},
        stacks={"b": 5 + SCHOOL},
    )
    act(game, a, "ping")
    act(game, b, "call")
    assert hand_phase(game) == "handEnd"
    game.timeout()
    assert game.pending() == {"phase": "rebuy", "players": [b], "seconds": 20}  # the turn time
    must_fail(game, a, {"type": "rebuy", "accept": True}, "notRebuying")
    act(game, b, "rebuy", accept=True)
    assert stack(game, b) + seat(game, b)["committed"] == 1000
    assert seat(game, b)["rebuys"] == 1
    while not game.finished:
        game.timeout()
    result = game.result()
    assert result is not None
    rows = {r["playerId"]: r for r in result["ranking"]}
    assert rows[b]["score"] == rows[b]["finalChips"] - 1000
    assert rows[a]["score"] == rows[a]["finalChips"]
    assert result["stats"]["handsPlayed"] == 10
    assert result["summary"].startswith("10판 종료. 1위 ")


def test_rebuy_off_eliminates_and_rebuy_not_asked_after_last_hand() -> None:
    # a wins every hand at the showdown: b, starting with 105, has 5 after hand 10's school
    deck = StackedDeck()
    for hand in range(1, 11):
        deck.rig(WIN_DEAL, hand=hand)
    game, (a, b, c) = new_game(
        3, rebuy="unlimited", hand_limit=10, stacks={"b": 9 * SCHOOL + 5 + SCHOOL}, deck=deck
    )
    while game.hands_played < 9:
        game.timeout()
    assert table(game).get("handNo") == 10 and stack(game, b) == 5
    while not game.finished:
        game.timeout() if game.pending()["players"] != [a] else act(game, a, "ping")
        if b in game.pending()["players"] and game.pending()["phase"] == "betting":
            act(game, b, "call")
    view = table(game)
    assert view["phase"] == "finished" and not view["rebuyPending"]
    assert stack(game, b) == 0


def test_last_standing_ranks_simultaneous_busts_by_chips_at_hand_start() -> None:
    game, (a, b, c) = new_game(
        3,
        end_condition="lastStanding",
        rebuy="off",
        deal_mode="oneRound",
        cards={"a": [G3, G8], "b": [T2, N8], "c": [T1, T9]},
        stacks={"b": 8 + SCHOOL, "c": 5 + SCHOOL},
    )
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "call")
    assert hand_phase(game) == "handEnd"
    game.timeout()
    assert game.finished
    result = game.result()
    assert result is not None
    ranking = {
        r["playerId"]: (r["rank"], r["score"], r["eliminatedAtHand"]) for r in result["ranking"]
    }
    assert ranking == {a: (1, 3, None), b: (2, 2, 1), c: (3, 1, 1)}


def test_last_standing_equal_start_chips_share_a_rank() -> None:
    game, (a, b, c) = new_game(
        3,
        end_condition="lastStanding",
        rebuy="off",
        deal_mode="oneRound",
        cards={"a": [G3, G8], "b": [T2, N8], "c": [T1, T9]},
        stacks={"b": 5 + SCHOOL, "c": 5 + SCHOOL},
    )
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "call")
    game.timeout()
    result = game.result()
    assert result is not None
    ranks = {r["playerId"]: r["rank"] for r in result["ranking"]}
    assert ranks == {a: 1, b: 2, c: 2}


def test_school_up_doubles_every_n_hands_up_to_a_fifth_of_starting_chips() -> None:
    game, _ = new_game(2, school_up_every=5, base_unit=50, starting_chips=1000, hand_limit=30)
    seen = {}
    while not game.finished and game.hands_played < 16:
        view = table(game)
        seen[view.get("handNo")] = view["baseUnit"]
        game.timeout()
    assert (
        seen[1] == 50 and seen[5] == 50 and seen[6] == 100 and seen[11] == 200 and seen[16] == 200
    )


def test_dealer_rules_winner_and_rotate() -> None:
    game, (a, b, c) = new_game(3, dealer_rule="winner")
    act(game, a, "ping")
    act(game, b, "die")
    act(game, c, "die")
    game.timeout()
    assert deal_order(game)[0] == a == table(game).get("dealer")
    game, (a, b, c) = new_game(3, dealer_rule="rotate")
    act(game, a, "ping")
    act(game, b, "die")
    act(game, c, "die")
    game.timeout()
    assert deal_order(game)[0] == b == table(game).get("dealer")


# ---------------------------------------------------------------- illegal input
@pytest.mark.parametrize(
    ("who", "action", "code"),
    [
        ("b", {"type": "check"}, "notYourTurn"),
        ("a", {"type": "fly"}, "unknownAction"),
        ("a", {"type": "call", "amount": 5}, "extraField"),
        ("a", {"type": "choose"}, "needCards"),
        ("a", {"type": "choose", "cardIds": [1, 1]}, "sameCard"),
        ("a", {"type": "choose", "cardIds": [True, 1]}, "needCards"),
        ("a", {"type": "choose", "cardIds": [1, 2]}, "notChoosing"),
        ("a", {"type": "ready"}, "notHandEnd"),
        ("a", {"type": "rejoin", "accept": 1}, "needAnswer"),
        ("a", {"type": "call"}, "nothingToCall"),
        ("a", {"type": "ddadang"}, "nothingToDouble"),
        ("zed", {"type": "check"}, "notParticipant"),
        ("a", ["check"], "malformed"),
        ("a", {"type": "reconnect"}, "alreadyConnected"),
    ],
)
def test_illegal_actions_change_nothing(who: str, action: object, code: RefusalCode) -> None:
    game, _ = new_game(3)
    must_fail(game, who, action, code)


def test_finished_game_refuses_actions() -> None:
    game, (a, b) = new_game(2)
    act(game, b, "leave")
    assert game.finished
    must_fail(game, a, {"type": "check"}, "gameOver")
    assert game.timeout() == []


def test_rebuy_off_eliminates_busted_player() -> None:
    game, (a, b, c) = new_game(
        3, rebuy="off", deal_mode="oneRound", cards=WIN_DEAL, stacks={"b": 5 + SCHOOL}
    )
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    events = game.timeout()
    assert {"type": "eliminated", "player": b} in events
    assert events.index({"type": "eliminated", "player": b}) < next(
        i for i, e in enumerate(events) if e["type"] == "handStart"
    )  # at hand 1's end
    assert seat(game, b)["status"] == "eliminated" and game.seat_status(b) == "eliminated"
    assert table(game).get("handNo") == 2
    assert not seat(game, b)["inHand"]  # not dealt into hand 2


def test_split_pot_dealer_goes_to_winner_nearest_previous_dealer() -> None:
    game, (a, b, c) = new_game(
        3,
        deal_mode="oneRound",
        tie_rule="split",
        cards={"a": [T5, T9], "b": [Y6, Y9], "c": [T2, T3]},  # a 4끗; b and c 5끗
    )
    act(game, a, "die")
    act(game, b, "check")
    act(game, c, "check")
    assert table(game).get("results", [])[0]["type"] == "split"
    game.timeout()
    assert deal_order(game)[0] == b  # b is nearer to the old dealer a than c


def test_rematch_dealer_stays_or_moves_to_first_participant() -> None:
    game, (a, b, c) = new_game(
        3,
        deal_mode="oneRound",
        cards={"a": [T5, T6], "b": [Y2, T3], "c": [Y6, T9]},  # a 1끗; b and c 5끗: tie
    )
    for p in (a, b, c):
        act(game, p, "check")
    assert table(game).get("rematchReason") == "tie"
    game.timeout()
    assert table(game).get("rematchNo") == 1
    assert deal_order(game) == [b, c]  # old dealer a not in: next seat


def test_last_standing_stops_at_300_hands_with_hands_scoring() -> None:
    game, (a, b) = new_game(2, end_condition="lastStanding", starting_chips=5000, base_unit=2)
    while not game.finished:
        game.timeout()
    assert game.hands_played == 300
    result = game.result()
    assert result is not None and result["reason"] == "handCap"
    assert {r["score"] for r in result["ranking"]} == {r["finalChips"] for r in result["ranking"]}


def test_stats_best_hand_biggest_pot_and_rematches() -> None:
    game, (a, b) = new_game(
        2, deal_mode="oneRound", hand_limit=10, cards={"a": [G3, G8], "b": [T2, T4]}
    )
    act(game, a, "half")
    act(game, b, "call")
    events = game.timeout()
    while not game.finished:
        events += game.timeout()
    result = game.result()
    assert result is not None
    stats = result["stats"]
    assert stats["bestHand"] == {"playerId": a, "name": "38광땡", "handNo": 1}
    assert stats["biggestPot"]["amount"] >= 40 and stats["handsPlayed"] == 10
    assert stats["rematches"] == sum(e["type"] == "rematchStart" for e in events)
    assert "최고 족보 38광땡" in result["summary"]


def test_view_shows_public_table_and_only_own_cards() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "ping")
    view = game.view(b)
    assert view["actor"] == b and view["pot"] == 40 and view["currentBet"] == 10
    assert view["pending"] == {"phase": "betting", "players": [b], "seconds": 20}
    assert [x["type"] for x in view["legalActions"]] == [
        "die",
        "call",
        "ddadang",
        "quarter",
        "half",
    ]
    seats = {s["id"]: s for s in view["seats"]}
    assert seats[a]["lastAction"] == {"type": "ping", "amount": 10} and seats[a]["bet"] == 10
    assert seats[a]["cards"] == [{"hidden": True}] and seats[a]["dealer"]
    mine = seats[b]["cards"][0]
    assert "hidden" not in mine and mine["id"] not in held(game, a) + held(game, c)
    assert view["myHand"] is None  # one card: no hand yet
    assert game.view(c)["legalActions"] == [] and game.view(None)["legalActions"] == []
    assert all(s["cards"] == [{"hidden": True}] for s in game.view(None)["seats"])
    act(game, b, "call")
    act(game, c, "call")
    hint = game.view(a)["myHand"]
    assert hint is not None and hint["name"] and hint["strength"] in ("높음", "중간", "낮음")
    assert Game.new(Options(hints=False), ["x", "y"], 1).view("x")["myHand"] is None


def test_view_after_showdown_reveals_showdown_hands_and_rematch_banner() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", cards=GUSA_DEAL)
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    view = game.view(None)
    assert {r["player"] for r in view["showdown"] or []} == {a, b}
    assert view["rematchReason"] == "gusa"
    seats = {s["id"]: s for s in view["seats"]}
    assert seats[a]["revealed"] and seats[c]["revealed"] is None
    assert not leaks(view, {T5, T6})
    game.timeout()
    assert game.view(a)["rematchNo"] == 1


def test_rematch_whose_players_all_left_splits_the_kept_pot_among_them() -> None:
    game, (a, b, c, d) = new_game(4, deal_mode="oneRound", cards={**TIE_DEAL, "d": [Y7, T6]})
    for p in (a, b, c, d):
        act(game, p, "check")
    assert table(game).get("rematchReason") == "tie"
    act(game, a, "leave")
    act(game, b, "leave")
    assert not game.finished  # c and d are still connected with chips
    events = game.timeout()
    assert {e["player"]: e["amount"] for e in events if e["type"] == "payout"} == {a: 20, b: 20}
    assert hand_phase(game) == "handEnd"
    game.timeout()
    assert table(game).get("handNo") == 2 and game.chips_in_play() == 4000


def test_rejoin_full_costs_the_whole_pot() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", rejoin_cost="full", cards=GUSA_DEAL)
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    game.timeout()
    assert game.legal_actions(c)[0] == {"type": "rejoin", "accept": True, "amount": 30}
    act(game, c, "rejoin", accept=True)
    assert stack(game, c) == 960 and game.pot_total() == 60


def test_limited_rebuys_run_out_then_the_player_is_eliminated() -> None:
    # b busts in hand 1 (a short stack) and, rebought to 500, again in hand 2 (raised all in)
    deck = StackedDeck()
    deck.rig(WIN_DEAL, hand=1)
    deck.rig({"a": [G3, G8], "b": [T2, N8]}, hand=2)
    game, (a, b, c) = new_game(
        3,
        rebuy="limited",
        rebuy_limit=1,
        starting_chips=500,
        max_raise="full",
        stacks={"b": 5 + SCHOOL},
        deck=deck,
    )

    def bust(victim: str, winner: str) -> None:
        while hand_phase(game) == "betting":
            actor = game.pending()["players"][0]
            kinds = [x["type"] for x in game.legal_actions(actor)]
            if actor not in (victim, winner):
                act(game, actor, "die")
            elif "full" in kinds:  # raise the most the table allows, both of them
                act(game, actor, "full")
            else:
                act(game, actor, "call" if "call" in kinds else "check")
        game.timeout()

    bust(b, a)
    assert game.pending()["phase"] == "rebuy"
    act(game, b, "rebuy", accept=True)
    assert stack(game, b) == 500 - SCHOOL and seat(game, b)["rebuys"] == 1
    bust(b, a)
    assert stack(game, b) == 0
    assert game.pending()["phase"] != "rebuy"
    assert seat(game, b)["status"] == "eliminated" and seat(game, b)["rebuys"] == 1


def test_an_eliminated_player_who_leaves_stays_eliminated_at_the_hand_they_busted() -> None:
    """Busted in hand 1 with rebuys off, then leaving in hand 3: still 탈락 from hand 1, once."""
    game, (a, b, c) = new_game(
        3,
        rebuy="off",
        deal_mode="oneRound",
        hand_limit=10,
        cards=WIN_DEAL,
        stacks={"b": 5 + SCHOOL},
    )
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    events = game.timeout()
    assert seat(game, b)["status"] == "eliminated"
    while (table(game).get("handNo") or 0) < 3:
        events += game.timeout()
    events += act(game, b, "leave")
    assert {"type": "leave", "player": b} in events
    while (table(game).get("handNo") or 0) < 5 and not game.finished:
        events += game.timeout()
    assert seat(game, b)["status"] == "eliminated"
    assert [e for e in events if e["type"] == "eliminated"] == [{"type": "eliminated", "player": b}]
    view = game.view(a)
    assert next(s for s in view["seats"] if s["id"] == b)["status"] == "eliminated"
    act(game, a, "leave")
    result = game.result()
    assert result is not None
    row = next(r for r in result["ranking"] if r["playerId"] == b)
    assert row["eliminatedAtHand"] == 1
    assert row["rank"] == 3  # last, once: an elimination counted twice would move it


# ---------------------------------------------------------------- the deal hook
def test_deal_hook_changes_only_the_rigged_cards_and_replays() -> None:
    options = Options(deal_mode="oneRound")
    plain = Game.new(options, ["x", "y", "z"], 9)
    assert Game.new(options, ["x", "y", "z"], 9, deal=StackedDeck()).state_hash() == (
        plain.state_hash()
    )  # a hook with no plan deals exactly as the seed does
    deck = StackedDeck()
    deck.rig({"y": [G3, G8]}, hand=1)
    rigged = Game.new(options, ["x", "y", "z"], 9, deal=deck)
    assert held(rigged, "y") == [G3, G8]
    log: list[tuple[str | None, dict[str, Any]]] = [(None, {})] * 12  # a few hands of timeouts
    for _ in log:
        rigged.timeout()
        plain.timeout()
    # the seeded shuffle still ran: from hand 2 on, every hand is dealt as without the hook
    hand_no = table(plain).get("handNo")
    assert hand_no is not None and hand_no > 2 and table(rigged).get("handNo") == hand_no
    assert {p: held(rigged, p) for p in "xyz"} == {p: held(plain, p) for p in "xyz"}
    again = StackedDeck()
    again.rig({"y": [G3, G8]}, hand=1)
    replayed = Game.replay(options, ["x", "y", "z"], 9, log, deal=again)
    assert replayed.state_hash() == rigged.state_hash()


def test_deal_hook_must_return_the_decks_own_cards() -> None:
    def cheat(request: DealRequest) -> list[int]:
        return [G3] * len(request.deck)

    with pytest.raises(ValueError, match="reordered"):
        Game.new(Options(), ["x", "y"], 1, deal=cheat)
    with pytest.raises(ValueError, match="rigged twice"):
        StackedDeck().rig({"x": [G3], "y": [G3]})
    with pytest.raises(ValueError, match="stacks"):
        Game.new(Options(), ["x", "y"], 1, stacks={"nobody": 5})
