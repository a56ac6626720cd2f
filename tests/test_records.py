"""Records and the leaderboard (#18): counted through the room manager, checked against the
engine's own replay of each journaled game; bots and unregistered names kept out; the store's
migration, retry and rating; the records screen and the table's panel (pilot and real SSH)."""

from __future__ import annotations

import contextlib
import json
import logging
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import Game, Options
from engine.types import GameResult
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomError, RoomManager, RoomUpdate
from seotda_tui.rooms.bots import decide
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.records import GameRecords, GameTally
from seotda_tui.rooms.records_db import (
    SCHEMA_VERSION,
    START_RATING,
    GameRecord,
    PlayerResult,
    RecordStore,
    rate,
)

from .faultkit import fill, tiny_tmpfs

REGISTERED = {"철수", "영희"}
OPTIONS = Options(hand_limit=10, rebuy="unlimited")


def records(tmp_path: Path, registered: set[str] = REGISTERED) -> GameRecords:
    return GameRecords(RecordStore(tmp_path / "records.sqlite3"), registered.__contains__)


class Person:
    """A person's session that answers from its own view, randomly but reproducibly."""

    def __init__(self, m: RoomManager, room_id: str, nick: str, seed: int) -> None:
        self.m, self.room_id, self.nick = m, room_id, nick
        self.rng = random.Random(seed)
        self.updates: list[RoomUpdate] = []
        m.subscribe_room(room_id, nick, self.updates.append)

    def maybe_act(self) -> None:
        update = self.updates[-1]
        if update.view is None or update.room.status != "playing" or update.paused:
            return
        if self.rng.random() < 0.2:
            return  # sometimes the deadline acts for them (a timeout)
        action = decide("random", update.view, update.room.options, str(self.rng.random()))
        if action is not None:
            with contextlib.suppress(RoomError):  # (a refusal: the deadline acts instead)
                self.m.act(self.room_id, self.nick, action)


def play_games(
    tmp_path: Path,
    seeds: list[str],
    recs: GameRecords | None = None,
    before_game: Callable[[int], None] = lambda number: None,
) -> tuple[RoomManager, list[str]]:
    """Seeded games in one room: 철수 and 영희 (registered), 손님 (not), and a bot;
    ``before_game(number)`` runs before each game (1, 2, ...) starts."""
    clock = FakeClock()
    seed_iter = iter(seeds)
    m = RoomManager(
        clock=clock,
        seed_source=lambda: next(seed_iter),
        journal=Journal(tmp_path / "games.sqlite3"),
        records=recs or records(tmp_path),
    )
    for nick in ("철수", "영희", "손님"):
        m.session_connected(nick)
    room = m.create_room("철수", "기록", OPTIONS)
    m.join(room.id, "영희")
    m.join(room.id, "손님")
    m.add_bot(room.id, "철수", "cautious")
    people = [Person(m, room.id, n, i) for i, n in enumerate(("철수", "영희", "손님"))]
    keys = []
    for number in range(1, len(seeds) + 1):
        before_game(number)
        m.start(room.id, "철수")
        keys.append(f"{room.id}-{number}")
        play_out(m, room.id, people, clock)
        assert m.room(room.id).status == "finished"
    return m, keys


def play_out(m: RoomManager, room_id: str, people: list[Person], clock: FakeClock) -> None:
    """Half a second at a time, each person acts when it is their turn, until the game ends."""
    for _ in range(20000):
        if m.room(room_id).status != "playing":
            return
        clock.advance(0.5)
        for person in people:
            person.maybe_act()


def engine_replay(journal: Path, key: str) -> tuple[Game, dict[str, dict[str, Any]]]:
    """The engine's own account of a journaled game, counted step by step (independent of the
    manager's batches): per seat the numbers a record should hold."""
    db = sqlite3.connect(journal)
    options, seed, players = db.execute(
        "SELECT options, seed, players FROM games WHERE room_id = ?", (key,)
    ).fetchone()
    log = [
        (p, json.loads(a))
        for p, a in db.execute(
            "SELECT player, action FROM actions WHERE room_id = ? ORDER BY seq", (key,)
        )
    ]
    db.close()
    opts = Options.from_dict(json.loads(options))
    game = Game.new(opts, json.loads(players), seed)
    seats: dict[str, dict[str, Any]] = {
        p: {"played": 0, "won": set(), "best": None, "ttaeng": set(), "amhaeng": set(),
            "rematches": 0, "history": {}}
        for p in game.players
    }  # fmt: skip
    steps = [list(game.last_events)]
    for player, action in log:
        steps.append(game.timeout() if player is None else game.apply(player, action))
    # replay again one step at a time so the chip history is read per step
    game = Game.new(opts, json.loads(players), seed)
    hand_no = 0
    for i, events in enumerate(steps):
        if i:
            player, action = log[i - 1]
            assert (game.timeout() if player is None else game.apply(player, action)) == events
        for ev in events:
            if ev["type"] == "handStart":
                hand_no = ev["handNo"]
                for p in ev["players"]:
                    seats[p]["played"] += 1
            elif ev["type"] == "showdown":
                for shown in ev["hands"]:
                    best = seats[shown["player"]]["best"]
                    if best is None or shown["value"] > best[0]:
                        seats[shown["player"]]["best"] = (shown["value"], shown["name"])
            elif ev["type"] == "payout":
                if ev["main"]:
                    seats[ev["player"]]["won"].add(hand_no)
                if ev["reason"] == "ttaengjabi":
                    seats[ev["player"]]["ttaeng"].add(hand_no)
                if ev["reason"] == "amhaeng":
                    seats[ev["player"]]["amhaeng"].add(hand_no)
            elif ev["type"] == "rematch":
                for p in ev["participants"]:
                    seats[p]["rematches"] += 1
        if any(ev["type"] == "handEnd" for ev in events):
            for seat in game.view(None)["seats"]:
                seats[seat["id"]]["history"][game.view(None)["handNo"]] = seat["stack"]
    assert game.finished
    return game, seats


def stored(tmp_path: Path, key: str) -> dict[str, tuple[Any, ...]]:
    db = sqlite3.connect(tmp_path / "records.sqlite3")
    rows = db.execute(
        "SELECT r.player, r.place, r.chips_start, r.chips_end, r.rebuys, r.hands_played,"
        " r.hands_won, r.best_value, r.best_name, r.ttaengjabi, r.amhaeng, r.rematches,"
        " r.history FROM results r JOIN games g ON g.id = r.game_id WHERE g.game_key = ?",
        (key,),
    ).fetchall()
    db.close()
    return {row[0]: row[1:] for row in rows}


def test_records_of_seeded_games_match_the_engine(tmp_path: Path) -> None:
    # rec-7: a game whose best hand is a registered player's (in the first three the guest's)
    m, keys = play_games(tmp_path, ["rec-1", "rec-2", "rec-3", "rec-7"])
    assert m.records is not None
    totals: dict[str, dict[str, int]] = {p: {"games": 0, "wins": 0, "won": 0, "lost": 0,
                                             "hands": 0, "places": 0} for p in REGISTERED}  # fmt: skip
    best_checked = 0
    for key in keys:
        game, seats = engine_replay(tmp_path / "games.sqlite3", key)
        result = game.result()
        assert result is not None
        rows = stored(tmp_path, key)
        assert set(rows) == REGISTERED  # the guest and the bot are not recorded
        for ranked in result["ranking"]:
            p = ranked["playerId"]
            if p not in REGISTERED:
                continue
            seat = seats[p]
            history = [
                OPTIONS.starting_chips,
                *(seat["history"][n] for n in sorted(seat["history"])),
            ]
            if history[-1] != ranked["finalChips"]:
                history.append(ranked["finalChips"])
            best = seat["best"] or (None, None)
            assert rows[p] == (
                ranked["rank"], OPTIONS.starting_chips, ranked["finalChips"], ranked["rebuys"],
                seat["played"], len(seat["won"]), best[0], best[1], len(seat["ttaeng"]),
                len(seat["amhaeng"]), seat["rematches"], json.dumps(history),
            )  # fmt: skip
            net = ranked["finalChips"] - OPTIONS.starting_chips * (1 + ranked["rebuys"])
            t = totals[p]
            t["games"] += 1
            t["wins"] += ranked["rank"] == 1
            t["won"] += max(net, 0)
            t["lost"] += max(-net, 0)
            t["hands"] += len(seat["won"])
            t["places"] += ranked["rank"]
        best_of_game = result["stats"]["bestHand"]
        if best_of_game and best_of_game["playerId"] in REGISTERED:
            assert rows[best_of_game["playerId"]][7] == max(
                v[7] for v in rows.values() if v[7] is not None
            )
            best_checked += 1
    assert best_checked, "no seeded game's best hand was a registered player's: pick other seeds"
    for p in REGISTERED:
        mine = m.records.player(p)
        assert mine is not None
        t = totals[p]
        assert (mine.games, mine.wins, mine.chips_won, mine.chips_lost, mine.hands_won) == (
            t["games"], t["wins"], t["won"], t["lost"], t["hands"]
        )  # fmt: skip
        assert mine.average_place == pytest.approx(t["places"] / t["games"])
        recent = m.records.recent(p)
        assert len(recent) == len(keys)
        assert all(g.history[0] == OPTIONS.starting_chips for g in recent)
    assert m.records.player("손님") is None
    assert all(r.player in REGISTERED for r in m.records.by_rating() + m.records.by_wins())
    assert {r.player for r in m.records.by_rating()} == REGISTERED  # 4 games each: rated
    m.close()


def test_a_resumed_game_is_counted_from_its_whole_log(tmp_path: Path) -> None:
    """A restart mid-game rebuilds the tally from the journal, so the record is the whole game."""
    clock = FakeClock()
    journal = tmp_path / "games.sqlite3"
    m = RoomManager(clock=clock, seed_source=lambda: "resume-1", journal=Journal(journal),
                    records=records(tmp_path))  # fmt: skip
    for nick in ("철수", "영희"):
        m.session_connected(nick)
    room = m.create_room("철수", "재시작", OPTIONS)
    m.join(room.id, "영희")
    people = [Person(m, room.id, n, i) for i, n in enumerate(("철수", "영희"))]
    m.start(room.id, "철수")
    while (v["handsPlayed"] if (v := people[0].updates[-1].view) else 0) < 3:
        clock.advance(0.5)
        for person in people:
            person.maybe_act()
    assert m.room(room.id).status == "playing"
    m.close()  # "the crash": the game stays open in the journal
    m2 = RoomManager(clock=clock, journal=Journal(journal), records=records(tmp_path))
    for nick in ("철수", "영희"):
        m2.session_connected(nick)
    people = [Person(m2, room.id, n, i + 7) for i, n in enumerate(("철수", "영희"))]
    for _ in range(20000):
        if m2.room(room.id).status != "playing":
            break
        clock.advance(0.5)
        for person in people:
            person.maybe_act()
    key = f"{room.id}-1"
    game, seats = engine_replay(journal, key)
    rows = stored(tmp_path, key)
    for p in ("철수", "영희"):
        assert rows[p][4] == seats[p]["played"] == game.hands_played
        assert rows[p][5] == len(seats[p]["won"])
    m2.close()


def test_bots_and_unregistered_names_are_never_recorded(tmp_path: Path) -> None:
    clock = FakeClock()
    m = RoomManager(clock=clock, seed_source=lambda: "guests", records=records(tmp_path, set()))
    m.session_connected("손님")
    room = m.create_room("손님", "손님방", OPTIONS)
    m.add_bot(room.id, "손님", "random")
    person = Person(m, room.id, "손님", 3)
    m.start(room.id, "손님")
    for _ in range(20000):
        if m.room(room.id).status != "playing":
            break
        clock.advance(0.5)
        person.maybe_act()
    assert m.records is not None and m.records.store.game_count() == 0
    assert m.records.player("손님") is None and m.records.by_wins() == []
    m.close()


class FlakyStore(RecordStore):
    """A records file whose first ``fail`` writes fail (a full disk, say)."""

    fail = 1

    def add_games(self, games: Any) -> None:
        if self.fail:
            self.fail -= 1
            raise sqlite3.OperationalError("database or disk is full")
        super().add_games(games)


def test_a_room_whose_records_cannot_be_written_plays_on(tmp_path: Path) -> None:
    """The first game's write fails (disk full): the room still finishes and plays again, and
    the second game's write brings both games in."""
    store = FlakyStore(tmp_path / "records.sqlite3")
    m, keys = play_games(
        tmp_path, ["flaky-1", "flaky-2"], GameRecords(store, REGISTERED.__contains__)
    )
    assert store.fail == 0 and store.game_count() == 2
    for key in keys:
        assert set(stored(tmp_path, key)) == REGISTERED
    m.close()


def test_a_really_full_disk_loses_no_game_and_records_it_when_space_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """records.sqlite3 on a tiny tmpfs filled to the last byte (root only): the first game
    finishes and is journaled in full, its record is not written and the log says so; once
    there is space again, the second game's write brings both in."""
    with tiny_tmpfs(tmp_path / "disk") as disk:
        recs = GameRecords(RecordStore(disk / "records.sqlite3"), REGISTERED.__contains__)
        filler = disk / "filler"

        def before_game(number: int) -> None:
            if number == 1:
                with contextlib.suppress(OSError):
                    fill(filler)
            else:  # the first game's record could not be written: nothing to show yet
                assert recs.player("철수") is None and recs.recent("철수") == []
                filler.unlink()

        with caplog.at_level(logging.INFO, logger="seotda.rooms"):
            m, keys = play_games(tmp_path, ["full-1", "full-2"], recs, before_game)
        events = [record_fields(r) for r in caplog.records]
        errors = [e for e in events if e.get("event") == "records_error"]
        assert [e["game"] for e in errors] == keys[:1]  # said once, for the first game
        recorded = [e for e in events if e.get("event") == "game_recorded"]
        assert [(e["game"], e["written"]) for e in recorded] == [(keys[1], 2)]
        finished = Journal(tmp_path / "games.sqlite3").finished_games()
        assert sorted(g["roomId"] for g in finished) == sorted(keys)  # no game lost
        for p in REGISTERED:
            mine = recs.player(p)
            assert mine is not None and mine.games == 2
        m.close()


def result_row(player: str, place: int, chips: int) -> PlayerResult:
    return PlayerResult(player, place, 1000, chips, 0, 5, 2, 30, "3끗", 0, 0, 0, (1000, chips))


def test_a_failed_write_is_retried_with_the_next_game_and_never_counts_twice(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = FlakyStore(tmp_path / "records.sqlite3")
    recs = GameRecords(store, REGISTERED.__contains__)
    tally = GameTally(OPTIONS, ["철수", "영희"])
    result: GameResult = {
        "ranking": [
            {"playerId": "철수", "rank": 1, "score": 500, "finalChips": 1500, "rebuys": 0,
             "eliminatedAtHand": None},
            {"playerId": "영희", "rank": 2, "score": -500, "finalChips": 500, "rebuys": 0,
             "eliminatedAtHand": None},
        ],
        "summary": "",
        "stats": {"handsPlayed": 3, "rematches": 0, "bestHand": None,
                  "biggestPot": {"handNo": 1, "amount": 0, "winners": []}},
        "reason": "hands",
    }  # fmt: skip
    recs.game_finished("a-1", tally, result, [])  # fails: kept
    assert store.game_count() == 0
    assert any("records_error" in r.getMessage() for r in caplog.records)
    recs.game_finished("a-2", tally, result, [])  # both written now
    assert store.game_count() == 2
    store.add_games([GameRecord("a-2", 0.0, 3, "hands", {"철수": 1, "영희": 2},
                                (result_row("철수", 1, 1500),))])  # fmt: skip
    mine = recs.player("철수")
    assert mine is not None and (mine.games, mine.wins, mine.chips_won) == (2, 2, 1000)
    theirs = recs.player("영희")
    assert theirs is not None and (theirs.chips_lost, theirs.average_place) == (1000, 2.0)
    recs.close()


def test_rating_is_pairwise_elo_over_every_seat() -> None:
    # two equal players: the winner gains K/2 = 16, the loser loses 16
    assert rate({"a": 1, "b": 2}, {}, ["a", "b"]) == {"a": 1016.0, "b": 984.0}
    # four seats, one a bot at the start rating: each pair moves by K/3 * (actual - expected)
    new = rate({"a": 1, "b": 2, "bot": 2, "c": 4}, {"a": 1200.0}, ["a", "c"])
    expect_a = 1200 + sum(32 / 3 * (1 - 1 / (1 + 10 ** ((1000 - 1200) / 400))) for _ in range(3))
    assert new["a"] == pytest.approx(expect_a)
    expect_c = START_RATING + 32 / 3 * ((0 - 1 / (1 + 10 ** ((1200 - 1000) / 400))) + 2 * (0 - 0.5))
    assert new["c"] == pytest.approx(expect_c)
    assert "bot" not in new


def test_the_schema_is_migrated_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    RecordStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"results_recent", "players_by_rating", "players_by_wins"} <= names
    db.close()
    again = RecordStore(path)  # a second open runs no migration (it would fail: tables exist)
    assert again.game_count() == 0
    again.close()


# ---------------------------------------------------------------- screens (pilot)
def board_names() -> list[str]:
    """More players than a leaderboard shows (each plays 철수 three times)."""
    from seotda_tui.ui.screens.records import BOARD

    return [f"선수{i}" for i in range(BOARD + 3)]


def board_games(
    names: list[str], own: Callable[[int], PlayerResult] | None = None
) -> list[GameRecord]:
    """Two-player games of 철수 against each of ``names`` three times, 철수 first or second by
    turns; ``own(i)``: 철수's row of game ``i`` (the plain :func:`result_row` by default)."""
    return [
        GameRecord(f"x-{i}", 2000.0 + i, 2, "hands", {"철수": 1 + i % 2, name: 2 - i % 2},
                   (own(i) if own else result_row("철수", 1 + i % 2, 1000),
                    result_row(name, 2 - i % 2, 1000)))
        for i, name in enumerate(names * 3)
    ]  # fmt: skip


def filled_records(tmp_path: Path) -> GameRecords:
    """Records of a few finished games: 철수 and 영희 registered, 손님 and a bot not."""
    recs = records(tmp_path)
    games = []
    for n in range(4):
        first, second = ("철수", "영희") if n % 2 == 0 else ("영희", "철수")
        history = (1000, 1200 + 50 * n, 900, 1500 + 100 * n)
        games.append(
            GameRecord(
                f"g-{n}", 1000.0 + n, 3, "hands", {first: 1, second: 2, "손님": 3, "봇1(신중)": 4},
                (PlayerResult(first, 1, 1000, 1500 + 100 * n, 0, 3, 2, 1000 + n, "장땡", 1, 0, 1,
                              history),
                 PlayerResult(second, 2, 1000, 800, 0, 3, 1, 30, "3끗", 0, 0, 1,
                              (1000, 900, 800))),
            )
        )  # fmt: skip
    recs.store.add_games(games)
    return recs


async def test_the_lobby_opens_the_records_screen_at_80x24(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from seotda_tui import tuning
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.records import RATING_HELP, RecordsScreen
    from seotda_tui.ui.widgets.chatline import KEYS_LOBBY, hint_text

    tuning.install()
    m = RoomManager(clock=FakeClock(), records=filled_records(tmp_path))
    app = make_app_factory(m)(SimpleNamespace(nickname="철수"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "r 전적" in hint_text(KEYS_LOBBY) and "r 전적" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RecordsScreen)
        text = screen_text(app)
        assert "4게임 · 1위 2회 · 이긴 판 6" in text
        assert "최고 족보 장땡" in text and "땡잡이 2" in text and "재경기 4" in text
        assert text.count("위/4명") == 4  # four recent games
        assert "레이팅 순위" in text and "1위 횟수 순위" in text
        assert "손님" not in text and "봇1" not in text  # never ranked
        assert RATING_HELP[:20] in text
        assert "Esc 닫기" in text.splitlines()[-1]  # the keys line fits: nothing pushed off
        assert len(app.screen.query(".records-spark")) == 4
        for row in app.screen.query(".records-recent"):  # a cell between text and sparkline
            label, spark = row.query_one(".records-label"), row.query_one(".records-spark")
            assert label.region.right < spark.region.x, (label.region, spark.region)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecordsScreen)
    m.close()


async def test_a_full_records_screen_still_fits_80x24(tmp_path: Path) -> None:
    """Five recent games and full leaderboards: every part shows, the keys line is last."""
    from seotda_tui.ui.screens.records import BOARD, RATING_HELP, RECENT

    recs = filled_records(tmp_path)
    recs.store.add_games(board_games(board_names()))
    lines = await records_screen_lines(recs)
    assert len(lines) == 24 and "Esc 닫기" in lines[-1]
    assert sum("위/2명" in x for x in lines) == RECENT
    text = "".join(x.strip() for x in lines)
    assert RATING_HELP.replace(" ", "") in text.replace(" ", "")
    last_rows = [re.findall(rf"(?:^|\s){BOARD}\s\s\S", x) for x in lines]
    assert sum(map(len, last_rows)) == 2  # both boards' last row


async def records_screen_lines(recs: GameRecords) -> list[str]:
    """철수's records screen (r in the lobby) at 80×24, as its rows."""
    from types import SimpleNamespace

    from seotda_tui import tuning
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.app import make_app_factory

    tuning.install()
    m = RoomManager(clock=FakeClock(), records=recs)
    app = make_app_factory(m)(SimpleNamespace(nickname="철수"), None)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("r")
            await pilot.pause()
            return screen_text(app).splitlines()
    finally:
        m.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
async def test_the_own_records_second_line_fits_80_columns_with_large_numbers(
    tmp_path: Path, lang: str
) -> None:
    """9,999 games, a 1,999 rating, 38광땡 at best, hundreds of specials: the own record's
    second line (86 cells in Korean, 94 in English in full) is shortened on purpose to the
    78 cells it has at 80 columns, one row, never wrapped; wider, it shows in full."""
    from types import SimpleNamespace

    from seotda_tui import i18n, tuning
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.records import RecordsScreen
    from seotda_tui.ui.widgets.texts import hand_name

    tuning.install()
    recs = filled_records(tmp_path)
    db = sqlite3.connect(tmp_path / "records.sqlite3")
    db.execute(
        "UPDATE players SET games = 9999, wins = 5000, place_sum = 19998, rating = 1999,"
        " best_name = '38광땡', ttaengjabi = 999, amhaeng = 999, rematches = 9999"
        " WHERE player = '철수'"
    )
    db.commit()
    db.close()
    m = RoomManager(clock=FakeClock(), records=recs)
    session = SimpleNamespace(language=i18n.Language(lang))
    app = make_app_factory(m)(SimpleNamespace(nickname="철수"), session)
    with i18n.speaking(i18n.Language(lang)):
        best, rematches = hand_name("38광땡"), i18n._("재경기")
    rating = "1,999"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RecordsScreen)
        lines = screen_text(app).splitlines()
        assert len(lines) == 24 and "Esc" in lines[-1], lines
        row = next(x for x in lines if best in x)
        assert rating in row and "2.0" in row, lines  # one row: best hand to rating
        assert rematches.lower() not in row.lower(), row  # shortened: the rematches left out
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        row = next(x for x in screen_text(app).splitlines() if best in x)
        assert rating in row and rematches.lower() in row.lower() and "9999" in row, row
    m.close()


async def test_a_newcomer_and_a_server_without_records_are_told_so(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from seotda_tui import tuning
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.records import NO_RECORDS, NOT_YET

    tuning.install()
    for m, expected in (
        (RoomManager(clock=FakeClock(), records=filled_records(tmp_path)), NOT_YET[:15]),
        (RoomManager(clock=FakeClock()), NO_RECORDS),
    ):
        app = make_app_factory(m)(SimpleNamespace(nickname="새내기"), None)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("ㄱ")  # the same key with a Korean input method on
            await pilot.pause()
            assert expected in screen_text(app)
        m.close()


async def test_the_table_shows_every_seats_record_on_p(tmp_path: Path) -> None:
    from seotda_tui.testing import Table
    from seotda_tui.ui.screens.records import SeatRecordsScreen

    m = RoomManager(clock=FakeClock(1000.0), records=filled_records(tmp_path))
    async with Table.open(("철수", "영희", "손님"), manager=m, start=False) as table:
        await table.press("철수", "p")
        assert isinstance(table.screen("철수"), SeatRecordsScreen)
        lines = table.text("철수").splitlines()
        line = next(x for x in lines if "영희" in x)
        assert "4" in line and "2회" in line and "1.5위" in line and "장땡" in line
        assert "기록 없음" in next(x for x in lines if "손님" in x)
        await table.press("철수", "escape")
        assert not isinstance(table.screen("철수"), SeatRecordsScreen)


# ---------------------------------------------------------------- over real SSH
async def test_records_over_ssh_count_only_names_the_identity_store_holds(tmp_path: Path) -> None:
    """철수 and 영희 log in (their passphrases register the names); a game with 유령, a name
    nobody ever logged in with, is played to its end; 철수 opens the records screen with r."""
    import asyncio

    from seotda_tui.cli.data import open_records
    from seotda_tui.config import load_settings
    from seotda_tui.ui.app import make_app_factory

    from .ssh_harness import ssh_server

    settings = load_settings(flags={"data_dir": tmp_path / "data"})
    manager = RoomManager(seed_source=lambda: "ssh-records", records=open_records(settings))
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server:
        async with server.connect("철수") as cheolsu, server.connect("영희") as younghee:
            await cheolsu.wait_for("철수님 환영해요")
            await younghee.wait_for("영희님 환영해요")
            room = manager.create_room("철수", "기록방", Options(hand_limit=10))
            manager.join(room.id, "영희")
            manager.join(room.id, "유령")
            rng = random.Random(5)
            latest: dict[str, RoomUpdate] = {}

            def keep(update: RoomUpdate) -> None:
                latest[update.viewer or ""] = update

            for nick in ("철수", "영희", "유령"):
                manager.subscribe_room(room.id, nick, keep)
            manager.start(room.id, "철수")
            for _ in range(5000):
                if manager.room(room.id).status != "playing":
                    break
                for nick, update in list(latest.items()):
                    if update.view and update.room.status == "playing":
                        action = decide(
                            "random", update.view, update.room.options, str(rng.random())
                        )
                        if action is not None:
                            with contextlib.suppress(RoomError):  # (a stale view's move)
                                manager.act(room.id, nick, action)
                await asyncio.sleep(0)
            assert manager.room(room.id).status == "finished"
            assert manager.records is not None
            assert manager.records.player("유령") is None
            mine = manager.records.player("철수")
            assert mine is not None and mine.games == 1
            await cheolsu.press("r")
            await cheolsu.wait_for("섯다 전적 · 철수")
            await cheolsu.wait_for(f"1게임 · 1위 {mine.wins}회 · 이긴 판 {mine.hands_won}")
            await cheolsu.wait_for("레이팅 순위")
            assert "유령" not in cheolsu.text
            await cheolsu.press("escape")
            await cheolsu.wait_gone("섯다 전적")
    manager.close()
