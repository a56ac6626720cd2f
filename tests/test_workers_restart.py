"""``--workers N``: the shared limits survive a restart of the rooms process, and hold while it
is away. The real server as a subprocess (tests/workerkit.py), real SSH clients.

To keep the rooms process away for as long as a test needs, the parent is stopped (SIGSTOP)
before the rooms process is killed -9: nothing restarts it until the parent goes on (SIGCONT).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncssh

from seotda_tui.cluster.worker_limits import PROGRESS_EVERY

from .ssh_harness import (
    SSHClient,
    attempt,
    connect,
    default_passphrase,
    open_connection,
    wait_until,
)
from .test_admission import flooding
from .test_hostile_logins import _SlowTypist
from .workerkit import WAIT, Cluster, cluster, kill_9

TRY_AGAIN = "몇 초 뒤에 다시 접속해 주세요"
FULL = "서버가 가득 찼어요"


async def rooms_process_restarted(c: Cluster) -> None:
    """The rooms process killed -9, restarted by the parent, and every worker back on it."""
    back = c.text().count("event=hub_back")
    kill_9(c.hub_pids()[-1])
    await c.wait_log(r"event=hub_back", back + 2)


@asynccontextmanager
async def rooms_process_away(c: Cluster) -> AsyncIterator[None]:
    """The rooms process killed -9 and not restarted until the block ends; then it is, and
    every worker is back on the new one."""
    back, lost = c.text().count("event=hub_back"), c.text().count("event=hub_lost")
    os.kill(c.proc.pid, signal.SIGSTOP)
    try:
        kill_9(c.hub_pids()[-1])
        await c.wait_log(r"event=hub_lost", lost + 2)
        yield
    finally:
        os.kill(c.proc.pid, signal.SIGCONT)
    await c.wait_log(r"event=hub_back", back + 2)


async def refused_with(port: int, nick: str, text: str) -> None:
    async with connect(port, nick) as client:
        await client.wait_for(text, WAIT)
        await client.wait_closed(WAIT)


async def welcomed(client: SSHClient) -> None:
    await client.wait_for("환영해요", WAIT)


async def test_a_restarted_rooms_process_counts_every_session_and_none_get_in_meanwhile(
    tmp_path: Path,
) -> None:
    async with cluster(tmp_path, 2, "--max-sessions", "2") as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "영희") as one, connect(b, "철수") as two:
            await welcomed(one)
            await welcomed(two)
            await refused_with(b, "민수", FULL)
            await rooms_process_restarted(c)
            # the new rooms process was told of both sessions: still full, on either worker
            await refused_with(a, "민수", FULL)
            await refused_with(b, "지수", FULL)
            async with rooms_process_away(c):
                # nobody is counted now: a login is told to come back, never let in unchecked
                await refused_with(a, "민수", TRY_AGAIN)
            await refused_with(b, "민수", FULL)
            await welcomed(one)
        # and both places are given back as before
        async with connect(b, "민수") as three, connect(a, "지수") as four:
            await welcomed(three)
            await welcomed(four)


async def test_the_login_jail_outlives_a_restart_of_the_rooms_process(tmp_path: Path) -> None:
    jail = ("--auth-failures", "2", "--auth-jail-seconds", "300")
    async with cluster(tmp_path, 2, *jail) as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "길동") as owner:  # the nickname gets its passphrase
            await welcomed(owner)
        guesser = ("127.0.0.2", 0)
        guessed = await attempt(
            a, "길동", passphrase=["wrong-1234", "wrong-5678"], local_addr=guesser
        )
        assert guessed.conn is None
        await c.wait_log(r"event=jailed ip=127\.0\.0\.2")

        async def jailed(port: int) -> bool:
            tried = await attempt(
                port, "길동", passphrase=default_passphrase("길동"), local_addr=guesser
            )
            await tried.close()
            error = tried.error
            return isinstance(error, asyncssh.DisconnectError) and "failed logins" in error.reason

        assert await jailed(b)  # every worker knows
        await rooms_process_restarted(c)
        assert await jailed(a) and await jailed(b)  # and the new rooms process too
        async with rooms_process_away(c):
            assert await jailed(a) and await jailed(b)  # still, with nobody to ask
        async with connect(b, "길동") as again:  # another address is not jailed
            await welcomed(again)


async def test_a_nickname_locked_by_guessing_is_locked_on_every_worker_but_not_to_its_owner(
    tmp_path: Path,
) -> None:
    """Wrong passphrases for one nickname count at the rooms process: guesses at one worker
    lock the name at every worker (each used to count its own), the owner's address gets
    through wherever it lands (it used to be known only where it logged in), and the lock
    outlives a restart of the rooms process."""
    guessing = ("--name-failures", "2", "--name-lock-seconds", "300", "--connect-rate", "0")
    async with cluster(tmp_path, 2, *guessing) as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "길동") as owner:  # registers it, from 127.0.0.1
            await welcomed(owner)
        for n in (3, 4):  # a wrong guess from each of two addresses, at worker b
            tried = await attempt(
                b, "길동", passphrase=["wrong-1234"], local_addr=(f"127.0.0.{n}", 0)
            )
            assert tried.conn is None

        async def locked(port: int) -> bool:  # the right passphrase from a fifth address
            right = default_passphrase("길동")
            tried = await attempt(port, "길동", passphrase=right, local_addr=("127.0.0.5", 0))
            await tried.close()
            return tried.conn is None and any("잠겨 있어요" in text for text in tried.banners)

        assert await locked(a) and await locked(b)
        async with connect(b, "길동") as owner:  # the owner, at the other worker
            await welcomed(owner)
        await rooms_process_restarted(c)
        assert await locked(a) and await locked(b)
        async with connect(b, "길동") as owner:
            await welcomed(owner)


async def test_a_flood_at_one_worker_does_not_evict_someone_typing_at_another(
    tmp_path: Path,
) -> None:
    """Pending logins are counted by the rooms process, which evicts the one that got least far
    first: a person at the passphrase prompt at worker a outlasts twenty silent sockets from
    twenty addresses at worker b (the oldest pending login used to go, wherever it was)."""
    limits = ("--connect-rate", "0", "--max-pending-logins", "6", "--handshake-grace", "60")
    async with cluster(tmp_path, 2, *limits) as c:
        (a, _), (b, _) = c.workers()

        class Typist(_SlowTypist):
            prompted = asyncio.Event()
            go = asyncio.Event()

        login = asyncio.ensure_future(
            open_connection(a, "carol", client=Typist, local_addr=("127.0.0.1", 0))
        )
        async with flooding(b) as flood:
            try:
                await asyncio.wait_for(Typist.prompted.wait(), WAIT)
                await asyncio.sleep(4 * PROGRESS_EVERY)  # worker a has told the rooms process
                for n in range(2, 22):  # 20 new connections, each from an address of its own
                    await flood.silent(f"127.0.0.{n}", 1)
                kept = "carol kept her place (5 silent ones left)"
                await wait_until(lambda: flood.open_count() == 5, WAIT, kept)
                Typist.go.set()
                conn = await asyncio.wait_for(login, WAIT)
                conn.close()
            finally:
                login.cancel()


async def test_new_nicknames_per_address_count_every_worker_and_outlive_a_restart(
    tmp_path: Path,
) -> None:
    """One new nickname an hour from an address: a second at the other worker is refused (each
    worker used to allow its own), and still after the rooms process is restarted."""
    too_many = "새 닉네임을 너무 많이 만들었어요"
    async with cluster(tmp_path, 2, "--registrations-per-ip", "1") as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "갑돌") as first:
            await welcomed(first)
        await refused_with(b, "을순", too_many)
        await rooms_process_restarted(c)
        await refused_with(a, "병철", too_many)
        await refused_with(b, "병철", too_many)
        async with connect(b, "갑돌") as again:  # a name it holds is no new one
            await welcomed(again)
