"""``--workers N`` end to end: the real server as a subprocess (a parent, the rooms process and
N workers), real SSH clients with a PTY, each client sent to the worker the test chooses.

Players at one table on different workers play a hand and end the game, a spectator on a third
sees it all, chat crosses workers; a worker killed -9 mid-hand takes only its own player, who
logs in again on another worker and gets seat and cards back; the rooms process killed -9 is
restarted and every game resumes from the journal; a per-address cap counts connections on
every worker, and so do pending logins (a silent socket's place, and which one a newcomer
evicts); a second login on another worker replaces the first; SIGTERM drains everything
within 10 s; the children of a parent killed -9 stop.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from .ssh_harness import SSHClient, attempt, connect
from .test_resume_e2e import mover_of, press_until, settled
from .workerkit import WAIT, cluster, kill_9

HAND_OVER = "판이 끝났어요"
NEXT_HAND = "2판/"


async def play_to_the_next_hand(players: dict[str, SSHClient], *others: SSHClient) -> None:
    """Whoever's turn it is checks (or calls), and each is ready at the hand's end (a tie's
    rematch is played out too), until every screen shows the second hand."""
    loop = asyncio.get_running_loop()
    until = loop.time() + 60
    while not all(NEXT_HAND in c.text for c in (*players.values(), *others)):
        if loop.time() > until:
            raise AssertionError("no second hand:\n" + next(iter(players.values())).text)
        for client in players.values():
            if HAND_OVER in client.text:
                await client.press("space")  # ready for the next hand
            elif "내 차례예요" in client.text:
                await client.press("2")  # 체크
                await asyncio.sleep(0.3)
                if "내 차례예요" in client.text:
                    await client.press("4")  # 콜, where a check is not allowed
        await asyncio.sleep(0.3)


async def test_two_players_on_two_workers_and_a_spectator_on_a_third(tmp_path: Path) -> None:
    async with cluster(tmp_path, 3) as c:
        (a, _), (b, _), (s, _) = c.workers()
        async with (
            connect(a, "영희") as host,
            connect(b, "철수") as guest,
            connect(s, "민수") as watcher,
        ):
            await host.wait_for("영희님 환영해요", WAIT)
            await press_until(host, "n", "Tab 이동")
            await press_until(host, "enter", "대기 중")
            await guest.wait_for("영희의 방", WAIT)  # the lobby list, pushed across workers
            await press_until(guest, "enter", "시작하기를")
            await host.wait_for("· 2/", WAIT)
            await watcher.wait_for("영희의 방", WAIT)
            await press_until(watcher, "w", "관전: 민수")
            await press_until(host, "s", "· 게임 중 ·")
            players = {"영희": host, "철수": guest}
            for client in (host, guest, watcher):
                await client.wait_for("· 게임 중 ·", WAIT)
            for key in ("3", "4"):  # 삥, 콜: the first round ends, the second card is dealt
                mover = await mover_of(players)
                await players[mover].press(key)
                await players[mover].wait_gone("내 차례예요", WAIT)
            mover = await mover_of(players)
            other = "철수" if mover == "영희" else "영희"
            await watcher.wait_for(f"{mover}님 차례", WAIT)
            await players[other].wait_for(f"{mover}님 차례", WAIT)
            await play_to_the_next_hand(players, watcher)  # seen on every worker
            await watcher.press("t")  # chat crosses workers too
            await asyncio.sleep(0.5)
            await watcher.type("잘 보고 있어요")
            await watcher.press("enter")
            await host.wait_for("잘 보고 있어요", WAIT)
            await guest.wait_for("잘 보고 있어요", WAIT)
            # the host leaves mid-game: the game ends for the table on the other workers
            await press_until(host, "q", "정말 나갈까요")
            await host.press("y")
            for client in (guest, watcher):
                await client.wait_for("게임 결과", WAIT)
        c.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(c.proc.wait(), 12)
        assert c.proc.returncode == 0


async def test_a_worker_killed_mid_hand_takes_only_its_sessions(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, "--reconnect-grace", "120") as c:
        (a, _), (b, b_pid) = c.workers()
        async with connect(a, "영희") as host:
            async with connect(b, "철수") as guest:
                await host.wait_for("영희님 환영해요", WAIT)
                await press_until(host, "n", "Tab 이동")
                await press_until(host, "enter", "대기 중")
                await guest.wait_for("영희의 방", WAIT)
                await press_until(guest, "enter", "시작하기를")
                await host.wait_for("· 2/", WAIT)
                await press_until(host, "s", "· 게임 중 ·")
                await guest.wait_for("· 게임 중 ·", WAIT)
                before = await settled(guest)
                kill_9(b_pid)
                await guest.wait_closed(WAIT)
            await host.wait_for("끊김", WAIT)  # the seat is held, the game goes on
            assert "· 게임 중 ·" in host.text
            await c.wait_log(r"event=worker_died", 1)
            await c.wait_log(r"event=worker_port", 3, timeout=60)  # its replacement is up
            # 철수 logs in again, this time on the worker that stayed: seat and cards are back
            async with connect(a, "철수") as again:
                await again.wait_for("· 게임 중 ·", WAIT)
                await host.wait_gone("끊김", WAIT)
                after = await settled(again)
                assert after == before, "\n".join(after)


async def open_table(host: SSHClient, name: str) -> None:
    """``host`` opens a room with the default options (named ``{name}의 방``)."""
    await press_until(host, "n", "Tab 이동")
    await press_until(host, "enter", "대기 중")
    await host.wait_for(f"{name}의 방", WAIT)


async def test_the_rooms_process_killed_is_restarted_and_every_room_resumes(
    tmp_path: Path,
) -> None:
    async with cluster(tmp_path, 2) as c:
        (a, _), (b, _) = c.workers()
        async with (
            connect(a, "영희") as host1,
            connect(b, "민수") as host2,
        ):
            for client in (host1, host2):
                await client.wait_for("환영해요", WAIT)
            await open_table(host1, "영희")
            await open_table(host2, "민수")
            async with (
                connect(b, "철수+영희의 방") as guest1,  # each table split over both workers
                connect(a, "지수+민수의 방") as guest2,
            ):
                tables = [{"영희": host1, "철수": guest1}, {"민수": host2, "지수": guest2}]
                for table in tables:
                    host = next(iter(table.values()))
                    await host.wait_for("· 2/", WAIT)
                    await press_until(host, "s", "· 게임 중 ·")
                    mover = await mover_of(table)
                    await table[mover].press("3")  # 삥
                    await table[mover].wait_gone("내 차례예요", WAIT)
                clients = {n: cl for table in tables for n, cl in table.items()}
                before = {nick: await settled(client) for nick, client in clients.items()}
                (hub,) = c.hub_pids()
                kill_9(hub)
                await c.wait_log(r"event=hub_died", 1)
                await c.wait_log(r"event=hub_listening pid=\d+ \S+ rooms=2", 1)
                for client in clients.values():  # the short notice, then back at the table
                    await client.wait_for("다시 연결됐어요", WAIT)
                    await client.wait_gone("끊김", WAIT)
                after = {nick: await settled(client) for nick, client in clients.items()}
                for nick in clients:
                    assert after[nick] == before[nick], "\n".join(after[nick])
                for table in tables:  # and play goes on at both
                    mover = await mover_of(table)
                    await table[mover].press("4")
                    await table[mover].wait_gone("내 차례예요", WAIT)


async def test_the_per_address_cap_counts_every_worker(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, "--max-sessions-per-ip", "2") as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "영희") as one, connect(b, "철수") as two:
            await one.wait_for("환영해요", WAIT)
            await two.wait_for("환영해요", WAIT)
            await one.press("t")  # the lobby chat crosses workers too
            await asyncio.sleep(0.5)
            await one.type("안녕하세요")
            await one.press("enter")
            await two.wait_for("안녕하세요", WAIT)
            for port in (a, b):  # a third from the same address is refused on either worker
                async with connect(port, "민수") as third:
                    await third.wait_for("한 주소당 2명까지", WAIT)
                    await third.wait_closed(WAIT)
        # once they are gone the address may come in again
        async with connect(b, "민수") as later:
            await later.wait_for("환영해요", WAIT)


class SilentLogins:
    """Sockets that never speak, each once its worker has counted it (its version line came)."""

    def __init__(self) -> None:
        self.writers: list[asyncio.StreamWriter] = []  # (a writer collected closes its socket)

    async def open(self, port: int, ip: str) -> asyncio.StreamReader:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(ip, 0))
        self.writers.append(writer)
        assert (await asyncio.wait_for(reader.readline(), WAIT)).startswith(b"SSH-2.0-")
        return reader

    def close(self) -> None:
        for writer in self.writers:
            writer.close()


async def hung_up(reader: asyncio.StreamReader) -> bool:
    await asyncio.wait_for(reader.read(), WAIT)
    return reader.at_eof()


async def test_pending_logins_count_every_worker_and_evict_where_they_wait(tmp_path: Path) -> None:
    limits = ("--max-pending-logins-per-ip", "2", "--max-pending-logins", "3")
    silent = SilentLogins()
    async with cluster(tmp_path, 2, *limits, "--connect-rate", "0", "--handshake-grace", "60") as c:
        try:
            (a, _), (b, _) = c.workers()
            oldest = await silent.open(a, "127.0.0.2")
            others = [await silent.open(b, "127.0.0.2"), await silent.open(b, "127.0.0.3")]
            third = await silent.open(a, "127.0.0.2")  # a third from 127.0.0.2: refused at once
            assert await hung_up(third)
            await c.wait_log(r"event=refused reason=logins_ip_full ip=127\.0\.0\.2")
            # all three places taken: a newcomer at b evicts 127.0.0.2's oldest, at worker a
            others.append(await silent.open(b, "127.0.0.4"))
            assert await hung_up(oldest)
            await c.wait_log(r"event=refused reason=evicted ip=127\.0\.0\.2 by=127\.0\.0\.4")
            assert not any(r.at_eof() for r in others)
            # a player from a quiet address gets in at a: the oldest left (127.0.0.2's, at b) goes
            async with connect(a, "영희") as player:
                await player.wait_for("환영해요", WAIT)
            assert await hung_up(others[0])
            assert not any(r.at_eof() for r in others[1:])
        finally:
            silent.close()


async def test_a_second_login_on_another_worker_replaces_the_first(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2) as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "영희") as first:
            await first.wait_for("환영해요", WAIT)
            async with connect(b, "영희") as second:
                await second.wait_for("환영해요", WAIT)
                await first.wait_closed(WAIT)


async def test_the_shared_port_serves_everyone(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2) as c:
        tries = [await attempt(c.shared, f"손님{i}") for i in range(4)]
        try:
            assert all(t.conn is not None for t in tries), [t.error for t in tries]
        finally:
            for t in tries:
                await t.close()


async def test_sigterm_drains_every_worker_and_the_hub_within_ten_seconds(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2, "--shutdown-notice", "0.5") as c:
        (a, _), (b, _) = c.workers()
        async with connect(a, "영희") as one, connect(b, "철수") as two:
            await one.wait_for("환영해요", WAIT)
            await two.wait_for("환영해요", WAIT)
            children = c.children()
            assert len(children["hub"]) == 1 and len(children["worker"]) == 2
            loop = asyncio.get_running_loop()
            began = loop.time()
            c.proc.send_signal(signal.SIGTERM)
            for client in (one, two):  # each worker tells its own players
                await client.wait_for_output("서버 점검으로 잠시 후 종료돼요", WAIT)
                await client.wait_closed(WAIT)
            assert await asyncio.wait_for(c.proc.wait(), 12) == 0
            assert loop.time() - began < 10
        for pid in children["hub"] + children["worker"]:
            assert (
                not Path(f"/proc/{pid}").exists()
                or "zombie" in Path(f"/proc/{pid}/status").read_text()
            )
        log = c.text()
        assert log.count("event=disconnect") == 2 and "reason=server_shutdown" in log
        assert "Traceback" not in log, log


async def test_children_of_a_parent_killed_9_shut_down(tmp_path: Path) -> None:
    async with cluster(tmp_path, 2) as c:
        children = c.children()
        kill_9(c.proc.pid)
        await c.proc.wait()
        loop = asyncio.get_running_loop()
        until = loop.time() + WAIT
        pids = children["hub"] + children["worker"]
        while any(Path(f"/proc/{pid}").exists() for pid in pids) and loop.time() < until:
            await asyncio.sleep(0.1)
        assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
        assert c.text().count("event=parent_gone") == 3
