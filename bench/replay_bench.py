"""Opening a replay (issue #18: a 50-hand game under 200 ms): journal read + rebuild + views.

Journals one seeded 50-hand game per player count (random legal actions, mostly calls, so
hands reach the showdown), then times what Enter in the history list does — read the game,
replay it (:meth:`GameHistory.replay`), build the first frame's view — for a player and for a
spectator; the list query; and, for comparison, building every frame's view. Prints figures, asserts nothing::

    .venv/bin/python bench/replay_bench.py [players ...]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game, Options  # noqa: E402
from seotda_tui.rooms.history import GameHistory  # noqa: E402
from seotda_tui.rooms.journal import GameRecord, Journal  # noqa: E402

OPTIONS = Options(end_condition="hands", hand_limit=50, starting_chips=5000)
RUNS = 15


def journal_game(journal: Journal, key: str, players: list[str], seed: int) -> int:
    """Play and journal one game to its end; returns how many actions it took."""
    journal.start_game(GameRecord(key, "벤치", players[0], OPTIONS, str(seed), players, {}))
    game = Game.new(OPTIONS, players, str(seed))
    rng = random.Random(seed)
    actions = 0
    while not game.finished:
        waiting = game.pending()["players"]
        if not waiting:
            game.timeout()
            journal.record(key, None, {})
            actions += 1
            continue
        nick = waiting[0]
        legal = game.legal_actions(nick)
        calm = [a for a in legal if a["type"] in ("check", "call", "ready", "choose", "rejoin")]
        pick = rng.choice(calm if calm and rng.random() < 0.8 else legal)
        action: dict[str, object] = {"type": pick["type"]}
        if pick["type"] == "choose":
            seat = next(s for s in game.view(nick)["seats"] if s["id"] == nick)
            action["cardIds"] = [c["id"] for c in seat["cards"]][:2]  # type: ignore[typeddict-item]
        if "accept" in pick:
            action["accept"] = pick["accept"]
        game.apply(nick, action)  # type: ignore[arg-type]
        journal.record(key, nick, action)
        actions += 1
    journal.finish(key, game.result())
    return actions


def opened(history: GameHistory, key: str, nick: str) -> None:
    """What Enter in the list does: read and replay the game, draw its first frame's view."""
    replay = history.replay(key, nick)
    assert replay is not None
    replay.view(0)


def every_view(history: GameHistory, key: str) -> None:
    replay = history.replay(key, "p0")
    assert replay is not None
    for i in range(len(replay.frames)):
        replay.view(i)


def ms(fn: object) -> tuple[float, float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    counts = [int(a) for a in sys.argv[1:]] or [2, 4, 6]
    print(f"opening a replay, {OPTIONS.hand_limit}-hand games (target < 200 ms), {RUNS} runs")
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "games.sqlite3")
        history = GameHistory(journal)
        for n in counts:
            players = [f"p{i}" for i in range(n)]
            key = f"bench{n}-1"
            actions = journal_game(journal, key, players, seed=n)
            journal.watched(key, "watcher")
            replay = history.replay(key, "p0")
            assert replay is not None
            player = ms(lambda: opened(history, key, "p0"))  # noqa: B023
            spectator = ms(lambda: opened(history, key, "watcher"))  # noqa: B023
            every = ms(lambda: every_view(history, key))  # noqa: B023
            listing = ms(lambda: history.games("p0"))
            print(
                f"{n} players: {actions} actions, {len(replay.frames)} frames, "
                f"{len(replay.hand_starts)} hands/rematches | player {player[0]:.1f} ms "
                f"(max {player[1]:.1f}) | spectator {spectator[0]:.1f} ms | "
                f"list {listing[0]:.2f} ms | open + every frame's view {every[0]:.1f} ms"
            )
        journal.close()


if __name__ == "__main__":
    main()
