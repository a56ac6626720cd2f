"""Issue #19's two 구사 rules: ``gusaWhenWinning`` (win / rematch) and ``gusaOutcome``
(rematch / refund = 사구 파토). Every §6.4 example under each value, judged and played; exact
refunds (folded players, side pots, the next hand); conservation under random play; the
options through validation, the journal, the rules texts and the create-room form."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Options, OptionsError, best_two, evaluate
from engine.dealing import DealRequest, StackedDeck
from engine.showdown import resolve_ranks

from .gamekit import act, deal_order, new_game, random_action, random_options, total_chips
from .test_showdown import (
    ALI,
    AMHAENG,
    GUSA,
    GWANG_13,
    GWANG_38,
    JANG,
    MUNG_GUSA,
    TTAENG_1,
    TTAENG_5,
    TTAENG_8,
    TTAENGJABI,
    card,
    rank_of,
    rematch,
    showdown,
    split,
    win,
)

WHEN_WINNING = ("win", "rematch")
OUTCOMES = ("rematch", "refund")
KKUT_2 = ("5열", "7띠")  # 5 + 7 = 12 → 2끗
MANGTONG = ("2띠", "8일")  # 2 + 8 = 10 → 0끗
KKUT_5_A = ("2열", "3띠")
KKUT_5_B = ("6열", "9띠")

# §6.4 examples 1–11 with cards: (hands, options, outcome with gusaWhenWinning=win, with =rematch).
# Only example 8 (the 구사 already wins) differs: the traditional rule rematches it.
EXAMPLES: dict[str, tuple[dict[str, tuple[str, str]], dict[str, Any], Any, Any]] = {
    "01": ({"A": GWANG_38, "B": AMHAENG}, {}, win("A"), win("A")),
    "02": (
        {"A": GWANG_13, "B": AMHAENG, "C": JANG},
        {},
        win("B", "amhaeng"),
        win("B", "amhaeng"),
    ),
    "03": (
        {"A": ("9열", "9띠"), "B": TTAENGJABI, "C": ALI},
        {},
        win("B", "ttaengjabi"),
        win("B", "ttaengjabi"),
    ),
    "04": ({"A": JANG, "B": TTAENGJABI}, {}, win("A"), win("A")),
    "05": ({"A": TTAENGJABI, "B": ALI}, {}, win("B"), win("B")),
    "06": ({"A": GUSA, "B": ALI}, {}, rematch("gusa", "A", "B"), rematch("gusa", "A", "B")),
    "07": ({"A": GUSA, "B": TTAENG_1}, {}, win("B"), win("B")),
    "08": (
        {"A": GUSA, "B": KKUT_2, "C": MANGTONG},
        {},
        win("A"),
        rematch("gusa", "A", "B", "C"),
    ),
    "09": (
        {"A": MUNG_GUSA, "B": TTAENG_8},
        {"mung_gusa": "upTo8"},
        rematch("mungGusa", "A", "B"),
        rematch("mungGusa", "A", "B"),
    ),
    "09-upToJang": (
        {"A": MUNG_GUSA, "B": JANG},
        {"mung_gusa": "upToJang"},
        rematch("mungGusa", "A", "B"),
        rematch("mungGusa", "A", "B"),
    ),
    "10-rematch": ({"A": KKUT_5_A, "B": KKUT_5_B}, {}, rematch("tie", "A", "B"), None),
    "10-split": (
        {"A": KKUT_5_A, "B": KKUT_5_B},
        {"tie_rule": "split"},
        split("normal", "A", "B"),
        None,
    ),
    "11": (
        {"A": GUSA, "B": TTAENG_5, "C": TTAENGJABI},
        {},
        win("C", "ttaengjabi"),
        win("C", "ttaengjabi"),
    ),
    "11-mungGusa": (
        {"A": MUNG_GUSA, "B": TTAENG_5, "C": TTAENGJABI},
        {"mung_gusa": "upTo8"},
        rematch("mungGusa", "A", "B", "C"),
        rematch("mungGusa", "A", "B", "C"),
    ),
}


def expected_for(name: str, when: str) -> Any:
    _, _, on_win, on_rematch = EXAMPLES[name]
    return on_win if when == "win" or on_rematch is None else on_rematch


# ---------------------------------------------------------------- options


def test_defaults_keep_todays_rules_and_values_are_validated_in_korean() -> None:
    o = Options()
    assert (o.gusa_when_winning, o.gusa_outcome) == ("win", "rematch")
    assert Options.from_dict({"gusaWhenWinning": "rematch", "gusaOutcome": "refund"}) == Options(
        gusa_when_winning="rematch", gusa_outcome="refund"
    )
    with pytest.raises(OptionsError, match="구사가 이길 때는 win, rematch 중 하나여야 해요"):
        Options.from_dict({"gusaWhenWinning": True})
    with pytest.raises(OptionsError, match="구사 처리는 rematch, refund 중 하나여야 해요"):
        Options(gusa_outcome="pato")


def test_gusa_off_ignores_both_rules() -> None:
    o = Options(gusa=False, gusa_when_winning="rematch", gusa_outcome="refund")
    assert (o.effective_gusa_when_winning, o.effective_gusa_outcome) == ("win", "rematch")
    # 4·9 is a plain 3끗 and wins against 2끗: nothing fires
    assert showdown({"A": GUSA, "B": KKUT_2}, **_opts(o)) == win("A")


def _opts(o: Options) -> dict[str, Any]:
    return {k: getattr(o, k) for k in ("gusa", "gusa_when_winning", "gusa_outcome")}


# ---------------------------------------------------------------- §6.4, judged


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("when", WHEN_WINNING)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_judged_under_each_value(name: str, when: str, outcome: str) -> None:
    hands, extra, _, _ = EXAMPLES[name]
    judged = showdown(hands, gusa_when_winning=when, gusa_outcome=outcome, **extra)
    assert judged == expected_for(name, when)


@pytest.mark.parametrize("when", WHEN_WINNING)
def test_example_09_nine_ttaeng_beats_mung_gusa_under_each_value(when: str) -> None:
    # 9땡 needs the 9월 열끗 the 멍구사 holds: judged on ranks, as in tests/test_showdown.py
    options = Options(mung_gusa="upTo8", gusa_when_winning=when)
    nine = evaluate(card("9열"), card("9띠"), options)
    assert resolve_ranks({"A": rank_of(MUNG_GUSA), "B": nine}, options) == win("B")


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("when", WHEN_WINNING)
def test_example_12_three_cards_pick_18_gwang_ttaeng_under_each_value(
    when: str, outcome: str
) -> None:
    options = Options(card_mode="three", gusa_when_winning=when, gusa_outcome=outcome)
    pair = best_two([card("1광"), card("8광"), card("4열")], options)
    assert {c.id for c in pair} == {card("1광").id, card("8광").id}


@pytest.mark.parametrize("when", WHEN_WINNING)
def test_a_winning_mung_gusa_and_two_gusas_under_each_value(when: str) -> None:
    kkut_2 = ("5열", "7띠")
    mung = showdown({"A": MUNG_GUSA, "B": kkut_2}, gusa_when_winning=when)
    assert mung == (win("A") if when == "win" else rematch("mungGusa", "A", "B"))
    both = showdown({"A": ("4띠", "9열"), "B": ("4열", "9띠")}, gusa_when_winning=when)
    assert both == (rematch("tie", "A", "B") if when == "win" else rematch("gusa", "A", "B"))


# ---------------------------------------------------------------- §6.4, played


def played(hands: dict[str, tuple[str, str]], **opts: Any) -> tuple[Game, dict[str, str]]:
    """A oneRound game with the example's cards, everyone checking to the showdown."""
    places = "abcdef"[: len(hands)]
    names = dict(zip(hands, places, strict=True))
    cards = {names[x]: [card(c).id for c in pair] for x, pair in hands.items()}
    game, _ = new_game(len(hands), 5, cards=cards, deal_mode="oneRound", **opts)
    while (actor := game.view(None).get("actor")) is not None:
        act(game, actor, "check")
    return game, names


def stacks(game: Game) -> dict[str, int]:
    return {s["id"]: s["stack"] for s in game.view(None)["seats"]}


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("when", WHEN_WINNING)
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_played_under_each_value(name: str, when: str, outcome: str) -> None:
    hands, extra, _, _ = EXAMPLES[name]
    game, names = played(hands, gusa_when_winning=when, gusa_outcome=outcome, **extra)
    expected = expected_for(name, when)
    hand = game.view(None)
    start = dict.fromkeys(stacks(game), 1000)  # hand 1: everyone's starting chips
    school, n = 10, len(hands)
    assert hand.get("handPhase") == "handEnd"
    if expected.type == "win":
        (winner,) = (names[w] for w in expected.winners)
        assert stacks(game) == {
            p: start[p] + (school * (n - 1) if p == winner else -school) for p in start
        }
    elif expected.type == "split":
        assert stacks(game) == start
    elif expected.reason == "tie" or outcome == "rematch":
        (kept,) = hand.get("pots", [])  # at the hand's end: only the pot kept for the rematch
        assert kept["amount"] == school * n
        assert set(kept["eligible"]) == {names[p] for p in expected.participants}
        assert hand.get("rematchReason") == expected.reason
        assert stacks(game) == {p: s - school for p, s in start.items()}
    else:  # 사구 파토: the school comes back, no rematch, and the next hand is a new hand
        assert not hand.get("pots")
        assert [r["type"] for r in hand.get("results", [])] == ["refund"]
        assert hand.get("results", [])[0]["reason"] == expected.reason
        assert stacks(game) == start
        events = game.timeout()  # everyone ready
        assert not any(e["type"] == "rematchStart" for e in events)
        assert game.hands_played == 1 and game.view(None).get("handNo") == 2
        assert sorted(e["player"] for e in events if e["type"] == "school") == sorted(start)


# ---------------------------------------------------------------- exact refunds


def test_refund_gives_back_bets_and_school_to_folded_players_too() -> None:
    cards = {"a": [7, 16], "b": [0, 2], "c": [9, 11]}  # a 구사, b 알리, c 5+6 = 1끗
    game, (a, b, c) = new_game(3, 3, cards=cards, gusa_outcome="refund")
    start = dict.fromkeys(stacks(game), 1000)
    act(game, a, "check")
    act(game, b, "ping")
    act(game, c, "call")
    act(game, a, "call")  # round 2
    act(game, a, "check")
    act(game, b, "ping")
    act(game, c, "die")  # c leaves 20 chips in the pot (school + 1차 삥)
    events = act(game, a, "call")
    assert game.view(None).get("handPhase") == "handEnd"
    returned = {e["player"]: e["amount"] for e in events if e["type"] == "return"}
    assert returned == {a: 30, b: 30, c: 20}
    assert stacks(game) == start
    (result,) = game.view(None).get("results", [])
    assert result["type"] == "refund" and result["amount"] == 80 and result["winners"] == []


def test_side_pot_without_the_gusa_resolves_normally() -> None:
    cards = {"a": [7, 16], "b": [0, 2], "c": [3, 15]}  # a 구사, b 알리, c 2+8 = 망통
    start = {"a": 20, "b": 1980, "c": 1000}  # a keeps 10 behind its school: all-in at 20
    game, (a, b, c) = new_game(
        3, 1, cards=cards, stacks=start, deal_mode="oneRound", gusa_outcome="refund"
    )
    act(game, a, "ping")  # all-in: 20 in
    act(game, b, "half")  # 10 + (40 + 10) // 2 = 35 more: 45 in
    act(game, c, "call")  # 45 in: main pot 60 (a, b, c), side pot 50 (b, c)
    hand = game.view(None)
    assert hand.get("handPhase") == "handEnd"
    kinds = sorted((r["type"], r["amount"]) for r in hand.get("results", []))
    assert kinds == [("refund", 60), ("win", 50)]
    assert stacks(game) == {a: start[a], b: start[b] + 25, c: start[c] - 25}
    assert not hand.get("pots")
    game.timeout()
    # winner rule, but the main pot had no winner: the 선 moves on clockwise
    assert game.view(None).get("handNo") == 2
    assert game.view(None).get("dealer") == b


def test_refund_after_a_tie_rematch_returns_the_carried_pot_too() -> None:
    deck = StackedDeck()
    deck.rig({"a": [2, 5], "b": [10, 17]}, hand=1)  # 5끗 each: tie rematch, pot 20 kept
    deck.rig({"a": [7, 16], "b": [0, 2]}, hand=1, rematch=1)  # 구사 vs 알리
    game, (a, b) = new_game(2, 2, deck=deck, deal_mode="oneRound", gusa_outcome="refund")
    start = dict.fromkeys(stacks(game), 1000)
    act(game, a, "ping")
    act(game, b, "call")
    assert game.view(None).get("rematchReason") == "tie"
    game.timeout()
    assert game.view(None).get("rematchNo") == 1 and deal_order(game) == [a, b]
    act(game, a, "ping")
    act(game, b, "call")
    hand = game.view(None)
    assert hand.get("handPhase") == "handEnd" and not hand.get("pots")
    assert {r["type"] for r in hand.get("results", [])} == {"refund"}
    assert stacks(game) == start


def test_a_game_with_refunds_replays_from_its_log() -> None:
    """The journal rebuilds a game from (options, players, seed, actions): refunds included."""
    options = Options(deal_mode="oneRound", gusa_outcome="refund", gusa_when_winning="rematch")
    for seed in range(40):
        game, rng = Game.new(options, ["p0", "p1", "p2", "p3"], seed), random.Random(seed)
        log: list[tuple[str | None, dict[str, Any]]] = []
        refunds = 0
        while not game.finished and len(log) < 400:
            move = random_action(game, rng)
            events = game.timeout() if move is None else game.apply(*move)
            log.append((None, {}) if move is None else move)
            refunds += sum(e["type"] == "pot" and e["outcome"]["type"] == "refund" for e in events)
        if refunds:
            replayed = Game.replay(options, ["p0", "p1", "p2", "p3"], seed, log)
            assert replayed.state_hash() == game.state_hash()
            return
    raise AssertionError("no seed dealt a 구사 that refunds")


# ---------------------------------------------------------------- random play


class GusaDeals:
    """A deal hook: at a (re)match's first deal, maybe give a random receiver a 구사 (or 멍구사)."""

    def __init__(self, rng: random.Random, three: bool) -> None:
        self.rng, self.three = rng, three

    def __call__(self, request: DealRequest) -> list[int]:
        deck = list(request.deck)
        if any(request.held.values()) or self.rng.random() < 0.3:
            return deck
        # (한장공유 took its shared card out of the deck before this deal)
        pairs = [p for p in ((7, 16), (6, 17), (7, 17), (6, 16)) if set(p) <= set(deck)]
        if not pairs:
            return deck
        pid = self.rng.choice(request.receivers)
        ids = list(self.rng.choice(pairs))
        if self.three:
            ids.append(self.rng.choice([c for c in deck if c not in ids]))
            self.rng.shuffle(ids)
        stacked = StackedDeck()
        stacked.rig({pid: ids})
        return stacked(request)


def play_random(seed: int, when: str, outcome: str, steps: int = 1500) -> dict[str, int]:
    rng = random.Random(seed)
    options = dataclasses.replace(
        random_options(rng), gusa=True, gusa_when_winning=when, gusa_outcome=outcome
    )
    ids = [f"p{i}" for i in range(rng.randint(2, min(5, options.max_players)))]
    game = Game.new(options, ids, seed, deal=GusaDeals(rng, options.card_mode == "three"))
    seen = {"refund": 0, "gusaRematch": 0}
    for _ in range(steps):
        if game.finished:
            break
        move = random_action(game, rng)
        events = game.timeout() if move is None else game.apply(*move)
        assert game.chips_in_play() == total_chips(game)
        assert all(s >= 0 for s in stacks(game).values())
        for i, event in enumerate(events):
            if event["type"] == "pot" and event["outcome"]["type"] == "refund":
                seen["refund"] += 1
                assert outcome == "refund"
                back = 0
                for later in events[i + 1 :]:
                    if later["type"] != "return":
                        break
                    back += later["amount"]
                assert back == event["amount"]
            if event["type"] == "rematchStart" and event["reason"] in ("gusa", "mungGusa"):
                seen["gusaRematch"] += 1
                assert outcome == "rematch"
    return seen


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("when", WHEN_WINNING)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_chips_are_conserved_under_random_play_with_each_value(
    when: str, outcome: str, seed: int
) -> None:
    play_random(seed, when, outcome, steps=600)


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_random_play_really_reaches_the_gusa_rule(outcome: str) -> None:
    seen = {"refund": 0, "gusaRematch": 0}
    for seed in range(12):
        for k, v in play_random(seed, "rematch", outcome).items():
            seen[k] += v
    if outcome == "refund":
        assert seen["refund"] > 0 and seen["gusaRematch"] == 0
    else:
        assert seen["gusaRematch"] > 0 and seen["refund"] == 0


# ---------------------------------------------------------------- journal and texts


def test_a_journal_written_before_the_two_keys_loads_with_the_defaults(tmp_path: Path) -> None:
    from seotda_tui.rooms.journal import GameRecord, Journal

    path = tmp_path / "seotda.sqlite3"
    options = Options(gusa_when_winning="rematch", gusa_outcome="refund")
    journal = Journal(path)
    journal.start_game(GameRecord("new", "방", "a", options, "s", ["a", "b"], {}))
    journal.start_game(GameRecord("old", "방", "a", Options(), "s", ["a", "b"], {}))
    journal.close()
    with sqlite3.connect(path) as db:  # what an older server wrote: no 구사 rule keys
        (text,) = db.execute("SELECT options FROM games WHERE room_id = 'old'").fetchone()
        keys = ("gusaWhenWinning", "gusaOutcome")
        old = {k: v for k, v in json.loads(text).items() if k not in keys}
        db.execute("UPDATE games SET options = ? WHERE room_id = 'old'", (json.dumps(old),))
    games = {g.room_id: g for g in Journal(path).open_games()}
    assert games["old"].options == Options()
    assert games["new"].options == options
    assert games["new"].rebuild().options.gusa_outcome == "refund"


def test_rules_help_and_hints_name_the_rules() -> None:
    from seotda_tui.ui.room_rules import room_rules_lines
    from seotda_tui.ui.screens.help_text import jokbo_rows, rules_text

    default = "\n".join(room_rules_lines(Options()))
    assert "이기고 있어도" not in default and "파토" not in default
    traditional = Options(gusa_when_winning="rematch", gusa_outcome="refund")
    lines = room_rules_lines(traditional)
    assert "구사는 이기고 있어도 파토(판돈 반환)" in "\n".join(lines)
    assert "재참가" not in "\n".join(lines)  # no rematch, so no rejoin rule
    assert "구사는 이기고 있어도 재경기" in "\n".join(
        room_rules_lines(Options(gusa_when_winning="rematch"))
    )
    help_text = rules_text(traditional)
    assert "사구 파토" in help_text and "이기고 있어도" in help_text
    assert "구사 없이 그냥 이겨요" in rules_text(Options())
    gusa_row = next(r for r in jokbo_rows(traditional) if r.name == "구사")
    assert "파토" in gusa_row.note
    hint = evaluate(card("4띠"), card("9열"), traditional).hint
    assert hint == "구사 - 상대가 알리 이하면 파토(판돈 반환)"
    assert evaluate(card("4띠"), card("9열"), Options()).hint == "구사 - 상대가 알리 이하면 재경기"
    off = Options(gusa=False, gusa_outcome="refund")
    assert "파토" not in rules_text(off) and "파토" not in "\n".join(room_rules_lines(off))


# ---------------------------------------------------------------- the form, and real ssh


async def test_the_create_form_sets_both_rules_and_greys_them_with_gusa_off() -> None:
    from seotda_tui.ui.screens.table import TableScreen

    from .test_app_pilot import SIZE, app_for, manager, open_create_form, screen_text, settle

    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        form = await open_create_form(pilot)
        assert form.values()["gusa_when_winning"] == "win"
        assert form.values()["gusa_outcome"] == "rematch"
        for field in ("gusa_when_winning", "gusa_outcome", "rejoin_cost"):
            assert not form.query_one(f"#opt-{field}").disabled
        form.set_value("gusa", False)
        await settle(pilot)
        for field in ("gusa_when_winning", "gusa_outcome", "rejoin_cost"):
            assert form.query_one(f"#opt-{field}").disabled
        form.set_value("gusa", True)
        form.set_value("gusa_when_winning", "rematch")
        form.set_value("gusa_outcome", "refund")
        await settle(pilot)
        assert form.query_one("#opt-rejoin_cost").disabled  # a 파토 has no rematch to rejoin
        assert not form.query_one("#opt-gusa_outcome").disabled
        form.query_one("#opt-gusa_outcome").focus()
        await settle(pilot)
        assert "파토 (판돈 반환)" in screen_text(app)
        await pilot.click("#form-create")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        (room,) = m.rooms()
        assert room.options.gusa_when_winning == "rematch"
        assert room.options.gusa_outcome == "refund"


async def test_a_refund_over_real_ssh(tmp_path: Path) -> None:
    from contextlib import AsyncExitStack

    from seotda_tui.rooms import RoomManager
    from seotda_tui.ui.app import make_app_factory

    from .ssh_harness import ssh_server, wait_until

    def first_hand(request: DealRequest) -> list[int]:
        """구사 to the first to be dealt, against 1끗: it already wins."""
        stacked = StackedDeck()
        if request.hand_no == 1:
            stacked.rig(dict(zip(request.receivers, ([7, 16], [9, 11]), strict=True)))
        return stacked(request)

    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30, deal=first_hand)
    options = {"dealMode": "oneRound", "gusaOutcome": "refund", "gusaWhenWinning": "rematch"}
    room = manager.create_room("영희", "파토 판", options)
    manager.join(room.id, "철수")
    manager.start(room.id, "영희")
    game = manager.live_game(room.id)
    assert game is not None
    first, second = deal_order(game)
    start = dict.fromkeys((first, second), 1000)

    def table() -> dict[str, Any]:
        view = manager.game_view(room.id, "")
        assert view is not None
        return dict(view)

    async with ssh_server(tmp_path, make_app_factory(manager)) as server, AsyncExitStack() as st_:
        clients = {
            nick: await st_.enter_async_context(server.connect(nick, size=(100, 30)))
            for nick in (first, second)
        }
        for nick in (first, second):
            await clients[nick].wait_for("내 차례예요")
            await clients[nick].press("2")  # check
            await wait_until(lambda nick=nick: table().get("actor") != nick)
        assert table().get("handPhase") == "handEnd"
        for client in clients.values():
            await client.wait_for("구사 파토! 판돈을 돌려줘요")
            await client.wait_for("1,000칩")  # the school came back
        assert [r["type"] for r in table().get("results", [])] == ["refund"]
        assert stacks(game) == start
        for client in clients.values():
            await client.press(" ")
        await wait_until(lambda: table().get("handNo") == 2)
        assert game.hands_played == 1
