"""The rebuy question runs for the room's turn time (issue 32 item 9): it ran 15 s whatever the
room said, so players in 60 s rooms lost their rebuys. Driven through the room manager on the
Table's fake clock, as the busted player and the other player see it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from seotda_tui.testing import Table

PROMPT = {"ko": "칩을 다시 받을까요? y/n", "en": "Rebuy? y/n"}
SECONDS = {"ko": "{n}초", "en": "{n}s"}


@asynccontextmanager
async def busted(turn_seconds: int, language: str) -> AsyncIterator[Table]:
    """Two players; "b" (13광땡 against 5끗) goes all in on the first hand and busts."""
    async with Table.open(
        ["a", "b"],
        options={"startingChips": 500, "maxRaise": "full", "turnSeconds": turn_seconds},
        seed=5,
        deal={"a": ["1광", "3광"], "b": ["2띠", "3띠"]},
        language=language,
    ) as t:
        while t.actor is not None:  # all in: full, then call
            kinds = [a["type"] for a in t.legal(t.actor)]
            await t.act(t.actor, {"type": "full" if "full" in kinds else "call"})
        while t.table_view()["phase"] != "rebuy":
            await t.act(t.game.pending()["players"][0], {"type": "ready"})
        assert t.table_view()["rebuyPending"] == ["b"]
        yield t


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_60_second_room_gives_the_rebuy_60_seconds(language: str) -> None:
    async with busted(60, language) as t:
        assert t.manager.seconds_left(t.room_id) == 60
        text = t.text("b")
        assert PROMPT[language] in text and SECONDS[language].format(n=60) in text, text
        await t.advance(45)  # well past the old 15 s
        assert t.table_view()["phase"] == "rebuy", "the question timed out early"
        assert SECONDS[language].format(n=15) in t.text("b")
        await t.press("b", "y")
        seat = t.seat("b")
        assert seat["rebuys"] == 1 and seat["stack"] > 0


async def test_the_rebuy_times_out_after_the_turn_time_not_before() -> None:
    async with busted(30, "ko") as t:
        await t.advance(29)
        assert t.table_view()["rebuyPending"] == ["b"]
        await t.advance(1)  # §8.5: a timeout declines
        view = t.table_view()
        assert view["rebuyPending"] == [] and t.seat("b")["rebuys"] == 0
        assert "칩을 다시 받을까요" not in t.text("b")


async def test_a_15_second_room_keeps_15_seconds() -> None:
    async with busted(15, "ko") as t:
        assert t.manager.seconds_left(t.room_id) == 15
        assert "15초" in t.text("b")
