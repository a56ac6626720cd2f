"""Hand history and replay (issue #18): a journaled, seeded game replayed frame by frame.

The games are played through the real room manager with a real journal; while they are played,
every view the manager pushes to each player and to a spectator is kept. A replay's frames must be
exactly those views, in order (so a replay shows what that viewer saw, and nothing else), and no
frame may hold another player's card unless the showdown revealed it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine import Game, Options
from engine.types import View
from seotda_tui.rooms import RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.history import GameHistory, Replay
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.rooms.recording import prune_journal
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.replay import HistoryScreen, ReplayScreen, game_cells
from seotda_tui.ui.widgets.hand import HandCards

from .ssh_harness import ssh_server

PLAYERS = ("영희", "철수", "민수")
WATCHER = "구경꾼"
LATE_WATCHER = "늦은구경"
OPTIONS = Options(end_condition="hands", hand_limit=10)
DAY = 86400.0


class WallClock:
    """The journal's wall time, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


def _action(game: Game, nick: str, rng: random.Random) -> dict[str, Any]:
    """A seeded random legal action: mostly calls and raises, so hands reach the showdown."""
    legal = game.legal_actions(nick)
    kinds = [a for a in legal if a["type"] != "die"] or legal
    pick = rng.choice(kinds if rng.random() < 0.85 else legal)
    action: dict[str, Any] = {"type": pick["type"]}
    if pick["type"] == "choose":
        seat = next(s for s in game.view(nick)["seats"] if s["id"] == nick)
        action["cardIds"] = [c["id"] for c in seat["cards"]][:2]  # type: ignore[typeddict-item]
    if "accept" in pick:
        action["accept"] = pick["accept"]
    return action


class Played:
    """A finished game and every view the manager pushed while it was played, per nickname."""

    def __init__(self, manager: RoomManager, journal: Journal, key: str, wall: WallClock) -> None:
        self.manager, self.journal, self.key, self.wall = manager, journal, key, wall
        self.pushed: dict[str, list[View]] = {}
        self.history = GameHistory(journal)


@contextmanager
def played_game(tmp_path: Path, seed: int = 11, timeouts: bool = True) -> Iterator[Played]:
    """Three players and a spectator play a 10-hand game to its end (a few turns time out)."""
    wall = WallClock()
    journal = Journal(tmp_path / "games.sqlite3", clock=wall)
    clock = FakeClock(1000.0)
    manager = RoomManager(clock=clock, seed_source=lambda: seed, journal=journal)
    room = manager.create_room(PLAYERS[0], "복기 방", OPTIONS)
    for nick in PLAYERS[1:]:
        manager.join(room.id, nick)
    manager.watch(room.id, WATCHER)
    played = Played(manager, journal, f"{room.id}-1", wall)

    pushed: dict[str, list[View]] = {}

    def keep(nick: str) -> Any:
        def callback(update: RoomUpdate) -> None:
            if update.view is not None:
                pushed.setdefault(nick, []).append(update.view)

        return callback

    for nick in (*PLAYERS, WATCHER):
        manager.subscribe_room(room.id, nick, keep(nick))
    manager.start(room.id, PLAYERS[0])
    rng = random.Random(seed)
    for step in range(3000):
        game = manager.live_game(room.id)  # the test reads the real game to drive it
        assert game is not None
        if game.finished:
            break
        wall.now += 1
        waiting = game.pending()["players"]
        if timeouts and step % 37 == 5 or not waiting:
            clock.advance(OPTIONS.turn_seconds + 1)  # the deadline fires: a journaled timeout
            continue
        nick = waiting[0]
        manager.act(room.id, nick, _action(game, nick, rng))
        if step == 50:
            manager.watch(room.id, LATE_WATCHER)  # comes in mid-game
    game = manager.live_game(room.id)
    assert game is not None and game.finished
    played.pushed = {nick: list(views) for nick, views in pushed.items()}  # (until the end)
    for nick in (*PLAYERS, WATCHER, LATE_WATCHER):  # everyone back to the lobby (room closes)
        manager.leave(room.id, nick)
    try:
        yield played
    finally:
        manager.close()


def _frames(replay: Replay) -> list[View]:
    return [replay.view(i) for i in range(len(replay.frames))]


def _is_subsequence(frames: list[View], pushed: list[View]) -> bool:
    it = iter(pushed)
    return all(any(frame == view for view in it) for frame in frames)


def assert_no_hidden_card(view: Mapping[str, Any], viewer: str | None) -> None:
    """Others' cards are placeholders unless revealed at this showdown; the own are real."""
    revealed = {h["player"]: [c["id"] for c in h["cards"]] for h in view.get("showdown") or []}
    for seat in view["seats"]:
        if not seat.get("inHand"):
            continue
        ids = [c["id"] for c in seat["cards"] if "id" in c]
        if seat["id"] == viewer:
            assert len(ids) == len(seat["cards"])
        else:
            assert ids == [], (viewer, seat)
            assert all(c == {"hidden": True} for c in seat["cards"])
            shown = seat.get("revealed")
            if shown is not None:
                assert [c["id"] for c in shown] == revealed[seat["id"]]
            else:
                assert seat["id"] not in revealed


def test_replay_frames_are_the_views_each_viewer_was_sent(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        for nick in (*PLAYERS, WATCHER):
            replay = played.history.replay(played.key, nick)
            assert replay is not None
            assert replay.viewer == (None if nick == WATCHER else nick)
            frames = _frames(replay)
            assert frames[0] == played.pushed[nick][0]  # the first deal, as the start pushed it
            assert frames[-1] == played.pushed[nick][-1]  # the game's end
            assert _is_subsequence(frames, played.pushed[nick]), nick
            for view in frames:
                assert view["viewer"] == replay.viewer
                assert_no_hidden_card(view, replay.viewer)
        assert len(replay.hand_starts) >= OPTIONS.hand_limit
        # some hand went to a showdown and some seat's cards were revealed in a frame
        assert any(view.get("showdown") for view in frames)


def test_every_action_and_payout_is_in_the_frames_events(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        replay = played.history.replay(played.key, PLAYERS[1])
        assert replay is not None
        events = [e for f in replay.frames for e in f.events]
        found = played.journal.finished_game(played.key, PLAYERS[1])
        assert found is not None
        rebuilt = Game.new(found[1].options, found[1].players, found[1].seed)
        expected = list(rebuilt.last_events)
        for step in Game.replay_steps(rebuilt, found[1].log):
            expected += step
        assert events[1:] == expected  # (after gameStart) nothing lost, nothing added
        bets = [e for e in events if e["type"] == "bet"]
        assert bets and all("amount" in e for e in bets)
        paid = sum(e["amount"] for e in events if e["type"] == "payout")
        assert paid > 0
        hands = {view.get("handNo") for view in _frames(replay)}
        assert max(h for h in hands if h) == rebuilt.hands_played


def test_history_lists_played_and_watched_games_newest_first(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        games = played.history.games(PLAYERS[0])
        assert [g.key for g in games] == [played.key]
        mine = games[0]
        assert mine.name == "복기 방" and set(mine.players) == set(PLAYERS)
        assert not mine.watched and mine.rank is not None and mine.final_chips is not None
        watched = played.history.games(WATCHER)
        assert [g.watched for g in watched] == [True] and watched[0].rank is None
        late = played.history.games(LATE_WATCHER)
        assert [g.watched for g in late] == [True]
        replay = played.history.replay(played.key, LATE_WATCHER)
        assert replay is not None and replay.viewer is None
        assert played.history.games("남") == []
        assert played.history.replay(played.key, "남") is None  # not theirs: never opens


def test_pruned_games_leave_the_list(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        played.wall.now += 3 * DAY
        assert prune_journal(played.journal, 5) == 0
        assert played.history.games(PLAYERS[0])
        played.wall.now += 3 * DAY
        assert prune_journal(played.journal, 5) == 1
        assert played.history.games(PLAYERS[0]) == []
        assert played.history.games(WATCHER) == []
        assert played.history.replay(played.key, PLAYERS[0]) is None


def test_an_old_journal_gets_its_players_into_the_history(tmp_path: Path) -> None:
    """A journal written before the history existed: its games are listed after the upgrade."""
    with played_game(tmp_path) as played:
        played.journal._db.execute("DROP TABLE seen_by")
        played.journal._db.execute("PRAGMA user_version = 0")  # (journals then had no version)
        key = played.key
    reopened = Journal(tmp_path / "games.sqlite3")
    try:
        history = GameHistory(reopened)
        assert [g.key for g in history.games(PLAYERS[2])] == [key]
        assert history.replay(key, PLAYERS[2]) is not None
    finally:
        reopened.close()


def test_hand_navigation(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        replay = played.history.replay(played.key, PLAYERS[0])
        assert replay is not None
        starts = replay.hand_starts
        assert starts[0] == 0 and list(starts) == sorted(set(starts))
        assert replay.next_hand(0) == starts[1]
        assert replay.previous_hand(starts[1]) == 0
        assert replay.previous_hand(starts[1] + 1) == starts[1]
        assert replay.next_hand(starts[-1]) == len(replay.frames) - 1
        for i, frame in enumerate(replay.frames):
            assert starts[frame.hand] <= i


# ---------------------------------------------------------------------- pilot
async def test_keys_step_through_a_replay_without_showing_a_hidden_card(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        app = make_app_factory(played.manager)(_Nick(PLAYERS[0]), None)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            assert isinstance(app.screen, HistoryScreen)
            assert "복기 방" in _text(app) and "위 ·" in _text(app)
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            replay = screen.replay
            assert screen.index == 0 and "다시 보기 · 복기 방" in _text(app)
            last = len(replay.frames) - 1
            for expected in range(1, last + 1):  # → through every frame of the game
                await pilot.press("right")
                assert screen.index == expected
                _assert_seats_follow(screen)
            await pilot.press("right")
            assert screen.index == last  # (stays at the end)
            await pilot.press("home")
            assert screen.index == 0
            await pilot.press("pagedown")
            assert screen.index == replay.hand_starts[1]
            await pilot.press("right_square_bracket")
            assert screen.index == replay.hand_starts[2]
            await pilot.press("right", "left_square_bracket")
            assert screen.index == replay.hand_starts[2]
            await pilot.press("pageup")
            assert screen.index == replay.hand_starts[1]
            await pilot.press("left")
            assert screen.index == replay.hand_starts[1] - 1
            await pilot.press("end")
            assert screen.index == last
            await pilot.press("q")
            await pilot.pause()
            assert isinstance(app.screen, HistoryScreen)
            await pilot.press("q")
            await pilot.pause()
            assert "섯다 로비" in _text(app)


def _assert_seats_follow(screen: ReplayScreen, me: str | None = PLAYERS[0]) -> None:
    """The seat widget shows the others' cards face down unless this frame revealed them; the
    own cards (none for a spectator) are the viewer's."""
    view = screen.frame_view
    revealed = {h["player"]: tuple(c["id"] for c in h["cards"]) for h in view.get("showdown") or []}
    infos = list(screen.shown_seats.values())
    assert {i.name for i in infos} == {s["id"] for s in view["seats"]} - {me}
    for info in infos:
        if info.name in revealed:
            assert info.faces == revealed[info.name]
        else:
            assert all(face is None for face in info.faces), info
    own = next((s for s in view["seats"] if s["id"] == me), None)
    shown = [c.id for c in screen.query_one(HandCards).cards]
    assert shown == ([c.get("id") for c in own["cards"]] if own and own.get("inHand") else [])


async def test_a_spectator_replays_what_spectators_saw(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        app = make_app_factory(played.manager)(_Nick(WATCHER), None)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            assert "관전" in _text(app)
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ReplayScreen) and screen.replay.viewer is None
            assert "관전 화면" in _text(app)
            _assert_seats_follow(screen, None)
            for start in screen.replay.hand_starts[1:]:  # ] through every hand's deal
                await pilot.press("right_square_bracket")
                assert screen.index == start
                _assert_seats_follow(screen, None)
            await pilot.press("end")
            assert screen.index == len(screen.replay.frames) - 1
            _assert_seats_follow(screen, None)


async def test_without_a_journal_the_history_says_so() -> None:
    manager = RoomManager(clock=FakeClock(0.0))
    app = make_app_factory(manager)(_Nick("영희"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert "저장하지 않아서" in _text(app)
    manager.close()


class _Nick:
    def __init__(self, nickname: str) -> None:
        self.nickname = nickname


def _text(app: Any) -> str:
    from seotda_tui.testing import screen_text

    return screen_text(app)


# ---------------------------------------------------------------------- real SSH
async def test_a_replay_over_ssh(tmp_path: Path) -> None:
    with played_game(tmp_path / "journal") as played:
        replay = played.history.replay(played.key, PLAYERS[1])
        assert replay is not None
        async with ssh_server(tmp_path, make_app_factory(played.manager)) as server:
            async with server.connect(PLAYERS[1], size=(80, 24)) as client:
                await client.wait_for("환영해요")
                await client.press("h")
                await client.wait_for("복기 방")
                await client.press("\r")
                await client.wait_for("다시 보기 · 복기 방")
                await client.wait_for(f"1/{len(replay.frames)}수")
                await client.press("\x1b[C")  # →
                await client.wait_for(f"2/{len(replay.frames)}수")
                await client.press("\x1b[6~")  # PageDown
                await client.wait_for(f"{replay.hand_starts[1] + 1}/{len(replay.frames)}수")
                await client.press("\x1b[F")  # End
                await client.wait_for(f"{len(replay.frames)}/{len(replay.frames)}수")
                await client.press("q")
                await client.wait_for("Enter 다시 보기")


def _journal_aborted(
    journal: Journal, key: str, log: list[tuple[str | None, dict[str, Any]]]
) -> None:
    journal.start_game(GameRecord(key, "끊긴 방", "a", Options(), "7", ["a", "b"], {}))
    for player, action in log:
        journal.record(key, player, action)
    journal.finish(key, {"aborted": "roomClosed"})


def test_an_aborted_game_is_listed_as_such_and_replays_to_where_it_stopped(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "games.sqlite3")
    _journal_aborted(journal, "x1-1", [(None, {}), (None, {})])
    history = GameHistory(journal)
    (game,) = history.games("b")
    assert game.aborted and game.rank is None and game_cells(game, 1)[-1] == "중단된 게임"
    replay = history.replay("x1-1", "b")
    assert replay is not None and replay.viewer == "b"
    expected = Game.replay(Options(), ["a", "b"], "7", [(None, {}), (None, {})])
    assert replay.view(len(replay.frames) - 1) == expected.view("b")
    journal.close()


async def test_a_journal_the_engine_cannot_replay_is_said_and_nothing_breaks(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "games.sqlite3")
    _journal_aborted(journal, "x2-1", [("b", {"type": "rebuy", "accept": True})])  # not legal
    manager = RoomManager(clock=FakeClock(0.0), journal=journal)
    app = make_app_factory(manager)(_Nick("b"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("h", "enter")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert "기록이 손상됐어요" in _text(app)
    manager.close()


async def test_a_game_pruned_while_the_list_is_open_is_said_to_be_gone(tmp_path: Path) -> None:
    with played_game(tmp_path) as played:
        app = make_app_factory(played.manager)(_Nick(PLAYERS[2]), None)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            assert "복기 방" in _text(app)
            played.wall.now += 31 * DAY
            assert prune_journal(played.journal, 30) == 1
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, HistoryScreen)
            assert "이제 없어요" in _text(app)
