"""Issue 32 on the table (pilot): a spectator presses ``j`` in a running game and reads that
they sit down at the next hand; everyone else reads it in the log and sees the new seat when
that hand starts; the net of a win (not the gross pot) in the log and the hand's result.
Korean and English, at 80×24 and 120×40."""

from __future__ import annotations

import pytest

from seotda_tui.testing import Table
from seotda_tui.ui.widgets.lines import Line

TEXTS = {
    "ko": {
        "queued": "다음 판부터 앉아요",
        "queued_long": "학교를 내고",
        "logged": "w님이 다음 판부터 앉아요",
        "seated": "w님이 1,000칩으로 앉았어요",
        "off": "게임이 끝나면 앉을 수 있어요",
        "rule": "게임 중 참가: 다음 판부터",
        "join": "j 참가",
    },
    "en": {
        "queued": "You sit down at the next hand",
        "queued_long": "paying the school",
        "logged": "w sits down at the next hand",
        "seated": "w sat down with 1,000 chips",
        "off": "You can sit down when the game ends",
        "rule": "join mid-game: from the next hand",
        "join": "j sit down",
    },
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_spectator_joins_at_the_next_hand(language: str, size: tuple[int, int]) -> None:
    texts = TEXTS[language]
    async with Table.open(
        ["a", "b"], spectators=["w"], language=language, size=size, options={"turnSeconds": 15}
    ) as t:
        assert texts["join"] in t.text("w"), t.text("w")
        await t.press("w", "j")
        assert t.game.joining == ["w"]
        screen = _flat(t.text("w"))
        assert texts["queued"] in screen and texts["queued_long"] in screen, t.text("w")
        # said once, on the own row: the message line beside the prompts says nothing more
        assert t.screen("w").query_one("#message", Line).plain == ""
        summary = t.manager.room(t.room_id)
        assert summary is not None and "w" in summary.spectators
        assert "w" not in [s["id"] for s in t.view("a")["seats"]]  # not in this hand
        if size[1] >= 40:  # the log shows beside the table on a tall screen
            assert texts["logged"] in _flat(t.text("a")), t.text("a")
        # the hand ends; the next one starts with w seated, paying the school
        t.play_until(lambda g: g.view(None).get("handNo") == 2)
        await t.settle()
        assert "w" in t.game.players
        assert t.view("w")["viewer"] == "w" and t.seat("w")["stack"] == 990
        assert len(t.own_cards("w")) >= 1  # w's own cards, not hidden ones
        for nick in ("a", "b"):  # the others see the new seat
            assert "w" in [s["id"] for s in t.view(nick)["seats"]]
            assert "w" in t.text(nick), t.text(nick)
        assert texts["queued_long"] not in _flat(t.text("w"))
        if size[1] >= 40:
            assert texts["seated"] in _flat(t.text("b")), t.text("b")


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_room_without_mid_join_says_why(language: str) -> None:
    texts = TEXTS[language]
    async with Table.open(
        ["a", "b"], spectators=["w"], language=language, options={"midJoin": False}
    ) as t:
        assert texts["join"] not in t.text("w")
        await t.press("w", "j")
        assert t.game.joining == []
        assert texts["off"] in _flat(t.text("w")), t.text("w")


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_rules_say_whether_one_can_join_mid_game(language: str) -> None:
    async with Table.open(["a", "b"], start=False, language=language) as t:
        await t.press("a", "i")
        assert TEXTS[language]["rule"] in _flat(t.text("a")), t.text("a")
