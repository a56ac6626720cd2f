"""Issue 36 variants (``cardMode``) through the public API with fixed decks (the deal hook):
인디언 섯다 (who sees which card, in play, at the showdown, in replays and after a reload),
the option's validation, and the bots playing it."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options, OptionsError
from engine.dealing import StackedDeck

from .gamekit import act, held, leaks, must_fail, new_game, seat, stack

G1, Y2, G3, T4, Y9, T9, Y10, T10 = 0, 2, 4, 7, 16, 17, 18, 19


def faces(game: Game, pid: str, viewer: str | None) -> list[int | None]:
    """``pid``'s cards as ``viewer`` sees them: ids, None for a hidden card."""
    return [None if "hidden" in c else c["id"] for c in seat(game, pid, viewer).get("cards", [])]


# ------------------------------------------------------------------------------ 인디언 섯다
def bots_play_out(game: Game, options: Options, *, seed: int, steps: int) -> None:
    """Strong bots answer whoever the game waits for (timeouts when nobody) until it ends."""
    from seotda_tui.rooms.bots import decide

    for _step in range(steps):
        if game.finished:
            break
        pending = game.pending()["players"]
        if not pending:
            game.timeout()
            continue
        action = decide("strong", game.view(pending[0]), options, seed=seed)
        assert action is not None
        game.apply(pending[0], action)
    assert game.finished


def test_indian_first_card_is_seen_by_all_but_its_holder() -> None:
    game, (a, b, c) = new_game(
        3, card_mode="indian", cards={"a": [G1, Y2], "b": [G3, T4], "c": [Y9, T10]}
    )
    assert faces(game, a, a) == [None]  # the holder does not see their own first card
    assert faces(game, a, b) == [G1] and faces(game, a, None) == [G1]  # others and watchers do
    assert faces(game, b, a) == [G3] and faces(game, c, a) == [Y9]
    assert game.view(a)["myHand"] is None  # no hint names a card the holder cannot see
    assert not leaks(game.view(a), {G1})
    assert game.pending() == {"phase": "betting", "players": [a], "seconds": 20}
    for p in (a, b, c):
        act(game, p, "check")
    # the second card: only its holder sees it; the first stays hidden from its holder
    assert faces(game, a, a) == [None, Y2]
    assert faces(game, a, b) == [G1, None] and faces(game, a, None) == [G1, None]
    assert held(game, b) == [T4] and game.view(b)["myHand"] is None
    assert game.view(None)["street"] == 1
    for viewer in (a, b, c, None):
        mine = {a: {G1}, b: {G3}, c: {Y9}}.get(viewer, set()) if viewer else set()
        second = {Y2, T4, T10} - ({Y2, T4, T10} & set(held(game, viewer)) if viewer else set())
        assert not leaks(game.view(viewer), mine | second), viewer
    for p in (a, b, c):
        act(game, p, "check")
    view = game.view(a)
    shown = {r["player"]: (r["name"], [x["id"] for x in r["cards"]]) for r in view["showdown"]}
    assert shown[a] == ("알리", [G1, Y2]) and shown[c][1] == [Y9, T10]
    assert faces(game, a, a) == [G1, Y2]  # revealed: the holder sees it now
    assert stack(game, a) == 1000 - 10 + 30  # 알리 beats 7끗 (3+4) and 갑오 (9+10)
    assert game.chips_in_play() == 3000


def test_indian_fold_keeps_the_holders_card_hidden_and_rematch_deals_again() -> None:
    game, (a, b) = new_game(2, card_mode="indian", cards={"a": [G1, Y2], "b": [G3, T4]})
    act(game, a, "ping")
    act(game, b, "die")
    assert game.view(a)["handPhase"] == "handEnd" and game.view(a)["showdown"] is None
    assert faces(game, a, a) == [None]  # a fold reveals nothing, not even to the holder
    assert not leaks(game.view(a), {G1}) and not leaks(game.view(b), {T4})
    game.timeout()  # next hand: one card each again
    assert game.view(None)["handNo"] == 2
    assert all(len(seat(game, p, None)["cards"]) == 1 for p in (a, b))


def test_indian_replay_and_reload_keep_the_holder_blind() -> None:
    deck = StackedDeck()
    deck.rig({"a": [T9, Y10], "b": [G3, T4]}, hand=1)
    options = Options(card_mode="indian")
    game = Game.new(options, ["a", "b"], 7, deal=deck)
    log: list[tuple[str | None, dict[str, object]]] = []
    for _ in range(2):
        pid = game.pending()["players"][0]
        log.append((pid, {"type": "check"}))
        game.apply(pid, {"type": "check"})
    assert faces(game, "a", "a") == [None, Y10] and faces(game, "a", "b") == [T9, None]
    clone = Game.from_dict(game.to_dict())  # the journal's snapshot, mid-hand
    assert clone.view("a") == game.view("a") and clone.state_hash() == game.state_hash()
    replayed = Game.replay(options, ["a", "b"], 7, log, deal=deck)
    assert replayed.view("a") == game.view("a") and replayed.state_hash() == game.state_hash()
    assert not leaks(replayed.view("a"), {T9})


def test_indian_option_validation() -> None:
    Options(card_mode="indian").check_players(10)
    with pytest.raises(OptionsError, match="참가 인원은 최대 10명까지예요"):
        Options(card_mode="indian").check_players(11)
    with pytest.raises(OptionsError, match="카드 방식은 two, three, indian, shared, regret"):
        Options.from_dict({"cardMode": "indians"})
    assert Options.from_dict({"cardMode": "indian"}).card_mode == "indian"
    assert Options().card_mode == "two"  # the default game is untouched


@pytest.mark.parametrize("level", ["cautious", "strong", "random"])
def test_bots_play_indian_games_to_the_end(level: str) -> None:
    from seotda_tui.rooms.bots import decide

    options = Options(card_mode="indian", starting_chips=500, base_unit=20, hand_limit=10)
    ids = ["a", "b", "c", "d"]
    game = Game.new(options, ids, 3)
    rng = random.Random(level)
    for _step in range(4000):
        if game.finished:
            break
        pending = game.pending()["players"]
        if not pending:
            game.timeout()
            continue
        pid = rng.choice(pending)
        action = decide(level, game.view(pid), options, seed=1)
        assert action is not None
        game.apply(pid, action)
        assert game.chips_in_play() == 500 * len(ids) + 500 * sum(
            s["rebuys"] for s in game.view(None)["seats"]
        )
    assert game.finished


def test_indian_bots_weigh_what_the_others_show() -> None:
    from seotda_tui.rooms.bots import table_equity

    def equity_facing(card: int) -> float:
        game, (a, b) = new_game(2, card_mode="indian", cards={"a": [T9, Y10], "b": [card, T4]})
        return table_equity(game.view(a), game.options, 1)

    # the bot does not know its own card: against a shown 1광 it is worse off than against
    # a 3띠 (id 5: the weakest start)
    assert equity_facing(G1) < 0.4 and equity_facing(5) > 0.55


# ------------------------------------------------------------------------------ 한장공유
T2 = 3  # 2월 띠


def test_shared_the_dealer_picks_then_one_card_each_plus_the_shared_card() -> None:
    game, (a, b, c) = new_game(3, card_mode="shared", cards={"a": [Y2], "b": [G3], "c": [Y9]})
    assert game.pending() == {"phase": "pickShared", "players": [a], "seconds": 20}
    assert game.legal_actions(a) == [{"type": "pickShared", "amount": 0}]
    assert game.legal_actions(b) == [] and game.view(None)["sharedCard"] is None
    assert all(len(seat(game, p, p).get("cards", [])) == 0 for p in (a, b, c))  # nothing dealt
    must_fail(game, b, {"type": "pickShared", "cardId": G1}, "notPicking")
    must_fail(game, a, {"type": "pickShared", "cardId": 20}, "needCard")
    must_fail(game, a, {"type": "pickShared", "cardId": True}, "needCard")
    must_fail(game, a, {"type": "pickShared"}, "needCard")
    events = act(game, a, "pickShared", cardId=G1)
    assert {
        "type": "sharedCard",
        "player": a,
        "card": {"id": G1, "month": 1, "kind": "gwang"},
    }.items() <= events[0].items()
    for viewer in (a, b, c, None):
        assert game.view(viewer)["sharedCard"] == {"id": G1, "month": 1, "kind": "gwang"}
    assert held(game, a) == [Y2] and faces(game, a, b) == [None]
    assert game.view(a)["myHand"]["name"] == "알리"  # own 2열 + the shared 1광
    assert game.view(b)["myHand"]["name"] == "13광땡"
    for p in (a, b, c):
        act(game, p, "check")  # one betting round, then the showdown
    shown = {r["player"]: [x["id"] for x in r["cards"]] for r in game.view(None)["showdown"]}
    assert shown == {a: [Y2, G1], b: [G3, G1], c: [Y9, G1]}
    assert stack(game, b) == 1000 - 10 + 30 and game.chips_in_play() == 3000


@pytest.mark.parametrize(("tie_rule", "rematch"), [("rematch", True), ("split", False)])
def test_shared_ties_follow_tie_rule(tie_rule: str, rematch: bool) -> None:
    game, (a, b) = new_game(2, card_mode="shared", tie_rule=tie_rule, cards={"a": [Y2], "b": [T2]})
    act(game, a, "pickShared", cardId=G1)  # both hold 알리 (1 + 2)
    act(game, a, "check")
    act(game, b, "check")
    view = game.view(None)
    assert bool(view["rematchReason"]) is rematch
    if rematch:  # the rematch's 선 picks a shared card again
        game.timeout()
        assert game.pending()["phase"] == "pickShared" and game.view(None)["sharedCard"] is None
    else:
        assert stack(game, a) == stack(game, b) == 1000


def test_shared_timeout_and_leaving_pick_for_the_dealer() -> None:
    game, (a, b, c) = new_game(3, card_mode="shared")
    events = game.timeout()
    assert events[0] == {"type": "timeout", "player": a, "action": "pickShared"}
    picked = next(e for e in events if e["type"] == "sharedCard")
    assert picked["auto"] and game.view(None)["sharedCard"] == picked["card"]
    assert game.pending()["phase"] == "betting"
    game2, (a2, b2, c2) = new_game(3, card_mode="shared")
    events = game2.leave(a2)
    assert {"type": "fold", "player": a2, "auto": True} in events
    assert any(e["type"] == "sharedCard" and e["auto"] for e in events)
    assert game2.pending() == {"phase": "betting", "players": [b2], "seconds": 20}
    assert seat(game2, a2, None).get("cards", []) == []  # the leaver is dealt nothing


def test_shared_reload_and_replay_mid_pick() -> None:
    options = Options(card_mode="shared")
    game = Game.new(options, ["a", "b"], 5)
    clone = Game.from_dict(game.to_dict())
    assert clone.pending() == game.pending() and clone.state_hash() == game.state_hash()
    picker = game.pending()["players"][0]
    log: list[tuple[str | None, dict[str, object]]] = [
        (picker, {"type": "pickShared", "cardId": 12})
    ]
    game.apply(*log[0])
    clone.apply(*log[0])
    assert clone.state_hash() == game.state_hash()
    assert Game.replay(options, ["a", "b"], 5, log).state_hash() == game.state_hash()
    Options(card_mode="shared").check_players(10)
    with pytest.raises(OptionsError, match="참가 인원은 최대 10명까지예요"):
        Options(card_mode="shared").check_players(11)


def test_shared_bots_play_to_the_end_and_judge_with_the_shared_card() -> None:
    from seotda_tui.rooms.bots import shared_equity

    options = Options(card_mode="shared")
    # 1광 shared: a 3광 makes 13광땡 (near certain), a 2열 알리 (strong), a 5띠 6끗 (middling)
    assert shared_equity([G3], G1, options) > shared_equity([Y2], G1, options) > 0.5
    assert shared_equity([9], G1, options) < shared_equity([Y2], G1, options)
    options = Options(card_mode="shared", starting_chips=500, base_unit=20, hand_limit=10)
    game = Game.new(options, ["a", "b", "c"], 4)
    bots_play_out(game, options, seed=2, steps=3000)


def test_shared_deals_verify_and_a_changed_shared_card_is_found() -> None:
    from engine import proof

    options = Options(card_mode="shared", verifiable_deals=True, deal_mode="oneRound")
    game = Game.new(options, ["a", "b"], 8)
    events = list(game.last_events)
    events += game.apply(game.pending()["players"][0], {"type": "pickShared", "cardId": 6})
    while game.pending()["phase"] == "betting":
        events += game.apply(game.pending()["players"][0], {"type": "check"})
    (record,) = proof.records(events)
    assert record["shared"] == 6 and all(6 in ids for ids in record["shown"].values())
    assert proof.verify(record) == []
    other = next(c for c in range(20) if all(c not in ids for ids in record["shown"].values()))
    assert proof.verify({**record, "shared": other})  # another card: the deal no longer fits


# ------------------------------------------------------------------------------ 후회의 섯다
def test_regret_draw_in_turn_choose_two_of_four_and_the_unchosen_are_shown() -> None:
    deck = StackedDeck()
    # a (선) draws last: b, c, a, b, c, a, ... each takes one card in turn
    game, (a, b, c) = new_game(3, card_mode="regret", deck=deck)
    deck.rig({b: [G1, Y2, T4, 9], c: [G3, 14, Y9, T10], a: [1, 5, 11, 13]}, hand=1)
    assert game.pending() == {"phase": "draw", "players": [b], "seconds": 20}
    assert game.legal_actions(b) == [{"type": "draw", "amount": 0}]
    must_fail(game, a, {"type": "draw"}, "notDrawing")
    must_fail(game, b, {"type": "draw", "cardId": 1}, "extraField")
    order = []
    for _ in range(12):
        (pid,) = game.pending()["players"]
        order.append(pid)
        events = game.draw(pid)
        assert {"type": "dealt", "to": pid, "count": 1} in events
    assert order == [b, c, a] * 4
    assert held(game, b) == [G1, Y2, T4, 9] and held(game, a) == [1, 5, 11, 13]
    assert faces(game, b, a) == [None] * 4 and seat(game, b, None)["cardCount"] == 4
    assert game.view(c)["myHand"]["name"] == "38광땡"  # 3광 + 8광, recommended
    assert game.pending()["phase"] == "choose" and game.pending()["seconds"] == 30
    act(game, b, "choose", cardIds=[G1, Y2])  # 알리
    act(game, c, "choose", cardIds=[Y9, T10])  # 갑오, regretting 38광땡
    game.timeout()  # a's pick is made for it (the best two)
    assert game.pending() == {"phase": "betting", "players": [a], "seconds": 20}
    for viewer in (a, c, None):  # nobody else sees b's choice or its other cards
        assert not leaks(game.view(viewer), {G1, Y2, T4, 9}), viewer
    for p in (a, b, c):
        act(game, p, "check")
    shown = {r["player"]: r for r in game.view(None)["showdown"]}
    assert [x["id"] for x in shown[b]["cards"]] == [G1, Y2]
    assert [x["id"] for x in shown[b]["unchosen"]] == [T4, 9]
    assert [x["id"] for x in shown[c]["unchosen"]] == [G3, 14]  # what c could have had
    assert [x["id"] for x in seat(game, c, a)["unchosen"]] == [G3, 14]
    assert game.chips_in_play() == 3000


def test_regret_six_players_draw_three_and_seven_are_refused() -> None:
    game = Game.new(Options(card_mode="regret"), [f"p{i}" for i in range(6)], 2)
    for _ in range(18):
        game.draw(game.pending()["players"][0])
    assert game.pending()["phase"] == "choose"
    assert all(s["cardCount"] == 3 for s in game.view(None)["seats"])
    with pytest.raises(OptionsError, match="후회의 섯다는 최대 6명까지예요"):
        Options(card_mode="regret").check_players(7)


def test_regret_timeout_leave_reload_and_bots() -> None:

    options = Options(card_mode="regret")
    game = Game.new(options, ["a", "b", "c"], 6)
    first = game.pending()["players"][0]
    events = game.timeout()  # the card is taken for the drawer
    assert events[0] == {"type": "timeout", "player": first, "action": "draw"}
    clone = Game.from_dict(game.to_dict())
    assert clone.state_hash() == game.state_hash() and clone.pending() == game.pending()
    second = game.pending()["players"][0]
    events = game.leave(second)  # the drawer leaves: folded, the next draws
    assert {"type": "fold", "player": second, "auto": True} in events
    assert second not in game.pending()["players"]
    log = [(None, {}), (second, {"type": "leave"})]
    assert Game.replay(options, ["a", "b", "c"], 6, log).state_hash() == game.state_hash()
    options = Options(card_mode="regret", starting_chips=500, base_unit=20, hand_limit=10)
    game = Game.new(options, ["a", "b", "c", "d"], 4)
    bots_play_out(game, options, seed=3, steps=4000)
