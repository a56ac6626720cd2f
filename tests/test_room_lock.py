"""The host's lock asks first, and everyone inside reads it in the title (issue 32 item 11):
방 잠그기 locked at once (the README says every step of the host's menu asks), and those in the
room never saw 잠김 (only the lobby's list showed it). Pilots as the host, a seated player and a
spectator, in the waiting room and at a running game, at 80×24 and 120×40, Korean and English."""

from __future__ import annotations

from typing import cast

import pytest

from seotda_tui.testing import Table
from seotda_tui.ui.screens.confirm import ConfirmScreen
from seotda_tui.ui.screens.moderation import ModerationScreen
from seotda_tui.ui.screens.table import TableScreen

TEXTS = {
    "ko": {
        "lock?": "방을 잠글까요?",
        "unlock?": "방 잠금을 풀까요?",
        "readmit?": "내보낸 사람을 다시 받을까요?",
        "locked": "잠김",
    },
    "en": {
        "lock?": "Lock the room?",
        "unlock?": "Unlock the room?",
        "readmit?": "Let the removed players back?",
        "locked": "locked",
    },
}
SIZES = [(80, 24), (120, 40)]
EVERYONE = ("a", "b", "w")  # the host, a seated player, a spectator


def title(t: Table, nick: str) -> str:
    return t.text(nick).splitlines()[0]


async def choose(t: Table, what: tuple[str, str]) -> None:
    """The host opens the menu (m) and picks ``what`` with the arrows and Enter."""
    await t.press("a", "m")
    menu = cast(ModerationScreen, t.screen("a"))
    assert isinstance(menu, ModerationScreen)
    for _ in range([choice for choice, _label in menu.items].index(what)):
        await t.press("a", "down")
    await t.press("a", "enter")


async def answer(t: Table, question: str, yes: bool) -> None:
    assert isinstance(t.screen("a"), ConfirmScreen), t.text("a")
    assert question in t.text("a"), t.text("a")
    await t.press("a", "y" if yes else "n")
    assert isinstance(t.screen("a"), TableScreen)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_lock_asks_first_and_everyone_inside_sees_it(
    language: str, size: tuple[int, int]
) -> None:
    texts = TEXTS[language]
    async with Table.open(
        ["a", "b"], spectators=["w"], start=False, language=language, size=size
    ) as t:
        assert not any(texts["locked"] in title(t, nick) for nick in EVERYONE)
        await choose(t, ("lock", ""))
        await answer(t, texts["lock?"], yes=False)  # n: nothing changes
        summary = t.manager.room(t.room_id)
        assert summary is not None and not summary.locked
        await choose(t, ("lock", ""))
        await answer(t, texts["lock?"], yes=True)
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.locked
        for nick in EVERYONE:  # the waiting room's title
            assert texts["locked"] in title(t, nick), (nick, t.text(nick))
        t.manager.start(t.room_id, "a")
        await t.settle()
        for nick in EVERYONE:  # the table's: the one acting, the one waiting, the spectator
            assert texts["locked"] in title(t, nick), (nick, t.text(nick))
        t.play_until(lambda game: game.pending()["phase"] in ("handEnd", "finished"))
        await t.settle()
        await choose(t, ("unlock", ""))  # (at the table too, between hands)
        await answer(t, texts["unlock?"], yes=True)
        summary = t.manager.room(t.room_id)
        assert summary is not None and not summary.locked
        for nick in EVERYONE:
            assert texts["locked"] not in title(t, nick), (nick, t.text(nick))


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_letting_the_removed_back_asks_first(language: str) -> None:
    texts = TEXTS[language]
    async with Table.open(["a", "b"], spectators=["w"], start=False, language=language) as t:
        t.manager.remove(t.room_id, "a", "w")
        await t.settle()
        await choose(t, ("readmit", ""))
        await answer(t, texts["readmit?"], yes=False)
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.barred == ("w",)
        await choose(t, ("readmit", ""))
        assert "w" in t.text("a")  # who comes back
        await answer(t, texts["readmit?"], yes=True)
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.barred == ()
