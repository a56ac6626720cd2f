"""What three uses of Textual internals buy, each against its public way, in one run.

Why: the developer guide keeps third-party internals in ``seotda_tui/tuning/`` only where
they buy something measured (BENCHMARKS.md, "Textual internals and their public ways").

* Input: ``textual._xterm_parser.XTermParser`` (``tuning/xterm_parser.py``, on) against
  ``PublicParser`` (its fallback), fed what sessions send: typed chat (Hangul and ASCII, a
  read a key), betting keys, arrows, a paste, mouse moves and clicks. Each read goes through a
  fresh parser per session (``--sessions``), as the driver does.
* Wrapping: ``ui/present/fit.py``'s row count, once by ``textual._wrap`` (before) and now by the
  public ``Content.wrap``, alone and behind fit.py's memo (what the table calls), over the
  texts of a table's own-hand box at the widths of 80 to 200 columns.
* Line measures: ``tuning/measure_later.py`` (a ``Line`` whose new text keeps its height forgets
  its cached measures, no layout) against its fallback, ``refresh(layout=True)`` (forced by
  making ``tuning.enabled("measure_later")`` answer False). ``--hands`` hands at a table of
  ``--players`` through the in-process harness (``seotda_tui.testing.Table``), one action at a
  time, every app settled (and painted) after each, at 80×24 (hand log hidden) and 120×30
  (shown): screen layouts (``Screen._refresh_layout``) per action over every seat's screen and
  the CPU spent in them, and the whole CPU and wall per action (wall: mostly the harness's
  waits for idle). The same seeded game on both sides. At 120×30 it also gives what
  each seat's hand log keeps to re-wrap its lines (``HandLog._written``, deep ``getsizeof``).

Wall (``perf_counter``) and CPU (``process_time``) per item, best of ``--rounds`` alternating
rounds (the table: every run's figures, on and off alternating ``--table-rounds`` times,
after a warm-up hand).

    .venv/bin/python bench/internals_bench.py [--rounds N] [--hands N (0: no table)]
        [--players N] [--table-rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from textual._wrap import compute_wrap_offsets
from textual._xterm_parser import XTermParser
from textual.content import Content
from textual.screen import Screen

from seotda_tui import tuning
from seotda_tui.rooms import RoomError
from seotda_tui.testing import Table
from seotda_tui.tuning.xterm_parser import PublicParser
from seotda_tui.ui.present import fit
from seotda_tui.ui.widgets.handlog import HandLog

#: One session's input in reads (what a player's terminal sends, a key or a paste a read).
READS = (
    list("안녕하세요 반가워요 ok gg")
    + ["\r", "3", "4", "\x1b[A", "\x1b[B", "\t", "\x1b[Z", "t"]
    + ["\x1b[200~붙여넣은 한 줄입니다 hello\x1b[201~", "\r"]
    + [f"\x1b[<35;{x};10M" for x in range(5, 25)]
    + ["\x1b[<0;12;10M", "\x1b[<0;12;10m", "\x1b[I", "\x1b[O"]
)

#: The own-hand box's texts (ui/present/table.py): the first-hand tip, a hand, hints.
TEXTS = (
    fit.TIP_SEPARATOR.join(["처음이세요? ? 족보·규칙", "1~8 베팅", "t 채팅", "l 기록"]),
    "가나다라마바사아자 (선) 38광땡 · 이길 수 있는 패: 없음",
    "",
    "9 새 판 준비 · 한 번 더 누르면 취소해요",
    "영희 승리 +1,200칩 (메인) 철수 승리 +300칩 (사이드)",
)
WIDTHS = (24, 38, 56, 78)


def timed(run: Callable[[], int], rounds: int) -> tuple[float, float]:
    """Best wall and CPU seconds per item over ``rounds`` (``run`` returns its item count)."""
    best_wall = best_cpu = float("inf")
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        items = run()
        best_wall = min(best_wall, (time.perf_counter() - wall) / items)
        best_cpu = min(best_cpu, (time.process_time() - cpu) / items)
    return best_wall, best_cpu


def parse_all(make: Callable[[], object], sessions: int) -> Callable[[], int]:
    def run() -> int:
        for _ in range(sessions):
            parser = make()
            for data in READS:
                for _message in parser.feed(data):  # type: ignore[attr-defined]
                    pass
        return sessions * len(READS)

    return run


def rows_by(count: Callable[[str, int], int], repeat: int) -> Callable[[], int]:
    def run() -> int:
        for _ in range(repeat):
            for width in WIDTHS:
                for text in TEXTS:
                    count(text, width)
        return repeat * len(WIDTHS) * len(TEXTS)

    return run


def private_rows(text: str, width: int) -> int:
    return len(compute_wrap_offsets(text, width, tab_size=8)) + 1


def public_rows(text: str, width: int) -> int:
    return len(Content(text).wrap(width))


PLAYERS = ("영희", "철수", "민수", "지영", "동수", "수진", "현우", "지민")
TABLE_SIZES = ((80, 24), (120, 30))


@contextlib.contextmanager
def measure_later_off() -> Iterator[None]:
    """``Line`` takes its fallback (``refresh(layout=True)``), as with ``stock_textual``."""
    enabled = tuning.enabled
    tuning.enabled = lambda name: name != "measure_later" and enabled(name)
    try:
        yield
    finally:
        tuning.enabled = enabled


@contextlib.contextmanager
def counting_layouts() -> Iterator[list[float]]:
    """Counts screen layouts, every app's (where ``tests/test_repaint.py`` counts them), and
    the CPU seconds spent in them: [count, seconds]."""
    count = [0.0, 0.0]
    original = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        start = time.process_time()
        try:
            original(self, *args, **kwargs)
        finally:
            count[0] += 1
            count[1] += time.process_time() - start

    Screen._refresh_layout = counted  # type: ignore[method-assign]
    try:
        yield count
    finally:
        Screen._refresh_layout = original  # type: ignore[method-assign]


def kept_bytes(log: HandLog) -> tuple[int, int]:
    """What a hand log keeps to write its lines again at a new width: entries, and the bytes
    of every object reachable from them (each once; the shared empty tuple not counted)."""
    seen: set[int] = {id(())}
    size = 0
    todo: list[object] = list(log._written)
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        size += sys.getsizeof(item)
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, tuple | list | set | frozenset):
            todo.extend(item)
        elif not isinstance(item, str | int | float | bool | type(None)):
            todo.extend(getattr(item, "__dict__", {}).values())
            todo.extend(
                getattr(item, n) for n in getattr(item, "__slots__", ()) if hasattr(item, n)
            )
    return len(log._written), size


async def play(size: tuple[int, int], players: int, hands: int) -> dict[str, float]:
    """``hands`` hands, one action at a time, every app settled after each."""
    async with Table.open(PLAYERS[:players], seed=3, size=size) as t:
        with counting_layouts() as layouts:
            actions = refused = 0
            wall, cpu = time.perf_counter(), time.process_time()
            while t.game.hands_played < hands:
                step = t.next_action()
                if step is None:
                    break
                try:
                    await t.act(*step)
                except RoomError:  # (as play_until: a refused default is tried again, briefly)
                    refused += 1
                    if refused > 20:
                        raise
                    continue
                actions, refused = actions + 1, 0
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        kept = [kept_bytes(t.screen(nick).query_one(HandLog)) for nick in t.apps]
    return {
        "hands": t.game.hands_played,
        "actions": actions,
        "layouts": layouts[0] / actions,
        "layout_ms": layouts[1] / actions * 1e3,
        "wall_ms": wall / actions * 1e3,
        "cpu_ms": cpu / actions * 1e3,
        "log_entries": max(n for n, _ in kept),
        "log_bytes": max(b for _, b in kept),
    }


async def line_measures(rounds: int, players: int, hands: int) -> None:
    print(
        f"\nLine measures: measure_later (on) vs refresh(layout=True) (off), {players} players, "
        f"{hands} hands, per action (layouts: every seat's screen, and the CPU in them)"
    )
    await play(TABLE_SIZES[0], players, 1)  # warm-up: the first table parses the styles
    for size in TABLE_SIZES:
        for round_ in range(rounds):
            for label in ("on", "off") if round_ % 2 == 0 else ("off", "on"):
                with measure_later_off() if label == "off" else contextlib.nullcontext():
                    r = await play(size, players, hands)
                log = (
                    f"   log keeps {r['log_entries']:.0f} entries, {r['log_bytes'] / 1024:.1f} KiB"
                    if r["log_entries"]
                    else ""
                )
                print(
                    f"  {size[0]}x{size[1]} {label:3}  {r['actions']:.0f} actions"
                    f"  layouts {r['layouts']:5.2f} ({r['layout_ms']:4.1f} ms CPU)"
                    f"  CPU {r['cpu_ms']:6.1f} ms"
                    f"  wall {r['wall_ms']:6.1f} ms{log}"
                )


def report(name: str, results: dict[str, tuple[float, float]]) -> None:
    print(f"\n{name}")
    for label, (wall, cpu) in results.items():
        print(f"  {label:<42} wall {wall * 1e6:8.2f} µs   CPU {cpu * 1e6:8.2f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--hands", type=int, default=8, help="hands a table plays (0: none)")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--table-rounds", type=int, default=2, help="on/off pairs per size")
    args = parser.parse_args()
    parsing: dict[str, list[tuple[float, float]]] = {"XTermParser": [], "PublicParser": []}
    wrapping: dict[str, list[tuple[float, float]]] = {
        "textual._wrap (before)": [],
        "Content.wrap (public, no memo)": [],
        "Content.wrap behind fit's memo (now)": [],
    }
    for _ in range(args.rounds):  # alternating, so both meet the same load on the box
        parsing["XTermParser"].append(
            timed(parse_all(lambda: XTermParser(debug=False), args.sessions), 1)
        )
        parsing["PublicParser"].append(timed(parse_all(PublicParser, args.sessions), 1))
        wrapping["textual._wrap (before)"].append(timed(rows_by(private_rows, args.repeat), 1))
        wrapping["Content.wrap (public, no memo)"].append(
            timed(rows_by(public_rows, args.repeat), 1)
        )
        wrapping["Content.wrap behind fit's memo (now)"].append(
            timed(rows_by(fit.wrapped_rows, args.repeat), 1)
        )
    report(
        f"Input parsing, per read ({len(READS)} reads a session, {args.sessions} sessions)",
        {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in parsing.items()},
    )
    report(
        f"Wrapped rows of one line ({len(TEXTS)} texts × widths {WIDTHS})",
        {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in wrapping.items()},
    )
    if args.hands:
        asyncio.run(line_measures(args.table_rounds, args.players, args.hands))


if __name__ == "__main__":
    main()
