"""§5 hand flow and §10 checklist lines, one named test each (decks rigged via the state)."""

from __future__ import annotations

import pytest

from engine import Game, Options

from .gamekit import act, leaks, must_fail, rig

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


def new_game(n: int = 3, seed: int = 1, **opts: object) -> tuple[Game, list[str]]:
    """A game and its players in order from the first dealer (order[0] = 선)."""
    game = Game.new(Options(**opts), [f"p{i}" for i in range(n)], seed)  # type: ignore[arg-type]
    return game, list(game.state.hand.participants)


def set_stacks(game: Game, stacks: dict[str, int]) -> None:
    """Move chips between players without creating any (conservation stays true)."""
    seats = {s.id: s for s in game.state.seats}
    before = sum(s.stack for s in game.state.seats)
    for pid, stack in stacks.items():
        seats[pid].stack = stack
        seats[pid].stack_at_hand_start = stack + game.state.hand.players[pid].committed_total
    rest = [s for s in game.state.seats if s.id not in stacks]
    rest[0].stack += before - sum(s.stack for s in game.state.seats)
    rest[0].stack_at_hand_start = (
        rest[0].stack + game.state.hand.players[rest[0].id].committed_total
    )


def stack(game: Game, pid: str) -> int:
    return next(s.stack for s in game.state.seats if s.id == pid)


def finish_hand(game: Game) -> list[dict]:
    """Timeouts until the hand reaches handEnd, then everyone ready."""
    events: list[dict] = []
    while game.state.hand.phase != "handEnd" and not game.finished:
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
    assert game.state.hand.street == 1  # round over, second card dealt


def test_raise_after_check_or_call_is_refused() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "check")
    act(game, b, "ping")
    act(game, c, "call")
    must_fail(game, a, {"type": "half"}, "이번 라운드에는 더 올릴 수 없어요(콜 또는 다이)")
    act(game, a, "call")
    must_fail(game, b, {"type": "half"}, "지금은 내 차례가 아니에요")


def test_max_raise_half_refuses_full_and_full_costs_the_pot() -> None:
    game, (a, b, c) = new_game(3)
    must_fail(game, a, {"type": "full"}, "이 방에서는 풀을 할 수 없어요(하프까지)")
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
    must_fail(game, b, {"type": "check"}, "누가 이미 걸어서 체크할 수 없어요")
    must_fail(game, b, {"type": "ping"})


def test_all_checks_end_the_round() -> None:
    game, (a, b, c) = new_game(3)
    for p in (a, b, c):
        act(game, p, "check")
    assert game.state.hand.street == 1 and game.state.hand.actor == a


def test_second_round_first_actor_when_dealer_folded() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "die")
    act(game, b, "check")
    act(game, c, "check")
    assert game.state.hand.street == 1
    assert game.pending()["players"] == [b]


def test_uncalled_excess_is_returned_and_all_in_for_less() -> None:
    game, (a, b) = new_game(2)
    set_stacks(game, {b: 5})
    act(game, a, "ping")
    events = act(game, b, "call")
    assert {"type": "bet", "player": b, "action": "call", "amount": 5, "allIn": True} in events
    assert {"type": "return", "player": a, "amount": 5} in events
    # street 2 is skipped (one player can act), straight to showdown
    assert game.state.hand.phase == "handEnd"
    assert game.chips_in_play() == 2000


def test_short_school_is_all_in() -> None:
    game, order = new_game(3, seed=4)
    hand_end(game)
    seat = game.state.seats[0]
    others = [s for s in game.state.seats if s is not seat]
    others[0].stack += seat.stack - 5
    seat.stack = 5
    hand_end(game, ready=True)
    rp = game.state.hand.players[seat.id]
    assert rp.committed_total == 5 and rp.all_in and stack(game, seat.id) == 0


def hand_end(game: Game, ready: bool = False) -> None:
    finish_hand(game)
    if ready:
        game.timeout()


# ---------------------------------------------------------------- §5.1 / §5.2 flows
def test_one_round_deal_mode_bets_once_then_shows_down() -> None:
    game, (a, b) = new_game(2, deal_mode="oneRound")
    assert all(len(rp.hand) == 2 for rp in game.state.hand.players.values())
    act(game, a, "check")
    act(game, b, "check")
    assert game.state.hand.phase == "handEnd"
    assert game.state.hand.showdown is not None


def test_two_rounds_deals_one_card_then_another() -> None:
    game, (a, b) = new_game(2)
    assert all(len(rp.hand) == 1 for rp in game.state.hand.players.values())
    act(game, a, "check")
    events = act(game, b, "check")
    assert {"type": "dealt", "to": a, "count": 1} in events
    assert all(len(rp.hand) == 2 for rp in game.state.hand.players.values())


def test_fold_ended_hand_reveals_no_cards() -> None:
    game, (a, b) = new_game(2)
    act(game, a, "ping")
    events = act(game, b, "die")
    assert game.state.hand.showdown is None
    secret = set(game.state.hand.players[a].hand)
    assert (
        not leaks(events, secret)
        and not leaks(game.view(b), secret)
        and not leaks(game.view(None), secret)
    )
    assert stack(game, a) == 1010


def test_three_card_secrecy_and_choose_phase() -> None:
    game, (a, b, c) = new_game(3, card_mode="three")
    assert all(len(rp.hand) == 2 for rp in game.state.hand.players.values())
    for p in (a, b, c):
        act(game, p, "check")
    assert game.pending()["phase"] == "choose"
    assert game.pending()["seconds"] == 20 + 10
    hands = {p: list(game.state.hand.players[p].hand) for p in (a, b, c)}
    assert all(len(h) == 3 for h in hands.values())
    must_fail(game, a, {"type": "call"}, "지금은 베팅할 때가 아니에요")
    must_fail(game, a, {"type": "choose", "cardIds": [99, hands[a][0]]}, "내 손패에 없는 카드예요")
    act(game, a, "choose", cardIds=hands[a][:2])
    must_fail(game, a, {"type": "choose", "cardIds": hands[a][1:]}, "이미 카드를 골랐어요")
    seat_a = next(s for s in game.view(b)["seats"] if s["id"] == a)
    assert seat_a["chosen"] is True and "chosenIds" not in seat_a
    assert next(s for s in game.view(a)["seats"] if s["id"] == a)["discardedId"] == hands[a][2]
    log = []
    log += act(game, b, "choose", cardIds=hands[b][1:])
    log += act(game, c, "choose", cardIds=[hands[c][0], hands[c][2]])
    assert game.state.hand.phase == "betting" and game.state.hand.street == 1
    for p in (a, b, c):
        log += act(game, p, "check")
    assert game.state.hand.phase == "handEnd"
    discards = {hands[a][2], hands[b][0], hands[c][1]}
    for viewer in (a, b, c, None):
        mine = set(hands.get(viewer, [])) if viewer else set()
        assert not leaks(game.view(viewer), discards - mine)
    assert not leaks(log, discards)
    shown = {p["player"]: {c["id"] for c in p["cards"]} for p in game.state.hand.showdown}
    assert shown[a] == set(hands[a][:2])


def test_three_card_timeout_picks_18_gwangttaeng() -> None:
    game, order = new_game(2, card_mode="three")
    a, b = order
    rig(game, {a: [G1, G8, Y4], b: [T2, T3, T5]})
    act(game, a, "check")
    act(game, b, "check")
    game.timeout()
    assert sorted(game.state.hand.players[a].chosen) == [G1, G8]
    act(game, a, "check")
    act(game, b, "check")
    names = {row["player"]: row["name"] for row in game.state.hand.showdown}
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
    act(game, b, "check")
    game.timeout()  # handEnd → next hand
    while a not in game.pending()["players"] or game.pending()["phase"] != "betting":
        game.timeout() if game.pending()["players"] != [b] else act(game, b, "check")
    assert game.pending()["seconds"] == 5
    events = act(game, a, "check")
    assert {"type": "away", "player": a, "away": False} in events
    assert game.state.seats[[s.id for s in game.state.seats].index(a)].away is False


def test_disconnected_players_turn_waits_then_times_out_then_reconnects() -> None:
    game, (a, b, c) = new_game(3)
    act(game, a, "disconnect")
    assert game.pending() == {"phase": "betting", "players": [a], "seconds": 20}
    game.timeout()
    assert game.state.hand.players[a].last_action == "check"
    act(game, b, "check")
    act(game, c, "check")
    act(game, a, "reconnect")
    act(game, a, "ping")
    assert game.state.hand.players[a].last_action == "ping"


def test_game_ends_when_one_connected_player_with_chips_remains() -> None:
    game, (a, b) = new_game(2)
    act(game, a, "ping")
    events = act(game, b, "disconnect")
    assert game.finished and events[-1]["type"] == "gameEnd"
    assert game.result()["reason"] == "disconnected"
    assert sum(s.stack for s in game.state.seats) == 2000  # the unfinished hand was voided


def test_left_player_folds_and_auto_dies_after_paying_school() -> None:
    game, (a, b, c) = new_game(3)
    events = act(game, b, "leave")
    assert {"type": "fold", "player": b, "auto": True} in events
    must_fail(game, b, {"type": "ready"}, "방을 나간 뒤에는 행동할 수 없어요")
    finish_hand(game)
    game.timeout()
    hand = game.state.hand
    assert hand.hand_no == 2 and hand.players[b].folded and hand.players[b].committed_total == 10
    assert b not in game.pending()["players"]


# ---------------------------------------------------------------- §5.5 rematches
def test_gusa_rematch_keeps_pot_no_new_school_survivors_only() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound")
    rig(game, {a: [T4, Y9], b: [G1, T2], c: [T5, T6]})
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    hand = game.state.hand
    assert hand.rematch_reason == "gusa" and hand.phase == "handEnd"
    stacks = {p: stack(game, p) for p in (a, b, c)}
    game.timeout()  # ready → rematch (rejoinCost none: no rejoin phase)
    hand = game.state.hand
    assert hand.rematch_no == 1 and set(hand.participants) == {a, b}
    assert game.pot_total() == 30
    assert {p: stack(game, p) for p in (a, b, c)} == stacks
    assert game.view(None)["rematchReason"] == "gusa"
    assert game.state.hands_played == 0


def _gusa_with_rejoin(c_stack: int) -> tuple[Game, str, str, str]:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", rejoin_cost="half")
    rig(game, {a: [T4, Y9], b: [G1, T2], c: [T5, T6]})
    set_stacks(game, {c: c_stack})
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    game.timeout()
    assert game.pending() == {"phase": "rejoin", "players": [c], "seconds": 15}
    return game, a, b, c


def test_rejoin_half_refused_with_too_few_chips() -> None:
    game, a, b, c = _gusa_with_rejoin(10)
    assert game.state.hand.rejoin_cost == 15
    assert game.legal_actions(c) == [{"type": "rejoin", "accept": False, "amount": 0}]
    must_fail(game, c, {"type": "rejoin", "accept": True}, "칩이 모자라 재참가할 수 없어요")


def test_rejoin_half_pays_half_the_pot_and_plays() -> None:
    game, a, b, c = _gusa_with_rejoin(100)
    act(game, c, "rejoin", accept=True)
    assert stack(game, c) == 85 and game.pot_total() == 45
    assert set(game.state.hand.participants) == {a, b, c}


def test_rejoin_timeout_means_not_joining() -> None:
    game, a, b, c = _gusa_with_rejoin(100)
    events = game.timeout()
    assert {"type": "rejoin", "player": c, "accept": False, "amount": 0} in events
    assert set(game.state.hand.participants) == {a, b}


def test_side_pot_paid_at_once_and_main_pot_tie_rematch() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound")
    rig(game, {a: [Y2, T3], b: [Y6, T9], c: [T5, N8]})  # a, b: 5끗 each; c: 3끗
    set_stacks(game, {a: 10})
    act(game, a, "ping")  # a all-in for 20 in total
    act(game, b, "half")  # 10 + (40+10)//2 = 35
    act(game, c, "call")
    hand = game.state.hand
    assert hand.phase == "handEnd"
    assert stack(game, a) == 0
    side = [r for r in hand.results if r["type"] == "win"]
    assert side == [{"amount": 50, "type": "win", "winners": [b], "reason": "normal"}]
    (kept,) = hand.rematch_pots
    assert kept.amount == 60 and set(kept.eligible) == {a, b} and kept.main
    events = game.timeout()
    # a is all-in and b alone cannot bet: the rematch deals and shows down at once
    start = next(e for e in events if e["type"] == "rematchStart")
    assert start["rematchNo"] == 1 and set(start["players"]) == {a, b}
    assert not any(e["type"] == "school" for e in events)
    paid = sum(e["amount"] for e in events if e["type"] == "payout")
    kept = sum(p.amount for p in game.state.hand.rematch_pots)
    assert paid + kept == 60


def test_three_rematches_then_even_split_with_odd_chip_to_dealer_side() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound")
    # c could only pay 5 of the school (all-in): main pot 15 (a, b, c), side pot 10 (a, b)
    hand = game.state.hand
    seats = {s.id: s for s in game.state.seats}
    hand.players[c].committed_total = 5
    hand.players[c].all_in = True
    seats[a].stack += seats[c].stack + 5
    seats[c].stack = 0
    for rematch in range(4):
        cards = {a: [Y2, T3], b: [Y6, T9], c: [T5, N8]}
        rig(game, {p: ids for p, ids in cards.items() if p in game.state.hand.players})
        while game.state.hand.phase == "betting":
            game.timeout()
        hand = game.state.hand
        if rematch < 3:
            assert hand.rematch_pots and hand.rematch_reason == "tie"
            game.timeout()
            assert game.state.hand.rematch_no == rematch + 1
    hand = game.state.hand
    assert not hand.rematch_pots
    splits = [r for r in hand.results if r["reason"] == "rematchCap"]
    assert sorted(r["amount"] for r in splits) == [10, 15]
    first, second = game._from_dealer([a, b])
    main = next(r for r in splits if r["amount"] == 15)
    assert main["winners"] == [first, second]
    paid = {e["player"]: e["amount"] for e in game.timeout() if e["type"] == "payout"}
    assert paid == {}  # payouts happened at the showdown; ready only moves on
    assert game.state.hands_played == 1  # rematches do not count as hands


def test_split_tie_rule_odd_chips_go_to_winner_nearest_dealer() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", tie_rule="split")
    rig(game, {a: [Y2, T3], b: [Y6, T9], c: [T5, N8]})
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    hand = game.state.hand
    (split,) = hand.results
    assert split["type"] == "split" and split["winners"] == [a, b]
    assert stack(game, a) == stack(game, b)


# ---------------------------------------------------------------- §5.6–5.7, §6.6
def test_rebuy_and_hands_scores() -> None:
    game, (a, b) = new_game(2, rebuy="limited", rebuy_limit=1, hand_limit=10)
    rig(game, {a: [G3, G8], b: [T2, N8]})
    set_stacks(game, {b: 5})
    act(game, a, "ping")
    act(game, b, "call")
    assert game.state.hand.phase == "handEnd"
    game.timeout()
    assert game.pending() == {"phase": "rebuy", "players": [b], "seconds": 15}
    must_fail(game, a, {"type": "rebuy", "accept": True}, "지금은 리바이를 정할 때가 아니에요")
    act(game, b, "rebuy", accept=True)
    assert stack(game, b) + game.state.hand.players[b].committed_total == 1000
    assert [s.rebuys for s in game.state.seats if s.id == b] == [1]
    while not game.finished:
        game.timeout()
    result = game.result()
    rows = {r["playerId"]: r for r in result["ranking"]}
    assert rows[b]["score"] == rows[b]["finalChips"] - 1000
    assert rows[a]["score"] == rows[a]["finalChips"]
    assert result["stats"]["handsPlayed"] == 10
    assert result["summary"].startswith("10판 종료. 1위 ")


def test_rebuy_off_eliminates_and_rebuy_not_asked_after_last_hand() -> None:
    game, (a, b, c) = new_game(3, rebuy="unlimited", hand_limit=10)
    while game.state.hands_played < 9:
        game.timeout()
    rig(game, {a: [G3, G8], b: [T2, N8]})
    set_stacks(game, {b: 5})
    while not game.finished:
        game.timeout() if game.pending()["players"] != [a] else act(game, a, "ping")
        if b in game.pending()["players"] and game.pending()["phase"] == "betting":
            act(game, b, "call")
    assert game.state.phase == "finished" and not game.state.rebuy_pending


def test_last_standing_ranks_simultaneous_busts_by_chips_at_hand_start() -> None:
    game, (a, b, c) = new_game(3, end_condition="lastStanding", rebuy="off", deal_mode="oneRound")
    rig(game, {a: [G3, G8], b: [T2, N8], c: [T1, T9]})
    set_stacks(game, {b: 8, c: 5})
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "call")
    assert game.state.hand.phase == "handEnd"
    game.timeout()
    assert game.finished
    ranking = {
        r["playerId"]: (r["rank"], r["score"], r["eliminatedAtHand"])
        for r in game.result()["ranking"]
    }
    assert ranking == {a: (1, 3, None), b: (2, 2, 1), c: (3, 1, 1)}


def test_last_standing_equal_start_chips_share_a_rank() -> None:
    game, (a, b, c) = new_game(3, end_condition="lastStanding", rebuy="off", deal_mode="oneRound")
    rig(game, {a: [G3, G8], b: [T2, N8], c: [T1, T9]})
    set_stacks(game, {b: 5, c: 5})
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "call")
    game.timeout()
    ranks = {r["playerId"]: r["rank"] for r in game.result()["ranking"]}
    assert ranks == {a: 1, b: 2, c: 2}


def test_school_up_doubles_every_n_hands_up_to_a_fifth_of_starting_chips() -> None:
    game, _ = new_game(2, school_up_every=5, base_unit=50, starting_chips=1000, hand_limit=30)
    seen = {}
    while not game.finished and game.state.hands_played < 16:
        seen[game.state.hand.hand_no] = game.state.base_unit
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
    assert game.state.hand.participants[0] == a
    game, (a, b, c) = new_game(3, dealer_rule="rotate")
    act(game, a, "ping")
    act(game, b, "die")
    act(game, c, "die")
    game.timeout()
    assert game.state.hand.participants[0] == b


# ---------------------------------------------------------------- illegal input
@pytest.mark.parametrize(
    ("who", "action", "message"),
    [
        ("b", {"type": "check"}, "지금은 내 차례가 아니에요"),
        ("a", {"type": "fly"}, "알 수 없는 행동이에요"),
        ("a", {"type": "call", "amount": 5}, "필요 없는 값이 함께 왔어요"),
        ("a", {"type": "choose"}, "카드 두 장을 골라 주세요"),
        ("a", {"type": "choose", "cardIds": [1, 1]}, "같은 카드를 두 번 고를 수 없어요"),
        ("a", {"type": "choose", "cardIds": [True, 1]}, "카드 두 장을 골라 주세요"),
        ("a", {"type": "choose", "cardIds": [1, 2]}, "지금은 카드를 고를 때가 아니에요"),
        ("a", {"type": "ready"}, "지금은 준비할 때가 아니에요"),
        ("a", {"type": "rejoin", "accept": 1}, "받기/안 받기를 정해 주세요"),
        ("a", {"type": "call"}, "맞출 금액이 없어요(체크 또는 삥)"),
        ("a", {"type": "ddadang"}, "앞사람이 건 금액이 없어 따당을 할 수 없어요"),
        ("zed", {"type": "check"}, "이 게임의 참가자가 아니에요"),
        ("a", ["check"], "행동 형식이 올바르지 않아요"),
        ("a", {"type": "reconnect"}, "이미 연결되어 있어요"),
    ],
)
def test_illegal_actions_change_nothing(who: str, action: object, message: str) -> None:
    game, (a, b, c) = new_game(3)
    pid = {"a": a, "b": b}.get(who, who)
    must_fail(game, pid, action, message)


def test_finished_game_refuses_actions() -> None:
    game, (a, b) = new_game(2)
    act(game, b, "leave")
    assert game.finished
    must_fail(game, a, {"type": "check"}, "게임이 이미 끝났어요")
    assert game.timeout() == []


def test_rebuy_off_eliminates_busted_player() -> None:
    game, (a, b, c) = new_game(3, rebuy="off", deal_mode="oneRound")
    rig(game, {a: [G3, G8], b: [T2, N8], c: [T5, T6]})
    set_stacks(game, {b: 5})
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    game.timeout()
    seat_b = next(s for s in game.state.seats if s.id == b)
    assert seat_b.status == "eliminated" and seat_b.eliminated_at_hand == 1
    assert b not in game.state.hand.players  # not dealt into hand 2


def test_split_pot_dealer_goes_to_winner_nearest_previous_dealer() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", tie_rule="split")
    rig(game, {a: [T5, T9], b: [Y6, Y9], c: [T2, T3]})  # a 4끗; b and c 5끗
    act(game, a, "die")
    act(game, b, "check")
    act(game, c, "check")
    assert game.state.hand.results[0]["type"] == "split"
    game.timeout()
    assert game.state.hand.participants[0] == b  # b is nearer to the old dealer a than c


def test_rematch_dealer_stays_or_moves_to_first_participant() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound")
    rig(game, {a: [T5, T6], b: [Y2, T3], c: [Y6, T9]})  # a 1끗; b and c 5끗: tie
    for p in (a, b, c):
        act(game, p, "check")
    assert game.state.hand.rematch_reason == "tie"
    game.timeout()
    hand = game.state.hand
    assert hand.rematch_no == 1 and hand.participants == [b, c]  # old dealer a not in: next seat


def test_last_standing_stops_at_300_hands_with_hands_scoring() -> None:
    game, (a, b) = new_game(2, end_condition="lastStanding", starting_chips=5000, base_unit=2)
    while not game.finished:
        game.timeout()
    assert game.state.hands_played == 300
    result = game.result()
    assert result["reason"] == "handCap"
    assert {r["score"] for r in result["ranking"]} == {r["finalChips"] for r in result["ranking"]}


def test_stats_best_hand_biggest_pot_and_rematches() -> None:
    game, (a, b) = new_game(2, deal_mode="oneRound", hand_limit=10)
    rig(game, {a: [G3, G8], b: [T2, T4]})
    act(game, a, "half")
    act(game, b, "call")
    game.timeout()
    while not game.finished:
        game.timeout()
    stats = game.result()["stats"]
    assert stats["bestHand"] == {"playerId": a, "name": "38광땡", "handNo": 1}
    assert stats["biggestPot"]["amount"] >= 40 and stats["handsPlayed"] == 10
    assert stats["rematches"] == game.state.total_rematches
    assert "최고 족보 38광땡" in game.result()["summary"]


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
    assert seats[b]["cards"][0]["id"] == game.state.hand.players[b].hand[0]
    assert view["myHand"] is None  # one card: no hand yet
    assert game.view(c)["legalActions"] == [] and game.view(None)["legalActions"] == []
    assert all(s["cards"] == [{"hidden": True}] for s in game.view(None)["seats"])
    act(game, b, "call")
    act(game, c, "call")
    mine = game.view(a)["myHand"]
    assert mine is not None and mine["name"] and mine["strength"] in ("높음", "중간", "낮음")
    assert Game.new(Options(hints=False), ["x", "y"], 1).view("x")["myHand"] is None


def test_view_after_showdown_reveals_showdown_hands_and_rematch_banner() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound")
    rig(game, {a: [T4, Y9], b: [G1, T2], c: [T5, T6]})
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    view = game.view(None)
    assert {r["player"] for r in view["showdown"]} == {a, b}
    assert view["rematchReason"] == "gusa"
    seats = {s["id"]: s for s in view["seats"]}
    assert seats[a]["revealed"] and seats[c]["revealed"] is None
    assert not leaks(view, {T5, T6})
    game.timeout()
    assert game.view(a)["rematchNo"] == 1


def test_rematch_whose_players_all_left_splits_the_kept_pot_among_them() -> None:
    game, (a, b, c, d) = new_game(4, deal_mode="oneRound")
    rig(game, {a: [Y2, T3], b: [Y6, T9], c: [T5, N8], d: [Y7, T6]})  # a, b tie at 5끗
    for p in (a, b, c, d):
        act(game, p, "check")
    assert game.state.hand.rematch_reason == "tie"
    act(game, a, "leave")
    act(game, b, "leave")
    assert not game.finished  # c and d are still connected with chips
    events = game.timeout()
    assert {e["player"]: e["amount"] for e in events if e["type"] == "payout"} == {a: 20, b: 20}
    assert game.state.hand.phase == "handEnd"
    game.timeout()
    assert game.state.hand.hand_no == 2 and game.chips_in_play() == 4000


def test_rejoin_full_costs_the_whole_pot() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", rejoin_cost="full")
    rig(game, {a: [T4, Y9], b: [G1, T2], c: [T5, T6]})
    act(game, a, "check")
    act(game, b, "check")
    act(game, c, "die")
    game.timeout()
    assert game.legal_actions(c)[0] == {"type": "rejoin", "accept": True, "amount": 30}
    act(game, c, "rejoin", accept=True)
    assert stack(game, c) == 960 and game.pot_total() == 60


def test_limited_rebuys_run_out_then_the_player_is_eliminated() -> None:
    game, (a, b, c) = new_game(3, rebuy="limited", rebuy_limit=1, deal_mode="oneRound")

    def bust(victim: str) -> None:
        hand = game.state.hand
        order = hand.participants
        winner = next(p for p in order if p != victim)
        rest = [p for p in order if p not in (victim, winner)]
        rig(game, {winner: [G3, G8], victim: [T2, N8], **{p: [T5, T6] for p in rest}})
        set_stacks(game, {victim: 5})
        while game.state.hand.phase == "betting":
            actor = game.pending()["players"][0]
            if actor == winner:
                act(game, winner, "ping" if not game.state.hand.opened else "call")
            elif actor == victim:
                act(game, victim, "call" if game.state.hand.opened else "check")
            else:
                act(game, actor, "die")
        game.timeout()

    bust(b)
    assert game.pending()["phase"] == "rebuy"
    act(game, b, "rebuy", accept=True)
    bust(b)
    seat_b = next(s for s in game.state.seats if s.id == b)
    assert (
        game.pending()["phase"] != "rebuy" and seat_b.status == "eliminated" and seat_b.rebuys == 1
    )


def test_an_eliminated_player_who_leaves_stays_eliminated_at_the_hand_they_busted() -> None:
    """Busted in hand 1 with rebuys off, then leaving in hand 3: still 탈락 from hand 1, once."""
    game, (a, b, c) = new_game(3, rebuy="off", deal_mode="oneRound", hand_limit=10)
    rig(game, {a: [G3, G8], b: [T2, N8], c: [T5, T6]})
    set_stacks(game, {b: 5})
    act(game, a, "ping")
    act(game, b, "call")
    act(game, c, "die")
    game.timeout()
    seat_b = next(s for s in game.state.seats if s.id == b)
    assert seat_b.status == "eliminated" and seat_b.eliminated_at_hand == 1
    while game.state.hand.hand_no < 3:
        game.timeout()
    events = act(game, b, "leave")
    assert {"type": "leave", "player": b} in events
    while game.state.hand.hand_no < 5 and not game.finished:
        game.timeout()
    assert seat_b.status == "eliminated" and seat_b.eliminated_at_hand == 1
    assert game.state.elimination_seq == [[b]]
    view = game.view(a)
    assert next(s for s in view["seats"] if s["id"] == b)["status"] == "eliminated"
    act(game, a, "leave")
    row = next(r for r in game.result()["ranking"] if r["playerId"] == b)
    assert row["eliminatedAtHand"] == 1
