"""Issue 36 variants at the table (pilot, 80×24): 인디언 섯다 as the acting player, a waiting
player and a spectator, and in English. The holder's own first card is a face-down card marked
"?" on their own screen while everyone else reads it on the holder's seat."""

from __future__ import annotations

from engine import Options
from seotda_tui.testing import Table

from .fitkit import cuts

INDIAN = Options(card_mode="indian")
DEAL = {"a": ["1광", "2열"], "b": ["3광", "4띠"], "c": ["9열", "10띠"]}


def _marked(text: str) -> bool:
    """Whether a card on screen carries the "?" mark (a line with only "?" above a card)."""
    return any(line.strip() == "?" for line in text.splitlines())


async def test_indian_acting_waiting_and_watching_at_80x24() -> None:
    async with Table.open(
        ["a", "b", "c"], options=INDIAN, seed=2, deal=DEAL, spectators=["s"]
    ) as t:
        assert t.actor == "a"
        seen = {nick: t.text(nick) for nick in ("a", "b", "c", "s")}
        # a acts: sees b's 3광 and c's 9열 on their seats, not its own 1광: a "?" card instead
        assert "3광" in seen["a"] and "9열" in seen["a"] and "1광" not in seen["a"]
        assert _marked(seen["a"]) and _marked(seen["b"]) and not _marked(seen["s"])
        assert "내 차례" in seen["a"]
        # b waits: a's 1광 and c's 9열, never its own 3광
        assert "1광" in seen["b"] and "9열" in seen["b"] and "3광" not in seen["b"]
        assert "a님 차례" in seen["b"]
        # the spectator sees every first card
        assert all(card in seen["s"] for card in ("1광", "3광", "9열"))
        for nick in ("a", "b", "s"):
            assert not cuts(t.app(nick)), nick
        for _ in range(3):
            assert t.actor is not None
            await t.act(t.actor, {"type": "check"})
        await t.settle()
        mine = t.text("a")
        assert (
            "2월 열끗" in mine and "1광" not in mine
        )  # the second card is a's; the first stays "?"
        assert _marked(mine)
        assert "2월 열끗" not in t.text("b") and "2열" not in t.text("s")  # nobody else sees it
        assert "1광" in t.text("b")


async def test_indian_in_english_and_the_showdown_shows_the_holder_their_card() -> None:
    deal = {"a": ["1광", "2열"], "b": ["3광", "4띠"]}
    async with Table.open(["a", "b"], options=INDIAN, seed=2, deal=deal, language="en") as t:
        assert t.actor == "a"
        mine = t.text("a")
        assert _marked(mine) and "3Br" in mine and "1Br" not in mine
        assert "1Br" in t.text("b")
        await t.press("a", "i")
        assert "Indian Seotda (others see your first card, you don't)" in t.text("a")
        await t.press("a", "escape")
        for _ in range(4):
            assert t.actor is not None
            await t.act(t.actor, {"type": "check"})
        await t.settle()
        assert t.game.view(None).get("handPhase") == "handEnd"
        assert not _marked(t.text("a"))  # shown down: the holder sees it too
