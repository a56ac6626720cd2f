"""Real SSH at 80×24 (pyte): what a 3-card player sees after choosing (issue #16 item 8)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from engine import DECK, Options
from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import ssh_server, wait_until


async def test_the_discarded_third_card_is_marked_over_ssh_at_80x24(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    room = manager.create_room("영희", "3장 방", Options(card_mode="three"))
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        host = await stack.enter_async_context(server.connect("영희", size=(80, 24)))
        guest = await stack.enter_async_context(server.connect("철수", size=(80, 24)))
        await guest.wait_for("3장 방")
        await guest.press("enter")
        await host.wait_for("철수님이 앉았어요")
        await host.press("s")  # (sent, not yet read by the server: wait for the game)
        await wait_until(lambda: manager.live_game(room.id) is not None, what="the game")
        game = manager.live_game(room.id)
        assert game is not None
        while (
            game.view(None).get("handPhase") != "choose"
        ):  # bet through the first round server-side
            nick = game.pending()["players"][0]
            kinds = [a["type"] for a in game.legal_actions(nick)]
            manager.act(room.id, nick, {"type": "check" if "check" in kinds else "call"})
        await host.wait_for("카드 2장을 고르세요")
        await host.press("1", "2", "enter")
        mine = lambda: next(s for s in game.view("영희")["seats"] if s["id"] == "영희")  # noqa: E731
        await wait_until(lambda: mine().get("chosen"), what="영희's choice")
        await host.wait_for("버림")
        rows = host.text.splitlines()
        mark = next(y for y, row in enumerate(rows) if "버림" in row)
        tops = [x for x, ch in enumerate(rows[mark + 1]) if ch in "╭╔"]
        assert len(tops) == 3, "\n".join(rows)
        # picked 1 and 2: the mark sits over the third card, and the text names it
        assert tops[2] <= rows[mark].index("버림") < tops[2] + 12, "\n".join(rows)
        third = mine().get("discardedId")
        assert third is not None
        await host.wait_for(f"버린 패: {DECK[third].label}")
