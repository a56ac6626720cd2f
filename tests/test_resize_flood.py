"""A client flooding window-change requests costs its session a few layouts, and its screen
ends at the last size it asked for (issue 30: 570 changes a second used 62 % of a core)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.geometry import Size

from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.driver import RESIZE_INTERVAL

from .ssh_harness import ssh_server, wait_until
from .tiers import sized

FLOOD = sized(200, 5000)  # window changes, ~2 ms apart (the client: 570 a second)
LAST = (91, 27)


async def test_a_window_change_flood_costs_a_few_layouts_and_the_last_size_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layouts: list[float] = []  # when: each Resize the app takes relays out and repaints
    on_resize: Any = App._on_resize

    async def counting(self: App[Any], event: Any) -> None:
        layouts.append(asyncio.get_running_loop().time())
        await on_resize(self, event)

    monkeypatch.setattr(App, "_on_resize", counting)
    apps: list[Any] = []
    factory = make_app_factory(RoomManager())

    def keep(identity: Any, ctx: Any) -> Any:
        apps.append(factory(identity, ctx))
        return apps[-1]

    async with ssh_server(tmp_path, keep) as server:
        async with server.connect("철수", size=(100, 30)) as client:
            await client.wait_for("철수님 환영해요")
            (app,) = apps
            loop = asyncio.get_running_loop()
            layouts.clear()
            started = loop.time()
            assert client.chan is not None
            for n in range(FLOOD):
                client.chan.change_terminal_size(100 + n % 40, 30 + n % 10)
                await asyncio.sleep(0.002)
            await client.resize(*LAST)
            took = loop.time() - started
            await wait_until(lambda: app.size == Size(*LAST), what="the last size")
            await asyncio.sleep(3 * RESIZE_INTERVAL)  # anything still coming would come now
            assert app.size == Size(*LAST)
            await client.wait_for("철수님 환영해요")  # drawn at the last size
            # one layout per interval at most (and the last), not one per change, however
            # fast or slow the box: none closer than the interval to the one before
            # (Textual merges a Resize still queued into the next, so a busy app may
            # take two back to back once)
            said = f"{len(layouts)} layouts for {FLOOD} changes in {took:.2f} s"
            assert len(layouts) <= took / RESIZE_INTERVAL + 4, said
            gaps = [b - a for a, b in zip(layouts, layouts[1:])]
            assert sum(gap < RESIZE_INTERVAL / 2 for gap in gaps) <= 1, said
            await client.press("n")  # still answers
            await client.wait_for("←/→ 바꾸기")
