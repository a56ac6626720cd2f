"""Admission before login: floods of silent sockets cannot lock anyone out; refusals are
summarised in the log. Unit tests on a fake clock, then raw sockets and real SSH clients
from several loopback addresses (Linux routes all of 127/8 to lo) against the real server."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from seotda_tui.clock import FakeClock
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomManager
from seotda_tui.ssh.admission import PendingLogins, RefusalLog
from seotda_tui.ssh.auth import Identity
from seotda_tui.ssh.server_state import ServerState
from seotda_tui.ssh.state import SessionContext
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import (
    ProbeApp,
    SSHClient,
    SSHHarness,
    _Auth,
    _Session,
    open_connection,
    ssh_server,
    wait_until,
)

# -- the building blocks --------------------------------------------------------------------


def test_pending_logins_cap_each_address_and_the_total() -> None:
    pending: PendingLogins[str] = PendingLogins(per_address=2, total=4)
    assert pending.admit("10.0.0.1", "a1") == (None, None)
    assert pending.admit("10.0.0.1", "a2") == (None, None)
    assert pending.admit("10.0.0.1", "a3") == ("logins_ip_full", None)
    assert pending.admit("10.0.0.2", "b1") == (None, None)
    assert pending.admit("10.0.0.3", "c1") == (None, None)
    assert len(pending) == 4
    # full: a newcomer from a quiet address takes the place of the busiest address's oldest
    assert pending.admit("10.0.0.4", "d1") == (None, "a1")
    assert "a1" not in pending and pending.held_by("10.0.0.1") == 1
    # now every address holds one: the oldest of them goes (a2 came before b1, c1, d1)
    assert pending.admit("10.0.0.5", "e1") == (None, "a2")
    # a newcomer from an address that holds as many as any other is refused, evicts nobody
    assert pending.admit("10.0.0.2", "b2") == ("logins_full", None)
    assert len(pending) == 4 and "b1" in pending
    pending.discard("b1")
    pending.discard("b1")  # twice is fine
    assert pending.admit("10.0.0.2", "b2") == (None, None)
    assert pending.held_by("10.0.0.2") == 1


def test_pending_logins_group_ipv6_by_64() -> None:
    pending: PendingLogins[str] = PendingLogins(per_address=1, total=10)
    assert pending.admit("2001:db8::1", "x") == (None, None)
    assert pending.admit("2001:db8::2", "y") == ("logins_ip_full", None)
    assert pending.admit("2001:db8:0:1::1", "z") == (None, None)


def _events(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [
        fields
        for r in caplog.records
        if (fields := record_fields(r)).get("event", "").startswith("refused")
    ]


def test_refusal_log_says_the_first_then_a_count_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock(1000.0)
    refusals = RefusalLog(logging.getLogger("test.refusals"), clock)
    with caplog.at_level(logging.INFO, logger="test.refusals"):
        for _ in range(1000):
            refusals.refused("10.0.0.1", "jailed")
            clock.advance(0.01)  # 10 s in all
        refusals.refused("10.0.0.2", "jailed")  # another address: its own first line
        refusals.refused("10.0.0.1", "rate_limited")  # another reason: its own first line
        assert [(e["event"], e["ip"], e["reason"]) for e in _events(caplog)] == [
            ("refused", "10.0.0.1", "jailed"),
            ("refused", "10.0.0.2", "jailed"),
            ("refused", "10.0.0.1", "rate_limited"),
        ]
        caplog.clear()
        clock.advance(50.5)
        refusals.refused("10.0.0.1", "jailed")  # a minute after its first line: the count
        (summary,) = _events(caplog)
        assert summary["event"] == "refused_summary"
        assert (summary["ip"], summary["reason"], summary["count"]) == ("10.0.0.1", "jailed", 1000)
        caplog.clear()
        for _ in range(5):
            refusals.refused("10.0.0.1", "jailed")
        refusals.tick()  # not due yet
        assert _events(caplog) == []
        clock.advance(60)
        refusals.tick()  # due: written without waiting for another refusal
        assert [(e["reason"], e["count"]) for e in _events(caplog)] == [("jailed", 5)]
        caplog.clear()
        clock.advance(60)
        refusals.tick()  # quiet for a minute: forgotten
        assert len(refusals) == 0 and _events(caplog) == []
        refusals.refused("10.0.0.1", "jailed")  # so the next one is a first again
        refusals.refused("10.0.0.1", "jailed")
        refusals.flush()  # shutdown: what is pending is written
        assert [(e["event"], e.get("count")) for e in _events(caplog)] == [
            ("refused", None),
            ("refused_summary", 1),
        ]
        assert len(refusals) == 0


def test_refusal_log_table_stays_bounded() -> None:
    clock = FakeClock(1000.0)
    refusals = RefusalLog(logging.getLogger("test.refusals.bounded"), clock)
    for i in range(3000):
        refusals.refused(f"10.{i // 256 % 256}.{i % 256}.1", "jailed")
        clock.advance(0.1)  # each goes quiet a minute after its line and can be swept
    assert len(refusals) <= 2048


# -- through the real server ----------------------------------------------------------------


class _NeverAnswers(asyncssh.SSHClient):
    """Finishes the key exchange and begins auth, then never answers the prompt."""

    def __init__(self, in_auth: asyncio.Event) -> None:
        self._in_auth = in_auth

    async def kbdint_auth_requested(self) -> str | None:
        self._in_auth.set()  # (the server began the auth before it offered the methods)
        await asyncio.Event().wait()
        return None


class Flood:
    """Raw sockets that send nothing (or only a version line), and stalled SSH clients."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.writers: list[asyncio.StreamWriter] = []
        self.readers: list[asyncio.Task[bytes]] = []  # each done once the server hung up
        self.stalled: list[asyncio.Task[Any]] = []
        self.in_auth = asyncio.Event()  # a stalled client got as far as the auth prompt

    async def silent(self, ip: str, n: int, hello: bytes = b"") -> None:
        for _ in range(n):
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", self.port, local_addr=(ip, 0)
            )
            if hello:
                writer.write(hello)
            self.writers.append(writer)
            self.readers.append(asyncio.ensure_future(reader.read()))

    def stall_in_auth(self, ip: str, n: int) -> None:
        for _ in range(n):
            coro = asyncssh.create_connection(
                lambda: _NeverAnswers(self.in_auth),
                "127.0.0.1",
                self.port,
                username="staller",
                local_addr=(ip, 0),
                known_hosts=None,
                agent_path=None,
                config=None,
                client_keys=None,
                preferred_auth="keyboard-interactive",
            )
            self.stalled.append(asyncio.ensure_future(coro))

    def open_count(self) -> int:
        return sum(not r.done() for r in self.readers)

    async def close(self) -> None:
        for task in self.stalled + self.readers:
            task.cancel()
        await asyncio.gather(*self.stalled, *self.readers, return_exceptions=True)
        for writer in self.writers:
            writer.close()


@asynccontextmanager
async def flooding(port: int) -> AsyncIterator[Flood]:
    flood = Flood(port)
    try:
        yield flood
    finally:
        await flood.close()


@asynccontextmanager
async def player(port: int, name: str, ip: str) -> AsyncIterator[SSHClient]:
    """Like the harness's connect(), from a chosen loopback address."""
    conn = await open_connection(port, name, local_addr=(ip, 0))
    client = SSHClient(conn, (100, 30))
    try:
        client.chan, _ = await conn.create_session(
            lambda: _Session(client), term_type="xterm-256color", term_size=(100, 30), encoding=None
        )
        yield client
    finally:
        conn.close()
        await conn.wait_closed()


def _state(server: SSHHarness) -> ServerState:
    assert server.handle is not None
    return server.handle.state


def _pending(state: ServerState) -> PendingLogins[Any]:
    """This process's pending logins (no --workers here), which count per address."""
    assert isinstance(state.pending, PendingLogins)
    return state.pending


async def test_silent_floods_lock_out_nobody_and_drop_no_player(tmp_path: Path) -> None:
    settings = {
        "connect_rate": 0,  # no rate limit: the flood reaches the login caps in full
        "max_pending_logins": 64,
        "max_pending_logins_per_ip": 8,
        "handshake_grace": 60,  # the flood is not timed out during the test: admission
        "login_grace": 60,  # must not depend on waiting for it
    }
    factory = make_app_factory(RoomManager())
    async with (
        ssh_server(tmp_path, factory, **settings) as server,
        player(server.port, "alice", "127.0.0.1") as alice,
        flooding(server.port) as flood,
    ):
        await alice.wait_for("alice님 환영해요")
        state = _state(server)
        for last in range(2, 10):  # 8 × 8 from 127.0.0.2-9: every pending place taken
            await flood.silent(f"127.0.0.{last}", 8)
        await wait_until(lambda: len(state.pending) == 64)
        await flood.silent("127.0.0.11", 50)  # 8 evict others, the other 42 are refused
        await flood.silent("127.0.0.12", 4, hello=b"SSH-2.0-stall\r\n")  # stuck in kex
        flood.stall_in_auth("127.0.0.13", 4)  # stuck at the login prompt
        await wait_until(lambda: _pending(state).held_by("127.0.0.13") == 4)
        assert _pending(state).held_by("127.0.0.12") == 4
        assert _pending(state).held_by("127.0.0.11") <= 8
        assert len(state.pending) == 64
        # every raw socket beyond the 60 pending places (4 are the stalled SSH clients) was
        # refused or evicted at once, not left to time out
        await wait_until(lambda: flood.open_count() == 60)
        assert state.admitted == 1  # none of the flood counts as a session

        # A stranger from another address gets in, long before any flood socket times out.
        async with player(server.port, "bob", "127.0.0.10") as bob:
            await bob.wait_for("bob님 환영해요")
            assert state.admitted == 2
            assert _pending(state).held_by("127.0.0.10") == 0  # given back at login
        assert not alice.closed.is_set()
        assert server.handle is not None and "alice" in server.handle.nicknames()
        await alice.press("down")  # still served
        assert flood.open_count() >= 59  # the flood was still there all along (bob evicted 1)


async def test_a_player_from_a_flooding_address_below_its_cap_gets_in(tmp_path: Path) -> None:
    factory = make_app_factory(RoomManager())
    settings = {"connect_rate": 0, "max_pending_logins_per_ip": 8, "handshake_grace": 60}
    async with (
        ssh_server(tmp_path, factory, **settings) as server,
        flooding(server.port) as flood,
    ):
        state = _state(server)
        await flood.silent("127.0.0.2", 6)
        flood.stall_in_auth("127.0.0.2", 1)
        await wait_until(lambda: _pending(state).held_by("127.0.0.2") == 7)
        async with player(server.port, "carol", "127.0.0.2") as carol:
            await carol.wait_for("carol님 환영해요")
        # the 8th place is taken while the flood keeps all 7 of its own
        await flood.silent("127.0.0.2", 2)
        await wait_until(lambda: flood.open_count() == 7)
        assert _pending(state).held_by("127.0.0.2") == 8


async def test_handshake_grace_closes_silent_and_stalled_connections(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.server")
    factory = make_app_factory(RoomManager())
    clock = FakeClock()
    settings = {"handshake_grace": 30, "login_grace": 600, "connect_rate": 0}
    async with (
        ssh_server(tmp_path, factory, clock=clock, **settings) as server,
        flooding(server.port) as flood,
    ):
        state = _state(server)
        await flood.silent("127.0.0.2", 3)
        await flood.silent("127.0.0.2", 3, hello=b"SSH-2.0-stall\r\n")
        await wait_until(lambda: len(state.pending) == 6)  # each with its handshake grace
        clock.advance(29)
        assert flood.open_count() == 6 and not _events(caplog)
        clock.advance(1)
        await wait_until(lambda: flood.open_count() == 0)
        assert [(e["reason"], e["ip"]) for e in _events(caplog)] == [
            ("handshake_timeout", "127.0.0.2")  # (once: the rest go into its summary)
        ]
        # a client that began to log in is bounded by login_grace instead
        flood.stall_in_auth("127.0.0.3", 1)
        await flood.in_auth.wait()
        clock.advance(60)  # twice the handshake grace
        async with player(server.port, "erin", "127.0.0.1") as erin:
            await erin.wait_for("erin님 환영해요")
        assert len(state.pending) == 1  # the staller: still there
        # nobody else refused; the minute's tick (on the server's clock) summed up the flood
        assert [(e["event"], e["ip"], e.get("count")) for e in _events(caplog)] == [
            ("refused", "127.0.0.2", None),
            ("refused_summary", "127.0.0.2", 5),
        ]


async def test_a_first_connection_may_take_its_time_over_the_host_key_question(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """On a first connection the client asks its user, in the middle of the key exchange,
    whether to trust the server's host key (OpenSSH: "Are you sure you want to continue
    connecting?"). Reading the fingerprint and typing "yes" takes longer than
    ``handshake_grace``: that login goes on, still bounded by ``login_grace``."""
    caplog.set_level(logging.INFO, logger="seotda.server")
    clock = FakeClock()
    settings = {"handshake_grace": 6, "login_grace": 600, "connect_rate": 0}

    class Hesitant(_Auth):
        def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
            clock.advance(30)  # half a minute over the question: the handshake grace passes
            return True

    factory = make_app_factory(RoomManager())
    async with ssh_server(tmp_path, factory, clock=clock, **settings) as server:
        conn = await open_connection(  # nothing trusted yet: the client asks
            server.port, "frank", client=Hesitant, known_hosts=([], [], [])
        )
        try:
            assert clock.now >= 30 and not conn.is_closed()
            assert _state(server).admitted == 1 and not _events(caplog)
        finally:
            conn.close()
            await conn.wait_closed()


async def test_a_login_that_opens_no_session_is_closed_after_the_login_grace(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Counted against max_sessions once authenticated, so not kept for ever; but given the
    login grace, not the handshake's: PuTTY shows "Press Return to begin session" first."""
    caplog.set_level(logging.INFO, logger="seotda.server")
    factory = make_app_factory(RoomManager())
    clock = FakeClock()
    settings = {"handshake_grace": 20, "login_grace": 150, "connect_rate": 0}
    async with ssh_server(tmp_path, factory, clock=clock, **settings) as server:
        state = _state(server)
        conn = await open_connection(server.port, "dave")
        clock.advance(60)  # past handshake_grace: still open (the hang-up is logged at once)
        assert state.admitted == 1 and not _events(caplog)
        clock.advance(90)
        await asyncio.wait_for(conn.wait_closed(), 5)
        assert state.admitted == 0
        assert [e["reason"] for e in _events(caplog)] == ["session_timeout"]


async def test_jailed_address_refusals_are_summarised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock(1000.0)
    settings = {"auth_failures": 1, "auth_jail_seconds": 3600, "clock": clock}
    server = SSHHarness(tmp_path, lambda identity, ctx: None, **settings)
    await server.start()
    try:
        state = _state(server)
        assert state.auth_failed("127.0.0.1", "mallory", "password")  # jailed now
        with caplog.at_level(logging.INFO, logger="seotda.server"):
            async with flooding(server.port) as flood:
                await flood.silent("127.0.0.1", 40)
                await wait_until(lambda: flood.open_count() == 0)  # all hung up on
            assert [e["event"] for e in _events(caplog)] == ["refused"]
            clock.advance(61)
            async with flooding(server.port) as flood:
                await flood.silent("127.0.0.1", 5)
                await wait_until(lambda: flood.open_count() == 0)
            await server.stop()  # flushes what is pending
        lines = [(e["event"], e.get("count")) for e in _events(caplog)]
        # the first refusal, the other 39 summed up by the minute's tick as the clock passed
        # it (the log's ticker runs on the server's clock), the next 5 at the stop
        assert lines == [("refused", None), ("refused_summary", 39), ("refused_summary", 5)]
        assert all(e["reason"] == "jailed" for e in _events(caplog))
    finally:
        await server.stop()


# -- shutdown on one budget -----------------------------------------------------------------


class _Stubborn(ProbeApp):
    """An app whose screen takes an hour to unmount: it never ends by itself."""

    async def on_unmount(self) -> None:
        await asyncio.sleep(3600)


async def test_shutdown_keeps_its_deadline_when_an_app_will_not_end(tmp_path: Path) -> None:
    stubborn = {"bob"}

    def factory(identity: Identity, ctx: SessionContext) -> ProbeApp:
        cls = _Stubborn if identity.nickname in stubborn else ProbeApp
        return cls(identity, ctx)

    server = SSHHarness(tmp_path, factory, shutdown_notice=0.3)
    await server.start()
    loop = asyncio.get_running_loop()
    try:
        async with server.connect("alice") as alice, server.connect("bob") as bob:
            await alice.wait_for("안녕 alice")
            await bob.wait_for("안녕 bob")
            assert server.handle is not None
            started = loop.time()
            await server.handle.close(timeout=1.5)
            took = loop.time() - started
            assert 0.3 <= took < 3  # the budget (+ a busy CI box), not bob's hour
            await alice.wait_closed()
            await bob.wait_closed()
            goodbye = "조금 뒤에 다시 접속해 주세요"
            for client in (alice, bob):
                out = client.output_text
                assert client.exit_status == 1
                # bob's app was cut off: the session gave his terminal back and said it instead
                assert out.rindex("\x1b[?1049l") < out.rindex(goodbye), client
    finally:
        await server.stop()
