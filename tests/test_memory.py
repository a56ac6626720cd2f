"""Screens that are opened and closed are freed: memory stays flat however often a player does it.

Every session shares one process, so a screen that outlives its dismissal is a server-wide
leak (the new-room form once kept ~1.5 MiB per Esc, pinned by a Textual memo). Each test opens
and closes one screen 50 times after a warm-up, and requires that every dismissed screen is
gone after a collection and that the live objects and pymalloc blocks stay level over the 50
cycles; the form's test also traces every byte (``tracemalloc``, growth < :data:`BUDGET`),
which makes a cycle ~3x slower, too slow to do for every screen in every run.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from engine import Options
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.confirm import ConfirmScreen
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.help import HelpScreen
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.results import ResultsScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.chatline import ChatLine

from .ssh_harness import ssh_server, wait_until

SIZE = (100, 30)
WARM_UP, CYCLES = 5, 50
BUDGET = 2 * 2**20  # bytes of growth over the CYCLES (traced)

Cycle = Callable[[], Awaitable[object]]


@dataclass
class Growth:
    """What the last CYCLES left behind: gc-tracked objects, pymalloc blocks, traced bytes
    (only when asked: tracing makes a cycle ~3x slower), and the dismissed things still alive."""

    objects: int
    blocks: int
    traced: int | None
    alive: list[object]


async def retained(cycle: Cycle, expected: type[object], *, trace: bool = False) -> Growth:
    """Run ``cycle`` (open, then close; returns what was open) WARM_UP + CYCLES times and
    measure the growth over the last CYCLES (each point after a collection, with the same
    kind of screens open)."""
    opened: list[weakref.ref[object]] = []

    async def once() -> None:
        thing = await cycle()
        assert isinstance(thing, expected), thing
        opened.append(weakref.ref(thing))
        del thing

    def point() -> tuple[int, int, int]:
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        return len(gc.get_objects()), sys.getallocatedblocks(), traced

    for _ in range(WARM_UP):
        await once()
    if trace:  # from here on only: what the warm-up left is not growth
        tracemalloc.start(1)
    try:
        before = point()
        for _ in range(CYCLES):
            await once()
        after = point()
    finally:
        if trace:
            tracemalloc.stop()
    # the last one may still be the sender of the last message some live pump handled (a
    # local of its message loop until the next message): Textual's, and one at most
    alive = [obj for obj in (ref() for ref in opened[:-1]) if obj is not None]
    objects, blocks, traced = (a - b for a, b in zip(after, before))
    return Growth(objects, blocks, traced if trace else None, alive)


def lobby_app(manager: RoomManager | None = None) -> SeotdaApp:
    manager = manager or RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    return make_app_factory(manager)(SimpleNamespace(nickname="영희"), None)


async def opened(pilot: Pilot[None], key: str, kind: type[Screen[Any]]) -> Screen[Any]:
    await pilot.press(key)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, kind), screen
    return screen


async def closed(pilot: Pilot[None], key: str, kind: type[Screen[Any]]) -> None:
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, kind), pilot.app.screen


def assert_freed(
    growth: Growth, *, freed: bool = True, objects_budget: int = 1000, blocks_budget: int = 16_384
) -> None:
    if freed:
        assert not growth.alive, f"{len(growth.alive)} of {WARM_UP + CYCLES - 1} still alive"
    # one pinned form or table is thousands of objects and ~1.5 MiB
    assert growth.objects < objects_budget, f"{growth.objects} more objects after {CYCLES}"
    assert growth.blocks < blocks_budget, f"{growth.blocks} more memory blocks after {CYCLES}"
    if growth.traced is not None:
        assert growth.traced < BUDGET, f"{growth.traced / 2**20:.2f} MiB held after {CYCLES}"


async def test_the_new_room_form_is_freed_when_dismissed() -> None:
    app = lobby_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()

        async def cycle() -> object:
            form = await opened(pilot, "n", CreateRoomScreen)
            await closed(pilot, "escape", LobbyScreen)
            return form

        assert_freed(await retained(cycle, CreateRoomScreen, trace=True))


async def test_the_help_screen_is_freed_when_dismissed() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot = t.pilot("a")

        async def cycle() -> object:
            help_screen = await opened(pilot, "f1", HelpScreen)
            await closed(pilot, "escape", TableScreen)
            return help_screen

        assert_freed(await retained(cycle, HelpScreen))


async def test_the_leave_question_is_freed_when_answered() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot = t.pilot("a")

        async def cycle() -> object:
            question = await opened(pilot, "q", ConfirmScreen)
            await closed(pilot, "n", TableScreen)
            return question

        assert_freed(await retained(cycle, ConfirmScreen))


async def test_the_results_screen_is_freed_when_closed() -> None:
    result = {
        "summary": "a 우승",
        "reason": "handCap",
        "ranking": [
            {"rank": 1, "playerId": "a", "finalChips": 1500, "score": 1500, "rebuys": 0},
            {"rank": 2, "playerId": "b", "finalChips": 500, "score": 500, "rebuys": 1},
        ],
        "stats": {"handsPlayed": 20, "rematches": 1},
    }
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot, app = t.pilot("a"), t.app("a")

        async def cycle() -> object:
            results = ResultsScreen(result, Options())
            app.push_screen(results)
            await pilot.pause()
            assert app.screen is results
            await closed(pilot, "enter", TableScreen)
            return results

        assert_freed(await retained(cycle, ResultsScreen))


async def test_leaving_a_room_and_coming_back_frees_each_table_and_lobby() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE, start=False) as t:
        pilot = t.pilot("b")
        lobbies: list[weakref.ref[object]] = []

        async def cycle() -> object:
            table = pilot.app.screen
            assert isinstance(table, TableScreen)
            lobby = await opened(pilot, "q", LobbyScreen)  # a waiting room is left at once
            lobbies.append(weakref.ref(lobby))
            del lobby
            await closed(pilot, "enter", TableScreen)  # the cursor is on the one room
            return table

        # each leave and join adds lines to the room's log and the other seat's hand log, which
        # grow until their caps (300 events, 200 lines), and each new table screen meets
        # process-wide bounded caches (rich's and Textual's lru_caches) that may still be filling
        # when this runs after other tests: ~70 objects a cycle alone, up to ~230 after the whole
        # suite (measured); one table kept per cycle would be thousands of objects and ~1 MiB
        assert_freed(
            await retained(cycle, TableScreen), objects_budget=25_000, blocks_budget=40_000
        )
        assert sum(ref() is not None for ref in lobbies) == 0


@pytest.mark.parametrize("where", ["lobby", "table"])
async def test_opening_and_closing_the_chat_keeps_nothing(where: str) -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot = t.pilot("a")
        if where == "lobby":
            await closed(pilot, "q", Screen)  # the leave question
            await closed(pilot, "y", LobbyScreen)

        async def cycle() -> object:
            line = pilot.app.screen.query_one(ChatLine)
            await pilot.press("t")
            await pilot.pause()
            assert line.typing
            await pilot.press("escape")
            await pilot.pause()
            assert not line.typing
            return line

        assert_freed(await retained(cycle, ChatLine), freed=False)  # (the line stays)


def live_forms() -> int:
    gc.collect()
    return sum(isinstance(o, CreateRoomScreen) for o in gc.get_objects())


async def test_the_form_over_ssh_keeps_the_server_flat(tmp_path: Path) -> None:
    """A real client opens and closes the form: each form is freed, and the server's live
    objects stay level (the client sees the lobby before Textual has finished removing the
    form, so each check waits for that)."""
    manager = RoomManager()
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("철수", size=SIZE) as client:
            await client.wait_for("철수님 환영해요")
            counts = []
            for n in range(WARM_UP + 20):
                await client.press("n")
                await client.wait_for("←/→ 바꾸기")
                assert live_forms() == 1
                await client.press("escape")
                await client.wait_gone("←/→ 바꾸기")
                await wait_until(lambda: live_forms() == 0)
                if n >= WARM_UP - 1:
                    counts.append(len(gc.get_objects()))
            # a real session has timers and buffers that come and go: a little drift is
            # allowed, far below one pinned form's worth (~5,000 objects)
            assert max(counts) - counts[0] < 1000, counts
