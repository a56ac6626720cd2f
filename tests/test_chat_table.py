"""Chat at the table (issue 32 items 5, 6 and quick chat), over pilots: the input's cell counter
and limit, the latest line readable at 80x24, and the canned lines of quick chat (``e`` + digit),
each reader seeing them in their own language."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from seotda_tui.rooms.chat import MAX_CELLS, QUICK_LINES, TOO_FAST
from seotda_tui.testing import Table
from seotda_tui.ui.screens.quick_chat import QuickChatScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.chatline import ChatInput

#: A line of 49 cells (Korean) and 52 (English): longer than the ~12 cells the footer left
#: beside the key list at 80 columns, shorter than a whole row.
KOREAN = "오늘 다들 반가워요 잘 부탁드립니다 ㅎㅎ 한 판 더"
ENGLISH = "Hello everyone, nice to meet you, good luck tonight!"


def footer(t: Table, nick: str) -> str:
    return t.text(nick).splitlines()[-1]


async def _switch_to_english(t: Table, nick: str) -> None:
    await t.press(nick, "L")
    assert "L 한국어" in footer(t, nick)


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_chat_input_counts_its_cells_and_holds_no_more_than_the_hub_sends(
    language: str,
) -> None:
    unit = "칸" if language == "ko" else " cells"
    async with Table.open(["a", "b"], spectators=["w"], language=language) as t:
        for nick in ("a", "b", "w"):  # the acting player, the waiting one and a spectator
            await t.press(nick, "t")
            assert f"0/{MAX_CELLS}{unit}" in footer(t, nick)
            await t.pilot(nick).press(*"가나다 abc")
            await t.settle()
            assert f"10/{MAX_CELLS}{unit}" in footer(t, nick)
            chat_input = t.screen(nick).query_one(ChatInput)
            chat_input.insert_text_at_cursor("한" * 150)  # a paste: only what fits goes in
            await t.settle()
            assert cell_len(chat_input.value) == MAX_CELLS
            assert chat_input.value.startswith("가나다 abc한")
            assert f"{MAX_CELLS}/{MAX_CELLS}{unit}" in footer(t, nick)
            await t.pilot(nick).press("x")  # full: nothing more goes in
            assert cell_len(chat_input.value) == MAX_CELLS
            await t.press(nick, "escape")
            assert unit not in footer(t, nick)  # closed: the counter goes with the input
        assert t.view("a")["seats"][0].get("lastAction") is None  # typing bet nothing


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_latest_chat_line_reads_whole_in_the_footer(size: tuple[int, int]) -> None:
    async with Table.open(["a", "b"], spectators=["w"], size=size) as t:
        await _switch_to_english(t, "b")
        actor = t.actor
        for line in (KOREAN, ENGLISH):
            t.clock.advance(5)  # (the rate limit)
            assert await t.say("b", line) is None
            for nick in ("a", "b", "w"):  # the actor, the other player, a spectator
                shown = footer(t, nick)
                assert f"b: {line}" in shown, (nick, shown)
                # the way to the whole log stays on the line, in the reader's language
                assert ("l log" if nick == "b" else "l 기록") in shown
        assert t.actor == actor
        if size[0] >= 110:  # room enough: the whole key list stays beside the line
            assert "t 채팅 · l 기록 · a ASCII" in footer(t, "a")
        # a short line keeps the whole key list at 80 columns too
        t.clock.advance(5)
        await t.say("b", "ㅎㅇ")
        assert "b: ㅎㅇ" in footer(t, "a") and "t 채팅 · l 기록 · a ASCII" in footer(t, "a")


async def test_a_line_longer_than_the_footer_is_cut_with_the_way_to_read_it() -> None:
    async with Table.open(["a", "b"]) as t:
        await t.say("b", "가" * 60)
        shown = footer(t, "a")
        assert "b: 가가가가가가가가가가가가가가가가가가가가" in shown and "…" in shown
        assert "l 기록" in shown
        await t.press("a", "l")  # the log holds it whole
        assert "가" * 8 in t.text("a").split("b: ")[1]


async def test_quick_chat_each_reader_sees_the_canned_line_in_their_language() -> None:
    async with Table.open(["a", "b"], spectators=["w"]) as t:
        await _switch_to_english(t, "b")
        actor = t.actor
        assert actor is not None
        await t.press(actor, "e")
        screen = t.screen(actor)
        assert isinstance(screen, QuickChatScreen)
        menu = t.text(actor)
        want = ("안녕하세요! 👋", "수고하셨어요") if actor == "a" else ("Hi! 👋", "GG, well played")
        assert all(line in menu for line in want)
        await t.press(actor, "1")  # the first line; the digit is no bet (1 would be die)
        assert isinstance(t.screen(actor), TableScreen)
        assert t.seat(actor).get("lastAction") is None and t.actor == actor
        (message,) = t.chat.history(t.room_id)
        assert message.canned and message.text == QUICK_LINES[0] and message.nick == actor
        for nick in ("a", "w"):
            assert f"{actor}: 안녕하세요! 👋" in footer(t, nick)
        assert f"{actor}: Hi! 👋" in footer(t, "b")
        # a spectator too; and in the log, in each reader's language
        await t.press("w", "e", "6")
        assert "w: ㅋㅋㅋ 😂" in footer(t, "a") and "w: lol 😂" in footer(t, "b")
        await t.press("b", "l")
        assert "w: lol 😂" in t.text("b").replace(footer(t, "b"), "")
        await t.press("b", "L")  # the reader switches: the log says it in the new language
        assert "w: ㅋㅋㅋ 😂" in t.text("b").replace(footer(t, "b"), "")
        # Esc (or e again) closes the picker without sending
        await t.press("a", "e", "escape")
        await t.press("a", "e", "e")
        assert isinstance(t.screen("a"), TableScreen) and len(t.chat.history(t.room_id)) == 2


async def test_quick_chat_is_rate_limited_with_typed_chat() -> None:
    async with Table.open(["a", "b"], language="en") as t:
        assert await t.say("a", "one") is None
        await t.press("a", "e", "2", "e", "3")  # three lines in a moment: the limit
        await t.press("a", "e", "4")
        assert [m.text for m in t.chat.history(t.room_id)] == ["one", *QUICK_LINES[1:3]]
        assert "Chatting too fast" in footer(t, "a")
        assert "a: Nice! 👍" in footer(t, "b")
        assert await t.say("a", "two") == TOO_FAST  # and the other way round
        t.clock.advance(3.1)
        await t.press("a", "e", "4")
        assert "a: A bit faster, please" in footer(t, "a") and "too fast" not in footer(t, "a")
        assert t.chat.history(t.room_id)[-1].text == QUICK_LINES[3]


async def test_quick_chat_in_the_lobby() -> None:
    async with Table.open(["a", "b"], start=False) as t:
        await t.press("b", "q")  # b leaves the room for the lobby
        await t.press("b", "e", "5")
        (message,) = t.chat.history("lobby")
        assert message.canned and message.text == QUICK_LINES[4] and message.nick == "b"
        assert "b: 아깝다 ㅠㅠ" in t.text("b")


@pytest.mark.parametrize(("language", "line"), [("ko", "빠른 채팅"), ("en", "quick chat")])
async def test_help_lists_quick_chat_among_the_keys(language: str, line: str) -> None:
    async with Table.open(["a", "b"], language=language) as t:
        await t.press("a", "question_mark", "right", "right")  # the 키 tab; 어디서나 is first
        rows = t.text("a").splitlines()
        assert any(row.lstrip().startswith("e ") and line in row for row in rows), rows
