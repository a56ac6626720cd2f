"""Enter on a running room (issue 32 item 13): the lobby only said "게임이 이미 시작됐어요. 관전은
할 수 있어요". It now opens the table to watch, and ``j`` there says when a seat opens: at the
next hand when the room lets people join mid-game (midJoin, default on), else when the game
ends (the refusal said only that the room takes nobody mid-game). Pilots at 80×24 and 120×40, Korean and English: the lobby's session, the players."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

from engine import Options
from seotda_tui.i18n import Language
from seotda_tui.testing import Table, screen_text
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.table import TableScreen

from .test_private_rooms import code_of

TEXTS = {
    "ko": {
        "running": "게임이 이미 시작됐어요",
        "next hand": "다음 판부터 앉아요",
        "game ends": "게임이 끝나면 앉을 수 있어요",
    },
    "en": {
        "running": "already started",
        "next hand": "You sit down at the next hand",
        "game ends": "when the game ends",
    },
}
SIZES = [(80, 24), (120, 40)]


@asynccontextmanager
async def lobby(
    t: Table, nick: str, language: str, size: tuple[int, int]
) -> AsyncIterator[tuple[SeotdaApp, Pilot[None]]]:
    """Another session of the same server, in the lobby."""
    factory = make_app_factory(t.manager, chat=t.chat)
    app = factory(SimpleNamespace(nickname=nick), SimpleNamespace(language=Language(language)))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        yield app, pilot


async def press(t: Table, pilot: Pilot[None], *keys: str) -> None:
    await pilot.press(*keys)
    await pilot.pause()
    await t.settle()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", ["ko", "en"])
@pytest.mark.parametrize("mid_join", [True, False])
async def test_enter_on_a_running_room_watches_and_j_says_when_a_seat_opens(
    language: str, size: tuple[int, int], mid_join: bool
) -> None:
    texts = TEXTS[language]
    options = Options(mid_join=mid_join)
    async with (
        Table.open(["a", "b"], options=options, language=language, size=size) as t,
        lobby(t, "c", language, size) as (app, pilot),
    ):
        await press(t, pilot, "enter")  # the one room, running
        assert isinstance(app.screen, TableScreen), screen_text(app)
        summary = t.manager.room(t.room_id)
        assert summary is not None and summary.spectators == ("c",)
        assert texts["running"] not in screen_text(app)
        assert t.manager.game_view(t.room_id, "c") is not None  # watching the game
        await press(t, pilot, "j")  # a seat: says when it opens
        said = texts["next hand"] if mid_join else texts["game ends"]
        assert said in screen_text(app), screen_text(app)
        game = t.manager.live_game(t.room_id)
        assert game is not None and ("c" in game.joining) is mid_join


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_a_running_private_rooms_code_opens_it_to_watch(language: str) -> None:
    async with Table.open(["a", "b"], language=language) as t:
        t.manager.leave(t.room_id, "a")  # (the harness's room is public: make a private one)
        m = t.manager
        room = m.create_room("d", "비밀 판", Options(), private=True)
        m.join(room.id, "e", code_of(m, room.id, "d"))
        m.start(room.id, "d")
        async with lobby(t, "c", language, (80, 24)) as (app, pilot):
            rows = [r.id for r in m.rooms()]
            for _ in range(rows.index(room.id)):
                await press(t, pilot, "down")
            await press(t, pilot, "enter", *code_of(m, room.id, "d"), "enter")
            assert isinstance(app.screen, TableScreen), screen_text(app)
            summary = m.room(room.id)
            assert summary is not None and summary.spectators == ("c",)
