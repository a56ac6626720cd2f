"""End to end over real SSH: two players' terminals (pyte screens) share one RoomManager."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from engine import DECK
from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import SSHClient, quiet, ssh_server


def truth(manager: RoomManager, nick: str) -> list[str]:
    """The player's real cards, as the manager tells that player's session."""
    room_id = manager.room_of(nick)
    assert room_id is not None
    view = manager.game_view(room_id, nick)
    assert view is not None
    seat = next(s for s in view["seats"] if s["id"] == nick)
    return [DECK[c["id"]].label for c in seat.get("cards", []) if "hidden" not in c]


def actor(manager: RoomManager, nick: str) -> str:
    """Whose turn it is, from ``nick``'s room's public view."""
    room_id = manager.room_of(nick)
    assert room_id is not None
    view = manager.game_view(room_id, "")
    assert view is not None and view.get("actor") is not None
    return view["actor"]


async def shows_own_cards_only(client: SSHClient, mine: list[str], theirs: list[str]) -> None:
    for label in mine:  # the own cards are drawn large, each with its label
        await client.wait_for(label)
    assert not any(label in client.text for label in theirs if label not in mine)


async def test_two_players_over_ssh(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30)
    async with ssh_server(tmp_path, make_app_factory(manager)) as server, AsyncExitStack() as stack:
        host = await stack.enter_async_context(server.connect("영희", size=(80, 24)))
        guest_cm = server.connect("철수", size=(80, 24))
        guest = await guest_cm.__aenter__()
        try:
            await host.wait_for("영희님 환영해요")
            await guest.wait_for("철수님 환영해요")
            # 영희 creates a room with the default options (Enter in the name field)
            await host.press("n")
            await host.wait_for("새 방 만들기")
            await host.press("enter")
            await host.wait_for("대기 중")
            # 철수 sees it in the lobby and joins
            await guest.wait_for("영희의 방")
            await guest.press("enter")
            await guest.wait_for("방장 영희님이 시작하기를")
            await host.wait_for("철수님이 앉았어요")
            await host.press("s")
            await host.wait_for("· 게임 중 ·")
            await guest.wait_for("· 게임 중 ·")
            await shows_own_cards_only(host, truth(manager, "영희"), truth(manager, "철수"))
            await shows_own_cards_only(guest, truth(manager, "철수"), truth(manager, "영희"))

            # a bet by one shows on the other's screen
            first = actor(manager, "영희")
            mover, watcher = (host, guest) if first == "영희" else (guest, host)
            await mover.wait_for("내 차례예요")
            await mover.press("3")  # 삥
            await watcher.wait_for("삥 10")
            await watcher.wait_for("내 차례예요")
            await watcher.wait_for("4 콜 (+10)")

            # resizing: the layout follows, and below 80×24 only the notice shows
            await guest.resize(200, 60)
            await guest.wait_for("내 차례예요" if watcher is guest else "님 차례")
            await guest.resize(70, 20)
            await guest.wait_for("창을 키워 주세요")
            await guest.resize(80, 24)
            await guest.wait_gone("창을 키워 주세요")
            await guest.wait_for("판돈")

            # 철수 drops; 영희 sees the seat kept but disconnected
            cards = truth(manager, "철수")
        finally:
            await guest_cm.__aexit__(None, None, None)
        await host.wait_for("[끊김 ")  # the seat's reconnect grace counts down
        assert manager.room(manager.room_of("철수")).offline == ("철수",)
        # ...and comes back to the same seat with the same cards, mid-hand
        back = await stack.enter_async_context(server.connect("철수", size=(80, 24)))
        await back.wait_for("· 게임 중 ·")
        await shows_own_cards_only(back, cards, truth(manager, "영희"))
        await host.wait_gone("[끊김 ")


async def test_the_lobby_is_not_repainted_in_full_for_a_start_up_resize(tmp_path: Path) -> None:
    """The app reads its size from the driver, so logging in sends no Resize that would lay
    out and repaint the whole lobby once more at the same size (it did, for every login)."""
    manager = RoomManager(seed_source=lambda: 7)
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("영희", size=(100, 30)) as client:
            await client.wait_for("영희님 환영해요")
            await quiet(client, settle=0.5)  # let every start-up frame arrive
            assert client.output.count("영희님 환영해요".encode()) == 1  # it was sent twice
            assert "영희님 환영해요" in client.text and client.screen.columns == 100
