"""Issue 36 땡값 in the records: a finished game's 땡값, paid and received (chips and hands),
is counted per player through the room manager, kept in the records file (schema version 2,
migrated from version 1 with the old rows kept) and shown on the records screen in both
languages."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from engine import Game, Options
from engine.dealing import StackedDeck
from seotda_tui import i18n, tuning
from seotda_tui.migrations import migrate
from seotda_tui.rooms import RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Entry, Journal
from seotda_tui.rooms.records import GameRecords, GameTally
from seotda_tui.rooms.records_db import (
    MIGRATIONS,
    SCHEMA_VERSION,
    GameRecord,
    PlayerResult,
    RecordStore,
    TtaengTotals,
)
from seotda_tui.testing import card, screen_text
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.records import RecordsScreen

PLAYERS = ("a", "b", "c")
#: Hand 1: a's 5땡 beats b's 알리 at the showdown; c (망통) dies and owes a one school.
FIRST_HAND = {"a": ["5열", "5띠"], "b": ["1광", "2열"], "c": ["2띠", "8일"]}
OPTIONS = Options(deal_mode="oneRound", ttaeng_value="school", hand_limit=10)


def play_ttaeng_game(tmp_path: Path) -> tuple[RoomManager, str, list[dict[str, Any]]]:
    """A finished game of ``OPTIONS`` among three registered players: in hand 1 c dies and a's
    5땡 wins; afterwards nobody dies (checks and calls). Returns the manager, the game's key and
    every ``ttaengValue`` event the players were sent."""
    deck = StackedDeck()
    deck.rig({p: [card(c) for c in cs] for p, cs in FIRST_HAND.items()}, hand=1)
    clock = FakeClock(1000.0)
    records = GameRecords(RecordStore(tmp_path / "records.sqlite3"), set(PLAYERS).__contains__)
    m = RoomManager(
        clock=clock,
        seed_source=lambda: "ttaeng-records",
        records=records,
        deal=deck,
    )
    room = m.create_room("a", "땡값 방", OPTIONS)
    for nick in PLAYERS[1:]:
        m.join(room.id, nick)
    paid: list[dict[str, Any]] = []

    def note(update: RoomUpdate) -> None:
        paid.extend(dict(e) for e in update.events if e["type"] == "ttaengValue")

    m.subscribe_room(room.id, "b", note)
    m.start(room.id, "a")
    for _ in range(2000):
        game = m.live_game(room.id)
        if game is None or game.finished:
            break
        view = game.view(None)
        actor = view.get("actor")
        if actor is None:
            clock.advance(1.0)  # the hand-end wait, the next deal
            continue
        kinds = [a["type"] for a in game.legal_actions(actor)]
        dies = view["handNo"] == 1 and actor == "c"
        pick = "die" if dies else next(k for k in ("check", "call", *kinds) if k in kinds)
        m.act(room.id, actor, {"type": pick})
    assert m.room(room.id).status == "finished"
    return m, f"{room.id}-1", paid


def test_a_ttaeng_win_is_counted_in_every_players_record(tmp_path: Path) -> None:
    m, key, paid = play_ttaeng_game(tmp_path)
    (payment,) = paid  # hand 1's, the only one: nobody dies afterwards
    assert (payment["player"], payment["winner"], payment["amount"]) == ("c", "a", 10)
    expected = {
        "a": TtaengTotals(received=10, received_hands=1),
        "b": TtaengTotals(),
        "c": TtaengTotals(paid=10, paid_hands=1),
    }
    assert m.records is not None
    for player, totals in expected.items():
        record = m.records.player(player)
        assert record is not None and record.games == 1, player
        assert record.ttaeng == totals, player
    db = sqlite3.connect(tmp_path / "records.sqlite3")
    rows = {
        row[0]: TtaengTotals(*row[1:])
        for row in db.execute(
            "SELECT r.player, r.ttaeng_paid, r.ttaeng_paid_hands, r.ttaeng_received,"
            " r.ttaeng_received_hands FROM results r JOIN games g ON g.id = r.game_id"
            " WHERE g.game_key = ?",
            (key,),
        )
    }
    db.close()
    assert rows == expected
    m.close()


async def test_the_records_screen_shows_the_ttaeng_value_in_both_languages(
    tmp_path: Path,
) -> None:
    """At 80×24 the winner's and the payer's own record add a 땡값 line; a player who neither
    paid nor received any (b) gets none."""
    tuning.install()
    m, _key, _paid = play_ttaeng_game(tmp_path)
    cases = (
        ("ko", "a", "땡값: 받음 +10칩 (1번) · 냄 −0칩 (0번)"),
        ("ko", "c", "땡값: 받음 +0칩 (0번) · 냄 −10칩 (1번)"),
        ("en", "a", "Ttaeng bonus: received +10 chips (1×) · paid −0 chips (0×)"),
        ("en", "c", "Ttaeng bonus: received +0 chips (0×) · paid −10 chips (1×)"),
        ("ko", "b", None),
        ("en", "b", None),
    )
    for lang, nick, line in cases:
        session = SimpleNamespace(language=i18n.Language(lang))
        app = make_app_factory(m)(SimpleNamespace(nickname=nick), session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for _ in range(5):  # the finished game's results, then the table: back to the lobby
                if isinstance(app.screen, LobbyScreen):
                    break
                await pilot.press("q")
                await pilot.pause()
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, RecordsScreen)
            text = screen_text(app)
            lines = text.splitlines()
            assert len(lines) == 24 and ("Esc" in lines[-1]), text
            if line is None:
                assert "땡값" not in text and "Ttaeng bonus" not in text, text
            else:
                assert line in text, text
                assert line in [x.strip() for x in lines], text  # a line of its own
    m.close()


def version_1_file(path: Path) -> None:
    """A records file as the release before 땡값 wrote it: schema version 1, one game."""
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, path, MIGRATIONS[:1])
    db.execute("INSERT INTO games VALUES (1, 'old-1', 500.0, 2, 12, 'hands')")
    for row in (
        (1, "a", 1, 2, 1000, 1400, 0, 12, 7, 1000, "장땡", 1, 0, 2, "[1000, 1400]", 500.0),
        (1, "c", 2, 2, 1000, 600, 0, 12, 5, 30, "3끗", 0, 1, 2, "[1000, 600]", 500.0),
    ):
        db.execute(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row
        )
    for totals in (
        ("a", 1, 1, 7, 400, 0, 1000, "장땡", 1, 0, 2, 1, 1016.0),
        ("c", 1, 0, 5, 0, 400, 30, "3끗", 0, 1, 2, 2, 984.0),
    ):
        db.execute("INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", totals)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()


def test_a_version_1_file_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    version_1_file(path)
    db = sqlite3.connect(path)
    before_results = db.execute("SELECT * FROM results ORDER BY player").fetchall()
    before_players = db.execute("SELECT * FROM players ORDER BY player").fetchall()
    db.close()
    store = RecordStore(path)
    assert SCHEMA_VERSION == 2
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    # every old value kept, the four 땡값 columns appended as zero
    after_results = db.execute("SELECT * FROM results ORDER BY player").fetchall()
    after_players = db.execute("SELECT * FROM players ORDER BY player").fetchall()
    assert after_results == [(*row, 0, 0, 0, 0) for row in before_results]
    assert after_players == [(*row, 0, 0, 0, 0) for row in before_players]
    db.close()
    old = store.player("a")
    assert old is not None
    assert (old.games, old.wins, old.hands_won, old.chips_won, old.best_name, old.rating) == (
        1, 1, 7, 400, "장땡", 1016.0
    )  # fmt: skip
    assert old.ttaeng == TtaengTotals()
    assert [g.history for g in store.recent("c")] == [(1000, 600)]
    # a game after the upgrade adds its 땡값 to the old totals
    store.add_games([
        GameRecord("new-1", 900.0, 10, "hands", {"a": 2, "c": 1}, (
            PlayerResult("a", 2, 1000, 990, 0, 10, 3, 905, "5땡", 0, 0, 0, (1000, 990),
                         TtaengTotals(paid=20, paid_hands=2)),
            PlayerResult("c", 1, 1000, 1010, 0, 10, 4, 1000, "장땡", 0, 0, 0, (1000, 1010),
                         TtaengTotals(received=20, received_hands=1)),
        ))
    ])  # fmt: skip
    a, c = store.player("a"), store.player("c")
    assert a is not None and c is not None
    assert (a.games, a.ttaeng) == (2, TtaengTotals(paid=20, paid_hands=2))
    assert (c.games, c.wins, c.ttaeng) == (2, 1, TtaengTotals(received=20, received_hands=1))
    assert [json.loads(json.dumps(g.history)) for g in store.recent("c")] == [
        [1000, 1010], [1000, 600]
    ]  # fmt: skip
    store.close()
    again = RecordStore(path)  # opened again: no migration runs twice
    assert again.player("c") == c
    again.close()


def test_a_second_process_reads_the_ttaeng_value_the_first_writes(tmp_path: Path) -> None:
    """``--workers N``: the rooms process writes the records (its manager counts the games)
    and each worker reads the same file through its own connection; whichever opens an old
    file first migrates it, the other finds it at the new version."""
    path = tmp_path / "records.sqlite3"
    version_1_file(path)
    worker, rooms = RecordStore(path), RecordStore(path)  # (the worker happened to be first)
    rooms.add_games([
        GameRecord("g-2", 600.0, 10, "hands", {"a": 1, "c": 2}, (
            PlayerResult("c", 2, 1000, 980, 0, 10, 1, 30, "3끗", 0, 0, 0, (1000, 980),
                         TtaengTotals(paid=10, paid_hands=1)),
        ))
    ])  # fmt: skip
    seen = worker.player("c")
    assert seen is not None and seen.games == 2
    assert seen.ttaeng == TtaengTotals(paid=10, paid_hands=1)
    worker.close()
    rooms.close()


async def test_a_full_records_screen_with_the_ttaeng_line_still_fits_80x24(tmp_path: Path) -> None:
    """Five recent games, both boards full and the third own line: all of it shows, the
    keys line last (as test_records' full screen, one line more)."""
    from dataclasses import replace

    from seotda_tui.ui.screens.records import BOARD, RECENT

    from .test_records import (
        board_games,
        board_names,
        filled_records,
        records_screen_lines,
        result_row,
    )

    tuning.install()
    recs = filled_records(tmp_path)
    names = board_names()
    recs.store.add_games(
        board_games(
            names,
            lambda i: replace(
                result_row("철수", 1 + i % 2, 1000), ttaeng=TtaengTotals(20, 1, 40 * i, 2)
            ),
        )
    )
    lines = await records_screen_lines(recs)
    assert len(lines) == 24 and "Esc 닫기" in lines[-1], lines
    total = sum(40 * i for i in range(len(names) * 3))
    own = f"땡값: 받음 +{total:,}칩 ({2 * len(names) * 3}번) · 냄 −{20 * len(names) * 3}칩"
    assert any(x.strip().startswith(own) for x in lines), lines
    assert sum("위/2명" in x for x in lines) == RECENT
    last_rows = [x for x in lines if x.lstrip().startswith(f"{BOARD}  ")]
    assert len(last_rows) == 1 and len(last_rows[0].split(f"{BOARD}  ")) == 3, lines


def journaled(path: Path, key: str) -> tuple[Options, str, list[str], list[Entry]]:
    """A journaled game's options, seed, players and log (as a resumed room reads them)."""
    db = sqlite3.connect(path)
    options, seed, players = db.execute(
        "SELECT options, seed, players FROM games WHERE room_id = ?", (key,)
    ).fetchone()
    log: list[Entry] = [
        (player, json.loads(action))
        for player, action in db.execute(
            "SELECT player, action FROM actions WHERE room_id = ? ORDER BY seq", (key,)
        )
    ]
    db.close()
    return Options.from_dict(json.loads(options)), seed, json.loads(players), log


def engine_ttaeng(
    options: Options, seed: str, players: list[str], log: list[Entry]
) -> dict[str, TtaengTotals]:
    """What the engine paid in 땡값, per seat, replaying the log step by step."""
    game = Game.new(options, players, seed)
    paid: dict[str, dict[int, int]] = {p: {} for p in game.players}
    got: dict[str, dict[int, int]] = {p: {} for p in game.players}
    hand = 0
    steps = [list(game.last_events)]
    for player, action in log:
        steps.append(list(game.timeout() if player is None else game.apply(player, action)))
    for events in steps:
        for e in events:
            if e["type"] == "handStart":
                hand = e["handNo"]
            elif e["type"] == "ttaengValue":
                paid[e["player"]][hand] = paid[e["player"]].get(hand, 0) + e["amount"]
                got[e["winner"]][hand] = got[e["winner"]].get(hand, 0) + e["amount"]
    return {
        p: TtaengTotals(sum(paid[p].values()), len(paid[p]), sum(got[p].values()), len(got[p]))
        for p in game.players
    }


def test_random_games_record_the_ttaeng_value_the_engine_paid(tmp_path: Path) -> None:
    """Seeded random play (test_records' people: they die, call and time out) with
    ``ttaengValue=double``: each registered player's recorded 땡값 is what the engine's own
    replay of the journal paid, and so is the tally a resumed room counts again from it."""
    from .test_records import Person, play_out

    # (verifiable deals pinned: the seeds below are chosen for the deals they give with it)
    options = Options(
        hand_limit=10, rebuy="unlimited", ttaeng_value="double", verifiable_deals=True
    )
    clock = FakeClock()
    seeds = iter(["t1", "t2"])
    journal = tmp_path / "games.sqlite3"
    registered = {"철수", "영희"}
    m = RoomManager(
        clock=clock,
        seed_source=lambda: next(seeds),
        journal=Journal(journal),
        records=GameRecords(RecordStore(tmp_path / "records.sqlite3"), registered.__contains__),
    )
    for nick in ("철수", "영희", "손님"):
        m.session_connected(nick)
    room = m.create_room("철수", "땡값", options)
    m.join(room.id, "영희")
    m.join(room.id, "손님")
    people = [Person(m, room.id, n, i) for i, n in enumerate(("철수", "영희", "손님"))]
    expected = dict.fromkeys(registered, TtaengTotals())
    for number in (1, 2):
        m.start(room.id, "철수")
        play_out(m, room.id, people, clock)
        saved = journaled(journal, f"{room.id}-{number}")
        engine = engine_ttaeng(*saved)
        opts, seed, players, log = saved
        tally = GameTally.replayed(opts, players, seed, log)  # (a room resumed after a restart)
        for p in engine:
            recounted = TtaengTotals(
                sum(tally.ttaeng_paid[p].values()), len(tally.ttaeng_paid[p]),
                sum(tally.ttaeng_received[p].values()), len(tally.ttaeng_received[p]),
            )  # fmt: skip
            assert recounted == engine[p], p
        for p in registered:
            t, e = expected[p], engine[p]
            expected[p] = TtaengTotals(
                t.paid + e.paid, t.paid_hands + e.paid_hands,
                t.received + e.received, t.received_hands + e.received_hands,
            )  # fmt: skip
    assert all(expected.values()), f"these seeds' games pay too little 땡값: {expected}"
    assert m.records is not None
    for p, totals in expected.items():
        record = m.records.player(p)
        assert record is not None and record.ttaeng == totals, p
    m.close()
