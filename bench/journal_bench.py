"""The cost of "journal before anyone sees it": per action, what the room manager adds.

Every engine change of a journaled game is snapshotted (``game.to_dict()``), applied, then
written (one SQLite transaction, WAL, ``synchronous=FULL``); only a failed write restores the
snapshot (``Game.from_dict``). Prints figures, asserts nothing::

    .venv/bin/python bench/journal_bench.py [players ...]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game, Options  # noqa: E402
from seotda_tui.rooms.journal import GameRecord, Journal  # noqa: E402


def mid_hand_games(players: int, count: int = 200) -> list[tuple[Game, str, dict[str, object]]]:
    """Games a few random actions into a hand, each with the next action to apply."""
    rng = random.Random(players)
    out = []
    for seed in range(count):
        game = Game.new(Options(), [f"p{i}" for i in range(players)], seed)
        for _ in range(rng.randrange(0, players)):
            pid = game.pending()["players"][0]
            kinds = [a["type"] for a in game.legal_actions(pid)]
            game.apply(pid, {"type": "call" if "call" in kinds else kinds[0]})
        pid = game.pending()["players"][0]
        kinds = [a["type"] for a in game.legal_actions(pid)]
        out.append((game, pid, {"type": "call" if "call" in kinds else kinds[0]}))
    return out


def per_call(fn: object, items: list[object]) -> float:
    start = time.perf_counter()
    for item in items:
        fn(item)  # type: ignore[operator]
    return (time.perf_counter() - start) / len(items) * 1e6


def main() -> None:
    for players in [int(a) for a in sys.argv[1:]] or [2, 6, 10]:
        games = mid_hand_games(players)
        snaps = [g.to_dict() for g, _, _ in games]
        snapshot = per_call(lambda t: t[0].to_dict(), games)  # type: ignore[index]
        restore = per_call(Game.from_dict, snaps)  # type: ignore[arg-type]
        apply = per_call(lambda t: t[0].apply(t[1], t[2]), games)  # type: ignore[index]
        print(
            f"{players:2d} players: apply {apply:6.1f} µs, snapshot (to_dict) {snapshot:6.1f} µs,"
            f" restore on a failed write (from_dict) {restore:6.1f} µs"
        )
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "g.sqlite3")
        journal.start_game(GameRecord("r-1", "방", "p0", Options(), "s", ["p0", "p1"], {}))
        writes = per_call(lambda _: journal.record("r-1", "p0", {"type": "call"}), list(range(300)))
        journal.close()
    print(f"one journal write (WAL, synchronous=FULL, {tmp}): {writes:8.1f} µs")


if __name__ == "__main__":
    main()
