"""Real SSH, pyte screens: a chat line that arrives in one burst (a paste without bracketed paste,
tmux send-keys) goes into the input whole, up to the hub's limit, with the counter saying so
(issue 32 item 5: it stopped at ~64 characters, the keys past the driver's backlog dropped), and
a family emoji arrives as its first emoji, as the README says."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.chat import MAX_CELLS
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import public_view, quiet, ssh_server, start_game, wait_until


@pytest.mark.parametrize(
    ("size", "env", "unit", "welcome"),
    [
        ((80, 24), None, "칸", "님 환영해요"),
        ((120, 40), {"LANG": "en_US.UTF-8"}, " cells", "welcome, "),
    ],
)
async def test_a_burst_of_typed_characters_reaches_the_chat_input_whole(
    tmp_path: Path, size: tuple[int, int], env: dict[str, str] | None, unit: str, welcome: str
) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        a = await stack.enter_async_context(server.connect("영희", size=size, env=env))
        b = await stack.enter_async_context(server.connect("철수", size=size, env=env))
        await a.wait_for(welcome)
        await b.wait_for(welcome)
        # in the lobby: 150 letters in one write
        await a.press("t")
        await a.wait_for(f"0/{MAX_CELLS}{unit}")
        line = "".join(f"{n:03d}," for n in range(37)) + "end"  # 151 letters, each place its own
        await a.send(line)
        await a.wait_for(f"151/{MAX_CELLS}{unit}")
        await a.wait_for("035,036,end")  # the input shows where the cursor is: the line's end
        await a.press("enter")
        await wait_until(lambda: len(factory.chat.history("lobby")) == 1, what="the line")  # type: ignore[attr-defined]
        (sent,) = factory.chat.history("lobby")  # type: ignore[attr-defined]
        assert sent.text == line
        # a family emoji (a ZWJ sequence) as an emoji picker sends it: its first emoji only, as
        # the README says (the ZWJ, not printable, was dropped as a key: 👨👩👧 arrived)
        await a.wait_gone(f"/{MAX_CELLS}{unit}")  # (Enter sent and closed it)
        await a.press("t")  # (keys in the same read as the t reach the screen before the input)
        await a.wait_for(f"0/{MAX_CELLS}{unit}")
        await a.send("👨\u200d👩\u200d👧 가족")
        await a.wait_for(f"7/{MAX_CELLS}{unit}")  # 👨 가족: 2 + 1 + 4 cells
        await a.press("enter")
        await b.wait_for("영희: 👨 가족")
        assert factory.chat.history("lobby")[-1].text == "👨 가족"  # type: ignore[attr-defined]

        if env is not None:
            return  # (start_game reads the Korean screens)
        # at the table, the acting player and the one waiting: Korean beyond the limit
        await start_game(a, "영희", b)
        for client in (a, b):
            await quiet(client)
            await client.press("t")
            await client.wait_for(f"0/{MAX_CELLS}{unit}")
            await client.send("한글" * 60)  # 240 cells: the first 200 go in
            await client.wait_for(f"{MAX_CELLS}/{MAX_CELLS}{unit}")
            await client.press("escape")
            await client.wait_gone(f"/{MAX_CELLS}{unit}")
        view = public_view(manager, "영희")
        assert all(seat.get("lastAction") is None for seat in view["seats"])  # typing bet nothing
