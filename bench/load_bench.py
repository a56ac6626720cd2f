#!/usr/bin/env python3
"""Load benchmark: the real server, real SSH clients with PTYs, players pressing keys on screens.

    .venv/bin/python bench/load_bench.py                      # 2 tables × 6 seats, ~1 minute
    .venv/bin/python bench/load_bench.py --tables 10          # 60 players
    .venv/bin/python bench/load_bench.py --tables 50 --duration 60   # 300 players
    .venv/bin/python bench/load_bench.py --py-spy /tmp/server.svg   # also profile the server
    .venv/bin/python bench/load_bench.py --workers 1,2 --tables 50 --think 4   # side by side
    .venv/bin/python bench/load_bench.py --workers 1,2 --capacity --think 4    # most players
                                                            # at p95 ≤ 150 ms, for each N
    .venv/bin/python bench/load_bench.py --tables 10 --transport ssh,web
                                            # SSH players, then browser players (the
                                            # --web-port WebSocket), side by side
    .venv/bin/python bench/load_bench.py --tables 10 --before HEAD~1 --pairs 2
                                            # the previous commit's server and this tree's,
                                            # alternating, side by side

With ``--workers N`` (N ≥ 2) the server's figures (CPU, RSS) are those of all its processes
(the parent, the rooms process, the N workers); the CPU of each is printed too.

With ``--transport web`` the players are browsers instead (:class:`WebPlayer`: the page's
WebSocket protocol, seotda_tui/web/session.py, with the same keys and the same pyte screens; the
server gets ``--web-port``); ``--transport ssh,web`` runs both, one fresh server after the
other, and prints them side by side: server CPU per action and RSS per session (above the
server's RSS before the first login), CPU seconds beside wall seconds.

What it does:

1. starts ``python -m seotda_tui --port 0`` as a subprocess (temporary host-key and data
   folders; the per-address limits raised through the server's own flags, :func:`load_limits`,
   so one loopback IP may open every session and host every table) and reads the port from its
   ``event=listening addr=HOST:PORT`` log line;
2. table after table, logs its players in (asyncssh clients, each with a PTY of ``--size`` whose
   output is fed into a ``pyte`` screen; at most ``--connect-rate`` logins per second; keyless,
   each a new nickname with its passphrase, one passphrase at a time as the server hashes them
   for one address, :class:`HashTurn`) and times *connect → lobby painted* (from opening the TCP
   connection to the lobby title on screen, less the wait for that turn);
   the table's first player creates a room (``n``, Enter), the others pick it in the lobby
   (Ctrl+Home, ↓ × table number, Enter); once every table is seated the hosts press ``s``;
3. every player then plays from what its screen shows: on "내 차례예요" it waits a think time and
   presses a scripted key (mostly 4 콜 / 2 체크, sometimes 3 삥, rarely 1 다이; the next key if
   the screen says that one is not allowed now); at the hand end it presses Space; rebuy
   questions get ``y``; the host restarts a finished game;
4. half-way through, nobody presses anything for ``--idle`` seconds while the turn countdowns
   run, and the bytes received meanwhile are counted;
5. it prints a table of figures next to the targets of the issue (``--json`` writes them all).

The latency of one action is measured from the moment the actor's key is written to the moment
the bytes arrive (``data_received``) that make another seat's pyte screen show it: a new line of
the hand log "b01s2 콜 10" (when the log is on screen), the actor's seat box or line changing to
show the action word, or the status line no longer saying "b01s2님 차례" — whichever comes
first (see :class:`Watch`). The next action at a table is only timed once every seat has shown
the previous one. Bytes are counted at the SSH channel (what the server's Textual apps write,
before encryption; the client turns compression off like OpenSSH does by default, or asks for
it with ``--compress``) and at the socket (what crossed the wire, encrypted and compressed).

The client side runs in this one process on the same machine: pyte is fed lazily (in bulk, and
chunk by chunk only while an action is being timed; arrival times are taken in
``data_received``, so feeding late does not change a measurement) and only the rows that pyte
marks dirty are re-read. The client's own CPU use is printed so it can be told apart
from the server's. Screen texts the bench relies on are constants at the top of this file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import gc
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

import aiohttp
import asyncssh
import pyte
from wcwidth import wcswidth

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- screen markers
# Texts the server's screens show (seotda_tui/ui/screens/*.py, widgets/texts.py). Keep the most
# stable, short ones here; if the UI wording changes, this is the only place to update.
LOBBY_MARK = "님 환영해요"  # lobby title "섯다 로비 · {nick}님 환영해요 · ..."
FORM_MARK = "Esc 취소"  # create-room form title
ROOM_SUFFIX = "의 방"  # default room name "{host}의 방" (title row of the room)
TITLE_SEP = " · "  # room title "{name} · {status} · ..."
PLAYING_MARK = "게임 중"  # room status while a game runs
SEATED_RE = re.compile(r"(\d+)/\d+명")  # waiting-room title "... · 3/10명 · ..."
TURN_MARK = "내 차례예요"  # status line on one's own betting turn
OTHERS_TURN = "{nick}님 차례"  # status line while someone else must act
READY_MARKS = ("Space 준비", "Space 다음 판 준비")  # hand end: Space readies for the next hand
REBUY_MARK = "칩을 다시 받을까요"  # busted with rebuy on: y
REJOIN_MARK = "다시 참가할까요"  # 구사 rematch rejoin question: n
RESTART_MARK = "s 키로 다시 시작"  # host, finished game: s
REFUSED_MARK = "할 수 없어요"  # "지금은 체크를 할 수 없어요"
BET_AVAILABLE = "{word} (+"  # action bar label of a legal bet: "4 콜 (+10)"
#: keys of the action bar (1–8 = 다이 체크 삥 콜 따당 쿼터 하프 풀) the script uses, and the word
#: the hand log prints for each ("b01s2 콜 10", "b01s2 다이").
ACTION_WORDS = {"1": "다이", "2": "체크", "3": "삥", "4": "콜"}
SEAT_ROWS, SEAT_COLS = 4, 26  # a seat box is 4 rows × 25 cells (widgets/seats.py)
LOG_KEY = b"l"  # table: show/hide the hand log (shown from 110 columns)
KEY_DOWN = b"\x1b[B"
KEY_CTRL_HOME = b"\x1b[1;5H"
#: The lobby's line under the list naming the room under the cursor ("■ 64번 방의 규칙").
SELECTED_RE = re.compile(r"■ (\d+)번 방")
#: Cursor keys per write when picking a room: the server drops keys beyond 64 waiting in one
#: session's queues (ui/driver.py, MAX_PENDING_EVENTS), so 65 keys in one write lose the last.
KEYS_PER_WRITE = 32

# ----------------------------------------------------------------------------- targets (the issue)
TARGET_SESSIONS = 300
TARGET_P95_MS = 150.0
TARGET_RSS_MB = 1024.0
TARGET_BYTES_PER_ACTION = 2048.0
TARGET_IDLE_BPS = 300.0
TARGET_CONNECT_S = 1.0

LOG_BORDERS = "│┃▏▕|║"  # the hand log's left border (app.tcss: border-left)
now = time.perf_counter


class BenchError(RuntimeError):
    pass


def box_cpu_seconds() -> float:
    """CPU seconds all processes of the machine have used (busy time of every core, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)
    return busy / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]


# ----------------------------------------------------------------------------- the server process
def load_limits(sessions: int) -> list[tuple[str, str]]:
    """The server's own settings (flags) a load test needs, every bench client being one address
    (127.0.0.1) and every player a new nickname: the per-address limits a server open to the
    internet keeps low by default, raised to the run's size. The defaults are not touched."""
    limit = str(sessions + 100)
    return [
        ("--max-sessions", limit),
        ("--max-sessions-per-ip", limit),
        ("--connect-rate", "10000"),
        ("--connect-burst", limit),
        ("--max-pending-logins", limit),
        ("--max-pending-logins-per-ip", limit),
        ("--max-rooms", limit),  # one room per table (the default 100 would stop the setup there)
        ("--max-rooms-per-address", limit),  # every table's host is 127.0.0.1 (default 3)
        ("--registrations-per-ip", "0"),  # every bench player is a new name from 127.0.0.1
        ("--idle-timeout", "0"),
        ("--shutdown-notice", "0"),
    ]


_FLAGS: dict[tuple[str, Path], frozenset[str]] = {}


def server_flags(python: str, tree: Path) -> frozenset[str]:
    """The flags the server in ``tree`` knows (its ``--help``). A limit an older tree has no
    flag for is a limit it did not have, so the bench leaves that flag out (``--before``)."""
    key = (python, tree)
    if key not in _FLAGS:
        done = subprocess.run(
            [python, "-m", "seotda_tui", "--help"],
            cwd=str(tree),
            capture_output=True,
            text=True,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
        )
        if done.returncode != 0:
            raise BenchError(f"{tree}: seotda_tui --help failed:\n{done.stderr[-2000:]}")
        _FLAGS[key] = frozenset(re.findall(r"--[a-z][a-z-]*", done.stdout))
    return _FLAGS[key]


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server's --web-port; its SSH port is 0: it says)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """``python -m seotda_tui`` (of ``args.tree``) in a subprocess; reads its port and watches
    /proc."""

    def __init__(self, args: argparse.Namespace, tmp: Path, sessions: int) -> None:
        self.args = args
        self.tree: Path = getattr(args, "tree", ROOT)
        self.tmp = tmp
        self.sessions = sessions
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.tail: deque[str] = deque(maxlen=40)
        self.problems: list[str] = []  # warning/error log lines
        self._reader: asyncio.Task[None] | None = None
        self.clk = os.sysconf("SC_CLK_TCK")
        self.skipped: list[str] = []
        #: The browser listener's port (--transport web), 0: none.
        self.web_port = free_port() if getattr(args, "transport", "ssh") == "web" else 0
        self.web_ready = asyncio.Event()  # its event=web_listening line was logged

    async def start(self) -> None:
        known = server_flags(self.args.python, self.tree)
        limits = [(f, v) for f, v in load_limits(self.sessions) if f in known]
        #: limits this server has no flag for (an older tree: it had no such limit)
        self.skipped = [f for f, _ in load_limits(self.sessions) if f not in known]
        cmd = [
            self.args.python,
            "-m",
            "seotda_tui",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--hostkey-dir",
            str(self.tmp / "hostkeys"),
            "--data-dir",
            str(self.tmp / "data"),
            *(part for flag in limits for part in flag),
            *(["--compression"] if self.args.compress else []),
            *(["--workers", str(self.args.workers)] if self.args.workers > 1 else []),
            *(["--web-port", str(self.web_port)] if self.web_port else []),
        ]
        self.proc = await asyncio.create_subprocess_exec(
            *cmd,
            cwd=str(self.tree),  # python -m imports the package from here first
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        found: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read(found))
        try:
            self.port = await asyncio.wait_for(found, 30)
            if self.web_port:
                await asyncio.wait_for(self.web_ready.wait(), 30)
        except TimeoutError:
            raise BenchError("server did not start:\n" + "\n".join(self.tail)) from None

    async def _read(self, found: asyncio.Future[int]) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        with contextlib.ExitStack() as files:
            keep = self.args.server_log
            out = files.enter_context(open(keep, "a", encoding="utf-8")) if keep else None
            while line := await self.proc.stderr.readline():
                self._line(line.decode("utf-8", "replace").rstrip(), found, out)
        if not found.done():
            found.set_exception(BenchError("server exited:\n" + "\n".join(self.tail)))

    def _line(self, text: str, found: asyncio.Future[int], out: TextIO | None) -> None:
        """One line the server logged: kept (``--server-log``), its port, its problems."""
        self.tail.append(text)
        if out is not None:
            out.write(text + "\n")
        if "event=web_listening" in text:
            self.web_ready.set()
        if not found.done():
            m = re.search(r"event=listening addr=\S*:(\d+)", text)
            if m:
                found.set_result(int(m.group(1)))
        if "level=warning" in text or "level=error" in text or "Traceback" in text:
            self.problems.append(text)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def processes(self) -> list[int]:
        """The server's pid and, with ``--workers N``, its children (the rooms process and the
        workers; one that was restarted counts from its restart)."""
        pids = [self.pid]
        if self.args.workers > 1:
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/stat") as f:
                            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    except OSError:
                        continue
                    if ppid == self.pid:
                        pids.append(int(entry))
        return pids

    def cpu_by_process(self) -> dict[int, float]:
        found = {}
        for pid in self.processes():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[pid] = (int(fields[11]) + int(fields[12])) / self.clk
        return found

    def cpu_seconds(self) -> float:
        return sum(self.cpu_by_process().values())

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MiB, summed over the server's processes."""
        rss = hwm = 0.0
        for pid in self.processes():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            rss += int(line.split()[1]) / 1024
                        elif line.startswith("VmHWM:"):
                            hwm += int(line.split()[1]) / 1024
            except OSError:
                continue
        return rss, hwm

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=2)


# ----------------------------------------------------------------------------- one player's terminal
class _Counting(asyncio.Protocol):
    """Between the TCP transport and asyncssh: counts what arrives as on the wire
    (encrypted, compressed when negotiated) on ``player.wire``."""

    def __init__(self, inner: Any, player: Player) -> None:
        self.inner = inner
        self.player = player

    def connection_made(self, transport: Any) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.player.wire += len(data)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()  # type: ignore[no-any-return]

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


@dataclass
class _WireTunnel:
    """asyncssh's ``tunnel=`` hook, used only to put :class:`_Counting` under the connection."""

    player: Player

    async def create_connection(self, factory: Any, host: str, port: int) -> tuple[Any, Any]:
        loop = asyncio.get_running_loop()
        transport, counting = await loop.create_connection(
            lambda: _Counting(factory(), self.player), host, port
        )
        return transport, counting.inner


class HashTurn:
    """Whose passphrase the server may hash now. The server hashes one passphrase at a time per
    address and hangs up a second login from that address meanwhile ("hash busy",
    ``seotda_tui/ssh/passphrase.py`` ``Hasher``), and every bench client is 127.0.0.1: so a
    client answers its passphrase prompt only when no other client's answer is being checked,
    and gives the turn back once its login is decided. What a client waits here is the bench's
    own queue (one address standing in for hundreds), so it is left out of connect → lobby and
    reported apart."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.waits_s: list[float] = []


class _Auth(asyncssh.SSHClient):
    """Open-mode keyless login, as players without a key log in: answers the nickname-
    passphrase prompts (keyboard-interactive: set on first use, given later) with a per-name
    passphrase, in its :class:`HashTurn`; no password, no keys."""

    def __init__(self, nick: str, turn: HashTurn) -> None:
        self._passphrase = f"{nick}-bench-passphrase"
        self._rounds = 0
        self._turn = turn
        self._holding = False
        self.waited_s = 0.0

    def kbdint_auth_requested(self) -> str:
        return ""

    async def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        self._rounds += 1
        if self._rounds > 1:
            self._give_back()
            return None  # a second round means it was refused: don't loop
        if prompts and not self._holding:
            asked = now()
            await self._turn.lock.acquire()
            self._holding = True
            self.waited_s = now() - asked
            self._turn.waits_s.append(self.waited_s)
        return [self._passphrase for _ in prompts]

    def auth_completed(self) -> None:
        self._give_back()  # (the server freed the address's hash before it said so)

    def connection_lost(self, exc: Exception | None) -> None:
        self._give_back()

    def _give_back(self) -> None:
        if self._holding:
            self._holding = False
            self._turn.lock.release()

    def password_auth_requested(self) -> str | None:
        return None


class _Session(asyncssh.SSHClientSession[bytes]):
    def __init__(self, player: Player) -> None:
        self.player = player

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self.player.on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.player.closed = True
        self.player.wake.set()


def new_lines(before: list[str], after: list[str]) -> list[str]:
    """Lines of a scrolling log that are new in ``after`` (the log may have scrolled up)."""
    n0 = len(before)
    for shift in range(n0 + 1):
        keep = n0 - shift
        if len(after) >= keep and after[:keep] == before[shift:]:
            return after[keep:]
    return after


@dataclass(eq=False)
class Action:
    """One key press being timed until every seat of the table shows it."""

    table: Table
    actor: Player
    key: str
    word: str
    pattern: str
    t0: float = 0.0
    bytes0: dict[Player, int] = field(default_factory=dict)
    waiting: set[Player] = field(default_factory=set)
    acked: bool = False
    seen: bool = False
    cancelled: bool = False

    def observed(self, player: Player, t: float, how: str) -> None:
        bench = self.table.bench
        if player is not self.actor:
            bench.detected_by[how] = bench.detected_by.get(how, 0) + 1
        if not self.seen:
            self.seen = True
            self.table.actions += 1
        if player is self.actor:
            self.acked = True
            bench.own_ms.append((t - self.t0) * 1000)
        else:
            self.waiting.discard(player)
            bench.other_ms.append((t - self.t0) * 1000)
            bench.frame_bytes.append(player.fed - self.bytes0[player])
        if self.acked and not self.waiting:
            self.table.done(self)

    def cancel(self) -> None:
        self.cancelled = True
        for p in self.table.players:
            p.watch.pop(self, None)
        if self.table.pending is self:
            self.table.pending = None


@dataclass(eq=False)
class Watch:
    """One screen waiting to show one action. It is shown once any of these holds:

    * ``log``: a new line of the hand log (when the log is on screen) reads "{actor} {word}…";
    * ``seat``: the actor's seat (box or line; the name and the SEAT_ROWS × SEAT_COLS cells from
      it) changed and now shows the action word ("체크", "콜 10");
    * ``turn``: the status line that said it was the actor's turn ("{actor}님 차례" on the others'
      screens, "내 차례예요" on the actor's) says something else.
    """

    action: Action
    log: list[str] | None
    regions: list[tuple[int, int, int, str]]
    turn: str | None

    def shown(self, p: Player) -> str | None:
        act = self.action
        if (
            self.log is not None
            and p.log_changed
            and any(act.pattern in line for line in new_lines(self.log, p.log_content()))
        ):
            return "log"
        for y, x0, x1, before in self.regions:
            now_text = p.region(y, x0, x1)
            if now_text != before and act.word in now_text:
                return "seat"
        if self.turn is not None and self.turn not in p.text:
            return "turn"
        return None


class Player:
    """An SSH session with a PTY whose output drives a pyte screen."""

    def __init__(self, bench: Bench, nick: str, table: Table, seat: int) -> None:
        self.bench = bench
        self.nick = nick
        self.table = table
        self.seat = seat
        self.cols, self.rows = bench.size
        self.screen = pyte.Screen(self.cols, self.rows)
        self.stream = pyte.ByteStream(self.screen)
        self.chunks: deque[tuple[float, bytes]] = deque()
        self.received = 0  # bytes arrived
        self.wire = 0  # bytes arrived on the socket (encrypted; compressed with --compress)
        self.fed = 0  # bytes given to pyte
        self.left = [""] * self.rows  # row text (left of the hand log where there is one)
        self.right = [""] * self.rows  # hand-log part of the row
        self.log_x: int | None = None
        self.log_changed = False
        self.log_rows: list[int] = []
        self._log_set: frozenset[int] = frozenset()
        self._left_text: str | None = None
        self.watch: dict[Action, Watch] = {}  # actions being timed → the screen at the press
        self.wake = asyncio.Event()
        self.closed = False
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.connect_s: float | None = None
        self.my_action: Action | None = None
        self.fallback: list[str] = []
        self.think_until: float | None = None
        self.held = False
        self.flags: set[str] = set()
        self.rng = random.Random(f"{bench.args.seed}:{nick}")

    # -- bytes in -----------------------------------------------------------------------------
    def on_data(self, data: bytes) -> None:
        self.chunks.append((now(), data))
        self.received += len(data)
        self.wake.set()

    def process(self, until: Callable[[], bool] | None = None) -> float | None:
        """Feed what arrived to pyte; time the actions being watched.

        Returns the arrival time of the chunk after which ``until()`` first held (if given).
        Without anything to time, everything waiting is fed at once (cheapest).
        """
        if not self.chunks:
            return None
        if until is None and not self.watch:
            data = b"".join(c for _, c in self.chunks)
            self.chunks.clear()
            self.stream.feed(data)
            self.fed += len(data)
            self._refresh()
            return None
        hit = None
        while self.chunks:
            t, data = self.chunks.popleft()
            self.stream.feed(data)
            self.fed += len(data)
            if self._refresh() and self.watch:
                self._check_watch(t)
            if until is not None and hit is None and until():
                hit = t
        return hit

    def _refresh(self) -> bool:
        """Re-read the rows pyte marked dirty; True if any row changed."""
        dirty = self.screen.dirty
        if not dirty:
            return False
        self._left_text = None
        self.log_changed = False
        buf, cols, log_x, log_set = self.screen.buffer, self.cols, self.log_x, self._log_set
        for y in dirty:
            if y >= self.rows:
                continue
            line = buf[y]
            if log_x is not None and y in log_set:
                self.left[y] = "".join([line[x].data for x in range(log_x)])
                right = "".join([line[x].data for x in range(log_x + 1, cols - 1)])
                if right != self.right[y]:
                    self.right[y] = right
                    self.log_changed = True
            else:
                self.left[y] = "".join([line[x].data for x in range(cols)])
        dirty.clear()
        return True

    def _check_watch(self, t: float) -> None:
        for action, watch in list(self.watch.items()):
            how = watch.shown(self)
            if how:
                del self.watch[action]
                action.observed(self, t, how)

    def region(self, y: int, x0: int, x1: int) -> str:
        buf = self.screen.buffer
        return "\n".join(
            "".join([buf[r][x].data for x in range(x0, x1)])
            for r in range(y, min(y + SEAT_ROWS, self.rows))
        )

    def seat_regions(self, nick: str) -> list[tuple[int, int, int, str]]:
        """Where ``nick``'s seat is drawn: (row, first col, end col, text) below/after the name."""
        out = []
        for y in range(1, self.rows):
            row = self.left[y]
            i = row.find(nick)
            while i >= 0:
                if not row.startswith("님", i + len(nick)):  # not "nick님 차례"
                    x = wcswidth(row[:i])
                    x0, x1 = max(0, x - 2), min(self.log_x or self.cols, x - 2 + SEAT_COLS)
                    out.append((y, x0, x1, self.region(y, x0, x1)))
                i = row.find(nick, i + 1)
        return out

    # -- reading the screen -------------------------------------------------------------------
    @property
    def text(self) -> str:
        """Everything left of the hand log (the whole screen outside a room)."""
        if self._left_text is None:
            self._left_text = "\n".join(self.left)
        return self._left_text

    def full_text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def title(self) -> str:
        return self.left[0]

    def title_has(self, text: str) -> bool:
        return text in self.left[0]

    def shows_turn(self) -> bool:
        """The game's status line: our turn, or someone else's ("nick님 차례")."""
        text = self.text
        return TURN_MARK in text or OTHERS_TURN.format(nick="") in text

    def room_selected(self, number: int) -> bool:
        """Whether the lobby's cursor is on room ``number`` ("■ 64번 방의 규칙")."""
        m = SELECTED_RE.search(self.text)
        return m is not None and int(m.group(1)) == number

    async def pick_room(self, index: int) -> None:
        """Put the lobby's cursor on room ``index`` (0-based): Ctrl+Home, then ↓ in writes of
        :data:`KEYS_PER_WRITE`, each checked on the lobby's "■ N번 방" line."""
        self.send(KEY_CTRL_HOME)
        moved = 0
        while True:
            await self.wait_until(partial(self.room_selected, moved + 1), f"room {moved + 1}", 20)
            if moved == index:
                return
            step = min(KEYS_PER_WRITE, index - moved)
            self.send(KEY_DOWN * step)
            moved += step

    def in_room(self, host: str | None = None) -> bool:
        title = self.title()
        if host is not None:
            return f"{host}{ROOM_SUFFIX}{TITLE_SEP}" in title
        return f"{ROOM_SUFFIX}{TITLE_SEP}" in title

    def log_content(self) -> list[str]:
        lines = [self.right[y].rstrip() for y in self.log_rows]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def find_log(self) -> bool:
        """Locate the hand log, if it is on screen: the column right of the middle with the same
        border character on most rows. Its rows are then split into seat side / log side."""
        buf = self.screen.buffer
        body = range(1, self.rows - 3)
        found: tuple[int, list[int]] | None = None
        for x in range(self.cols // 2, self.cols - 1):
            ch = buf[1][x].data
            if ch not in LOG_BORDERS:
                continue
            rows = [y for y in body if buf[y][x].data == ch]
            if len(rows) >= 0.8 * len(body):
                found = (x, rows)
                break
        if found is None:
            self.log_x, self.log_rows, self._log_set = None, [], frozenset()
        else:
            self.log_x, self.log_rows = found
            self._log_set = frozenset(self.log_rows)
        self.right = [""] * self.rows
        self.screen.dirty.update(range(self.rows))
        self._refresh()
        return found is not None

    def watch_for(self, action: Action) -> Watch:
        """What this screen shows at the press, to tell when it shows the action."""
        turn = OTHERS_TURN.format(nick=action.actor.nick)
        return Watch(
            action=action,
            log=self.log_content() if self.log_x is not None else None,
            regions=self.seat_regions(action.actor.nick) if action.actor is not self else [],
            turn=turn if turn in self.text else TURN_MARK if action.actor is self else None,
        )

    # -- keys out -------------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        if self.chan is not None and not self.closed:
            self.chan.write(data)

    async def wait_until(self, check: Callable[[], bool], what: str, timeout: float) -> float:
        """Wait until ``check()`` holds on the screen; returns when the deciding bytes arrived."""
        deadline = now() + timeout
        while True:
            self.wake.clear()
            hit = self.process(check)
            if hit is not None:
                return hit
            if check():
                return now()
            left = deadline - now()
            if left <= 0 or self.closed:
                raise BenchError(
                    f"{self.nick}: no {what} within {timeout:.0f} s; screen:\n" + self.full_text()
                )
            try:
                await asyncio.wait_for(self.wake.wait(), left)
            except TimeoutError:
                pass

    async def settle(self, quiet: float = 0.3, limit: float = 5.0) -> None:
        """Wait until nothing has arrived for ``quiet`` seconds (a screen done mounting)."""
        deadline = now() + limit
        while now() < deadline:
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), quiet)
            except TimeoutError:
                break
        self.process()

    # -- connecting -----------------------------------------------------------------------------
    async def connect(self) -> None:
        t0 = now()
        auth = _Auth(self.nick, self.bench.hash_turn)
        self.conn, _ = await asyncssh.create_connection(
            lambda: auth,
            "127.0.0.1",
            self.bench.port,
            username=self.nick,
            known_hosts=None,
            agent_path=None,
            config=None,
            client_keys=None,
            compression_algs=["zlib@openssh.com"] if self.bench.args.compress else ["none"],
            tunnel=_WireTunnel(self),
        )
        self.chan, _ = await self.conn.create_session(
            lambda: _Session(self),
            term_type="xterm-256color",
            term_size=(self.cols, self.rows),
            encoding=None,
        )
        t = await self.wait_until(lambda: LOBBY_MARK in self.title(), "lobby", 60)
        self.connect_s = t - t0 - auth.waited_s  # (the bench's own queue: see HashTurn)

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            try:
                await asyncio.wait_for(self.conn.wait_closed(), 5)
            except TimeoutError:
                pass

    # -- playing --------------------------------------------------------------------------------
    async def play(self) -> None:
        bench = self.bench
        while not bench.stopping and not self.closed:
            self.wake.clear()
            self.process()
            await self.decide()
            if bench.stopping:
                break
            try:
                await asyncio.wait_for(self.wake.wait(), 0.5)
            except TimeoutError:
                pass

    def _once(self, flag: str, present: bool, key: bytes) -> None:
        """Press ``key`` once while a prompt is shown (again only after it went away)."""
        if present and flag not in self.flags:
            self.flags.add(flag)
            self.send(key)
        elif not present:
            self.flags.discard(flag)

    async def decide(self) -> None:
        act = self.my_action
        if act is not None:
            if act.acked or act.cancelled or act.table.pending is not act and act.seen:
                self.my_action = None
            elif self._refused(act.word) or self._no_effect(act):
                act.cancel()
                self.my_action = None
                if self.fallback and TURN_MARK in self.text:
                    self.press_action(self.fallback.pop(0))
                return
            else:
                return  # waiting for our own screen to show the action
        text = self.text
        if TURN_MARK in text:
            await self.on_turn()
            return
        self.think_until = None
        self.held = False
        self._once("ready", any(m in text for m in READY_MARKS), b" ")
        self._once("rebuy", REBUY_MARK in text, b"y")
        self._once("rejoin", REJOIN_MARK in text, b"n")
        if self.seat == 0:
            self._once("restart", RESTART_MARK in text, b"s")

    def _no_effect(self, act: Action) -> bool:
        """No screen shows the press after several times the usual delay, and it is still our
        turn: the key was refused without a visible message (or lost). Try the next key."""
        if act.seen or TURN_MARK not in self.text:
            return False
        recent = self.bench.own_ms[-20:]
        limit = max(3.0, 4 * statistics.median(recent) / 1000) if recent else 3.0
        if now() - act.t0 < limit:
            return False
        self.bench.no_effect += 1
        return True

    def _refused(self, word: str) -> bool:
        return any(REFUSED_MARK in row and word in row for row in self.left)

    async def on_turn(self) -> None:
        bench, table = self.bench, self.table
        if bench.paused or table.pending is not None:
            self.held = bench.paused and table.pending is None
            return
        self.held = False
        t = now()
        if self.think_until is None:
            self.think_until = t + bench.args.think * self.rng.uniform(0.5, 1.5)
        if t < self.think_until:
            await asyncio.sleep(self.think_until - t)
            self.process()
            if (
                bench.paused
                or bench.stopping
                or table.pending is not None
                or TURN_MARK not in self.text
            ):
                return
        self.think_until = None
        keys = self.plan(self.text)
        self.fallback = keys[1:]
        self.press_action(keys[0])

    def plan(self, text: str) -> list[str]:
        """The scripted decision: mostly call/check, sometimes 삥, rarely 다이; then fallbacks."""
        r = self.rng.random()
        call_ok = BET_AVAILABLE.format(word=ACTION_WORDS["4"]) in text
        ping_ok = BET_AVAILABLE.format(word=ACTION_WORDS["3"]) in text
        if r < self.bench.args.die:
            return ["1"]
        if r < self.bench.args.die + self.bench.args.ping and ping_ok:
            return ["3", "4", "2", "1"]
        return ["4", "2", "1"] if call_ok else ["2", "4", "3", "1"]

    def press_action(self, key: str) -> None:
        table = self.table
        word = ACTION_WORDS[key]
        act = Action(table, self, key, word, f"{self.nick} {word}")
        others = [p for p in table.players if p is not self and not p.closed]
        for p in [*others, self]:
            p.process()  # everything that arrived before the press belongs to "before"
            if table.actions % 10 == 1:
                p.find_log()  # the layout may have changed (log shown/hidden)
        for p in others:
            act.waiting.add(p)
            act.bytes0[p] = p.fed
            p.watch[act] = p.watch_for(act)
        self.watch[act] = self.watch_for(act)
        table.pending = act
        self.my_action = act
        act.t0 = now()
        self.send(key.encode())


class WebPlayer(Player):
    """A browser tab instead of an SSH client: the page's WebSocket protocol (a JSON login with
    the same passphrase prompts, then terminal bytes in binary frames) as app.js speaks it, the
    same pyte screen, keys and measurements. ``wire`` counts the frames' payloads (no TLS on
    loopback, as the SSH figures count the encrypted stream)."""

    def __init__(self, bench: Bench, nick: str, table: Table, seat: int) -> None:
        super().__init__(bench, nick, table, seat)
        self.http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._out: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def connect(self) -> None:
        t0 = now()
        assert self.bench.server is not None
        url = f"http://127.0.0.1:{self.bench.server.web_port}"
        self.http = aiohttp.ClientSession()
        ws = self.ws = await self.http.ws_connect(
            f"{url}/ws", headers={"Origin": url}, max_msg_size=0
        )
        await ws.send_json(
            {"type": "login", "name": self.nick, "cols": self.cols, "rows": self.rows}
        )
        turn, holding, waited = self.bench.hash_turn, False, 0.0
        try:
            while True:
                msg = await asyncio.wait_for(ws.receive(), 60)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise BenchError(f"{self.nick}: the socket closed at login ({msg.type!r})")
                data = msg.json()
                if data["type"] == "ready":
                    break
                if data["type"] != "prompts":
                    raise BenchError(f"{self.nick}: refused: {data.get('message')}")
                if holding:  # a second round: the first was refused
                    raise BenchError(f"{self.nick}: asked again: {data.get('message')}")
                asked = now()
                await turn.lock.acquire()  # (one passphrase hashed at a time: see HashTurn)
                holding, waited = True, now() - asked
                turn.waits_s.append(waited)
                answer = f"{self.nick}-bench-passphrase"
                await ws.send_json({"type": "answers", "answers": [answer] * len(data["kinds"])})
        finally:
            if holding:
                turn.lock.release()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read()), loop.create_task(self._write())]
        t = await self.wait_until(lambda: LOBBY_MARK in self.title(), "lobby", 60)
        self.connect_s = t - t0 - waited

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.wire += len(msg.data)
                self.on_data(msg.data)
        self.closed = True
        self.wake.set()

    async def _write(self) -> None:
        """Keys in the order they were pressed (send() is called from sync code)."""
        while self.ws is not None and not self.ws.closed:
            data = await self._out.get()
            try:
                await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                return

    def send(self, data: bytes) -> None:
        if self.ws is not None and not self.closed:
            self._out.put_nowait(data)

    async def close(self) -> None:
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except TimeoutError:
                pass
        for task in self._tasks:
            task.cancel()
        if self.http is not None:
            await self.http.close()


class Table:
    def __init__(self, bench: Bench, index: int) -> None:
        self.bench = bench
        self.index = index
        self.players: list[Player] = []
        self.pending: Action | None = None
        self.actions = 0

    @property
    def host(self) -> Player:
        return self.players[0]

    def done(self, action: Action) -> None:
        if self.pending is action:
            self.pending = None
        for p in self.players:
            p.wake.set()

    def expire(self, limit: float) -> None:
        act = self.pending
        if act is not None and act.t0 and now() - act.t0 > limit:
            self.bench.missed += len(act.waiting)
            if len(self.bench.miss_log) < 5:
                who = sorted(p.nick for p in act.waiting)
                sample = next(iter(act.waiting), act.actor)
                sample.process()
                act.actor.process()
                self.bench.miss_log.append(
                    f"{act.pattern!r} (acked {act.acked}) not seen by {who}; "
                    f"{sample.nick}'s screen:\n"
                    + sample.full_text()
                    + f"\nthe actor {act.actor.nick}'s screen:\n"
                    + act.actor.full_text()
                )
            act.cancel()
            if act.actor.my_action is act:
                act.actor.my_action = None
            for p in self.players:
                p.wake.set()


# ----------------------------------------------------------------------------- the run
class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        cols, rows = (int(v) for v in args.size.lower().split("x"))
        self.size = (cols, rows)
        self.port = 0
        self.tables = [Table(self, t) for t in range(args.tables)]
        #: Who plays: SSH clients, or browsers (--transport web).
        self.player_kind = WebPlayer if getattr(args, "transport", "ssh") == "web" else Player
        for table in self.tables:
            for s in range(args.seats):
                table.players.append(self.player_kind(self, f"b{table.index:02d}s{s}", table, s))
        self.players = [p for t in self.tables for p in t.players]
        self.paused = False
        self.stopping = False
        self.hash_turn = HashTurn()
        self.own_ms: list[float] = []
        self.other_ms: list[float] = []
        #: How late this process's event loop woke from a 10 ms sleep during play (ms): the
        #: part of a measured latency that is the bench's own queueing, not the server's.
        self.lag_ms: list[float] = []
        self.frame_bytes: list[int] = []
        self.wire_snapshots: list[dict[Player, int]] = []  # at each snapshot()
        self.missed = 0
        self.detected_by: dict[str, int] = {}
        self.miss_log: list[str] = []
        self.no_effect = 0  # presses that no screen showed although it stayed our turn
        self.setup_steps: list[tuple[float, float, float]] = []  # logins, open room, joins
        self.join_retries = 0
        self.login_wall = self.login_server_cpu = self.login_client_cpu = 0.0
        self.marks: dict[str, tuple[float, float, float, float]] = {}
        self.rss: list[tuple[float, float]] = []
        self.probe_s: list[float] = []
        self.server: Server | None = None
        self.notes: list[str] = []
        self.cpu_split: list[float] = []  # CPU seconds of each server process, largest first
        self.rss_base = 0.0  # the server's RSS (MiB) before the first login

    def mark(self, name: str) -> None:
        assert self.server is not None
        self.marks[name] = (
            now(),
            self.server.cpu_seconds(),
            time.process_time(),
            box_cpu_seconds(),
        )

    def span(self, a: str, b: str) -> tuple[float, float, float]:
        """(seconds, server CPU %, client CPU %) between two marks."""
        ta, sa, ca, _ = self.marks[a]
        tb, sb, cb, _ = self.marks[b]
        wall = max(tb - ta, 1e-9)
        return wall, (sb - sa) / wall * 100, (cb - ca) / wall * 100

    def other_cpu(self, *spans: tuple[str, str]) -> float:
        """CPU % of everything else on the machine (not the server, not this bench)."""
        wall = other = 0.0
        for a, b in spans:
            ta, sa, ca, xa = self.marks[a]
            tb, sb, cb, xb = self.marks[b]
            wall += tb - ta
            other += (xb - xa) - (sb - sa) - (cb - ca)
        return max(0.0, other / max(wall, 1e-9) * 100)

    def server_cpu(self, *spans: tuple[str, str]) -> float:
        return sum(self.marks[b][1] - self.marks[a][1] for a, b in spans)

    def snapshot(self) -> tuple[dict[Player, int], dict[Table, int]]:
        self.wire_snapshots.append({p: p.wire for p in self.players})
        return {p: p.received for p in self.players}, {t: t.actions for t in self.tables}

    async def sample(self) -> None:
        assert self.server is not None
        while True:
            try:
                rss, _ = self.server.memory_mb()
            except OSError:
                return
            self.rss.append((now(), rss))
            await asyncio.sleep(1.0)

    async def drain(self) -> None:
        """Feed every screen now and then, so no backlog builds up while a player waits (the
        client must stay responsive: a stalled loop would also miss the server's keepalives)."""
        while not self.stopping:
            for p in self.players:
                if p.chunks and not p.watch:
                    p.process()
                    await asyncio.sleep(0)
            await asyncio.sleep(0.5)

    async def watchdog(self) -> None:
        while not self.stopping:
            for table in self.tables:
                table.expire(self.args.action_timeout)
            await asyncio.sleep(0.5)

    async def probe(self) -> None:
        """During play: a fresh player logs in now and then; connect → lobby under load."""
        n = 0
        while not self.stopping:
            await asyncio.sleep(self.args.probe_every)
            if self.stopping:
                return
            n += 1
            p = self.player_kind(self, f"probe{n:03d}", Table(self, -1), 0)
            try:
                await p.connect()
                assert p.connect_s is not None
                self.probe_s.append(p.connect_s)
            except (OSError, asyncssh.Error, BenchError) as exc:
                self.notes.append(f"probe {n} failed: {exc!s:.200}")
            finally:
                await p.close()

    async def seat_tables(self) -> None:
        """Table after table: its players log in, the host opens a room, the others join it.

        Rooms are opened in table order, so table i's room is row i of every lobby. Doing it
        table by table keeps the players who are already seated in quiet waiting rooms instead
        of all watching a busy lobby (each room change repaints every visible lobby).
        """
        interval = 1.0 / self.args.connect_rate
        next_login = now()
        assert self.server is not None
        for table in self.tables:
            t0, s0, c0 = now(), self.server.cpu_seconds(), time.process_time()

            async def login(p: Player, at: float) -> None:
                await asyncio.sleep(max(0.0, at - now()))
                await p.connect()

            logins = []
            for p in table.players:
                next_login = max(next_login + interval, now())
                logins.append(login(p, next_login))
            await asyncio.gather(*logins)
            self.login_wall += now() - t0
            self.login_server_cpu += self.server.cpu_seconds() - s0
            self.login_client_cpu += time.process_time() - c0
            t1 = now()
            await self.open_room(table)
            t2 = now()
            await asyncio.gather(*(self.join(table, p) for p in table.players[1:]))
            self.setup_steps.append((t1 - t0, t2 - t1, now() - t2))
            done = table.index + 1
            if done % 5 == 0 or done == len(self.tables):
                print(f"  {done}/{len(self.tables)} tables seated", file=sys.stderr, flush=True)

    async def open_room(self, table: Table) -> None:
        host = table.host
        host.send(b"n")
        await host.wait_until(lambda: FORM_MARK in host.title(), "create form", 30)
        await host.settle()
        for attempt in range(10):  # an Enter typed while the form still mounts is lost
            host.send(b"\r")
            try:
                await host.wait_until(lambda: host.in_room(host.nick), "own room", 3)
                return
            except BenchError:
                if attempt == 9:
                    raise

    async def join(self, table: Table, p: Player) -> None:
        """Pick table i's room in the lobby (:meth:`Player.pick_room`), Enter; check the room's
        title."""
        mine = f"{table.host.nick}{ROOM_SUFFIX}"
        first = f"{self.tables[0].host.nick}{ROOM_SUFFIX}"
        await p.wait_until(lambda: first in p.text or mine in p.text, "room list", 30)
        for attempt in range(3):
            try:
                await p.pick_room(table.index)
                p.send(b"\r")
                await p.wait_until(p.in_room, "a room", 20)
            except BenchError:
                if attempt == 2:
                    raise
                self.join_retries += 1
                continue
            if p.in_room(table.host.nick):
                return
            self.join_retries += 1
            p.send(b"q")  # wrong room: back to the lobby, try again
            await p.wait_until(lambda: LOBBY_MARK in p.title(), "lobby again", 20)
            await asyncio.sleep(0.5)
        raise BenchError(f"{p.nick} could not join {table.host.nick}'s room")

    async def start_tables(self) -> None:
        async def start_game(table: Table) -> None:
            host = table.host

            def full() -> bool:
                m = SEATED_RE.search(host.title())
                return m is not None and int(m.group(1)) >= len(table.players)

            await host.wait_until(full, "all seats taken", 60)
            host.send(b"s")
            for p in table.players:
                await p.wait_until(partial(p.title_has, PLAYING_MARK), "game start", 60)
            for p in table.players:
                # the title changes before the body: wait for the game's status line (the
                # waiting room shows the hand log even where the table hides it)
                await p.wait_until(p.shows_turn, "game status line", 60)
                await p.settle(quiet=0.2, limit=2.0)
                if not p.find_log() and self.args.log == "show":
                    p.send(LOG_KEY)
                    await p.wait_until(p.find_log, "hand log", 10)

        await asyncio.gather(*(start_game(t) for t in self.tables))

    async def idle_window(self) -> dict[str, Any]:
        """Stop pressing keys while turns count down; bytes received per player per second."""
        self.paused = True
        self.mark("pause")
        deadline = now() + 6.0
        while now() < deadline:
            if all(any(p.held for p in t.players) for t in self.tables):
                break
            await asyncio.sleep(0.1)
        held = [t for t in self.tables if any(p.held for p in t.players)]
        players = [p for t in held for p in t.players]
        before = {p: p.received for p in players}
        self.mark("idle0")
        await asyncio.sleep(self.args.idle)
        self.mark("idle1")
        rates = [(p.received - before[p]) / self.args.idle for p in players]
        self.paused = False
        for p in self.players:
            # think afresh from now: a turn whose thinking time ran out during the pause
            # would otherwise be played at once, every table in the same instant
            p.think_until = None
            p.wake.set()
        self.mark("resume")
        return {"tables_held": len(held), "tables": len(self.tables), "rates": rates}

    async def run(self) -> dict[str, Any]:
        args = self.args
        tmp = Path(tempfile.mkdtemp(prefix="seotda-load-"))
        self.server = Server(args, tmp, len(self.players))
        tasks: list[asyncio.Task[Any]] = []
        try:
            await self.server.start()
            self.port = self.server.port
            if self.server.skipped:
                self.notes.append(f"the server has no {', '.join(self.server.skipped)}")
            print(
                f"server pid {self.server.pid} on 127.0.0.1:{self.port}; "
                f"{len(self.players)} players logging in table by table…",
                file=sys.stderr,
                flush=True,
            )
            self.rss_base = self.server.memory_mb()[0]
            tasks.append(asyncio.create_task(self.sample()))
            tasks.append(asyncio.create_task(self.drain()))
            self.mark("start")
            await self.seat_tables()
            self.mark("seated")
            await self.start_tables()
            quiet_client_gc()
            self.mark("play0")
            print(
                f"tables playing after {self.span('start', 'play0')[0]:.1f} s of setup; "
                f"{args.duration:.0f} s of play…",
                file=sys.stderr,
                flush=True,
            )
            profiler = self.start_profiler()
            tasks.append(asyncio.create_task(self.watchdog()))
            tasks.append(asyncio.create_task(self.loop_lag()))
            tasks += [asyncio.create_task(p.play()) for p in self.players]
            if args.probe_every > 0:
                tasks.append(asyncio.create_task(self.probe()))
            bytes0, acts0 = self.snapshot()
            other0 = len(self.other_ms)
            await asyncio.sleep(max(1.0, args.duration / 2 - args.idle / 2))
            bytes1, acts1 = self.snapshot()
            idle = await self.idle_window()
            bytes2, acts2 = self.snapshot()
            await asyncio.sleep(max(1.0, args.duration / 2 - args.idle / 2))
            bytes3, acts3 = self.snapshot()
            self.mark("play1")
            self.cpu_split = sorted(self.server.cpu_by_process().values(), reverse=True)
            rss_end, rss_peak = self.server.memory_mb()
            self.stopping = True
            if profiler is not None:
                await self.stop_profiler(profiler)
            return self.figures(
                bytes0,
                acts0,
                bytes1,
                acts1,
                bytes2,
                acts2,
                bytes3,
                acts3,
                idle,
                rss_end,
                rss_peak,
                len(self.other_ms) - other0,
            )
        finally:
            gc.unfreeze()  # (a --capacity search runs again in this process)
            self.stopping = True
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)
            await self.server.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    async def loop_lag(self, step: float = 0.01) -> None:
        """Sample this process's loop lag while tables play (see :attr:`lag_ms`)."""
        while not self.stopping:
            t = now()
            await asyncio.sleep(step)
            self.lag_ms.append((now() - t - step) * 1000)

    def start_profiler(self) -> subprocess.Popen[bytes] | None:
        if not self.args.py_spy:
            return None
        exe = shutil.which("py-spy") or str(Path(self.args.python).parent / "py-spy")
        out = Path(self.args.py_spy)
        fmt = {".svg": "flamegraph", ".json": "speedscope"}.get(out.suffix, "raw")
        assert self.server is not None
        cmd = [
            exe,
            "record",
            "--pid",
            str(self.server.pid),
            "--rate",
            "100",
            "--nonblocking",
            *(["--subprocesses"] if self.args.workers > 1 else []),  # the workers and the hub
            "--format",
            fmt,
            "-o",
            str(out),
            "--duration",
            str(int(self.args.duration)),
        ]
        print("profiling:", " ".join(cmd), file=sys.stderr, flush=True)
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def stop_profiler(self, proc: subprocess.Popen[bytes]) -> None:
        for _ in range(100):
            if proc.poll() is not None:
                return
            await asyncio.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        await asyncio.sleep(2)
        if proc.poll() is None:
            proc.kill()

    def figures(
        self,
        b0: dict[Player, int],
        a0: dict[Table, int],
        b1: dict[Player, int],
        a1: dict[Table, int],
        b2: dict[Player, int],
        a2: dict[Table, int],
        b3: dict[Player, int],
        a3: dict[Table, int],
        idle: dict[str, Any],
        rss_end: float,
        rss_peak: float,
        observed: int,
    ) -> dict[str, Any]:
        # bytes per player per betting action, outside the idle window
        total_bytes = sum((b1[p] - b0[p]) + (b3[p] - b2[p]) for p in self.players)
        w0, w1, w2, w3 = self.wire_snapshots[:4]
        total_wire = sum((w1[p] - w0[p]) + (w3[p] - w2[p]) for p in self.players)
        total_acts = sum(
            (a1[p.table] - a0[p.table]) + (a3[p.table] - a2[p.table]) for p in self.players
        )
        actions = sum((a1[t] - a0[t]) + (a3[t] - a2[t]) for t in self.tables)
        connect = [p.connect_s for p in self.players if p.connect_s is not None]
        play_s, play_srv, play_cli = self.span("play0", "pause")
        play2 = self.span("resume", "play1")
        play_wall = play_s + play2[0]
        srv_play = (play_srv * play_s + play2[1] * play2[0]) / play_wall
        cli_play = (play_cli * play_s + play2[2] * play2[0]) / play_wall
        _, idle_srv, idle_cli = self.span("idle0", "idle1")
        setup_s, setup_srv, setup_cli = self.span("start", "play0")
        login_wall = max(self.login_wall, 1e-9)
        idle_players = len(idle["rates"])
        assert self.server is not None
        return {
            "players": len(self.players),
            "tables": len(self.tables),
            "seats": self.args.seats,
            "size": self.args.size,
            "think_s": self.args.think,
            "play_s": round(play_wall, 1),
            "actions": actions,
            "actions_per_s": round(actions / play_wall, 1),
            "observations": observed,
            "missed": self.missed,
            "no_effect": self.no_effect,
            "detected_by": dict(sorted(self.detected_by.items())),
            "log_shown": sum(p.log_x is not None for p in self.players),
            # seat views that never showed the action count as slower than the timeout
            "other_ms": {
                q: round(pct(self.other_ms + [math.inf] * self.missed, q), 1) for q in (50, 95, 99)
            },
            "action_timeout_ms": self.args.action_timeout * 1000,
            "other_ms_max": round(max(self.other_ms, default=float("nan")), 1),
            "own_ms": {q: round(pct(self.own_ms, q), 1) for q in (50, 95, 99)},
            "rss_mb_end": round(rss_end, 1),
            "rss_mb_peak": round(rss_peak, 1),
            "rss_mb_base": round(self.rss_base, 1),
            "rss_kb_per_session": round((rss_end - self.rss_base) * 1024 / len(self.players)),
            "transport": getattr(self.args, "transport", "ssh"),
            "server_cpu_s_play": round(self.server_cpu(("play0", "pause"), ("resume", "play1")), 2),
            "rss_mb_max_sampled": round(max((r for _, r in self.rss), default=0.0), 1),
            "server_cpu_pct": {
                "login": round(self.login_server_cpu / login_wall * 100),
                "setup": round(setup_srv),
                "play": round(srv_play),
                "idle": round(idle_srv),
            },
            "server_cpu_ms_per_idle_session_s": round(idle_srv * 10 / idle_players, 2)
            if idle_players
            else None,
            "server_cpu_ms_per_action": round(
                self.server_cpu(("play0", "pause"), ("resume", "play1")) * 1000 / actions, 1
            )
            if actions
            else None,
            "server_cpu_ms_per_action_net": round(
                (
                    self.server_cpu(("play0", "pause"), ("resume", "play1"))
                    - idle_srv / 100 * play_wall
                )
                * 1000
                / actions,
                1,
            )
            if actions
            else None,
            "server_cpu_ms_per_login": round(self.login_server_cpu * 1000 / len(self.players), 1),
            "other_cpu_pct": {
                "setup": round(self.other_cpu(("start", "play0"))),
                "play": round(self.other_cpu(("play0", "pause"), ("resume", "play1"))),
                "idle": round(self.other_cpu(("idle0", "idle1"))),
            },
            "load_avg": os.getloadavg()[0],
            "client_loop_lag_ms": {
                "p50": round(pct(self.lag_ms, 50), 1),
                "p95": round(pct(self.lag_ms, 95), 1),
                "max": round(pct(self.lag_ms, 100), 1),
            },
            "client_cpu_pct": {
                "login": round(self.login_client_cpu / login_wall * 100),
                "setup": round(setup_cli),
                "play": round(cli_play),
                "idle": round(idle_cli),
            },
            "phase_s": {"login": round(self.login_wall, 1), "setup": round(setup_s, 1)},
            "setup_per_table_s": {
                k: round(statistics.fmean(step[i] for step in self.setup_steps), 2)
                for i, k in enumerate(("logins", "open_room", "joins"))
            },
            "join_retries": self.join_retries,
            "bytes_per_player_action": round(total_bytes / total_acts) if total_acts else None,
            "wire_bytes_per_player_action": round(total_wire / total_acts) if total_acts else None,
            "compression": "zlib@openssh.com" if self.args.compress else "none",
            "frame_bytes": {q: pct([float(b) for b in self.frame_bytes], q) for q in (50, 95)},
            "idle_bps": {
                "mean": round(statistics.fmean(idle["rates"]), 1) if idle["rates"] else None,
                "max": round(max(idle["rates"]), 1) if idle["rates"] else None,
                "tables_held": idle["tables_held"],
                "tables": idle["tables"],
            },
            "connect_s": {q: round(pct(connect, q), 3) for q in (50, 95)},
            "connect_s_max": round(max(connect, default=float("nan")), 3),
            "hash_turn_wait_s": {q: round(pct(self.hash_turn.waits_s, q), 3) for q in (50, 95)},
            "probe_connect_s": {q: round(pct(self.probe_s, q), 3) for q in (50, 95)},
            "probes": len(self.probe_s),
            "server_pid": self.server.pid,
            "workers": self.args.workers,
            "server_cpu_s_by_process": [round(c, 1) for c in self.cpu_split],
            "server_warnings": self.server.problems[-5:],
            "notes": self.notes,
        }


# ----------------------------------------------------------------------------- report
def verdict(ok: bool | None) -> str:
    return "" if ok is None else ("ok" if ok else "MISSED")


def report(r: dict[str, Any], args: argparse.Namespace) -> str:
    o, c, own, idle = r["other_ms"], r["connect_s"], r["own_ms"], r["idle_bps"]

    def ms(v: float) -> str:
        return f"{v:.0f}" if math.isfinite(v) else f">{r['action_timeout_ms']:.0f}"

    big = r["players"] >= TARGET_SESSIONS
    seen_by = ", ".join(f"{k} {v}" for k, v in r["detected_by"].items())
    timed = (
        f"{r['actions']} ({r['observations']} seat views, {r['missed']} missed, "
        f"{r['no_effect']} key presses without effect), "
        f"{r['actions_per_s']}/s; seen by {seen_by}; "
        f"hand log on {r['log_shown']}/{r['players']} screens"
    )
    rss_note = (
        verdict(r["rss_mb_peak"] <= TARGET_RSS_MB)
        if big
        else f"({r['rss_mb_peak'] / r['players']:.1f} MiB/player)"
    )
    bpa = r["bytes_per_player_action"]
    fb = r["frame_bytes"]
    other = r["other_cpu_pct"]
    rows: list[tuple[str, str, str, str]] = [
        (
            "action → other seats' screens p50 / p95 / p99",
            f"{ms(o[50])} / {ms(o[95])} / {ms(o[99])} ms (max seen {r['other_ms_max']:.0f})",
            f"p95 ≤ {TARGET_P95_MS:.0f} ms at {TARGET_SESSIONS} sessions",
            verdict(o[95] <= TARGET_P95_MS),
        ),
        ("action → own screen p50 / p95", f"{own[50]:.0f} / {own[95]:.0f} ms", "", ""),
        ("actions timed", timed, "", verdict(r["missed"] == 0)),
        (
            "server RSS end / peak",
            f"{r['rss_mb_end']:.0f} / {r['rss_mb_peak']:.0f} MiB",
            f"≤ {TARGET_RSS_MB:.0f} MiB at {TARGET_SESSIONS} sessions",
            rss_note,
        ),
        (
            "server CPU % play / idle / logins / whole setup",
            "{play} / {idle} / {login} / {setup} %".format(**r["server_cpu_pct"]),
            "(100 % = one core)",
            "",
        ),
        (
            "server CPU time per betting action (net of idle ticks) / per login",
            f"{r['server_cpu_ms_per_action']} ms ({r['server_cpu_ms_per_action_net']} ms) / "
            f"{r['server_cpu_ms_per_login']} ms",
            "(CPU time: robust to a busy box)",
            "",
        ),
        (
            "server CPU time per idle session (countdown)",
            f"{r['server_cpu_ms_per_idle_session_s']} ms per second",
            "",
            "",
        ),
        (
            "client CPU % play / idle / logins / whole setup",
            "{play} / {idle} / {login} / {setup} %".format(**r["client_cpu_pct"]),
            "(this bench process)",
            "",
        ),
        (
            "client loop lag during play p50 / p95 / max",
            "{p50} / {p95} / {max} ms".format(**r["client_loop_lag_ms"]),
            "(its share of the latencies above)",
            "",
        ),
        (
            "other processes on the box, CPU % play / idle / setup",
            (
                f"{other['play']} / {other['idle']} / {other['setup']} % "
                f"(load avg {r['load_avg']:.1f})"
            ),
            f"(of {os.cpu_count()} cores × 100 %)",
            "",
        ),
        (
            f"bytes per player per betting action ({r['size']})",
            f"{bpa} B (action frame alone p50 {fb[50]:.0f}, p95 {fb[95]:.0f}); "
            f"on the wire {r['wire_bytes_per_player_action']} B "
            f"(compression {r['compression']})",
            f"≤ {TARGET_BYTES_PER_ACTION:.0f} B",
            verdict(bpa is not None and bpa <= TARGET_BYTES_PER_ACTION),
        ),
        (
            "idle bytes/s per player (countdown running)",
            (
                f"{idle['mean']} B/s mean, {idle['max']} max "
                f"({idle['tables_held']}/{idle['tables']} tables paused at a turn)"
            ),
            f"≤ {TARGET_IDLE_BPS:.0f} B/s",
            verdict(idle["mean"] is not None and idle["mean"] <= TARGET_IDLE_BPS),
        ),
        (
            "ssh connect → lobby painted p50 / p95",
            (
                f"{c[50] * 1000:.0f} / {c[95] * 1000:.0f} ms (max {r['connect_s_max'] * 1000:.0f}; "
                f"{args.connect_rate:g} logins/s, one table at a time)"
            ),
            f"≤ {TARGET_CONNECT_S * 1000:.0f} ms",
            verdict(c[95] <= TARGET_CONNECT_S),
        ),
        (
            "passphrase turn waits (left out above) p50 / p95",
            "{} / {} ms".format(*(f"{r['hash_turn_wait_s'][q] * 1000:.0f}" for q in (50, 95))),
            "(the bench's queue: one address for every player)",
            "",
        ),
    ]
    if r["probes"]:
        p = r["probe_connect_s"]
        rows.append(
            (
                "connect → lobby while tables play p50 / p95",
                f"{p[50] * 1000:.0f} / {p[95] * 1000:.0f} ms ({r['probes']} logins)",
                f"≤ {TARGET_CONNECT_S * 1000:.0f} ms",
                verdict(p[95] <= TARGET_CONNECT_S),
            )
        )
    w = [max(len(row[i]) for row in rows) for i in range(4)]
    if r["workers"] > 1:
        rows.append(
            (
                "server CPU seconds per process (largest first; the rooms process is the small one)",
                " / ".join(f"{c:g}" for c in r["server_cpu_s_by_process"]),
                "",
                "",
            )
        )
    head = (
        f"seotda load bench: --workers {r['workers']}, "
        f"{r['tables']} tables × {r['seats']} seats = {r['players']} "
        f"players, {r['size']}, {r['play_s']:.0f} s of play (think {r['think_s']:g} s), "
        f"setup {r['phase_s']['setup']} s (logins {r['phase_s']['login']} s)\n"
        f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}\n"
    )
    lines = [
        head,
        "  ".join(
            h.ljust(w[i]) for i, h in enumerate(("figure", "measured", "target", ""))
        ).rstrip(),
    ]
    lines.append("  ".join("-" * n for n in w))
    lines += ["  ".join(cell.ljust(w[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    if r["server_warnings"]:
        lines.append("\nserver warnings/errors (last 5):")
        lines += ["  " + line[:200] for line in r["server_warnings"]]
    if r["notes"]:
        lines.append("\nnotes:")
        lines += ["  " + n for n in r["notes"][:10]]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--tables", type=int, default=2, help="tables (default 2)")
    ap.add_argument("--seats", type=int, default=6, help="players per table (default 6)")
    ap.add_argument(
        "--duration",
        type=float,
        default=40,
        help="seconds of play, idle window included (default 40)",
    )
    ap.add_argument("--size", default="100x30", help="terminal COLSxROWS (default 100x30)")
    ap.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean seconds a player waits before pressing on its turn "
        "(uniform 0.5×–1.5×; default 1.0)",
    )
    ap.add_argument(
        "--idle", type=float, default=5.0, help="seconds of the idle window (default 5)"
    )
    ap.add_argument(
        "--connect-rate",
        type=float,
        default=25.0,
        help="new SSH logins per second while connecting/joining (default 25)",
    )
    ap.add_argument(
        "--probe-every",
        type=float,
        default=5.0,
        help="seconds between extra logins during play (0 = none; default 5)",
    )
    ap.add_argument(
        "--log",
        choices=("auto", "show"),
        default="auto",
        help="hand log: as the layout decides (auto, hidden below 110 columns) or "
        "shown with its key on every screen (show)",
    )
    ap.add_argument("--ping", type=float, default=0.15, help="chance of 3 삥 on a turn")
    ap.add_argument("--die", type=float, default=0.03, help="chance of 1 다이 on a turn")
    ap.add_argument(
        "--action-timeout",
        type=float,
        default=10.0,
        help="seconds after which a seat that has not shown an action counts it "
        "as missed (and slower than this in the percentiles; default 10)",
    )
    ap.add_argument("--seed", default="1")
    ap.add_argument(
        "--python",
        default=str(ROOT / ".venv" / "bin" / "python"),
        help="interpreter that runs the server (default .venv/bin/python)",
    )
    ap.add_argument(
        "--py-spy",
        metavar="FILE",
        help="record the server with py-spy during play (.svg flame graph, "
        ".json speedscope, anything else raw collapsed stacks)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument(
        "--workers",
        default="1",
        help="the server's --workers; a list (1,2) runs the bench for each, one after the "
        "other, and prints them side by side (default 1)",
    )
    ap.add_argument(
        "--transport",
        default="ssh",
        help="who plays: ssh (SSH clients), web (browsers: the --web-port WebSocket), or "
        "ssh,web: both, one fresh server after the other, printed side by side (default ssh)",
    )
    ap.add_argument(
        "--capacity",
        action="store_true",
        help="for each --workers value: the most players (tables × seats, from --tables up, "
        "doubling, then halving the step, up to --max-tables) at which p95 action → other "
        "screens stays ≤ 150 ms at this --think",
    )
    ap.add_argument(
        "--max-tables", type=int, default=80, help="where --capacity stops looking (default 80)"
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="--capacity: a size passes when most of this many runs of it pass (default 1)",
    )
    ap.add_argument(
        "--before",
        metavar="REV",
        help="also run the server of git revision REV (a worktree, its catalogues compiled), "
        "alternating with this tree's, and print both side by side",
    )
    ap.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="--before: how many before/after pairs to run, alternating (default 1)",
    )
    ap.add_argument(
        "--compress",
        action="store_true",
        help="clients ask for zlib@openssh.com compression (like ssh -C) and the server "
        "is started with --compression to offer it",
    )
    ap.add_argument(
        "--debug-misses",
        action="store_true",
        help="print the screens of seats that never showed an action",
    )
    ap.add_argument(
        "--server-log",
        metavar="FILE",
        help="append every line the server logs to FILE (its slow hub calls, with --workers)",
    )
    args = ap.parse_args(argv)
    if not Path(args.python).exists():
        args.python = sys.executable
    if args.seats < 2 or args.tables < 1:
        ap.error("need at least 1 table of 2 seats")
    try:
        args.worker_counts = [int(n) for n in str(args.workers).split(",")]
    except ValueError:
        ap.error("--workers takes a number or a list like 1,2")
    if any(n < 1 for n in args.worker_counts):
        ap.error("--workers must be ≥ 1")
    if args.before and args.capacity:
        ap.error("--before compares one size: leave out --capacity")
    if args.pairs < 1:
        ap.error("--pairs must be ≥ 1")
    args.workers = args.worker_counts[0]
    args.transports = str(args.transport).split(",")
    if any(t not in ("ssh", "web") for t in args.transports):
        ap.error("--transport takes ssh, web or ssh,web")
    if len(args.transports) > 1 and (args.before or args.capacity):
        ap.error(
            "--transport ssh,web compares one size of this tree: leave out --before/--capacity"
        )
    args.transport = args.transports[0]
    return args


def run_once(
    args: argparse.Namespace,
    workers: int,
    tables: int,
    tree: Path = ROOT,
    label: str = "",
    transport: str | None = None,
) -> dict[str, Any] | None:
    """One bench run (a fresh server from ``tree``) with these ``--workers`` and ``--tables``
    (and players over ``transport``, else ``--transport``'s first); its report is printed;
    None if it failed."""
    one = copy.copy(args)
    one.workers, one.tables, one.tree = workers, tables, tree
    one.transport = transport or args.transport
    if label:
        print(f"\n=== {label}", flush=True)
    bench = Bench(one)
    try:
        result = asyncio.run(bench.run())
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        if bench.server is not None:
            print("server log tail:\n" + "\n".join(bench.server.tail), file=sys.stderr)
        return None
    result["code"] = label or "this tree"
    print(report(result, one), flush=True)
    if args.debug_misses and bench.miss_log:
        print("\nmissed actions (first 5):", *bench.miss_log, sep="\n", file=sys.stderr)
    return result


def passes(result: dict[str, Any] | None) -> bool:
    return result is not None and result["other_ms"][95] <= TARGET_P95_MS


def capacity(args: argparse.Namespace, workers: int) -> tuple[int, list[dict[str, Any]]]:
    """The most tables that pass (0 if none does), and every run made: doubling from
    ``--tables`` to the first failure, then bisecting between the last pass and it, to one
    table or an eighth of the answer."""
    runs: list[dict[str, Any]] = []

    def ok(tables: int) -> bool:
        """Passes in most of ``--repeat`` runs (stopping once that is decided): one run's p95
        near the line moves by ±50 ms, so one run alone decides at random there."""
        passed = failed = 0
        while passed * 2 <= args.repeat and failed * 2 < args.repeat:
            result = run_once(args, workers, tables)
            if result is not None:
                runs.append(result)
            if passes(result):
                passed += 1
            else:
                failed += 1
        return bool(passed * 2 > args.repeat)

    good, bad, tables = 0, None, args.tables
    while tables <= args.max_tables:
        if not ok(tables):
            bad = tables
            break
        good = tables
        if tables == args.max_tables:
            break
        tables = min(tables * 2, args.max_tables)
    if bad is not None:
        while bad - good > max(1, good // 8):
            mid = (good + bad) // 2
            if ok(mid):
                good = mid
            else:
                bad = mid
    return good, runs


#: --capacity also runs (or reuses a run of) this many players, for its p95 row.
REFERENCE_PLAYERS = 300


def side_by_side(
    results: dict[int, dict[str, Any]],
    caps: dict[int, int],
    seats: int,
    reference: dict[int, dict[str, Any]] | None = None,
) -> str:
    """The issue's comparison: one column per --workers value."""
    names = sorted(results)
    rows = [("", *(f"--workers {n}" for n in names))]
    if caps:
        rows.append(("capacity (players at p95 ≤ 150 ms)", *(str(caps[n] * seats) for n in names)))
    if reference:
        rows.append(
            (
                "p95 at ~300 players (its own run)",
                *(
                    f"{reference[n]['other_ms'][95]:.0f} ms ({reference[n]['players']})"
                    if n in reference
                    else "-"
                    for n in names
                ),
            )
        )
    for label, get in (
        ("players in the run below", lambda r: str(r["players"])),
        ("p95 action → other screens", lambda r: f"{r['other_ms'][95]:.0f} ms"),
        ("server CPU per action", lambda r: f"{r['server_cpu_ms_per_action']} ms"),
        (
            "server CPU per idle session-second",
            lambda r: f"{r['server_cpu_ms_per_idle_session_s']} ms",
        ),
        ("server RSS end (all processes)", lambda r: f"{r['rss_mb_end']:.0f} MiB"),
        ("bench clients' CPU, play", lambda r: f"{r['client_cpu_pct']['play']} %"),
    ):
        rows.append((label, *(get(results[n]) for n in names)))
    w = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip() for row in rows)


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """A ``git worktree`` of ``rev`` with its message catalogues compiled (build outputs, not
    in git; as ``make i18n`` and every build do), removed afterwards."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    tree = Path(tempfile.mkdtemp(prefix="load-bench-before-")) / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(tree), rev],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    try:
        for po in (tree / "seotda_tui" / "locale").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as file:
                catalog = read_po(file, locale=po.parts[-3])
            with po.with_suffix(".mo").open("wb") as file:
                write_mo(file, catalog)
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
        shutil.rmtree(tree.parent, ignore_errors=True)


def short_rev(rev: str) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or rev


def before_and_after(args: argparse.Namespace, workers: int) -> list[dict[str, Any]]:
    """``--before REV``: ``--pairs`` runs of REV's server, each followed by one of this tree's,
    alternating in one session (the box's speed drifts: compare within a pair). Each side runs
    with this bench script, so both get the same script and the same limits."""
    before, after = f"before ({short_rev(args.before)})", f"after ({short_rev('HEAD')}+tree)"
    runs: list[dict[str, Any]] = []
    with checkout(args.before) as tree:
        for pair in range(1, args.pairs + 1):
            for tree_, label in ((tree, before), (ROOT, after)):
                result = run_once(args, workers, args.tables, tree_, f"{label}, pair {pair}")
                if result is not None:
                    runs.append(result)
    return runs


def compare(runs: list[dict[str, Any]]) -> str:
    """The figures of alternating runs side by side, CPU time beside wall time."""
    rows = [("", *(r["code"] for r in runs))]
    figures: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("players", lambda r: str(r["players"])),
        (
            "action → other screens p50 / p95 / p99",
            lambda r: "{} / {} / {} ms".format(*(f"{r['other_ms'][q]:.0f}" for q in (50, 95, 99))),
        ),
        ("actions timed (missed)", lambda r: f"{r['actions']} ({r['missed']})"),
        (
            "server CPU per betting action (net)",
            lambda r: (
                f"{r['server_cpu_ms_per_action']} ms ({r['server_cpu_ms_per_action_net']} ms)"
            ),
        ),
        ("server CPU per login", lambda r: f"{r['server_cpu_ms_per_login']} ms"),
        (
            "server CPU per idle session-second",
            lambda r: f"{r['server_cpu_ms_per_idle_session_s']} ms",
        ),
        ("server CPU %, play", lambda r: f"{r['server_cpu_pct']['play']} %"),
        (
            "server CPU s / wall s, play",
            lambda r: f"{r.get('server_cpu_s_play', '-')} / {r['play_s']} s",
        ),
        (
            "connect → lobby p50 / p95",
            lambda r: "{} / {} ms".format(*(f"{r['connect_s'][q] * 1000:.0f}" for q in (50, 95))),
        ),
        ("server RSS end", lambda r: f"{r['rss_mb_end']:.0f} MiB"),
        (
            "server RSS per session (above its start)",
            lambda r: f"{r.get('rss_kb_per_session', '-')} KiB",
        ),
        ("bytes per player per action", lambda r: str(r.get("bytes_per_player_action", "-"))),
        ("other processes, CPU % play", lambda r: f"{r['other_cpu_pct']['play']} %"),
    ]
    for label, get in figures:
        rows.append((label, *(get(r) for r in runs)))
    w = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(row)).rstrip() for row in rows)


#: The bench's own GC, as the server's (seotda_tui.cli.process.GC_THRESHOLDS): with the defaults its
#: 300 pyte screens made full collections of 0.3-0.8 s during play, which the bench counted as
#: the server's latency.
CLIENT_GC_THRESHOLDS = (10_000, 10, 1000)


def quiet_client_gc() -> None:
    """Before play: what setup made (screens, connections) leaves the collected generations."""
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    gc.set_threshold(*CLIENT_GC_THRESHOLDS)
    results: dict[int, dict[str, Any]] = {}
    caps: dict[int, int] = {}
    reference: dict[int, dict[str, Any]] = {}
    if args.before:
        compared: list[dict[str, Any]] = []
        for workers in args.worker_counts:
            runs = before_and_after(args, workers)
            compared += runs
            if runs:
                print(f"\n--workers {workers}:\n" + compare(runs), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(compared, ensure_ascii=False, indent=2))
        return 0 if len(compared) == 2 * args.pairs * len(args.worker_counts) else 1
    if len(args.transports) > 1:  # the same size over each transport, side by side
        runs = []
        for workers in args.worker_counts:
            for transport in args.transports:
                label = f"{transport}, --workers {workers}"
                result = run_once(args, workers, args.tables, label=label, transport=transport)
                if result is not None:
                    runs.append(result)
        if runs:
            print("\n" + compare(runs), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(runs, ensure_ascii=False, indent=2))
        return 0 if len(runs) == len(args.transports) * len(args.worker_counts) else 1
    for workers in args.worker_counts:
        if args.capacity:
            caps[workers], runs = capacity(args, workers)
            # the figures of the largest run that passed (else the first run)
            passed = [r for r in runs if passes(r)]
            if passed or runs:
                results[workers] = max(passed, key=lambda r: r["players"]) if passed else runs[0]
            tables = max(1, REFERENCE_PLAYERS // args.seats)
            made = [r for r in runs if r["players"] == tables * args.seats]
            again = made[0] if made else run_once(args, workers, tables)
            if again is not None:
                reference[workers] = again
        else:
            result = run_once(args, workers, args.tables)
            if result is not None:
                results[workers] = result
    if len(results) < len(args.worker_counts):
        return 1
    if len(results) > 1 or caps:
        print("\n" + side_by_side(results, caps, args.seats, reference))
    if args.json:
        every = results if len(results) > 1 else next(iter(results.values()))
        Path(args.json).write_text(json.dumps(every, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
