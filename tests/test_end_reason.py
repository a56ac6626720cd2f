"""Why a game ended, as the table says it (issue 32 item 4): when the only person went bust and
stays to watch, the bots do not play on alone — and the reason said "접속한 사람이 1명 이하라
끝났어요" while that person was connected."""

from __future__ import annotations

import pytest

from seotda_tui.rooms.bot_seats import BOTS_ONLY
from seotda_tui.testing import Table

HUMAN = "사람"
BOTS = ("봇1(신중)", "봇2(신중)")
#: 망통 (2+8) against 13광땡 and 9땡: the person loses the first hand.
DEAL = {HUMAN: ["2열", "8일"], BOTS[0]: ["1광", "3광"], BOTS[1]: ["9열", "9띠"]}

REASONS = {
    "ko": ("사람이 모두 탈락하거나 나가서 봇만 남았어요", "접속"),
    "en": ("only bots were left", "connected"),
}


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_person_who_went_bust_hears_that_only_bots_were_left(language: str) -> None:
    async with Table.open(
        [HUMAN],
        options={"rebuy": "off"},
        stacks={HUMAN: 10},  # the school (10) takes it all: all in from the start
        deal=DEAL,
        start=False,
        language=language,
    ) as t:
        assert tuple(t.manager.add_bot(t.room_id, HUMAN) for _bot in BOTS) == BOTS
        t.manager.start(t.room_id, HUMAN)
        await t.settle()
        for _step in range(120):  # the bots bet and get ready on the manager's clock
            summary = t.manager.room(t.room_id)
            if summary is None or summary.status != "playing":
                break
            await t.advance(1)
        result = t.manager.result(t.room_id)
        assert result is not None and result["reason"] == BOTS_ONLY
        assert any(r["playerId"] == HUMAN and r["finalChips"] == 0 for r in result["ranking"])
        real, wrong = REASONS[language]
        text = t.text(HUMAN)
        assert real in text, text
        assert wrong not in text, text  # nothing about who is connected: they are
