"""Issue 32: joining a running game at the next hand (the ``midJoin`` option, ``Game.join``),
and each win's net (the pot less what the winner put in) in payouts and hand results.

The engine decides: a spectator queued with ``join`` sits down when the next hand starts, on a
new seat with the starting chips, and pays that hand's school like everyone; refusals name why.
"""

from __future__ import annotations

from typing import Any

from engine import Game, Options

from .gamekit import act, must_fail, new_game, refusal, seat, stack, total_chips


def _finish_hand(game: Game) -> list[dict[str, Any]]:
    """Play the current hand to its end by timeouts (check, then die) and confirm it."""
    events: list[dict[str, Any]] = []
    hand_no = game.view(None).get("handNo")
    while game.view(None).get("handNo") == hand_no and not game.finished:
        events += game.timeout()
    return events


def test_join_queues_then_seats_at_the_next_hand_paying_school() -> None:
    game, (a, b, c) = new_game(3, base_unit=10)
    assert game.options.mid_join  # on by default
    events = game.join("zed")
    assert events == [{"type": "joinQueued", "player": "zed"}]
    view = game.view(None)
    assert view["joining"] == ["zed"]
    assert "zed" not in game.players  # no seat in the hand being played
    assert "zed" not in view.get("pots", [{}])[0].get("eligible", [])
    must_fail(game, "zed", {"type": "join"}, "alreadyJoining")
    events = _finish_hand(game)
    seated = [e for e in events if e["type"] == "seated"]
    assert seated == [{"type": "seated", "player": "zed", "seat": 3, "stack": 1000}]
    school = [e for e in events if e["type"] == "school" and e["player"] == "zed"]
    assert school == [{"type": "school", "player": "zed", "amount": 10, "allIn": False}]
    start = next(e for e in events if e["type"] == "handStart" and e["handNo"] == 2)
    assert "zed" in start["players"]
    # the seated event comes before the hand that seats them starts
    kinds = [e["type"] for e in events]
    assert kinds.index("seated") < kinds.index("handStart")
    assert game.players[-1] == "zed" and game.view(None)["joining"] == []
    assert stack(game, "zed") == 990
    assert seat(game, "zed")["inHand"]
    assert game.chips_in_play() == total_chips(game) == 4000
    # the new player plays like anyone: their turn comes in the betting order
    while game.pending()["players"] != ["zed"]:
        game.timeout()
    assert {x["type"] for x in game.legal_actions("zed")} >= {"die", "check"}


def test_join_refusals_name_why() -> None:
    game, (a, b, c) = new_game(3, mid_join=False)
    must_fail(game, "zed", {"type": "join"}, "midJoinOff")
    game, (a, b, c) = new_game(3)
    must_fail(game, a, {"type": "join"}, "alreadySeated")
    # a player's own keys cannot ask for it: the room manager sends it for a spectator
    assert refusal(game, "zed", {"type": "join"}, own=True).code == "systemOnly"
    full, names = new_game(6, card_mode="three")  # three-card: six seats at most
    must_fail(full, "zed", {"type": "join"}, "tableFull")
    five, _names = new_game(5, card_mode="three")
    five.join("yu")
    must_fail(five, "zed", {"type": "join"}, "tableFull")  # the queued seat counts


def test_no_join_when_no_hand_is_left() -> None:
    game, players = new_game(2, end_condition="hands", hand_limit=10)
    for _ in range(8):
        _finish_hand(game)
    assert game.view(None)["handNo"] == 9
    assert game.check_join("zed") is None  # hand 10 is still to come
    _finish_hand(game)
    assert game.view(None)["handNo"] == 10
    must_fail(game, "zed", {"type": "join"}, "noHandsLeft")


def test_queued_player_who_leaves_never_sits() -> None:
    game, (a, b, c) = new_game(3)
    game.join("zed")
    assert game.apply("zed", {"type": "leave"}) == [{"type": "joinCancel", "player": "zed"}]
    events = _finish_hand(game)
    assert not any(e["type"] == "seated" for e in events)
    assert "zed" not in game.players


def test_join_replays_identically_from_the_log() -> None:
    """The journal stores actions: a join is one, so the replay rebuilds the same game."""
    options = Options(base_unit=10)
    game = Game.new(options, ["x", "y"], "seed-1")
    log: list[tuple[str | None, dict[str, Any]]] = []
    for step in range(40):
        if step == 3:
            log.append(("zed", {"type": "join"}))
            game.apply("zed", {"type": "join"})
            continue
        log.append((None, {}))
        game.timeout()
    assert "zed" in game.players
    again = Game.replay(options, ["x", "y"], "seed-1", log)
    assert again.state_hash() == game.state_hash()
    assert Game.from_dict(game.to_dict()).state_hash() == game.state_hash()


def test_join_during_the_rebuy_question_sits_at_the_next_hand() -> None:
    game, (a, b) = new_game(
        2,
        seed=5,
        starting_chips=500,
        max_raise="full",
        cards={"a": [0, 4], "b": [3, 5]},  # a: 13광땡; b: 2띠 + 3띠
    )
    while game.pending()["phase"] == "betting":
        kinds = [x["type"] for x in game.legal_actions(game.pending()["players"][0])]
        act(game, game.pending()["players"][0], "full" if "full" in kinds else "call")
    while game.pending()["phase"] == "handEnd":
        game.timeout()
    assert game.pending()["phase"] == "rebuy"
    game.join("zed")
    events = act(game, b, "rebuy", accept=True)
    assert any(e["type"] == "seated" and e["player"] == "zed" for e in events)
    assert stack(game, "zed") == 490


def test_net_of_a_win_is_the_pot_less_what_the_winner_put_in() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", base_unit=10)
    act(game, a, "ping")  # 10 more: a has 20 in
    act(game, b, "die")  # b lost the 10 school
    events = act(game, c, "die")
    payout = next(e for e in events if e["type"] == "payout")
    assert payout["amount"] == 40  # the gross pot: 3 schools + a's ping
    assert payout["net"] == 20  # what a won from the others
    assert stack(game, a) == 1000 + 20
    (result,) = game.view(None)["results"]
    assert result["net"] == {a: 20}
