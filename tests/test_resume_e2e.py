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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from engine import DECK
from seotda_tui.journal import Journal
from seotda_tui.widgets.texts import chips

from .ssh_harness import SSHClient, connect

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("영희", "철수")
WAIT = 10.0


class Server:
    def __init__(self, proc: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log


@asynccontextmanager
async def server(base: Path, tag: str) -> AsyncIterator[Server]:
    """``python -m seotda_tui --port 0 ...``; the port comes from its "listening" log line."""
    log = base / f"server-{tag}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")}
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "seotda_tui", "--host", "127.0.0.1", "--port", "0",
            "--hostkey-dir", str(base / "hostkeys"), "--data-dir", str(base / "data"),
            "--shutdown-notice", "0",
            cwd=str(ROOT), env=env, stdin=asyncio.subprocess.DEVNULL,
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
    await client.resize(81, 24)
    await asyncio.sleep(0.2)
    await client.resize(80, 24)
    last: list[str] | None = None
    for _ in range(100):
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
    for _ in range(100):
        for nick, client in clients.items():
            if "내 차례예요" in client.text:
                return nick
        await asyncio.sleep(0.05)
    raise AssertionError("nobody's turn")


async def test_kill_9_and_restart_resumes_the_hand(tmp_path: Path) -> None:
    before: dict[str, list[str]] = {}
    async with server(tmp_path, "first") as first:  # noqa: SIM117 - the clients must close first
        async with connect(first.port, "영희") as host, connect(first.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            await host.wait_for("영희님 환영해요", WAIT)
            await press_until(host, "n", "Tab 이동")
            await press_until(host, "enter", "대기 중")  # the default options
            await guest.wait_for("영희의 방", WAIT)
            await press_until(guest, "enter", "시작하기를")
            await host.wait_for("· 2/", WAIT)  # "2/10명" in the title: 철수 sat down
            await press_until(host, "s", "게임 중")
            for client in clients.values():
                await client.wait_for("게임 중", WAIT)
            # first round: 삥, 콜 -> the second card; second round: 삥
            mover = await mover_of(clients)
            await clients[mover].press("3")
            await clients[mover].wait_gone("내 차례예요", WAIT)
            other = await mover_of(clients)
            await clients[other].press("4")
            await clients[other].wait_gone("내 차례예요", WAIT)
            mover = await mover_of(clients)
            await clients[mover].press("3")
            await clients[mover].wait_gone("내 차례예요", WAIT)
            await mover_of(clients)
            for nick, client in clients.items():
                before[nick] = await settled(client)
            first.proc.send_signal(signal.SIGKILL)  # kill -9: no shutdown, no goodbye
            await first.proc.wait()
            for client in clients.values():
                await client.wait_closed(WAIT)

    # the journal alone says what the players saw, and must find again
    journal = tmp_path / "data" / "games.sqlite3"
    (saved,) = Journal(journal).open_games()
    truth = saved.rebuild()
    hand = truth.state.hand
    assert hand is not None and hand.street == 1 and hand.actor is not None  # the 2nd round
    for nick in NAMES:
        text = "\n".join(before[nick])
        assert all(DECK[i].label in text for i in hand.players[nick].hand)  # own cards
        assert all(f"{chips(seat.stack)}칩" in text for seat in truth.state.seats)  # stacks
        turn = "내 차례예요" if hand.actor == nick else f"{hand.actor}님 차례"
        assert turn in text

    async with server(tmp_path, "second") as second:
        async with connect(second.port, "영희") as host, connect(second.port, "철수") as guest:
            clients = {"영희": host, "철수": guest}
            for client in clients.values():
                await client.wait_for("게임 중", WAIT)
            for client in clients.values():  # both are back: nobody shows as disconnected
                await client.wait_gone("연결 끊김", WAIT)
            after = {nick: await settled(client) for nick, client in clients.items()}
            for nick in NAMES:  # exactly the same screen: seats, stacks, pot, cards, turn
                assert after[nick] == before[nick], "\n".join(after[nick])
            # and the hand goes on from there, journaled on top of the old log
            assert await mover_of(clients) == hand.actor
            await clients[hand.actor].press("4")  # 콜
            await clients[hand.actor].wait_gone("내 차례예요", WAIT)
            (resumed,) = Journal(journal).open_games() or [None]
            assert resumed is None or resumed.log[: len(saved.log)] == saved.log
            assert resumed is None or resumed.log[len(saved.log)] == (hand.actor, {"type": "call"})
        second.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.proc.wait(), 15)
