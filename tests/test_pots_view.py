"""Side pots as the view and the pot line tell them (issue 32 item 3): a side pot appears only
when a live player is all in for less than another player put in (§5.4); a bet nobody has called
yet is not one. Three players with 320 each, 쿼터 → 따당 → all in, showed "메인 300 · 사이드 100 ·
콜 대기 170" and paid one pot."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from engine import Game, IllegalAction
from engine.pots import build_pots
from engine.types import View
from seotda_tui.i18n import Language, speaking
from seotda_tui.testing import Table
from seotda_tui.ui.present.pots import CARRIED, SIDE, UNCALLED, labelled_pots, pots_forms
from tests.gamekit import act, held, new_game


def _view(game: Game) -> View:
    return game.view(None)


def _pot_line(view: View, language: str) -> tuple[str, ...]:
    with speaking(Language(language)):
        return pots_forms(labelled_pots(view))


def _payouts(events: list[Any]) -> list[int]:
    return [e["amount"] for e in events if e["type"] == "payout"]


def test_all_in_for_more_than_the_others_is_one_pot() -> None:
    """The play-test's hand: nobody is all in for less, so nothing is a side pot."""
    game, _names = new_game(3, base_unit=50, max_raise="full", stacks=dict.fromkeys("abc", 320))
    act(game, "a", "quarter")
    act(game, "b", "ddadang")
    assert any(a["allIn"] for a in game.legal_actions("c") if a["type"] == "half")
    act(game, "c", "half")  # 300 to put in, 270 left: all in, for more than a and b put in
    view = _view(game)
    assert view["pot"] == 570
    assert sum(p["amount"] for p in view["pots"]) == 570
    assert [p["eligible"] for p in view["pots"]] == [["a", "b", "c"], ["c"]]  # 170 not called
    for language in ("ko", "en"):
        assert _pot_line(view, language) == ()
    act(game, "a", "call")  # all in for 320 too
    assert labelled_pots(_view(game)) == ()
    events = act(game, "b", "call")
    assert _payouts(events) == [960]  # one pot, as the line said


def test_all_in_for_less_is_a_side_pot_in_both_languages() -> None:
    """c is all in for 120; a and b put in 150: a side pot of 60 only they can win."""
    stacks = {"a": 320, "b": 320, "c": 120}
    game, _names = new_game(3, base_unit=50, max_raise="full", stacks=stacks)
    act(game, "a", "quarter")  # a: 100 in
    act(game, "b", "ddadang")  # b: 150 in
    act(game, "c", "call")  # c: all in for 120, less than b; b's 30 over it not called yet
    assert labelled_pots(_view(game)) == ()
    act(game, "a", "call")  # a: 150 in, the first round ends
    view = _view(game)
    assert labelled_pots(view) == (("메인", 360), (SIDE, 60))
    assert _pot_line(view, "ko") == ("메인 360 · 사이드 60",)
    assert _pot_line(view, "en") == ("main 360 · side 60",)
    act(game, "a", "quarter")  # a: 105 more, nobody has called it
    view = _view(game)
    assert labelled_pots(view) == (("메인", 360), (SIDE, 60), (UNCALLED, 105))
    assert _pot_line(view, "en") == ("main 360 · side 60 · uncalled 105",)
    events = act(game, "b", "call")
    assert sorted(_payouts(events)) == [270, 360]  # the side pot, then the main pot


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_pot_line_shows_no_phantom_side_pot(language: str) -> None:
    """The same hand over the pilot: the table as its players and a spectator see it."""
    options = {"startingChips": 500, "baseUnit": 20, "maxRaise": "half"}
    async with Table.open(
        ["a", "b", "c"], spectators=["w"], options=options, seed=2, language=language
    ) as t:
        for kind in ("ping", "ddadang", "half", "call", "call"):  # 140 each: 360 left
            actor = t.actor
            assert actor is not None
            await t.act(actor, {"type": kind})
        assert {s["stack"] for s in t.table_view()["seats"]} == {360}
        first = t.actor
        for kind in ("quarter", "ddadang"):
            actor = t.actor
            assert actor is not None
            await t.act(actor, {"type": kind})
        third = t.actor
        assert third is not None and third != first
        all_in = next(a for a in t.legal(third) if a["allIn"] and a["type"] != "call")
        await t.act(third, {"type": all_in["type"]})
        side, main = ("사이드", "메인") if language == "ko" else ("side", "main")
        for nick in ("a", "b", "c", "w"):
            text = t.text(nick)
            assert "판돈" in text or "Pot" in text, text
            assert side not in text and f"({main}" not in text, (nick, text)


def _called(committed: dict[str, int]) -> dict[str, int]:
    """Each player's total less a bet nobody matched (the single top total above the next)."""
    ordered = sorted(committed.values(), reverse=True) + [0]
    if ordered[0] <= ordered[1]:
        return dict(committed)
    return {p: min(c, ordered[1]) for p, c in committed.items()}


def _check_pot_line(view: View) -> None:
    """The pot line's parts sum to the pot; 사이드 is there iff a live player is all in for less
    than another player's matched total; 콜 대기 only beside a side or a carried pot."""
    pots = view.get("pots") or []
    assert sum(p["amount"] for p in pots) == view.get("pot", 0)
    labels = labelled_pots(view)
    if labels:
        assert sum(amount for _label, amount in labels) == view["pot"]
    names = {label for label, _amount in labels}
    if UNCALLED in names:
        assert names & {SIDE, CARRIED}
    seats = [s for s in view["seats"] if s["inHand"]]
    called = _called({s["id"]: s.get("committed", 0) for s in seats})
    short = any(
        s["allIn"] and not s["folded"] and 0 < called[s["id"]] < max(called.values()) for s in seats
    )
    assert (SIDE in names) == short, (view["pots"], [(s["id"], s["committed"]) for s in seats])
    event("side pot shown" if short else "no side pot")


@settings(max_examples=120, deadline=None)
@given(
    stacks=st.lists(st.integers(1, 40).map(lambda n: n * 10), min_size=3, max_size=5),
    card_mode=st.sampled_from(["two", "three"]),
    max_raise=st.sampled_from(["half", "full"]),
    data=st.data(),
)
def test_side_pot_shown_iff_all_in_for_less(
    stacks: list[int], card_mode: str, max_raise: str, data: st.DataObject
) -> None:
    """Real play from random stacks and random legal actions, every view along the way."""
    names = "abcde"[: len(stacks)]
    game, _names = new_game(
        len(stacks), card_mode=card_mode, max_raise=max_raise, stacks=dict(zip(names, stacks))
    )
    for _step in range(80):
        view = _view(game)
        if "handNo" in view:
            _check_pot_line(view)
        pending = game.pending()["players"]
        if not pending or view["phase"] != "playing":
            break
        pid = data.draw(st.sampled_from(sorted(pending)))
        legal = game.legal_actions(pid)
        choice = data.draw(st.sampled_from(legal))
        action: dict[str, Any] = {"type": choice["type"]}
        if "accept" in choice:
            action["accept"] = choice["accept"]
        if choice["type"] == "choose":
            action["cardIds"] = data.draw(st.permutations(held(game, pid)))[:2]
        try:
            game.apply(pid, action)
        except IllegalAction as exc:  # pragma: no cover - a legal action must be accepted
            raise AssertionError((pid, action, str(exc))) from exc


contributions = st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 500), min_size=1)


@settings(max_examples=300, deadline=None)
@given(contrib=contributions, data=st.data())
def test_build_pots_keeps_every_chip_and_splits_only_at_all_in_totals(
    contrib: dict[str, int], data: st.DataObject
) -> None:
    players = sorted(contrib)
    live = data.draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
    live = [p for p in players if p in live]
    all_in = data.draw(st.lists(st.sampled_from(live), unique=True))
    pots = build_pots(contrib, live, all_in)
    assert sum(p.amount for p in pots) == sum(contrib.values())
    assert all(set(p.eligible) <= set(live) and p.eligible for p in pots)
    levels = {contrib[p] for p in all_in}
    assert len(pots) <= len(levels) + 1
    if not all_in:
        assert [p.eligible for p in pots] == [live]
    # at the showdown every live total is final: the same split as all of them all in
    assert [(p.amount, p.eligible) for p in build_pots(contrib, live)] == [
        (p.amount, p.eligible) for p in build_pots(contrib, live, live)
    ]
