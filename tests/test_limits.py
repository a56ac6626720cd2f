"""Connection and session limits: unit tests on a fake clock, then each one through real SSH."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest

from seotda_tui.clock import FakeClock
from seotda_tui.ssh.limits import (
    AuthJail,
    ConnectLimiter,
    InputLimiter,
    TokenBucket,
    address_key,
)
from seotda_tui.ssh.state import DisconnectReason

from .ssh_harness import ProbeFactory, attempt, key_pair, keys_text, ssh_server, wait_until

# -- the building blocks, on a fake clock ----------------------------------------------------


def test_token_bucket_bursts_then_refills_at_the_rate() -> None:
    clock = FakeClock(1000.0)
    bucket = TokenBucket(rate=2, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.advance(0.5)  # one token back
    assert bucket.take() and not bucket.take()
    clock.advance(100)  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.advance(1)
    assert bucket.take(2) and not bucket.take()


def test_connect_limiter_is_per_address_and_groups_ipv6_by_64() -> None:
    clock = FakeClock(1000.0)
    limiter = ConnectLimiter(rate=1, burst=2, clock=clock)
    assert [limiter.allow("10.0.0.1") for _ in range(3)] == [True, True, False]
    assert limiter.allow("10.0.0.2")  # another address has its own bucket
    assert limiter.allow("2001:db8::1") and limiter.allow("2001:db8::ffff")
    assert not limiter.allow("2001:db8::1:2")  # same /64
    assert limiter.allow("2001:db8:0:1::1")  # next /64
    clock.advance(1)
    assert limiter.allow("10.0.0.1") and not limiter.allow("10.0.0.1")
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert all(ConnectLimiter(0, 1, clock).allow("10.0.0.1") for _ in range(100))  # 0 = off


def test_connect_limiter_forgets_idle_addresses() -> None:
    clock = FakeClock(1000.0)
    limiter = ConnectLimiter(rate=10, burst=5, clock=clock)
    for i in range(3000):
        limiter.allow(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
        clock.advance(1)  # every earlier bucket is full again by now
    assert len(limiter) < 1100


def test_auth_jail_counts_failures_within_the_window() -> None:
    clock = FakeClock(1000.0)
    jail = AuthJail(max_failures=3, seconds=300, clock=clock)
    assert not jail.failure("1.2.3.4") and not jail.failure("1.2.3.4")
    clock.advance(301)  # those two are forgotten
    assert not jail.failure("1.2.3.4") and not jail.failure("1.2.3.4")
    assert jail.remaining("1.2.3.4") == 0
    assert jail.failure("1.2.3.4")  # third within the window: jailed
    assert jail.remaining("1.2.3.4") == pytest.approx(300)
    assert jail.remaining("1.2.3.5") == 0
    assert not jail.failure("1.2.3.4")  # no longer sentence for failing while jailed
    clock.advance(299)
    assert jail.remaining("1.2.3.4") == pytest.approx(1)
    clock.advance(1)
    assert jail.remaining("1.2.3.4") == 0 and jail.failures("1.2.3.4") == 0
    off = AuthJail(max_failures=1, seconds=0, clock=clock)
    assert not off.failure("1.2.3.4") and off.remaining("1.2.3.4") == 0


def test_input_limiter_delivers_whole_chunks_and_keeps_paste_end() -> None:
    clock = FakeClock(1000.0)
    limiter = InputLimiter(rate=10, burst=20, clock=clock)
    assert limiter.admit(b"\x1b[<35;10;5M") == b"\x1b[<35;10;5M"  # 11 bytes
    assert limiter.admit(b"0123456789") == b""  # 10 > 9 left: dropped whole, not cut
    assert limiter.admit(b"abc") == b"abc"
    assert limiter.dropped == 10
    assert limiter.admit(b"x" * 1000 + b"\x1b[201~") == b"\x1b[201~"
    assert limiter.admit(b"yyyy\x1b[2") == b""  # 7 > 6 left
    assert limiter.admit(b"01~zzzz") == b"\x1b[201~"  # the marker split across dropped chunks
    assert limiter.admit(b"yyyy\x1b[2") == b""
    assert limiter.admit(b"01~z") == b"\x1b[201~z"  # ...and across a dropped and a kept one
    clock.advance(2)
    assert limiter.admit(b"q" * 20) == b"q" * 20


# -- through SSH ---------------------------------------------------------------------------------


async def _raw_until_eof(port: int, timeout: float = 3.0) -> tuple[bytes, float]:
    """Open a bare TCP connection, send nothing, read until the server hangs up."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        data = await asyncio.wait_for(reader.read(), timeout)
        return data, loop.time() - start
    finally:
        writer.close()


async def test_server_full_is_told_politely(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, max_sessions=2) as server:
        async with server.connect("alice") as a, server.connect("bob") as b:
            await a.wait_for("안녕 alice")
            await b.wait_for("안녕 bob")
            # logged in, then told on the session channel, in Korean, and hung up
            async with server.connect("carol") as third:
                await third.wait_closed()
                assert "서버가 가득 찼어요" in third.text
                assert third.exit_status == 1
            assert not a.closed.is_set() and not b.closed.is_set()
        assert server.handle is not None
        await wait_until(lambda: server.handle.state.admitted == 0)
        async with server.connect("carol") as c:  # room again
            await c.wait_for("안녕 carol")
        assert [app.identity.nickname for app in apps.apps] == ["alice", "bob", "carol"]


async def test_sessions_per_address_are_capped(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, max_sessions_per_ip=2) as server:
        async with server.connect("alice") as a, server.connect("bob") as b:
            await a.wait_for("안녕 alice")
            await b.wait_for("안녕 bob")
            async with server.connect("carol") as third:
                await third.wait_closed()
                assert "이 주소에서 이미 2명이 접속해 있어요" in third.text
                assert third.exit_status == 1
            # another address (127.0.0.2 is loopback too) still gets in
            other = await attempt(server.port, "dave", local_addr=("127.0.0.2", 0))
            assert other.error is None, other.error
            await other.close()


async def test_one_connection_gets_one_session(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("alice") as a:
        await a.wait_for("안녕 alice")
        with pytest.raises(asyncssh.ChannelOpenError):
            await a.conn.create_session(asyncssh.SSHClientSession, term_type="xterm")
        assert len(apps.apps) == 1


async def test_connection_rate_limit_refuses_before_key_exchange(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, connect_rate=1, connect_burst=2, clock=clock) as server:
        for name in ("alice", "bob"):
            async with server.connect(name) as c:
                await c.wait_for(f"안녕 {name}")
        data, took = await _raw_until_eof(server.port)
        # the server's version line, then a plain-text DISCONNECT: no key exchange happened
        assert data.startswith(b"SSH-2.0-") and b"Too many connection attempts" in data
        assert took < 2
        refused = await attempt(server.port, "carol")
        assert isinstance(refused.error, asyncssh.DisconnectError)
        assert "Too many connection attempts" in refused.error.reason
        assert refused.banners == []  # refused before the key exchange: no banner possible
        clock.advance(1.0)  # one token back
        async with server.connect("carol") as c:
            await c.wait_for("안녕 carol")
        assert len(apps.apps) == 3


async def test_wrong_passwords_put_the_address_in_jail(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    apps = ProbeFactory()
    settings = {"password": "right", "auth_failures": 4, "auth_jail_seconds": 300, "clock": clock}
    async with ssh_server(tmp_path, apps, **settings) as server:
        assert server.handle is not None
        jail = server.jail
        first = await attempt(server.port, "alice", password="wrong")  # kbdint + password: 2
        assert isinstance(first.error, asyncssh.PermissionDenied)
        assert jail.failures("127.0.0.1") == 2
        second = await attempt(server.port, "alice", password="wrong")
        assert isinstance(second.error, asyncssh.DisconnectError)
        assert jail.remaining("127.0.0.1") == pytest.approx(300)
        # even the right password is refused now, before any auth
        jailed = await attempt(server.port, "alice", password="right")
        assert isinstance(jailed.error, asyncssh.DisconnectError)
        assert "Too many failed logins" in jailed.error.reason
        data, _ = await _raw_until_eof(server.port)
        assert b"Too many failed logins" in data
        clock.advance(301)
        async with server.connect("alice", password="right") as c:
            await c.wait_for("안녕 alice")


async def test_unlisted_keys_count_towards_the_jail(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    apps = ProbeFactory()
    listed, unlisted = key_pair(), key_pair()
    allow = tmp_path / "allowed_keys"
    allow.write_text(keys_text([listed]))
    settings = {
        "authorized_keys": allow,
        "auth_failures": 2,
        "auth_jail_seconds": 60,
        "clock": clock,
    }
    async with ssh_server(tmp_path, apps, **settings) as server:
        for _ in range(2):
            failed = await attempt(server.port, "alice", key=unlisted)
            assert isinstance(failed.error, asyncssh.DisconnectError)
        refused = await attempt(server.port, "alice", key=listed)
        assert isinstance(refused.error, asyncssh.DisconnectError)
        clock.advance(61)
        async with server.connect("alice", key=listed) as c:
            await c.wait_for("안녕 alice")


async def test_a_nickname_bound_to_another_key_is_not_an_auth_failure(tmp_path: Path) -> None:
    apps = ProbeFactory()
    mine, other = key_pair(), key_pair()
    async with ssh_server(tmp_path, apps, auth_failures=1) as server:
        async with server.connect("영희", key=mine) as c:
            await c.wait_for("안녕 영희")
        for _ in range(3):
            async with server.connect("영희", key=other) as c:
                await c.wait_closed()
                assert "등록된 SSH 키로만" in c.output_text
        assert server.handle is not None
        assert server.jail.failures("127.0.0.1") == 0


async def test_login_grace_closes_a_silent_connection(tmp_path: Path) -> None:
    async with ssh_server(tmp_path, ProbeFactory(), login_grace=0.3) as server:
        data, took = await _raw_until_eof(server.port)
        assert data.startswith(b"SSH-2.0-")
        assert 0.25 <= took < 2
        async with server.connect("alice") as c:  # a real client logs in well within it
            await c.wait_for("안녕 alice")


async def test_keepalives_notice_a_dead_client_and_free_its_name(tmp_path: Path) -> None:
    apps = ProbeFactory()
    settings = {"keepalive_interval": 0.2, "keepalive_count_max": 2}
    async with ssh_server(tmp_path, apps, **settings) as server, server.connect("alice") as c:
        await c.wait_for("안녕 alice")
        assert server.handle is not None and server.handle.nicknames() == ["alice"]
        c.conn._transport.pause_reading()  # the client "hangs"
        await wait_until(lambda: server.handle.nicknames() == [], timeout=3)
        assert apps.latest("alice").disconnects == [DisconnectReason.CLIENT_LEFT]
        c.conn._transport.resume_reading()


# -- idleness ----------------------------------------------------------------------------------


IDLE = {"idle_timeout": 60.0, "idle_warning": 20.0}  # warned after 40 s of silence


async def _alive(c, apps, key: str, nick: str = "alice") -> None:
    """A key goes there and back: the session still runs, and whatever the clock did
    before (a toast, a goodbye) has reached the screen by now."""
    typed = apps.latest(nick).typed + key
    await c.type(key)
    await c.wait_for("typed=" + typed)
    assert not c.closed.is_set()


async def test_idle_player_is_warned_then_disconnected(tmp_path: Path) -> None:
    apps, clock = ProbeFactory(), FakeClock()
    async with (
        ssh_server(tmp_path, apps, clock=clock, **IDLE) as server,
        server.connect("alice") as c,
    ):
        await c.wait_for("안녕 alice")
        clock.advance(39)
        await _alive(c, apps, "a")  # (the key restarts the 40 s)
        assert "자동으로" not in c.output_text
        clock.advance(40)
        await c.wait_for_output("자동으로")  # the in-app warning (a toast)
        assert not c.closed.is_set()
        clock.advance(20)
        await c.wait_closed()
        assert "입력이 없어서 연결을 끊었어요" in c.output_text
        assert c.exit_status == 1
        assert apps.latest("alice").disconnects == [DisconnectReason.IDLE]


async def test_typing_keeps_a_player_connected(tmp_path: Path) -> None:
    apps, clock = ProbeFactory(), FakeClock()
    async with (
        ssh_server(tmp_path, apps, clock=clock, **IDLE) as server,
        server.connect("alice") as c,
    ):
        await c.wait_for("안녕 alice")
        for key in "abcdefghij":  # 300 s, well past the timeout, a key every 30 s
            clock.advance(30)
            await _alive(c, apps, key)
        assert "자동으로" not in c.output_text
        clock.advance(60)  # then silence: gone
        await c.wait_closed()
        assert apps.latest("alice").disconnects == [DisconnectReason.IDLE]


async def test_idle_exempt_hook_keeps_a_seated_player(tmp_path: Path) -> None:
    apps, clock = ProbeFactory(), FakeClock()
    seated = {"now": True}
    calls: list[bool] = []

    def exempt() -> bool:
        calls.append(seated["now"])
        return seated["now"]

    async with (
        ssh_server(tmp_path, apps, clock=clock, **IDLE) as server,
        server.connect("alice") as c,
    ):
        await c.wait_for("안녕 alice")
        apps.latest("alice").ctx.idle_exempt = exempt
        for _ in range(10):
            clock.advance(20)  # 200 s of silence, seated
        await _alive(c, apps, "a")
        assert "자동으로" not in c.output_text
        assert calls == [True] * 5  # consulted when the timer is due (every 40 s), not constantly
        seated["now"] = False
        clock.advance(40)
        await c.wait_for_output("자동으로")
        clock.advance(20)
        await c.wait_closed()
        assert apps.latest("alice").disconnects == [DisconnectReason.IDLE]


async def test_idle_timeout_zero_is_off(tmp_path: Path) -> None:
    apps, clock = ProbeFactory(), FakeClock()
    settings = {"idle_timeout": 0, "idle_warning": 0}
    async with (
        ssh_server(tmp_path, apps, clock=clock, **settings) as server,
        server.connect("alice") as c,
    ):
        await c.wait_for("안녕 alice")
        assert clock.pending == []  # no timer was ever set ...
        clock.advance(100_000)
        await _alive(c, apps, "a")  # ... so a day later the session still runs
        assert apps.latest("alice").disconnects == []


# -- input flooding ----------------------------------------------------------------------------


async def _echo_latency(client, apps, text: str) -> float:
    """Seconds from typing ``text`` (one key) until the other player's screen shows it."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    await client.type(text)
    await client.wait_for("typed=" + apps.latest("bob").typed + text, timeout=10)
    return loop.time() - start


async def test_a_huge_paste_does_not_stall_other_players(tmp_path: Path) -> None:
    """1 MiB typed at once by alice (unbracketed: every byte a key), in 1 KiB pieces the
    way a terminal hands them over; bob's keys must still show at once.

    The input limiter runs on a hand-driven clock that stands still, so alice's budget is
    exactly one burst, however long the paste takes to go through."""
    apps = ProbeFactory()
    async with (
        ssh_server(tmp_path, apps, clock=FakeClock(1000.0)) as server,
        server.connect("alice") as alice,
        server.connect("bob") as bob,
    ):
        await alice.wait_for("안녕 alice")
        await bob.wait_for("안녕 bob")
        assert server.handle is not None
        burst = server.handle.state.settings.input_burst
        baseline = await _echo_latency(bob, apps, "x")

        async def paste() -> None:
            assert alice.chan is not None
            for _ in range(1024):
                alice.chan.write(b"q" * 1024)
                # a terminal's pace, not a wait: the pieces come about a millisecond apart
                await asyncio.sleep(0.001)

        flood = asyncio.create_task(paste())
        await wait_until(lambda: "q" in apps.latest("alice").typed, what="the paste to arrive")
        worst = 0.0
        for ch in "yzw":
            worst = max(worst, await _echo_latency(bob, apps, ch))
        await flood
        assert worst < max(0.5, baseline * 10), f"bob waited {worst:.2f}s ({baseline:.2f}s before)"
        async with server.connect("carol") as carol:  # and the server still takes players
            await carol.wait_for("안녕 carol", timeout=3)
        # the whole MiB was read by now (carol came after it): at most one burst reached the
        # app (pieces the client merged past the burst size are dropped whole), the rest was
        # dropped, not queued
        assert 0 < len(apps.latest("alice").typed) <= burst


async def test_a_single_1mib_write_is_dropped_and_paste_mode_ends(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("alice") as alice:
        await alice.wait_for("안녕 alice")
        await alice.send(b"\x1b[200~" + b"q" * (1 << 20) + b"\x1b[201~")  # bracketed paste
        await alice.type("z")  # after it on the same channel: the parser left paste mode
        await wait_until(lambda: apps.latest("alice").typed.endswith("z"), timeout=5)
        assert "q" * 100 not in apps.latest("alice").typed


async def test_real_game_lobby_idlers_go_but_players_in_a_room_stay(tmp_path: Path) -> None:
    """The game's app factory registers idle_exempt: being in a room counts as busy (the host
    of a room that is not playing is not: tests/test_room_limits.py)."""
    from seotda_tui.rooms import RoomManager
    from seotda_tui.ui.app import make_app_factory

    clock = FakeClock()  # the rooms and the sessions wait on the same clock
    manager = RoomManager(seed_source=lambda: 7, clock=clock)
    factory = make_app_factory(manager)
    async with (
        ssh_server(tmp_path, factory, clock=clock, **IDLE) as server,
        server.connect("영희") as host,
        server.connect("철수") as idler,
    ):
        await host.wait_for("영희님 환영해요")
        await idler.wait_for("철수님 환영해요")
        room = manager.create_room("민수", "민수의 방", {})  # (the UI way: test_ssh_lobby)
        manager.join(room.id, "영희")
        await host.wait_for("대기 중")
        clock.advance(300)  # both sessions' timers fall due in here, many times over
        await idler.wait_closed()
        assert "입력이 없어서 연결을 끊었어요" in idler.output_text
        assert not host.closed.is_set() and "자동으로" not in host.output_text
        assert server.handle is not None and server.handle.nicknames() == ["영희"]
