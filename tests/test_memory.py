"""Screens that are opened and closed are freed: memory stays flat however often a player does it.

Every session shares one process, so a screen that outlives its dismissal is a server-wide
leak. Measured under the server's own GC settings (:func:`server_gc`: ``cli.process``'s thresholds and
``gc.freeze``), collecting only the young generations between blocks — what the server does
all the time — never the old one, which those settings make rare: a dismissed screen must be
freed without a full collection (help once left ~17,700 objects a cycle in the old generation,
issue 30). Each test opens and closes a screen in blocks of cycles and checks that every
dismissed screen is gone, and that the live objects and pymalloc blocks of the last block
grow by less than a small bound (a leak shows within the first blocks, so ``make test`` runs a
few short blocks and ``make soak`` hundreds of cycles); the form's test also traces every byte
(``tracemalloc``, which makes a cycle ~3x slower, so only there). With the tuning on (not in
the stock-Textual run: stock's memos keep up to 1,024 entries each, which these short blocks
would count as growth; ``unpinned_caches`` is what frees those).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tracemalloc
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from engine import Options
from engine.types import GameResult
from seotda_tui.cli.process import GC_THRESHOLDS
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.confirm import ConfirmScreen
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.help import HelpScreen
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.moderation import ModerationScreen
from seotda_tui.ui.screens.records import RecordsScreen
from seotda_tui.ui.screens.replay import HistoryScreen, ReplayScreen
from seotda_tui.ui.screens.results import ResultsScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.chatline import ChatLine

from .ssh_harness import ssh_server, wait_until
from .tiers import sized

SIZE = (100, 30)
WARM_UP = 2
BLOCKS = sized(3, 10)  # a leak of one screen a cycle shows in every block
PER_BLOCK = sized(3, 30)  # so: 9 cycles under make test, 300 under make soak
SSH_BLOCKS, SSH_PER_BLOCK = sized(2, 10), sized(2, 20)  # each cycle waits for the client's screen
BUDGET = 160 * 2**10 * PER_BLOCK  # traced bytes the last block may add (a form kept: ~1.3 MB)
# The last block's growth, per cycle in it: the smallest screen kept (the host menu) is ~940
# objects and ~1,400 memory blocks a cycle, help ~17,700 objects; a session's own timers and
# buffers come and go (a few objects a cycle)
OBJECTS, MEMORY_BLOCKS = 100 * PER_BLOCK, 600 * PER_BLOCK

Cycle = Callable[[], Awaitable[object]]


@contextmanager
def server_gc() -> Iterator[None]:
    """The server's GC (``cli.process.tune_garbage_collector``) while the block runs, then the test
    process's own again."""
    old = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*old)


def full_collections() -> int:
    return int(gc.get_stats()[2]["collections"])


@dataclass
class Growth:
    """Per block after the first: gc-tracked objects and pymalloc blocks added, traced bytes
    (only when asked), and the dismissed things still alive."""

    objects: list[int]
    blocks: list[int]
    traced: list[int]
    alive: list[object]


async def retained(cycle: Cycle, expected: type[object], *, trace: bool = False) -> Growth:
    """Run ``cycle`` (open, then close; returns what was open) WARM_UP times, then BLOCKS
    blocks of PER_BLOCK under the server's GC, measuring after each block once the young
    generations were collected (never the old one)."""
    opened: list[weakref.ref[object]] = []

    async def once() -> None:
        thing = await cycle()
        assert isinstance(thing, expected), thing
        opened.append(weakref.ref(thing))
        del thing

    def point() -> tuple[int, int, int]:
        gc.collect(1)  # what the server's thresholds collect all the time
        traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        return len(gc.get_objects()), sys.getallocatedblocks(), traced

    for _ in range(WARM_UP):
        await once()
    points = []
    with server_gc():
        full = full_collections()
        if trace:  # from here on only: what the warm-up left is not growth
            tracemalloc.start(1)
        try:
            points.append(point())
            for _ in range(BLOCKS):
                for _ in range(PER_BLOCK):
                    await once()
                points.append(point())
        finally:
            if trace:
                tracemalloc.stop()
        # the last one may still be the sender of the last message some live pump handled
        # (a local of its message loop until the next message): Textual's, and one at most.
        # A callback already due (a countdown tick, under load) may hold one a moment longer:
        # let the loop run its due callbacks, collecting only the young generations.
        for _ in range(20):
            gc.collect(1)
            if all(ref() is None for ref in opened[WARM_UP:-1]):
                break
            await asyncio.sleep(0.05)
        alive = [obj for obj in (ref() for ref in opened[WARM_UP:-1]) if obj is not None]
        # a full collection would hide what only one frees (the measure would be void)
        assert full_collections() == full, "a full collection ran during the blocks"
    objects, blocks, traced = ([b[i] - a[i] for a, b in zip(points, points[1:])] for i in range(3))
    return Growth(objects, blocks, traced, alive)


def lobby_app(manager: RoomManager | None = None) -> SeotdaApp:
    manager = manager or RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    return make_app_factory(manager)(SimpleNamespace(nickname="영희"), None)


def aged() -> None:
    """What a few seconds on a busy server do to a screen that is open: its objects survive
    the young generations' collections and reach the old one, which the server's settings
    leave to a rare full collection (a test's own few allocations would free it young)."""
    gc.collect(1)


async def opened(pilot: Pilot[None], key: str, kind: type[Screen[Any]]) -> Screen[Any]:
    await pilot.press(key)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, kind), screen
    aged()
    return screen


async def closed(pilot: Pilot[None], key: str, kind: type[Screen[Any]]) -> None:
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(pilot.app.screen, kind), pilot.app.screen


def assert_freed(
    growth: Growth,
    *,
    freed: bool = True,
    objects_budget: int = OBJECTS,
    blocks_budget: int = MEMORY_BLOCKS,
) -> None:
    """Every dismissed thing is gone, and the last block grew by less than the budgets (one
    screen kept a cycle is thousands of objects)."""
    if freed:
        assert not growth.alive, (
            f"{len(growth.alive)} dismissed of {BLOCKS * PER_BLOCK} still alive without a full"
            f" collection; objects added per block: {growth.objects}"
        )
    assert growth.objects[-1] < objects_budget, f"objects added per block: {growth.objects}"
    assert growth.blocks[-1] < blocks_budget, f"memory blocks added per block: {growth.blocks}"
    if tracemalloc.is_tracing() or any(growth.traced):
        assert growth.traced[-1] < BUDGET, f"bytes traced per block: {growth.traced}"


async def test_the_new_room_form_is_freed_when_dismissed() -> None:
    app = lobby_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()

        async def cycle() -> object:
            form = await opened(pilot, "n", CreateRoomScreen)
            await closed(pilot, "escape", LobbyScreen)
            return form

        growth = await retained(cycle, CreateRoomScreen, trace=True)
        assert any(growth.traced), "nothing traced"
        assert_freed(growth)


async def test_every_widget_of_the_form_is_freed_with_it() -> None:
    """Not only the screen: its name field keeps a cursor-blink timer whose callback is the
    field itself, a cycle the unlinking must break too (over SSH it kept one field, ~90
    objects, per form opened and closed, until a full collection)."""
    app = lobby_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        with server_gc():
            full = full_collections()
            form = await opened(pilot, "n", CreateRoomScreen)
            widgets = [weakref.ref(widget) for widget in form.query("*")]
            assert any(isinstance(ref(), Input) for ref in widgets)
            del form
            await closed(pilot, "escape", LobbyScreen)
            for _ in range(20):
                gc.collect(1)
                alive = [type(w).__name__ for w in (ref() for ref in widgets) if w is not None]
                if not alive:
                    break
                await asyncio.sleep(0.05)
            assert full_collections() == full, "a full collection ran"
            assert not alive, alive


async def test_the_help_screen_is_freed_when_dismissed() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot = t.pilot("a")

        async def cycle() -> object:
            help_screen = await opened(pilot, "f1", HelpScreen)
            await closed(pilot, "escape", TableScreen)
            return help_screen

        assert_freed(await retained(cycle, HelpScreen))


async def test_the_host_menu_is_freed_when_closed() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE, start=False) as t:
        pilot = t.pilot("a")  # the host

        async def cycle() -> object:
            menu = await opened(pilot, "m", ModerationScreen)
            await closed(pilot, "escape", TableScreen)
            return menu

        assert_freed(await retained(cycle, ModerationScreen))


async def test_the_records_screen_is_freed_when_closed(tmp_path: Path) -> None:
    from .test_records import play_games

    manager, _keys = play_games(tmp_path, ["r1"])
    app = make_app_factory(manager)(SimpleNamespace(nickname="철수"), None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        while not isinstance(app.screen, LobbyScreen):  # the results, the room
            await pilot.press("q")
            await pilot.pause()

        async def cycle() -> object:
            records = await opened(pilot, "r", RecordsScreen)
            await closed(pilot, "escape", LobbyScreen)
            return records

        assert_freed(await retained(cycle, RecordsScreen))


@asynccontextmanager
async def history_pilot(tmp_path: Path) -> AsyncIterator[Pilot[None]]:
    """A player of a finished game, in the lobby, with that game in the history."""
    from .test_replay import PLAYERS, played_game

    with played_game(tmp_path) as played:
        app = make_app_factory(played.manager)(SimpleNamespace(nickname=PLAYERS[0]), None)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen), app.screen
            yield pilot


async def test_the_history_screen_is_freed_when_closed(tmp_path: Path) -> None:
    async with history_pilot(tmp_path) as pilot:

        async def cycle() -> object:
            history = await opened(pilot, "h", HistoryScreen)
            await closed(pilot, "escape", LobbyScreen)
            return history

        assert_freed(await retained(cycle, HistoryScreen))


async def test_the_replay_screen_is_freed_when_closed(tmp_path: Path) -> None:
    async with history_pilot(tmp_path) as pilot:
        await opened(pilot, "h", HistoryScreen)

        async def cycle() -> object:
            replay = await opened(pilot, "enter", ReplayScreen)
            for _ in range(3):  # a few steps: each frame is painted
                await pilot.press("right")
            await closed(pilot, "q", HistoryScreen)
            return replay

        assert_freed(await retained(cycle, ReplayScreen))


async def test_the_leave_question_is_freed_when_answered() -> None:
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot = t.pilot("a")

        async def cycle() -> object:
            question = await opened(pilot, "q", ConfirmScreen)
            await closed(pilot, "n", TableScreen)
            return question

        assert_freed(await retained(cycle, ConfirmScreen))


async def test_the_results_screen_is_freed_when_closed() -> None:
    result: GameResult = {
        "summary": "a 우승",
        "reason": "handCap",
        "ranking": [
            {
                "rank": 1,
                "playerId": "a",
                "finalChips": 1500,
                "score": 1500,
                "rebuys": 0,
                "eliminatedAtHand": None,
            },
            {
                "rank": 2,
                "playerId": "b",
                "finalChips": 500,
                "score": 500,
                "rebuys": 1,
                "eliminatedAtHand": None,
            },
        ],
        "stats": {
            "handsPlayed": 20,
            "rematches": 1,
            "bestHand": None,
            "biggestPot": {"handNo": 0, "amount": 0, "winners": []},
        },
    }
    async with Table.open(["a", "b"], seed=3, size=SIZE) as t:
        pilot, app = t.pilot("a"), t.app("a")

        async def cycle() -> object:
            results = ResultsScreen(result, Options())
            app.push_screen(results)
            await pilot.pause()
            assert app.screen is results
            aged()
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
            aged()
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
            await retained(cycle, TableScreen),
            objects_budget=PER_BLOCK * 500,
            blocks_budget=PER_BLOCK * 800,
        )
        assert sum(ref() is not None for ref in lobbies[WARM_UP:]) == 0


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
            aged()
            await pilot.press("escape")
            await pilot.pause()
            assert not line.typing
            return line

        assert_freed(await retained(cycle, ChatLine), freed=False)  # (the line stays)


def live(kind: type[object]) -> int:
    """How many ``kind`` objects are alive after the young generations' collection."""
    gc.collect(1)
    return sum(isinstance(o, kind) for o in gc.get_objects())


@pytest.mark.parametrize(
    ("key", "kind", "shown"),
    [("n", CreateRoomScreen, "←/→ 바꾸기"), ("?", HelpScreen, "족보")],
    ids=["form", "help"],
)
async def test_a_screen_opened_over_ssh_keeps_the_server_flat(
    tmp_path: Path, key: str, kind: type[Screen[Any]], shown: str
) -> None:
    """A real client opens and closes the form or help under the server's GC settings: each
    screen is freed without a full collection, and the server's live objects and memory
    blocks stay level (the client sees the lobby before Textual has finished removing the
    screen, so each check waits for that)."""
    manager = RoomManager()
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("철수", size=SIZE) as client:
            await client.wait_for("철수님 환영해요")

            async def cycle() -> None:
                await client.press(key)
                await client.wait_for(shown)
                aged()
                await client.press("escape")
                await client.wait_gone(shown)
                await wait_until(lambda: live(kind) == 0, what=f"no {kind.__name__} alive")

            for _ in range(WARM_UP):
                await cycle()
            points = []
            with server_gc():
                for _ in range(SSH_BLOCKS + 1):
                    points.append((len(gc.get_objects()), sys.getallocatedblocks()))
                    for _ in range(SSH_PER_BLOCK):
                        await cycle()
            objects, blocks = ([b[i] - a[i] for a, b in zip(points, points[1:])] for i in (0, 1))
            # a real session has timers and buffers that come and go: a little drift is
            # allowed, far below one kept screen's worth (thousands of objects)
            assert objects[-1] < 1000, objects
            assert blocks[-1] < 4000, blocks


def test_without_the_unlinking_the_server_collects_the_old_generation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fallback where ``unlinked_nodes`` cannot apply: CPython's own full collections
    (the last threshold low), so closed screens are still freed, at the cost of pauses."""
    from seotda_tui import tuning
    from seotda_tui.cli import process

    before = gc.get_threshold()
    try:
        for on, expected in (
            (True, process.GC_THRESHOLDS),
            (False, process.FALLBACK_GC_THRESHOLDS),
        ):
            monkeypatch.setattr(tuning, "enabled", lambda name, on=on: on)
            process.tune_garbage_collector()
            gc.unfreeze()
            assert gc.get_threshold() == expected
        assert process.FALLBACK_GC_THRESHOLDS[2] < process.GC_THRESHOLDS[2]
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


async def test_a_widget_removed_and_mounted_again_keeps_its_styles_working() -> None:
    """The unlinking happens when a widget is removed; mounted again, its styles know it
    again, so an inline style set afterwards still repaints it."""
    from textual.app import App, ComposeResult
    from textual.containers import Vertical
    from textual.widgets import Static

    class Two(App[None]):
        CSS = ".red { background: red; }"

        def compose(self) -> ComposeResult:
            yield Vertical(id="a")
            yield Vertical(id="b")

    app = Two()
    async with app.run_test() as pilot:
        static = Static("안녕")
        await app.query_one("#a").mount(static)
        await pilot.pause()
        await static.remove()
        await pilot.pause()
        await app.query_one("#b").mount(static)
        static.add_class("red")
        await pilot.pause()
        assert static.styles.inline.node is static and static.styles.base.node is static
        assert static.styles.background.rgb == (255, 0, 0)
        static.styles.background = "blue"  # inline: refreshes through the node
        await pilot.pause()
        assert static.styles.background.rgb == (0, 0, 255)


async def test_a_session_that_ends_is_freed_without_a_full_collection(tmp_path: Path) -> None:
    """Each ended session's app is freed under the server's GC settings (its app, animator,
    worker manager, logger and driver held each other: ~650 KB a session until a full
    collection), so someone connecting again and again does not grow the server."""
    manager = RoomManager()
    # (make soak's 50 new nicknames from one address, back to back: past the default limits)
    many = {"connect_burst": 100, "registrations_per_ip": 100}
    async with ssh_server(tmp_path, make_app_factory(manager), **many) as server:
        with server_gc():
            for n in range(sized(3, 50)):
                async with server.connect(f"철수{n}", size=SIZE) as client:
                    await client.wait_for("님 환영해요")
                    aged()
                await wait_until(lambda: live(SeotdaApp) == 0, what="no app alive")
