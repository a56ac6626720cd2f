"""The worker's HubLink against a real hub served from another thread (its calls block the
calling loop, so the hub cannot share it)."""

from __future__ import annotations

import asyncio
import select
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import Options
from seotda_tui.cluster import protocol as wire
from seotda_tui.cluster.hub import GlobalLimits, Hub
from seotda_tui.cluster.link import HubLink
from seotda_tui.cluster.remote import RemoteRoomManager
from seotda_tui.cluster.worker_limits import AWAY, RemoteLimits
from seotda_tui.config import Settings
from seotda_tui.rooms import RoomManager, RoomUpdate
from seotda_tui.rooms.chat import ChatHub
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ssh.admission import PendingLogins
from seotda_tui.ssh.limits import AuthJail, ConnectLimiter


class HubThread:
    """A hub on its own event loop in a thread; ``run`` calls into that loop."""

    def __init__(
        self, path: Path, restarted_with: int = 0, manager: RoomManager | None = None
    ) -> None:
        self.loop = asyncio.new_event_loop()
        limits = GlobalLimits(
            10, 10, AuthJail(5, 60.0), ConnectLimiter(1000.0, 1000), PendingLogins(8, 128)
        )
        self.chat = ChatHub()
        manager = manager if manager is not None else RoomManager()
        self.hub = Hub(manager, self.chat, limits, restarted_with=restarted_with)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.hub.listen(path), self.loop).result(5)

    def post(self, channel: str, nick: str, text: str) -> None:
        """A chat line from a session on another worker: a push the link did not ask for."""
        self.loop.call_soon_threadsafe(self.chat.post, channel, nick, text)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.hub.close(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[HubThread, Path]]:
    path = tmp_path / "hub.sock"
    served = HubThread(path)
    yield served, path
    served.stop()


async def test_a_push_read_by_a_call_does_not_make_the_loop_wait(
    hub: tuple[HubThread, Path],
) -> None:
    """The socket waits up to the call timeout; a call in the same loop pass as the socket's
    readable callback reads the push first, and the callback then has nothing to read. It must
    return at once (it used to sit out the whole timeout, freezing every session of the
    worker)."""
    served, path = hub
    link = HubLink(path, worker=0, timeout=3.0)
    await link.start()
    try:
        lines: list[str] = []
        sub = link.add_sub(lambda data: lines.append(wire.chat_from_wire(data).text))
        link.call("subscribe_chat", sub, "lobby")
        assert link._sock is not None
        served.post("lobby", "영희", "안녕")
        ready, _, _ = select.select([link._sock], [], [], 5)  # the push is there, unread
        assert ready
        loop = asyncio.get_running_loop()
        # Queued before the loop's next poll, so it runs before the readable callback.
        loop.call_soon(link.call, "chat_history", "lobby")
        started = time.monotonic()
        for _ in range(5):
            await asyncio.sleep(0)
        assert time.monotonic() - started < 1.0
        assert lines == ["안녕"]  # delivered once, by the call
        assert link.call("chat_subscribers", "lobby") == 1  # and the link is still up
    finally:
        link.close()


async def test_a_deadline_and_a_grace_end_arrive_on_the_workers_clock(tmp_path: Path) -> None:
    """The hub's clock and a worker's share no reference point (here the hub's is a fake one
    at 5000): the wire carries seconds left, and the worker's remote puts each moment on its
    own clock (rooms/api.py), so the countdown and the grace badge read right there."""
    path = tmp_path / "hub.sock"
    hub_clock = FakeClock(5000.0)
    served = HubThread(path, manager=RoomManager(clock=hub_clock, reconnect_grace=60))
    link = HubLink(path, worker=0, timeout=3.0)
    remote = RemoteRoomManager(link)
    await link.start()
    try:
        room = remote.create_room("a", "시계 방", Options(turn_seconds=20))
        remote.join(room.id, "b")
        updates: list[RoomUpdate] = []
        remote.subscribe_room(room.id, "a", updates.append)
        remote.session_connected("b")
        remote.start(room.id, "a")
        await until(lambda: any(u.deadline_at is not None for u in updates), "no deadline")
        update = next(u for u in updates if u.deadline_at is not None)
        assert update.seconds_left(remote.clock.time()) == pytest.approx(20, abs=1)
        assert hub_clock.pending == [5020.0]  # the hub's own moment, on its own clock
        remote.session_disconnected("b")  # mid-game: b's seat waits out the grace
        summary = remote.room(room.id)
        assert summary is not None and [n for n, _ in summary.grace_ends] == ["b"]
        (_, ends), now = summary.grace_ends[0], remote.clock.time()
        assert ends - now == pytest.approx(60, abs=1)
    finally:
        link.close()
        served.stop()


async def until(check: Callable[[], bool], what: str) -> None:
    for _ in range(200):
        if check():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(what)


async def test_a_workers_limits_hold_while_the_hub_is_away_and_are_told_to_the_next(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hub.sock"
    served = HubThread(path)
    settings = Settings(auth_failures=5, auth_jail_seconds=60.0, connect_rate=1.0, connect_burst=2)
    link = HubLink(path, worker=0, timeout=3.0)
    limits = RemoteLimits(link, settings)
    await link.start()
    try:
        assert limits.admit("10.0.0.1") is None
        assert limits.admit("10.0.0.1") is None
        limits.release("10.0.0.1")
        assert not any(limits.auth_failed("10.9.9.9") for _ in range(4))
        assert limits.auth_failed("10.9.9.9")  # jailed at the hub, pushed to the worker
        served.stop()
        await until(lambda: link._sock is None, "the link never saw the hub go")
        # away: nobody is admitted, the jail holds, connections count here
        assert limits.admit("10.0.0.2") == AWAY
        assert limits.jail_remaining("10.9.9.9") > 50
        assert [limits.connect_allowed("10.0.0.3") for _ in range(3)] == [True, True, False]
        served = HubThread(path, restarted_with=1)
        await until(lambda: link._sock is not None, "the link never came back")
        limits_there = served.hub.limits
        assert limits_there.admitted == 1 and limits_there.per_address["10.0.0.1"] == 1
        assert limits_there.jail.remaining("10.9.9.9") > 50
        assert limits.admit("10.0.0.2") is None  # told everything: it admits again
    finally:
        link.close()
        served.stop()


async def test_a_worker_started_later_is_told_every_jail_on_connecting(tmp_path: Path) -> None:
    path = tmp_path / "hub.sock"
    served = HubThread(path)
    settings = Settings(auth_failures=5, auth_jail_seconds=60.0)
    first, later = HubLink(path, worker=0, timeout=3.0), HubLink(path, worker=1, timeout=3.0)
    try:
        await first.start()
        assert any([RemoteLimits(first, settings).auth_failed("10.7.7.7") for _ in range(5)])
        limits = RemoteLimits(later, settings)
        await later.start()  # (its restore's answer: the jails the hub knows)
        served.stop()
        await until(lambda: later._sock is None, "the link never saw the hub go")
        assert limits.jail_remaining("10.7.7.7") > 50
    finally:
        first.close()
        later.close()
