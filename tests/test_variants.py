"""Issue 36 variants (``cardMode``) through the public API with fixed decks (the deal hook):
인디언 섯다 (who sees which card, in play, at the showdown, in replays and after a reload),
the option's validation, and the bots playing it."""

from __future__ import annotations

import random

import pytest

from engine import Game, Options, OptionsError
from engine.dealing import StackedDeck

from .gamekit import act, held, leaks, new_game, seat, stack

G1, Y2, G3, T4, Y9, T9, Y10, T10 = 0, 2, 4, 7, 16, 17, 18, 19


def faces(game: Game, pid: str, viewer: str | None) -> list[int | None]:
    """``pid``'s cards as ``viewer`` sees them: ids, None for a hidden card."""
    return [c.get("id") for c in seat(game, pid, viewer).get("cards", [])]


# ------------------------------------------------------------------------------ 인디언 섯다
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
    with pytest.raises(OptionsError, match="카드 방식은 two, three, indian"):
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
