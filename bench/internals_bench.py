"""What two uses of Textual internals buy, each against its public way, in one run.

Why: the developer guide keeps third-party internals in ``seotda_tui/tuning/`` only where
they buy something measured (BENCHMARKS.md, "Textual internals and their public ways").

* Input: ``textual._xterm_parser.XTermParser`` (``tuning/xterm_parser.py``, on) against
  ``PublicParser`` (its fallback), fed what sessions send: typed chat (Hangul and ASCII, a
  read a key), betting keys, arrows, a paste, mouse moves and clicks. Each read goes through a
  fresh parser per session (``--sessions``), as the driver does.
* Wrapping: ``ui/present/fit.py``'s row count, once by ``textual._wrap`` (before) and now by the
  public ``Content.wrap``, alone and behind fit.py's memo (what the table calls), over the
  texts of a table's own-hand box at the widths of 80 to 200 columns.

Wall (``perf_counter``) and CPU (``process_time``) per item, best of ``--rounds`` alternating
rounds.

    .venv/bin/python bench/internals_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from textual._wrap import compute_wrap_offsets
from textual._xterm_parser import XTermParser
from textual.content import Content

from seotda_tui.tuning.xterm_parser import PublicParser
from seotda_tui.ui.present import fit

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


def report(name: str, results: dict[str, tuple[float, float]]) -> None:
    print(f"\n{name}")
    for label, (wall, cpu) in results.items():
        print(f"  {label:<42} wall {wall * 1e6:8.2f} µs   CPU {cpu * 1e6:8.2f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=200)
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


if __name__ == "__main__":
    main()
