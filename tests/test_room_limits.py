"""Room creation cannot be blocked (issue 30, item 11): rooms per address, idle hosts.

A few addresses filling ``max_rooms`` with hidden private rooms whose hosts sit idle locked
everyone else out ("방이 너무 많아요"). Rooms are capped per address (the hosts' connected
addresses, ``max_rooms_per_address``) and the host of a room that is not playing falls under
the idle timeout like a lobby idler (dropped, they leave: the room closes or gets the next host).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from seotda_tui.cluster.link import HubLink
from seotda_tui.cluster.remote import RemoteRoomManager
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.manager import TOO_MANY_FROM_ADDRESS
from seotda_tui.ui.app import make_app_factory

from .refusals import refused
from .ssh_harness import SSHClient, ssh_server, wait_until
from .test_workers_link import HubThread

REFUSED = TOO_MANY_FROM_ADDRESS.split(" (")[0]  # "이 주소에서 연 방이 너무 많아요"


def test_rooms_are_capped_per_hosts_address_and_a_closed_one_frees_its_place() -> None:
    m = RoomManager(clock=FakeClock(), seed_source=lambda: 7, max_rooms_per_address=2)
    for n in range(3):
        m.session_connected(f"방장{n}", "127.0.0.1")
    first = m.create_room("방장0", "방", {}, private=True, listed=False)
    m.create_room("방장1", "방", {}, private=True, listed=False)
    with refused("too_many_from_address"):
        m.create_room("방장2", "방", {})
    m.session_connected("이웃", "127.0.0.2")
    m.create_room("이웃", "방", {})  # another address is not held back
    m.create_room("손님", "방", {})  # (nor a caller with no session address, e.g. a tool)
    m.session_disconnected("방장0")  # the host left: the room closed
    assert m.room(first.id) is None
    m.create_room("방장2", "방", {})


def test_the_cap_counts_rooms_where_a_nickname_from_that_address_is_host() -> None:
    """Handing the host role to someone at another address frees the place."""
    m = RoomManager(clock=FakeClock(), seed_source=lambda: 7, max_rooms_per_address=1)
    m.session_connected("영희", "127.0.0.1")
    m.session_connected("철수", "127.0.0.1")
    m.session_connected("민수", "127.0.0.3")
    room = m.create_room("영희", "방", {})
    with refused("too_many_from_address"):
        m.create_room("철수", "방", {})
    m.join(room.id, "민수")
    m.hand_host(room.id, "영희", "민수")
    m.leave(room.id, "영희")
    m.create_room("철수", "방", {})


async def new_room(client: SSHClient) -> None:
    await client.press("n")
    await client.wait_for("새 방 만들기")
    await client.press("enter")


async def test_a_fourth_room_from_one_address_is_refused_over_ssh(tmp_path: Path) -> None:
    """Three hosts from 127.0.0.1 (the default cap), a fourth is told why; 127.0.0.2 may."""
    m = RoomManager(seed_source=lambda: 7)
    async with ssh_server(tmp_path, make_app_factory(m)) as server, AsyncExitStack() as stack:
        for n in range(3):
            host = await stack.enter_async_context(server.connect(f"방장{n}"))
            await host.wait_for(f"방장{n}님 환영해요")
            await new_room(host)
            await host.wait_for("m 방장")
        fourth = await stack.enter_async_context(server.connect("방장3"))
        await fourth.wait_for("방장3님 환영해요")
        await new_room(fourth)
        await fourth.wait_for(REFUSED)
        assert m.room_of("방장3") is None and len(m.rooms()) == 3
        other = await stack.enter_async_context(server.connect("이웃", local_ip="127.0.0.2"))
        await other.wait_for("이웃님 환영해요")
        await new_room(other)
        await other.wait_for("m 방장")
        assert m.room_of("이웃") is not None


async def test_an_idle_host_of_a_waiting_room_is_dropped_and_the_room_closes(
    tmp_path: Path,
) -> None:
    clock = FakeClock()  # the rooms and the sessions wait on the same clock
    m = RoomManager(seed_source=lambda: 7, clock=clock)
    idle = {"idle_timeout": 60.0, "idle_warning": 20.0}
    async with (
        ssh_server(tmp_path, make_app_factory(m), clock=clock, **idle) as server,
        server.connect("방장") as host,
        server.connect("영희") as guest_host,
        server.connect("철수") as guest,
    ):
        await host.wait_for("방장님 환영해요")
        await guest_host.wait_for("영희님 환영해요")
        await guest.wait_for("철수님 환영해요")
        await new_room(host)
        await host.wait_for("m 방장")
        hidden = m.room_of("방장")
        shared = m.create_room("영희", "같이 방", {})  # a host with a guest seated
        m.join(shared.id, "철수")
        await guest.wait_for("대기 중")
        clock.advance(300)  # every session's timers fall due in here, many times over
        await host.wait_closed()
        await guest_host.wait_closed()
        assert "입력이 없어서 연결을 끊었어요" in host.output_text
        await wait_until(lambda: m.room(hidden) is None)
        # 철수 was not dropped while 영희 hosted; now he hosts the waiting room
        await wait_until(lambda: getattr(m.room(shared.id), "host", None) == "철수")
        assert not guest.closed.is_set()


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[HubThread, Path]]:
    path = tmp_path / "hub.sock"
    served = HubThread(path)
    yield served, path
    served.stop()


async def test_with_workers_the_address_and_the_code_change_reach_the_rooms_process(
    hub: tuple[HubThread, Path],
) -> None:
    """--workers N: a worker's session tells the hub its address (the cap and the guesses are
    counted there, for every worker) and the host menu's code change is a hub call."""
    served, path = hub
    link = HubLink(path, worker=0, timeout=3.0)
    await link.start()
    remote = RemoteRoomManager(link)
    try:
        for n in range(4):
            remote.session_connected(f"방장{n}", "127.0.0.1")
        rooms = [remote.create_room(f"방장{n}", "방", {}, private=True) for n in range(3)]
        with refused("too_many_from_address"):
            remote.create_room("방장3", "방", {})
        codes = served.hub.manager  # (the code reaches a worker's sessions in their updates)
        old = codes.room_code(rooms[0].id, "방장0")
        remote.change_code(rooms[0].id, "방장0")
        new = codes.room_code(rooms[0].id, "방장0")
        assert old is not None and new is not None and new != old
        remote.session_disconnected("방장1")
        await wait_until(lambda: served.hub.manager.room(rooms[1].id) is None)
        remote.create_room("방장3", "방", {})
    finally:
        remote.close()
