"""A room with no person seated has no host (issue 32 item 14): it showed "방장 -" and "방장
-님이 다시 시작할 수 있어요". The rule (RoomManager.join): the first person to sit down becomes
the host, and may start it. The text says that, and doing it works."""

from __future__ import annotations

import pytest

from seotda_tui.testing import Table

TEXTS = {
    "ko": {
        "title": "방장 없음",
        "finished": "j로 앉으면 방장이 돼요",
        "waiting": "방장이 없어요. j로 앉으면 방장이 돼요",
        "start": "s 키로",
    },
    "en": {
        "title": "no host",
        "finished": "Sit down (j) to become the host",
        "waiting": "No host: sit down (j) to become the host",
        "start": "s start",
    },
}
#: What the old text showed for the missing host.
DASH = {"ko": ("방장 -", "-님"), "en": ("host -",)}


async def _sit_and_start(t: Table, language: str) -> None:
    """``w`` does what the text says: sits down (j), is the host, and starts (s)."""
    await t.press("w", "j")
    summary = t.manager.room(t.room_id)
    assert summary is not None and summary.host == "w"
    assert TEXTS[language]["start"] in t.text("w"), t.text("w")
    await t.press("w", "s")
    summary = t.manager.room(t.room_id)
    assert summary is not None and summary.status == "playing"


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_finished_room_without_a_person_says_who_can_start_it(language: str) -> None:
    texts = TEXTS[language]
    async with Table.open(["a"], spectators=["w"], start=False, language=language) as t:
        for _bot in range(2):
            t.manager.add_bot(t.room_id, "a")
        t.manager.start(t.room_id, "a")
        await t.settle()
        t.manager.leave(t.room_id, "a")  # only bots are left in play: the game ends
        await t.settle()
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.status == "finished" and summary.host is None
        if "결과" in t.text("w") or "results" in t.text("w"):
            await t.press("w", "enter")  # from the results to the room
        text = t.text("w")
        assert texts["title"] in text and texts["finished"] in text, text
        assert not any(dash in text for dash in DASH[language]), text
        await _sit_and_start(t, language)


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_waiting_room_whose_host_left_says_who_becomes_host(language: str) -> None:
    texts = TEXTS[language]
    async with Table.open(["a"], spectators=["w"], start=False, language=language) as t:
        t.manager.add_bot(t.room_id, "a")
        t.manager.leave(t.room_id, "a")
        await t.settle()
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.status != "playing" and summary.host is None
        text = t.text("w")
        assert texts["title"] in text and texts["waiting"] in text, text
        assert not any(dash in text for dash in DASH[language]), text
        await _sit_and_start(t, language)
