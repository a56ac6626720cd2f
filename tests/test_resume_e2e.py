"""End to end: the real server as a subprocess, ``kill -9`` mid-hand, restart, both players resume.

Two SSH clients (pyte screens) play part of a hand; the server process is killed without any
chance to clean up; a new process on the same data folder rebuilds the game from its journal.
Both players log in again and must see exactly what they saw before: seats and stacks, the pot,
their own cards and whose turn it is (the countdown restarts from a full turn, so it is ignored).
The screens are also checked against the journal's own replay of the game.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from engine import DECK
from seotda_tui.rooms.journal import Journal, JournaledGame
from seotda_tui.ui.widgets.texts import chips

from .ssh_harness import SSHClient, connect, wait_until

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("영희", "철수")
WAIT = 10.0


class Server:
    def __init__(self, proc: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log


@asynccontextmanager
async def server(
    base: Path,
    tag: str,
    entry: Sequence[str] = ("-m", "seotda_tui"),
    *,
    program: Sequence[str] | None = None,
    cwd: Path = ROOT,
) -> AsyncIterator[Server]:
    """``python -m seotda_tui --port 0 ...``; the port comes from its "listening" log line.

    ``entry`` may name another way in to the same server (e.g. ``tests.faulty_server``);
    ``program`` another program instead of ``python`` and ``entry`` (an installed
    ``seotda-server``: tests/test_install.py), run in ``cwd``."""
    log = base / f"server-{tag}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    argv = (sys.executable, *entry) if program is None else tuple(program)
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *argv, "--host", "127.0.0.1", "--port", "0",
            "--hostkey-dir", str(base / "hostkeys"), "--data-dir", str(base / "data"),
            "--shutdown-notice", "0",
            cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        port = await _port_from(log, proc)
        yield Server(proc, port, log)
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


async def _port_from(log: Path, proc: asyncio.subprocess.Process) -> int:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while loop.time() < deadline:
        for line in log.read_text("utf-8", "replace").splitlines():
            if "listening" in line or "기다려요" in line:
                found = re.search(r"127\.0\.0\.1:(\d+)", line)
                if found:
                    return int(found.group(1))
        if proc.returncode is not None:
            break
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not start:\n" + log.read_text("utf-8", "replace"))


def screen_state(client: SSHClient) -> list[str]:
    """The table part of the screen (seats, pot, own cards, turn) without the turn countdown.

    The button bars below the table are left out: their spacing may shift by a cell.
    """
    lines = []
    for line in client.text.splitlines():
        if "q 나가기" in line:
            break
        if "차례" in line:
            line = re.sub(r"\s*\d+초", "", line.split("━")[0])
        lines.append(line.rstrip())
    return lines


async def settled(client: SSHClient) -> list[str]:
    """The screen once it stopped changing (two equal reads in a row) and shows whose turn.

    A resize first makes the app repaint everything, so partial-update leftovers (seen with the
    big pot digits) don't count as a difference.
    """
    await client.wait_gone("기리:", WAIT)  # the deal's cut line is a moment, not state
    await client.resize(81, 24)
    await asyncio.sleep(0.2)  # a real pause: the subprocess's app must lay out the odd size once
    await client.resize(80, 24)
    last: list[str] | None = None
    for _ in range(100):  # "stopped changing" is an absence: two reads a moment apart
        await asyncio.sleep(0.15)
        now = screen_state(client)
        if now == last and any("차례" in line for line in now):
            return now
        last = now
    raise AssertionError(f"the table did not settle:\n{client.text}")


async def press_until(client: SSHClient, key: str, shown: str) -> None:
    """Press ``key`` (again, if a screen was still settling) until ``shown`` is on the screen."""
    for _ in range(5):
        await asyncio.sleep(0.3)  # let the screen take focus first
        if shown in client.text:
            return
        await client.press(key)
        try:
            await client.wait_for(shown, 2.0)
            return
        except AssertionError:
            continue
    await client.wait_for(shown, 0.1)


async def mover_of(clients: dict[str, SSHClient]) -> str:
    def movers() -> list[str]:
        return [nick for nick, client in clients.items() if "내 차례예요" in client.text]

    await wait_until(movers, 5.0, "somebody's turn")
    return movers()[0]


async def to_the_second_round(host: SSHClient, guest: SSHClient) -> str:
    """영희 opens a room, 철수 sits, the game starts; 삥, 콜 -> the second card; then 삥.
    Returns who is to act (in the second round)."""
    clients = {"영희": host, "철수": guest}
    await host.wait_for("영희님 환영해요", WAIT)
    await press_until(host, "n", "Tab 이동")
    await press_until(host, "enter", "대기 중")  # the default options
    await guest.wait_for("영희의 방", WAIT)
    await press_until(guest, "enter", "시작하기를")
    await host.wait_for("· 2/", WAIT)  # "2/10명" in the title: 철수 sat down
    await press_until(host, "s", "· 게임 중 ·")
    for client in clients.values():
        await client.wait_for("· 게임 중 ·", WAIT)
    for key in ("3", "4", "3"):
        mover = await mover_of(clients)
        await clients[mover].press(key)
        await clients[mover].wait_gone("내 차례예요", WAIT)
    return await mover_of(clients)


async def kill_9(proc: asyncio.subprocess.Process, *clients: SSHClient) -> None:
    proc.send_signal(signal.SIGKILL)  # kill -9: no shutdown, no goodbye
    await proc.wait()
    for client in clients:
        await client.wait_closed(WAIT)


def check_journal_matches(base: Path, before: dict[str, list[str]]) -> tuple[JournaledGame, str]:
    """The journal alone says what the players saw (the 2nd round, whose turn, cards, stacks);
    returns the saved game and who is to act."""
    (saved,) = Journal(base / "data" / "games.sqlite3").open_games()
    truth = saved.rebuild()
    public = truth.view(None)
    actor = public.get("actor")
    assert public.get("street") == 1 and actor is not None  # the 2nd round
    for nick in NAMES:
        text = "\n".join(before[nick])
        mine = next(seat for seat in truth.view(nick)["seats"] if seat["id"] == nick)
        assert all(DECK[c["id"]].label in text for c in mine["cards"] if "hidden" not in c)
        assert all(f"{chips(seat['stack'])}칩" in text for seat in public["seats"])  # stacks
        turn = "내 차례예요" if actor == nick else f"{actor}님 차례"
        assert turn in text
    return saved, actor


async def test_kill_9_and_restart_resumes_the_hand(tmp_path: Path) -> None:
    before: dict[str, list[str]] = {}
    async with server(tmp_path, "first") as first:  # noqa: SIM117 - the clients must close first
        async with connect(first.port, "영희") as host, connect(first.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            await to_the_second_round(host, guest)
            for nick, client in clients.items():
                before[nick] = await settled(client)
            await kill_9(first.proc, host, guest)

    saved, actor = check_journal_matches(tmp_path, before)
    journal = tmp_path / "data" / "games.sqlite3"

    async with server(tmp_path, "second") as second:
        async with connect(second.port, "영희") as host, connect(second.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            for client in clients.values():
                await client.wait_for("· 게임 중 ·", WAIT)
            for client in clients.values():  # both are back: nobody shows as disconnected
                await client.wait_gone("연결 끊김", WAIT)
            after = {nick: await settled(client) for nick, client in clients.items()}
            for nick in NAMES:  # exactly the same screen: seats, stacks, pot, cards, turn
                assert after[nick] == before[nick], "\n".join(after[nick])
            # and the hand goes on from there, journaled on top of the old log
            assert await mover_of(clients) == actor
            await clients[actor].press("4")  # 콜
            await clients[actor].wait_gone("내 차례예요", WAIT)
            (resumed,) = Journal(journal).open_games()  # the same game, still going
            assert resumed.room_id == saved.room_id
            assert resumed.log[: len(saved.log)] == saved.log
            assert resumed.log[len(saved.log)] == (actor, {"type": "call"})
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 15)


async def test_kill_9_while_the_disk_is_full_loses_no_shown_action(tmp_path: Path) -> None:
    """The journal fails mid-hand: the room pauses with a notice on both screens and the refused
    action shows nowhere; kill -9 then; the restarted server shows exactly the last screens."""
    flag = tmp_path / "disk-full"
    faulty = ("-m", "tests.faulty_server", str(flag))
    before: dict[str, list[str]] = {}
    async with server(tmp_path, "faulty", faulty) as first:  # noqa: SIM117
        async with connect(first.port, "영희") as host, connect(first.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            mover = await to_the_second_round(host, guest)
            for nick, client in clients.items():
                before[nick] = await settled(client)
            flag.touch()  # the disk is full from now on
            await clients[mover].press("4")  # 콜: cannot be journaled, so not applied
            for client in clients.values():
                await client.wait_for("저장 공간 문제로 게임을 잠시 멈췄어요", WAIT)
            refused = lambda: flag.read_text("utf-8").count("refused")  # noqa: E731
            # the write, then its retries at 1 and 3 s (the server's own clock), still failing
            await wait_until(lambda: refused() >= 3, WAIT, "two retries of the journal write")
            await kill_9(first.proc, host, guest)
    log = (tmp_path / "server-faulty.log").read_text("utf-8", "replace")
    assert log.count("room_paused") == 1 and "room_resumed" not in log  # one line, no retry spam
    flag.unlink()

    saved, actor = check_journal_matches(tmp_path, before)
    assert actor == mover and len(saved.log) == 3  # 삥, 콜, 삥: the refused 콜 is not there
    async with server(tmp_path, "after") as second:
        async with connect(second.port, "영희") as host, connect(second.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            for client in clients.values():
                await client.wait_for("· 게임 중 ·", WAIT)
                await client.wait_gone("연결 끊김", WAIT)
            after = {nick: await settled(client) for nick, client in clients.items()}
            for nick in NAMES:
                assert after[nick] == before[nick], "\n".join(after[nick])
            assert await mover_of(clients) == mover
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 15)
