"""Real SSH, pyte screens: a whole hand to the showdown, chat that cannot inject escapes, bytes sent."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import public_view, quiet, ssh_server, start_game, wait_until

SIZE = (100, 30)
#: What one betting action may cost each player's connection (bytes), and an idle second.
ACTION_BUDGET = 2048
IDLE_BUDGET_PER_SECOND = 300


async def test_a_hand_to_the_showdown_over_ssh(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30)
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        host = await stack.enter_async_context(server.connect("영희", size=SIZE))
        guest = await stack.enter_async_context(server.connect("철수", size=SIZE))
        clients = {"영희": host, "철수": guest}
        await host.wait_for("영희님 환영해요")
        await guest.wait_for("철수님 환영해요")
        await start_game(host, "영희", guest)
        view = lambda: public_view(manager, "영희")  # noqa: E731

        # -- one betting action, measured: each player's connection gets at most ~2 KB
        actor = view().get("actor")
        assert actor is not None
        await clients[actor].wait_for("내 차례예요")
        for client in clients.values():
            await quiet(client)
        before = {nick: len(c.output) for nick, c in clients.items()}
        await clients[actor].press("3")  # 삥
        other = "철수" if actor == "영희" else "영희"
        await clients[other].wait_for("내 차례예요")
        await clients[other].wait_for("4 콜 (+10)")
        for client in clients.values():  # the rest of this action's frames, then calm
            await quiet(client)
        spent = {nick: len(c.output) - before[nick] for nick, c in clients.items()}
        assert all(n <= ACTION_BUDGET for n in spent.values()), spent

        # -- an idle table: only the countdown moves, at most ~300 bytes a second
        await quiet(host, settle=0.1)
        start = len(host.output)
        # a rate over wall time, by nature: the countdown ticks on the server's clock, the loop's
        await asyncio.sleep(3.0)
        assert (len(host.output) - start) / 3.0 <= IDLE_BUDGET_PER_SECOND

        # -- play on to the showdown: call, then both check the second round
        await clients[other].press("4")
        await wait_until(lambda: view().get("street") == 1 and view().get("actor") is not None)
        for _ in range(2):
            nick = view().get("actor")
            assert nick is not None
            await clients[nick].wait_for("내 차례예요")
            await clients[nick].press("2")
            await wait_until(lambda nick=nick: view().get("actor") != nick, what=f"{nick}'s check")
        final = view()
        showdown, results = final.get("showdown"), final.get("results", [])
        assert final.get("handPhase") == "handEnd" and showdown
        for nick, client in clients.items():
            for shown in showdown:  # every revealed hand, with its name, on both screens
                await client.wait_for(shown["name"])
                if shown["player"] != nick:
                    for card in shown["cards"]:
                        month = card["month"]
                        kind = {"gwang": "광", "yeol": "열"}.get(card["kind"]) or (
                            "일" if month == 8 else "띠"
                        )
                        await client.wait_for(f"{month}{kind}")
            if any(r["type"] != "rematch" for r in results):
                await client.wait_for("승리")
        for client in clients.values():
            await client.press(" ")
        await host.wait_for("2판/20판")


async def test_chat_never_sends_an_injected_escape_sequence(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        a = await stack.enter_async_context(server.connect("영희", size=SIZE))
        b = await stack.enter_async_context(server.connect("철수", size=SIZE))
        await a.wait_for("영희님 환영해요")
        await b.wait_for("철수님 환영해요")
        # typed (pasted) by a player in the lobby chat: bracketed paste with escapes inside
        await a.press("t")
        await a.wait_for("Enter 보내기")  # the chat input is open before anything is pasted
        await a.send(b"\x1b[200~hi\x1b]0;pwned-title\x07there\x1b[201~")
        await a.wait_for("hi")
        await a.press("enter")
        await b.wait_for("영희: ", timeout=15)
        (typed,) = factory.chat.history("lobby")  # type: ignore[attr-defined]
        assert "hi" in typed.text and "there" in typed.text
        assert all(ch.isprintable() for ch in typed.text)  # whatever the terminal parsed: text
        # posted through the hub by anyone (e.g. a bot): the same cleaning applies
        factory.chat.post("lobby", "철수", "x\x1b[2J\x1b]52;c;ZXZpbA==\x07y\u202ez")  # type: ignore[attr-defined]
        await a.wait_for("철수: xyz")
        for client in (a, b):  # every frame of that line has arrived
            await quiet(client)
        for client in (a, b):
            raw = bytes(client.output)
            assert b"\x1b]0;" not in raw and b"\x1b[2J" not in raw
            assert b"\x1b]52;" not in raw and b"ZXZpbA" not in raw
            assert "\u202e".encode() not in raw
