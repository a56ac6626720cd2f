"""The pilot harness (seotda_tui.testing) as the README shows it: this example must keep working."""

from __future__ import annotations

import pytest

from engine import Options
from engine.dealing import StackedDeck
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table, card


async def test_four_players_one_scripted_hand_to_the_showdown() -> None:
    deal = {
        "a": ["3광", "7열"],  # 땡잡이
        "b": ["9열", "9띠"],  # 9땡
        "c": ["1띠", "2열"],  # 알리
        "d": ["5띠", "6띠"],  # 1끗
    }
    async with Table.open(["a", "b", "c", "d"], options=Options(), seed=7, deal=deal) as t:
        # first betting round: everyone checks with key 2, in turn
        for _ in range(4):
            actor = t.actor
            assert actor is not None
            assert "내 차례예요" in t.text(actor)
            await t.press(actor, "2")
        # second card dealt: each player sees only their own two cards
        assert t.cards("b") == ["9월 열끗", "9월 띠"]
        assert "9월 열끗" in t.text("b") and "9월 열끗" not in t.text("a")
        # second round: the first actor raises half (7), the others call (4)
        await t.press(t.actor, "7")
        while t.actor is not None:
            await t.press(t.actor, "4")
        # showdown: every hand revealed with its name, the special outcome announced
        for nick in "abcd":
            text = t.text(nick)
            assert "땡잡이!" in text  # the banner
            assert "a 승리" in text
        seats = t.screen("b").shown_seats
        assert seats["a"].hand_name == "땡잡이" and seats["a"].payout > 0
        assert seats["c"].hand_name == "알리"
        # the next hand starts when everyone is ready (Space) and clears the banner
        for nick in "abcd":
            await t.press(nick, "space")
        assert t.game.view(None).get("handNo") == 2
        assert "땡잡이!" not in t.text("b")


def test_card_names() -> None:
    assert [card(c) for c in ("1광", "3광", "8광", "8일", "7열", "9띠", 19)] == [
        0,
        4,
        14,
        15,
        12,
        17,
        19,
    ]
    for bad in ("2광", "8띠", "11열", "x", 20):
        try:
            card(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} accepted")


async def test_rigging_the_next_hand() -> None:
    async with Table.open(["a", "b"], options={"dealMode": "oneRound"}, seed=3) as t:
        t.rig({"a": ["8광", "3광"], "b": ["1광", "1띠"]}, next_match=True)
        t.play_until(lambda g: g.view(None).get("handNo") == 2)
        await t.settle()
        assert t.cards("a") == ["8월 광", "3월 광"] and t.cards("b") == ["1월 광", "1월 띠"]
        assert "38광땡" in t.text("a")


async def test_rigging_the_cards_still_to_come_in_the_current_match() -> None:
    async with Table.open(["a", "b"], seed=3) as t:  # two rounds: one card each so far
        (first,) = t.own_cards("a")
        taken = t.own_cards("b")[0]
        with pytest.raises(ValueError, match="already holds"):
            t.rig({"a": [taken, card("8광")]})  # a's first card is dealt: it cannot change
        wanted = next(c for c in range(20) if c not in (first, taken))  # still in the deck
        t.rig({"a": [first, wanted]})
        while t.actor is not None and t.view("a")["street"] == 0:
            await t.press(t.actor, "2")
        assert t.own_cards("a") == [first, wanted]


async def test_deal_needs_the_tables_own_manager() -> None:
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 1)
    with pytest.raises(ValueError, match="own manager"):
        async with Table.open(["a", "b"], manager=manager, deal={"a": ["1광"]}):
            pass
    with pytest.raises(ValueError, match="cannot be journaled"):
        RoomManager(clock=FakeClock(1000.0), deal=StackedDeck(), journal=object())  # type: ignore[arg-type]
