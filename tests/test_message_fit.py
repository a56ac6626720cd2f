"""The table's message row at 80 columns: a refusal shows whole beside the prompts, or shortened
on purpose (its leading sentences, else its leading words and "…"), never cut at the edge.

Over ssh at 80x24 the host's refused start on a full disk read "… 잠시 뒤에 다시 해" — its end
cut, though the prompt bar had already given up its middle prompts for it."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from seotda_tui import i18n
from seotda_tui.i18n import tr
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.pause import START_REFUSED
from seotda_tui.testing import Table
from seotda_tui.ui.screens.table_actions import shortened
from seotda_tui.ui.widgets.actions import PromptBar
from seotda_tui.ui.widgets.lines import Line

from .faultkit import faulty_journal
from .fitkit import cuts
from .test_room_error_codes import ENGINE_TEXT, OPTIONS_TEXT, raise_sites

LANGUAGES = ["ko", "en"]
#: The refusals' fields, filled long: a room code, an 8-syllable room name, a count.
SAMPLE = {"target": "가나다라마바사아", "room": "가나다라마바사아", "n": 10}
HOST, SEAT = "a", "b"


def refusals() -> list[str]:
    """Every RoomError's template (the engine's own reasons are ~45 cells: not among these)."""
    found = {text for _, _, text in raise_sites() if text not in (ENGINE_TEXT, OPTIONS_TEXT)}
    for text in found:  # (every field is one SAMPLE fills)
        assert {f for _, f, _, _ in string.Formatter().parse(text) if f} <= set(SAMPLE)
    return sorted(found)


def message(t: Table, nick: str) -> str:
    return t.screen(nick).query_one("#message", Line).plain


def leave_kept(t: Table, nick: str) -> bool:
    prompts, _gap = t.screen(nick).query_one(PromptBar).shown()
    return bool(prompts) and prompts[-1][0] == "leave"


async def say(t: Table, nick: str, text: str) -> None:
    """``text`` on ``nick``'s message row, said as from the app's own task (a screen is
    ``live`` only where ``self.app`` is its own app), then drawn."""
    app = t.app(nick)
    with app._context():
        t.screen(nick).say(text)
    await t.pilot(nick).pause()  # (only this app changed)


def fits(t: Table, nick: str, where: str) -> None:
    with i18n.speaking(t.app(nick).language):  # (the intended texts in its language)
        found = cuts(t.app(nick))
    assert not found, f"{where}: " + "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_hosts_refused_start_on_a_full_disk_shows_whole_at_80x24(
    tmp_path: Path, language: str
) -> None:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    manager = RoomManager(clock=clock, journal=journal)
    async with Table.open([HOST, SEAT], manager=manager, start=False, language=language) as t:
        conn.full = True
        await t.press(HOST, "s")
        assert manager.room(t.room_id).status == "waiting"
        with i18n.speaking(t.app(HOST).language):
            whole = i18n._(START_REFUSED)
        assert message(t, HOST) == whole  # whole, not its leading sentence only
        assert whole in t.text(HOST)
        assert leave_kept(t, HOST)
        fits(t, HOST, "refused start")
        conn.full = False
        await t.press(HOST, "s")
        assert manager.room(t.room_id).status == "playing"
        assert message(t, HOST) == ""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("nick", [HOST, SEAT])  # the host's five prompts; a seat's one
async def test_every_room_refusal_shows_whole_or_shortened_on_purpose_at_80x24(
    language: str, nick: str
) -> None:
    async with Table.open([HOST, SEAT], start=False, language=language) as t:
        shortened_ones = []
        for template in refusals():
            with i18n.speaking(t.app(nick).language):
                text = tr(template, SAMPLE)
            await say(t, nick, text)
            shown = message(t, nick)
            fits(t, nick, text)
            assert leave_kept(t, nick), text
            if shown != text:  # shortened on purpose: a leading part of it
                shortened_ones.append(text)
                assert text.startswith(shown.removesuffix("…")), (shown, text)
                assert shown.endswith(("요", ".", ")", "…")), shown  # a sentence's end or "…"
        assert shortened_ones  # (the longest, e.g. too_many_from_address, need it)


async def test_a_shortened_message_comes_back_whole_on_a_wider_terminal() -> None:
    async with Table.open([HOST, SEAT], start=False) as t:
        text = tr(max(refusals(), key=len), SAMPLE)
        await say(t, HOST, text)
        short = message(t, HOST)
        assert short != text and text.startswith(short)
        await t.pilot(HOST).resize_terminal(120, 30)
        await t.settle()
        assert message(t, HOST) == text
        fits(t, HOST, "at 120x30")
        await t.pilot(HOST).resize_terminal(80, 24)
        await t.settle()
        assert message(t, HOST) == short
        fits(t, HOST, "back at 80x24")


def test_shortened_keeps_whole_sentences_else_whole_words() -> None:
    text = "방 코드가 맞지 않아요. 방장에게 코드를 다시 확인해 주세요"
    assert shortened(text, 60) == text
    assert shortened(text, 30) == "방 코드가 맞지 않아요."
    assert shortened("마지막 판이에요 · 게임이 끝나면 앉아요", 20) == "마지막 판이에요"
    assert shortened("Too many wrong room codes in a row", 16) == "Too many wrong…"
    assert shortened("가나다라마바사아자차", 7) == "가나다…"
    assert shortened("anything", 0) == ""
