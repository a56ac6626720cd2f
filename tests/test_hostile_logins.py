"""Issue 30 "admission and logins", over real SSH from several loopback addresses (Linux routes
all of 127/8 to lo): refused logins never take a player's place, a flood of new connections
evicts its own silent sockets before someone mid-prompt, passphrase guessing is bounded per
nickname and in the shared hash queue, registrations are rate-limited and logged, and refused
requests are logged sparingly and end a connection that keeps asking."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from seotda_tui.cli.housekeeping import expire_nicknames
from seotda_tui.clock import FakeClock
from seotda_tui.config import ConfigError, load_settings, text_value
from seotda_tui.logs import record_fields
from seotda_tui.ssh import passphrase as passphrase_module
from seotda_tui.ssh.admission import PendingLogins
from seotda_tui.ssh.store import DB_NAME

from .ssh_harness import (
    ProbeFactory,
    _Auth,
    attempt,
    default_passphrase,
    key_pair,
    open_connection,
    ssh_server,
    wait_until,
)
from .test_admission import _state, flooding, player


def _events(caplog: pytest.LogCaptureFixture, *names: str) -> list[dict[str, Any]]:
    return [f for r in caplog.records if (f := record_fields(r)).get("event") in names]


# -- item 3: a refused login is not a player ----------------------------------------------------


async def test_refused_logins_take_no_players_place_and_go_quickly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Logins whose name is refused (here a look-alike of a registered name, from six
    addresses) pass auth only to be told why: they never count against ``max_sessions``, at
    most ``max_refused_logins`` are held at once, each for ``refused_login_grace``."""
    caplog.set_level(logging.INFO, logger="seotda.server")
    clock = FakeClock()
    settings = {
        "max_sessions": 2,
        "connect_rate": 0,
        "max_refused_logins": 4,
        "refused_login_grace": 30,
    }
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, clock=clock, **settings) as server:
        state = _state(server)
        async with player(server.port, "alice", "127.0.0.1") as alice:
            await alice.wait_for("안녕 alice")
            lookalike = "аlice"  # a Cyrillic а
            held = [
                await open_connection(server.port, lookalike, local_addr=(f"127.0.0.{n}", 0))
                for n in range(2, 8)
            ]
            try:
                async with player(server.port, "bob", "127.0.0.8") as bob:
                    await bob.wait_for("안녕 bob")  # not "서버가 가득 찼어요"
                    assert state.admitted == 2
                # four held to be told why, two hung up on at once; none a player
                await wait_until(lambda: sum(not c.is_closed() for c in held) == 4)
                await wait_until(lambda: state.admitted == 1)  # (bob's place given back)
                assert state.refusing == 4
                # one opens its session: the reason, in Korean, then the connection ends
                conn = next(c for c in held if not c.is_closed())
                _, out, _ = await conn.open_session(term_type="xterm", term_size=(80, 24))
                said = await asyncio.wait_for(out.read(), 5)
                assert "너무 비슷해요" in said and "alice" in said
                await asyncio.wait_for(conn.wait_closed(), 5)
                # the others opened nothing: closed once the refused-login grace is over
                caplog.clear()
                clock.advance(30)
                await wait_until(lambda: all(c.is_closed() for c in held))
                timeouts = _events(caplog, "refused")
                # (each from an address of its own: no summary)
                assert [(e["reason"], e["why"]) for e in timeouts] == [
                    ("refused_timeout", "lookalike")
                ] * 3
                await wait_until(lambda: state.refusing == 0)
                assert not alice.closed.is_set() and state.admitted == 1
            finally:
                for c in held:
                    c.close()
        assert [a.identity.nickname for a in apps.apps] == ["alice", "bob"]


# -- item 4: eviction spares people who are mid-prompt ------------------------------------------


def test_eviction_takes_the_least_progress_first() -> None:
    stage = {"typing": 2, "kex": 1, "silent": 0, "silent2": 0}
    pending: PendingLogins[str] = PendingLogins(8, 4, progress=stage.__getitem__)
    for n, conn in enumerate(("typing", "kex", "silent", "silent2")):
        assert pending.admit(f"10.0.0.{n}", conn) == (None, None)
    # every address holds one: the silent ones go first (oldest of them), then the key exchange
    assert pending.admit("10.0.1.1", "x1") == (None, "silent")
    stage["x1"] = 0
    assert pending.admit("10.0.1.2", "x2") == (None, "silent2")
    stage["x2"] = 0
    assert pending.admit("10.0.1.3", "x3") == (None, "x1")
    assert "typing" in pending and "kex" in pending


class _SlowTypist(_Auth):
    """Gets to the passphrase prompt, then types only once ``go`` is set."""

    prompted: asyncio.Event
    go: asyncio.Event

    async def kbdint_challenge_received(  # type: ignore[override]
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        self.prompted.set()
        await self.go.wait()
        return super().kbdint_challenge_received(name, instructions, lang, prompts)


async def test_a_flood_from_many_addresses_does_not_evict_someone_typing(tmp_path: Path) -> None:
    settings = {"connect_rate": 0, "max_pending_logins": 6, "handshake_grace": 60}
    apps = ProbeFactory()
    async with (
        ssh_server(tmp_path, apps, **settings) as server,
        flooding(server.port) as flood,
    ):
        state = _state(server)

        class Typist(_SlowTypist):
            prompted = asyncio.Event()
            go = asyncio.Event()

        login = asyncio.ensure_future(
            open_connection(server.port, "carol", client=Typist, local_addr=("127.0.0.1", 0))
        )
        try:
            await asyncio.wait_for(Typist.prompted.wait(), 10)
            for n in range(2, 22):  # 20 new connections, each from an address of its own
                await flood.silent(f"127.0.0.{n}", 1)
            await wait_until(lambda: flood.open_count() == 5)  # the table: 5 of them + carol
            assert isinstance(state.pending, PendingLogins)
            assert state.pending.held_by("127.0.0.1") == 1
            Typist.go.set()
            conn = await asyncio.wait_for(login, 10)
            conn.close()
        finally:
            login.cancel()


class _Hesitant(_Auth):
    """Reads the host-key question ("Are you sure you want to continue connecting?") until
    ``answered`` is set: it blocks its own event loop, in a thread of its own, as a person
    would hold up OpenSSH."""

    asked: threading.Event
    answered: threading.Event

    def validate_host_public_key(self, host: str, addr: str, port: int, key: Any) -> bool:
        self.asked.set()
        return self.answered.wait(20)


async def test_a_flood_from_many_addresses_does_not_evict_someone_reading_the_host_key(
    tmp_path: Path,
) -> None:
    settings = {"connect_rate": 0, "max_pending_logins": 6, "handshake_grace": 60}

    class Hesitant(_Hesitant):
        asked = threading.Event()
        answered = threading.Event()

    async def log_in() -> bool:
        conn = await open_connection(
            port, "dora", client=Hesitant, known_hosts=([], [], []), local_addr=("127.0.0.1", 0)
        )
        conn.close()
        await conn.wait_closed()
        return True

    async with (
        ssh_server(tmp_path, ProbeFactory(), **settings) as server,
        flooding(server.port) as flood,
    ):
        port = server.port
        login = asyncio.ensure_future(asyncio.to_thread(asyncio.run, log_in()))
        try:
            assert await asyncio.to_thread(Hesitant.asked.wait, 10)
            for n in range(2, 22):  # 20 new connections, each from an address of its own
                await flood.silent(f"127.0.0.{n}", 1)
            await wait_until(lambda: flood.open_count() == 5)  # the table: 5 of them + dora
        finally:
            Hesitant.answered.set()
        assert await asyncio.wait_for(login, 10)


# -- item 7: refused requests are logged sparingly and end a connection that keeps asking -------


async def test_refused_requests_are_logged_sparingly_and_close_the_connection(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.server")
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, max_refused_requests=12) as server:
        async with server.connect("mallory") as c:
            await c.wait_for("안녕 mallory")
            conn = c.conn
            asked = 0
            for asked in range(1, 61):  # port forwardings, second sessions, remote forwardings
                try:
                    if asked % 3 == 0:
                        await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 9)
                    elif asked % 3 == 1:
                        await conn.open_connection("127.0.0.1", 9)
                    else:
                        await conn.run("cat /etc/passwd", check=False)
                except (asyncssh.Error, asyncssh.ChannelListenError, OSError):
                    pass
                if conn.is_closed():
                    break
            await asyncio.wait_for(conn.wait_closed(), 5)
            assert asked == 12  # closed at the cap, not served for ever
        await wait_until(lambda: bool(_events(caplog, "refused_requests")))
    lines = [
        e for e in _events(caplog, "refused", "refused_requests") if e.get("user") == "mallory"
    ]
    # each kind once, the one that closed it, one count when it closed: five lines, not sixty
    assert [e.get("reason", e["event"]) for e in lines] == [
        "port_forwarding",
        "second_session",
        "remote_forwarding",
        "refused_requests",
        "refused_requests",
    ]
    assert lines[-1]["count"] == 12


async def test_unknown_global_requests_are_counted_not_logged_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """asyncssh refuses these itself (our log bridge sees them): a client sending hundreds
    costs three lines and its connection."""
    caplog.set_level(logging.INFO, logger="seotda.server")
    async with ssh_server(tmp_path, ProbeFactory(), max_refused_requests=20) as server:
        async with server.connect("mallory") as c:
            await c.wait_for("안녕 mallory")
            for _ in range(300):  # (no public API sends an arbitrary global request)
                c.conn._send_global_request(b"flood@example.com", want_reply=False)
            await asyncio.wait_for(c.conn.wait_closed(), 5)
        await wait_until(lambda: bool(_events(caplog, "refused_requests")))
    lines = [
        e for e in _events(caplog, "refused", "refused_requests") if e.get("user") == "mallory"
    ]
    assert [e.get("reason", e["event"]) for e in lines] == [
        "global_request",
        "refused_requests",
        "refused_requests",
    ]
    assert lines[0]["what"] == "flood@example.com"


# -- item 5: guessing one nickname from many addresses ------------------------------------------


async def test_guessing_one_name_from_many_addresses_locks_it_but_not_its_owner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.auth")
    clock = FakeClock(1000.0)
    settings = {
        "name_failures": 3,
        "name_lock_seconds": 600,
        "auth_failures": 100,  # no address gets jailed: only the name's count applies
        "connect_rate": 0,
        "clock": clock,
    }
    async with ssh_server(tmp_path, ProbeFactory(), **settings) as server:
        async with player(server.port, "victim", "127.0.0.1") as owner:  # registers it
            await owner.wait_for("안녕 victim")
        for n in (2, 3, 4):  # one wrong guess from each of three addresses
            tried = await attempt(
                server.port, "victim", passphrase=["not-it-1234"], local_addr=(f"127.0.0.{n}", 0)
            )
            assert tried.conn is None
        # the right passphrase from a fourth address: not even hashed, told when it opens
        right = default_passphrase("victim")
        tried = await attempt(server.port, "victim", passphrase=right, local_addr=("127.0.0.5", 0))
        assert tried.conn is None and tried.rounds == []
        assert any("잠겨 있어요" in b and "10분 뒤에 풀려요" in b for b in tried.banners)
        assert [e["user"] for e in _events(caplog, "name_locked")] == ["victim"]
        # the owner, from where they logged in before, still gets in
        async with player(server.port, "victim", "127.0.0.1") as owner:
            await owner.wait_for("안녕 victim")
        clock.advance(600)  # and the lock ends
        tried = await attempt(server.port, "victim", passphrase=right, local_addr=("127.0.0.5", 0))
        assert tried.conn is not None
        await tried.close()


class _Guesser(_Auth):
    """Counts the answers it has sent (a keyboard-interactive round returned)."""

    answered = 0

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        answers = super().kbdint_challenge_received(name, instructions, lang, prompts)
        if answers:
            type(self).answered += 1
        return answers


async def test_a_flood_of_guesses_from_one_address_takes_one_place_in_the_hash_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash line is shared: eight guesses in flight from one address must not make an
    honest login from another wait behind all eight."""
    hashed: list[str] = []

    def slow_verify(passphrase: str, stored: str) -> bool:
        hashed.append(passphrase)
        time.sleep(0.5)  # (in the hashing thread) a costly hash
        return real_verify(passphrase, stored)

    real_verify = passphrase_module.verify_passphrase
    settings = {"name_failures": 100, "connect_rate": 0}
    async with ssh_server(tmp_path, ProbeFactory(), **settings) as server:
        async with player(server.port, "victim", "127.0.0.1"):
            pass  # registered
        monkeypatch.setattr(passphrase_module, "verify_passphrase", slow_verify)
        _Guesser.answered = 0
        guesses = [
            asyncio.ensure_future(
                open_connection(
                    server.port,
                    "victim",
                    passphrase=[f"guess-{n}-1234"],
                    client=_Guesser,
                    local_addr=("127.0.0.2", 0),
                )
            )
            for n in range(8)
        ]
        try:
            await wait_until(lambda: _Guesser.answered == 8)
            await asyncio.sleep(0.1)  # (their answers cross the loopback)
            async with player(server.port, "victim", "127.0.0.1") as owner:
                await owner.wait_for("안녕 victim")
            # behind at most the one guess of 127.0.0.2 already in the line, not all eight
            assert hashed.index(default_passphrase("victim")) <= 1, hashed
        finally:
            for task in guesses:
                task.cancel()
            await asyncio.gather(*guesses, return_exceptions=True)


# -- item 6: registrations are limited per address, logged, and expire unused ------------------


async def test_new_names_per_address_are_limited_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.auth")
    clock = FakeClock(1000.0)
    settings = {"registrations_per_ip": 2, "connect_rate": 0, "clock": clock}
    async with ssh_server(tmp_path, ProbeFactory(), **settings) as server:
        store = _state(server).policy.store
        async with player(server.port, "new1", "127.0.0.2") as c:
            await c.wait_for("안녕 new1")
        async with server.connect("new2", key=key_pair(), local_ip="127.0.0.2") as c:
            await c.wait_for("안녕 new2")
        # the third name from that address, keyless or with a key: told why, nothing registered
        for key in (None, key_pair()):
            async with server.connect("new3", key=key, local_ip="127.0.0.2") as c:
                await c.wait_closed()
                assert "새 닉네임을 너무 많이 만들었어요" in c.output_text
            assert store.holder("new3") is None
        async with player(server.port, "new1", "127.0.0.2") as c:  # its own names: fine
            await c.wait_for("안녕 new1")
        async with player(server.port, "new3", "127.0.0.3") as c:  # another address: fine
            await c.wait_for("안녕 new3")
        clock.advance(1800)  # 2 an hour: one more after half an hour
        async with player(server.port, "new4", "127.0.0.2") as c:
            await c.wait_for("안녕 new4")
    assert [(e["user"], e["ip"], e["credential"]) for e in _events(caplog, "registered")] == [
        ("new1", "127.0.0.2", "passphrase"),
        ("new2", "127.0.0.2", "key"),
        ("new3", "127.0.0.3", "passphrase"),
        ("new4", "127.0.0.2", "passphrase"),
    ]


async def test_names_nobody_came_back_to_expire(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda")
    async with ssh_server(tmp_path, ProbeFactory()) as server:
        for name in ("squatter", "regular", "newcomer"):
            async with server.connect(name) as c:
                await c.wait_for(f"안녕 {name}")
        day = 86400.0
        now = time.time()
        with sqlite3.connect(server.data_dir / DB_NAME) as db:  # as the calendar would have it
            for name, first, last in (
                ("squatter", now - 100 * day, now - 100 * day + 3600),  # one day only, long ago
                ("regular", now - 100 * day, now - 95 * day),  # came back on another day
                ("newcomer", now - 20 * day, now - 20 * day),  # one day only, not long ago
            ):
                db.execute(
                    "UPDATE nicknames SET first_seen = ?, last_seen = ? WHERE nickname = ?",
                    (first, last, name),
                )
        settings = load_settings(flags={"data_dir": server.data_dir, "nickname_expiry_days": 90})
        assert expire_nicknames(settings) == ["squatter"]
        assert [e["user"] for e in _events(caplog, "name_expired")] == ["squatter"]
        # the freed name is anyone's again; the others are still held by their passphrases
        async with server.connect("squatter", passphrase="someone-else-1234") as c:
            await c.wait_for("안녕 squatter")
        for name in ("regular", "newcomer"):
            tried = await attempt(server.port, name, passphrase="someone-else-1234")
            assert tried.conn is None


# -- the settings --------------------------------------------------------------------------------

NEW_SETTINGS = {
    "max_refused_logins": (5, "5"),
    "refused_login_grace": (2.5, "2.5"),
    "name_failures": (4, "4"),
    "name_lock_seconds": (30.0, "30"),
    "registrations_per_ip": (3, "3"),
    "nickname_expiry_days": (7, "7"),
    "max_refused_requests": (6, "6"),
}


@pytest.mark.parametrize("name", sorted(NEW_SETTINGS))
def test_each_login_limit_is_a_toml_key_an_env_variable_and_a_flag(
    tmp_path: Path, name: str
) -> None:
    value, text = NEW_SETTINGS[name]
    toml = tmp_path / "seotda.toml"
    toml.write_text(f"[limits]\n{name} = {text}\n")
    assert getattr(load_settings(toml), name) == value
    assert getattr(load_settings(env={f"SEOTDA_{name.upper()}": text}), name) == value
    assert getattr(load_settings(flags={name: text_value(name, text)}), name) == value
    with pytest.raises(ConfigError, match="--" + name.replace("_", "-")):
        load_settings(flags={name: -1})


async def test_the_server_applies_the_login_limits(tmp_path: Path) -> None:
    flags = {name: value for name, (value, _) in NEW_SETTINGS.items()}
    async with ssh_server(tmp_path, ProbeFactory(), **flags) as server:
        state = _state(server)
        assert state.settings.max_refused_logins == 5
        assert state.policy.registrations.per_hour == 3
        assert state.policy.guard.failures == 4 and state.policy.guard.seconds == 30.0


async def test_routine_requests_of_putty_and_openssh_are_not_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """PuTTY asks ``winadj@putty.projects.tartarus.org`` (a channel request) with every few
    window adjusts of a busy screen, OpenSSH's ServerAliveInterval ``keepalive@openssh.com``:
    refused, as asyncssh knows neither, but never counted, so a long game is not cut off."""
    caplog.set_level(logging.INFO, logger="seotda.server")
    async with ssh_server(tmp_path, ProbeFactory(), max_refused_requests=5) as server:
        async with server.connect("putty") as c:
            await c.wait_for("안녕 putty")
            assert c.chan is not None
            for _ in range(40):  # (no public API sends these)
                assert not await c.chan._make_request(b"winadj@putty.projects.tartarus.org")
                await c.conn._make_global_request(b"keepalive@openssh.com")
            await c.type("ok")
            await c.wait_for("typed=ok")
            assert not c.conn.is_closed()
    assert [e for e in _events(caplog, "refused", "refused_requests") if e.get("user")] == []
