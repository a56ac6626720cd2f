"""Nicknames that cannot be stolen: real asyncssh clients against the real server.

A keyless name is held by the passphrase chosen on first use, a keyed name by its key;
a login without the holder's credential gets nothing (no session, no seat, no screen),
and the player at the table doesn't notice. Look-alike new names are refused.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.ssh import passphrase as pp
from seotda_tui.ssh.auth import Identity
from seotda_tui.ssh.state import SessionContext
from seotda_tui.ssh.store import NicknameStore
from seotda_tui.ui.app import make_app_factory

from .faultkit import fill, tiny_tmpfs
from .ssh_harness import (
    ProbeFactory,
    SSHClient,
    SSHHarness,
    attempt,
    default_passphrase,
    key_pair,
    ssh_server,
    start_game,
)

#: The server's own scrypt cost here (the other suites hash at tests/conftest.py's cheap one).
pytestmark = pytest.mark.real_scrypt

SECRET = "hv의-비밀-암호"
ROOT = Path(__file__).resolve().parents[1]


def holder(server: SSHHarness, name: str) -> Any:
    assert server.handle is not None
    return server.handle.state.policy.store.holder(name)


async def untouched(victim: SSHClient, before: str) -> None:
    """The victim's session still answers, and but for that key its screen is as it was.

    The key goes out after the attempt, so whatever the attempt caused has arrived with it."""
    typed = next(line for line in before.splitlines() if line.startswith("typed="))
    await victim.type("z")
    await victim.wait_for(typed + "z")
    assert not victim.closed.is_set()
    assert victim.text == before.replace(typed, typed + "z", 1)


async def test_first_keyless_login_sets_a_passphrase_and_later_ones_need_it(
    tmp_path: Path,
) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        first = await attempt(server.port, "hv", passphrase=SECRET)
        assert first.error is None
        assert "'hv' 닉네임을 처음 쓰시네요" in first.rounds[0]
        await first.close()
        stored = holder(server, "hv").passphrase
        assert stored.startswith("scrypt$16384$8$1$") and SECRET not in stored
        again = await attempt(server.port, "hv", passphrase=SECRET)
        assert again.error is None and "비밀번호를 입력해 주세요" in again.rounds[0]
        await again.close()
        async with server.connect("hv", passphrase=SECRET) as c:
            await c.wait_for("안녕 hv")


async def test_keyless_takeover_with_a_wrong_or_no_passphrase_is_refused(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("hv", passphrase=SECRET) as hv:
        await hv.wait_for("안녕 hv")
        await hv.type("a")
        await hv.wait_for("typed=a")
        before = hv.text
        wrong = await attempt(server.port, "hv", passphrase=["guess1", "guess2", "guess3"])
        assert isinstance(wrong.error, asyncssh.DisconnectError)
        assert len(wrong.rounds) == 3
        assert "비밀번호가 틀렸어요" in wrong.rounds[1] and "남은 기회 1번" in wrong.rounds[2]
        assert any("3번 틀려서 접속을 끊어요" in b for b in wrong.banners)
        none = await attempt(server.port, "hv", passphrase=None)
        assert none.error is not None and none.conn is None
        await untouched(hv, before)
        assert len(apps.apps) == 1 and apps.apps[0].disconnects == []


async def test_a_new_key_cannot_take_a_passphrase_held_name(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("hv", passphrase=SECRET) as hv:
        await hv.wait_for("안녕 hv")
        before = hv.text
        # the key is turned down at the key stage, so the client falls through to
        # keyboard-interactive, which wants the passphrase it doesn't have
        stolen = await attempt(server.port, "hv", key=key_pair(), passphrase=None)
        assert stolen.error is not None and stolen.conn is None
        assert holder(server, "hv").key_fingerprint is None
        guessed = await attempt(server.port, "hv", key=key_pair(), passphrase="not-the-one")
        assert guessed.error is not None
        await untouched(hv, before)
        assert holder(server, "hv").passphrase is not None
        # with the passphrase, a key holder is just another keyless login (not bound)
        async with server.connect("hv", key=key_pair(), passphrase=SECRET) as back:
            await back.wait_for("안녕 hv")
        assert holder(server, "hv").key_fingerprint is None


async def test_a_keyed_name_still_takes_only_its_key(tmp_path: Path) -> None:
    apps = ProbeFactory()
    key = key_pair()
    async with ssh_server(tmp_path, apps) as server, server.connect("kim", key=key) as kim:
        await kim.wait_for("안녕 kim")
        before = kim.text
        async with server.connect("kim") as keyless:  # no passphrase is even asked
            await keyless.wait_closed()
            assert "등록된 SSH 키로만" in keyless.output_text
        assert holder(server, "kim").passphrase is None
        await untouched(kim, before)


async def test_the_right_passphrase_replaces_the_old_session(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("hv", passphrase=SECRET) as old:
        await old.wait_for("안녕 hv")
        async with server.connect("hv", passphrase=["wrong-one", SECRET]) as new:
            await old.wait_closed()
            assert "다른 곳에서 같은 닉네임으로 접속" in old.output_text
            await new.wait_for("안녕 hv")


async def test_the_jail_counts_wrong_passphrases(tmp_path: Path) -> None:
    apps = ProbeFactory()
    settings = {"auth_failures": 3, "auth_jail_seconds": 300}
    async with ssh_server(tmp_path, apps, **settings) as server:
        assert server.handle is not None
        async with server.connect("hv", passphrase=SECRET):
            pass
        jail = server.jail
        first = await attempt(server.port, "hv", passphrase=["x1234567", "y1234567"])
        assert first.error is not None and jail.failures("127.0.0.1") == 2
        second = await attempt(server.port, "hv", passphrase=["z1234567"])
        assert isinstance(second.error, asyncssh.DisconnectError)
        assert jail.remaining("127.0.0.1") > 0
        jailed = await attempt(server.port, "hv", passphrase=SECRET)
        assert isinstance(jailed.error, asyncssh.DisconnectError)
        assert "Too many failed logins" in jailed.error.reason


async def test_setting_a_passphrase_wants_it_twice_and_long_enough(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        assert server.handle is not None
        auth = server.handle.state.policy

        class Typo(asyncssh.SSHClient):
            rounds: list[str] = []

            def kbdint_auth_requested(self) -> str:
                return ""

            def kbdint_challenge_received(
                self, name: str, instructions: str, lang: str, prompts: Any
            ) -> list[str]:
                self.rounds.append(instructions + prompts[0][0])
                answers = [["one-passphrase", "another-one"], ["short", "short"]]
                n = len(self.rounds)
                return answers[n - 1] if n <= 2 else ["good-passphrase"] * 2

        conn, _ = await asyncssh.create_connection(
            Typo, "127.0.0.1", server.port, username="hv", known_hosts=None, agent_path=None,
            config=None, client_keys=None,
        )  # fmt: skip
        conn.close()
        assert "두 번 입력한 비밀번호가 달라요" in Typo.rounds[1]
        assert "너무 짧아요" in Typo.rounds[2]
        assert server.jail.failures("127.0.0.1") == 0  # typos aren't guesses
        held = auth.store.holder("hv")
        assert held is not None and held.passphrase is not None
        assert pp.verify_passphrase("good-passphrase", held.passphrase)


async def release(server: SSHHarness, name: str) -> tuple[int, str, str]:
    """``seotda-server --release-nickname NAME`` in another process, while the server runs."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "seotda_tui", "--data-dir", str(server.data_dir),
        "--hostkey-dir", str(server.hostkey_dir), "--release-nickname", name,
        cwd=str(ROOT), env={k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_released_name_can_be_set_up_again(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        async with server.connect("hv", passphrase=SECRET) as hv:
            await hv.wait_for("안녕 hv")
        code, out, _ = await release(server, "hv")
        assert code == 0
        assert "'hv' 닉네임을 해제했어요" in out and "Released nickname 'hv'" in out
        code, _, err = await release(server, "hv")
        assert code == 1 and "unknown nickname" in err
        fresh = await attempt(server.port, "hv", passphrase="a-new-passphrase")
        assert fresh.error is None and "처음 쓰시네요" in fresh.rounds[0]
        await fresh.close()
        old = await attempt(server.port, "hv", passphrase=[SECRET])
        assert old.error is not None


async def test_lookalike_names_are_refused_in_korean(tmp_path: Path) -> None:
    apps = ProbeFactory()
    fake = "v\u0456ctim"  # Cyrillic і
    async with ssh_server(tmp_path, apps) as server:
        async with server.connect("victim") as victim:
            await victim.wait_for("안녕 victim")
        async with server.connect(fake) as c:
            await c.wait_closed()
        assert f"'{fake}' 은(는) 이미 있는 닉네임 'victim' 과(와) 너무 비슷해요" in c.output_text
        assert holder(server, fake) is None
        # a key can't register one either, and "victim1" is a different name
        async with server.connect(fake, key=key_pair()) as k:
            await k.wait_closed()
        assert "너무 비슷해요" in k.output_text and holder(server, fake) is None
        async with server.connect("victim1") as other:
            await other.wait_for("안녕 victim1")
        assert len([a for a in apps.apps if a.identity.nickname == fake]) == 0


async def test_a_lookalike_of_a_connected_name_is_refused(tmp_path: Path) -> None:
    """Even when the connected name is not in the store (released while playing)."""
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server, server.connect("victim") as victim:
        await victim.wait_for("안녕 victim")
        assert server.handle is not None
        server.handle.state.policy.store.release("victim")
        async with server.connect("vict\u0456m") as c:
            await c.wait_closed()
        assert "'victim' 과(와) 너무 비슷해요" in c.output_text
        async with server.connect("victim", passphrase="someone-else") as same:
            await same.wait_closed()
        assert "지금 다른 사람이 접속해서 쓰고 있어요" in same.output_text
        assert not victim.closed.is_set()


async def test_plain_password_method_carries_the_passphrase(tmp_path: Path) -> None:
    """Clients like ``plink -pw`` use the password method: a free name takes it as passphrase."""
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        plink: dict[str, Any] = {"kbdint_auth": False, "passphrase": None}
        short = await attempt(server.port, "hv", password="short", **plink)
        assert short.error is not None and any("너무 짧아요" in b for b in short.banners)
        first = await attempt(server.port, "hv", password=SECRET, **plink)
        assert first.error is None
        await first.close()
        wrong = await attempt(server.port, "hv", password="wrong-passphrase", **plink)
        assert wrong.error is not None
        assert server.jail.failures("127.0.0.1") == 1
        async with server.connect("hv", passphrase=SECRET) as c:  # the same one, by kbdint
            await c.wait_for("안녕 hv")


async def test_password_mode_wants_the_server_password_and_the_passphrase(tmp_path: Path) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps, password="server-pw") as server:
        async with server.connect("hv", password="server-pw", passphrase=SECRET) as hv:
            await hv.wait_for("안녕 hv")
            before = hv.text
            wrong = await attempt(server.port, "hv", password="server-pw", passphrase="nope")
            assert wrong.error is not None
            no_server = await attempt(server.port, "hv", password="bad", passphrase=SECRET)
            assert no_server.error is not None
            assert "서버 비밀번호가 틀렸어요" in no_server.rounds[1]
            plain = await attempt(
                server.port, "hv", password="server-pw", passphrase=None, kbdint_auth=False
            )
            assert plain.error is not None
            assert any("keyboard-interactive" in b for b in plain.banners)
            await untouched(hv, before)


async def test_a_held_seat_is_not_handed_to_a_login_without_the_passphrase(
    tmp_path: Path,
) -> None:
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=60)
    made: list[str] = []
    real = make_app_factory(manager)

    def factory(identity: Identity, ctx: SessionContext) -> Any:
        made.append(identity.nickname)
        return real(identity, ctx)

    size = (100, 30)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        host = await stack.enter_async_context(server.connect("영희", size=size))
        guest = await stack.enter_async_context(
            server.connect("철수", size=size, passphrase=SECRET)
        )
        await host.wait_for("영희님 환영해요")
        await guest.wait_for("철수님 환영해요")
        await start_game(host, "영희", guest)
        guest.conn.close()  # 철수 drops mid-game: the seat is held for him
        await host.wait_for("끊김")  # the seat's reconnect grace counts down
        room = manager.room_of("철수")
        assert room is not None
        for guesses in (["guess-one"], None):
            thief = await attempt(server.port, "철수", passphrase=guesses)
            assert thief.conn is None
            thief_key = await attempt(server.port, "철수", key=key_pair(), passphrase=guesses)
            assert thief_key.conn is None
        assert made == ["영희", "철수"]  # no app, so no cards, chips or turn, for the thief
        assert manager.room_of("철수") == room
        assert "끊김" in host.text
        async with server.connect("철수", size=size, passphrase=SECRET) as back:
            await back.wait_for("· 게임 중 ·")
            await host.wait_gone("끊김")


async def test_hashing_runs_off_the_event_loop_a_few_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop_thread = threading.get_ident()
    lock = threading.Lock()
    running = peak = 0
    threads: set[int] = set()
    real = pp._scrypt

    def counting(*args: Any) -> bytes:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
            threads.add(threading.get_ident())
        try:
            time.sleep(0.05)  # long enough for the others to pile up, if they could
            return real(*args)
        finally:
            with lock:
                running -= 1

    stored = pp.hash_passphrase("right-passphrase")
    monkeypatch.setattr(pp, "_scrypt", counting)
    hasher = pp.Hasher(concurrency=2)
    results = await asyncio.gather(
        *(hasher.verify("right-passphrase" if i % 2 else "wrong", stored) for i in range(8))
    )
    assert results == [i % 2 == 1 for i in range(8)]
    assert loop_thread not in threads
    assert peak == 2
    assert await hasher.verify("x" * (pp.MAX_LENGTH + 1), stored) is False


def test_the_default_test_passphrase_is_long_enough() -> None:
    assert len(default_passphrase("a")) >= pp.MIN_LENGTH


def test_a_damaged_hash_lets_nobody_in(tmp_path: Path) -> None:
    store = NicknameStore(tmp_path)
    store.set_passphrase("hv", "scrypt$zz$8$1$00$00")
    held = store.holder("hv")
    assert held is not None and held.passphrase is not None
    assert not pp.verify_passphrase("anything", held.passphrase)
    store.close()


async def test_a_full_disk_keeps_registered_names_usable_and_tells_a_new_one_why(
    tmp_path: Path,
) -> None:
    """Logging in writes only bookkeeping (last seen), which a full disk may skip; registering
    a name must write, so on a full disk the newcomer is told why instead of being cut off."""
    key = key_pair()
    with tiny_tmpfs(tmp_path / "data", "4m") as disk:
        async with ssh_server(tmp_path, ProbeFactory()) as server:
            first = await attempt(server.port, "hv", passphrase=SECRET)
            assert first.error is None
            await first.close()
            async with server.connect("kim", key=key) as kim:
                await kim.wait_for("안녕 kim")
            fill(disk / "filler")
            async with server.connect("hv", passphrase=SECRET) as hv:
                await hv.wait_for("안녕 hv")
            async with server.connect("kim", key=key) as kim:
                await kim.wait_for("안녕 kim")
            newcomer = await attempt(server.port, "새손님", passphrase=SECRET)
            assert newcomer.error is not None
            assert any("새 닉네임을 등록할 수 없어요" in b for b in newcomer.banners)
            assert holder(server, "새손님") is None
            async with server.connect("lee", key=key_pair()) as lee:  # a new key's name too
                await lee.wait_closed()
                assert "새 닉네임을 등록할 수 없어요" in lee.output_text
            assert holder(server, "lee") is None
            (disk / "filler").unlink()  # space again: the newcomer gets the name
            again = await attempt(server.port, "새손님", passphrase=SECRET)
            assert again.error is None
            await again.close()
