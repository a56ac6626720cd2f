"""Room manager + journal: every applied change is journaled before it is pushed; resume restores."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Game, Options
from engine.types import Action, View
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomError, RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock, LoopClock
from seotda_tui.rooms.journal import GameRecord, Journal

from .gamekit import random_action, refusal
from .refusals import refused

Timeline = list[tuple[str, Any]]


class TracingJournal(Journal):
    """A journal that notes each write on a timeline shared with the sessions' inboxes."""

    def __init__(self, path: Path, timeline: Timeline) -> None:
        super().__init__(path)
        self.timeline = timeline

    def record(self, room_id: str, player: str | None, action: Action) -> None:
        super().record(room_id, player, action)
        self.timeline.append(("record", (player, action)))


class Inbox:
    def __init__(self, nick: str, timeline: Timeline | None = None) -> None:
        self.nick = nick
        self.updates: list[RoomUpdate] = []
        self.timeline = timeline

    def __call__(self, update: RoomUpdate) -> None:
        self.updates.append(update)
        if self.timeline is not None:
            self.timeline.append(("push", self.nick))

    @property
    def view(self) -> View:
        view = self.updates[-1].view
        assert view is not None
        return view


def manager_for(path: Path, clock: FakeClock, **kw: Any) -> RoomManager:
    kw.setdefault("seed_source", lambda: "seed-7")
    journal = kw.pop("journal", None) or Journal(path / "g.sqlite3")
    return RoomManager(clock=clock, journal=journal, **kw)


def open_room(m: RoomManager, nicks: str, **opts: Any) -> str:
    for nick in nicks:
        m.session_connected(nick)
    room = m.create_room(nicks[0], "저널 방", Options(**opts))
    for nick in nicks[1:]:
        m.join(room.id, nick)
    return room.id


def game_of(m: RoomManager, room_id: str) -> Game:
    game = m.live_game(room_id)  # test-only peek at the server state
    assert game is not None
    return game


def play_randomly(m: RoomManager, clock: FakeClock, room_id: str, steps: int, seed: int) -> None:
    """Legal moves through the manager (and some timeouts), like sessions would make."""
    rng = random.Random(seed)
    for _ in range(steps):
        game = game_of(m, room_id)
        if game.finished:
            return
        move = random_action(game, rng)
        if move is None:
            clock.advance(game.pending()["seconds"] or 1)
        else:
            player, action = move
            assert player is not None
            m.act(room_id, player, action)


# ---------------------------------------------------------------- journaling


def test_actions_are_journaled_in_order_before_the_push(tmp_path: Path) -> None:
    timeline: Timeline = []
    clock = FakeClock()
    journal = TracingJournal(tmp_path / "g.sqlite3", timeline)
    m = manager_for(tmp_path, clock, journal=journal, reconnect_grace=5)
    room_id = open_room(m, "abc", turn_seconds=15)
    for nick in "abc":
        m.subscribe_room(room_id, nick, Inbox(nick, timeline))
    m.start(room_id, "a")
    game = game_of(m, room_id)
    expected: list[tuple[str | None, dict[str, Any]]] = []

    def mark() -> int:
        return len(timeline)

    # a legal action: recorded, then pushed to the three sessions
    actor = game.view(None).get("actor")
    at = mark()
    m.act(room_id, actor, {"type": "ping"})
    expected.append((actor, {"type": "ping"}))
    assert timeline[at:] == [("record", expected[-1])] + [("push", n) for n in "abc"]
    # illegal ones: nothing recorded, nothing pushed
    at = mark()
    other = next(p for p in "abc" if p != game.view(None).get("actor"))
    for nick, action, code in [
        (other, {"type": "call"}, "notYourTurn"),
        (game.view(None).get("actor"), {"type": "check"}, "alreadyOpened"),
        ("a", {"type": "leave"}, "systemOnly"),
    ]:
        reason = refusal(game, nick, action, own=True)
        assert reason.code == code
        with pytest.raises(RoomError) as info:
            m.act(room_id, nick, action)
        assert str(info.value) == str(reason)
    assert timeline[at:] == []
    # a timeout: recorded as (None, {}) before its push
    at = mark()
    clock.advance(15)
    expected.append((None, {}))
    assert timeline[at] == ("record", (None, {})) and timeline[at + 1][0] == "push"
    # the manager's own engine actions: disconnect after the grace, reconnect, leave
    m.session_disconnected("b")
    at = mark()
    clock.advance(5)  # the grace runs out before the next turn's deadline
    assert timeline[at] == ("record", ("b", {"type": "disconnect"}))
    assert [kind for kind, _ in timeline[at + 1 :]] == ["push"] * 3
    expected.append(("b", {"type": "disconnect"}))
    assert m.session_connected("b") == room_id
    expected.append(("b", {"type": "reconnect"}))
    m.leave(room_id, "c")
    expected.append(("c", {"type": "leave"}))
    (saved,) = journal.open_games()
    assert saved.log == expected
    assert saved.rebuild().state_hash() == game.state_hash()


def test_random_play_journal_replays_to_the_live_state(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=5)
    room_id = open_room(m, "abcd", card_mode="three")
    m.start(room_id, "a")
    m.session_disconnected("d")
    play_randomly(m, clock, room_id, 120, seed=5)
    game = game_of(m, room_id)
    journal = Journal(tmp_path / "g.sqlite3")
    if game.finished:
        assert journal.open_games() == []
    else:
        (saved,) = journal.open_games()
        assert saved.rebuild().state_hash() == game.state_hash()
        assert saved.players == ["a", "b", "c", "d"] and saved.bots == {} and saved.host == "a"


def test_finished_games_keep_their_records_and_room_ids_do_not_repeat(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock)
    room_id = open_room(m, "ab", hand_limit=10)
    m.start(room_id, "a")
    for _ in range(300):
        clock.advance(20)
        if m.room(room_id).status == "finished":
            break
    assert m.room(room_id).status == "finished"
    journal = Journal(tmp_path / "g.sqlite3")
    assert journal.open_games() == []
    (first,) = journal.finished_games()
    result = first["result"]
    assert first["roomId"] == f"{room_id}-1" and result and "ranking" in result
    assert result["reason"] == "hands"
    m.start(room_id, "a")  # the same room plays again: a new record, the old one stays
    (second,) = journal.open_games()
    assert second.room_id == f"{room_id}-2"
    assert len(journal.finished_games()) == 1
    other = RoomManager(clock=FakeClock())
    ids = {other.create_room(f"h{i}", "x", Options()).id for i in range(50)}
    assert len(ids) == 50 and room_id not in ids and all(len(i) >= 12 for i in ids)


# ---------------------------------------------------------------- resume


def views_of(m: RoomManager, room_id: str, nicks: str) -> dict[str, View]:
    out = {}
    for nick in nicks:
        inbox = Inbox(nick)
        unsubscribe = m.subscribe_room(room_id, nick, inbox)
        out[nick] = inbox.view
        unsubscribe()
    return out


@pytest.mark.parametrize(
    ("opts", "steps", "seed"),
    [({}, 7, 1), ({"card_mode": "three"}, 25, 2), ({"card_mode": "three"}, 9, 4), ({}, 60, 3)],
)
def test_resume_restores_rooms_seats_stacks_cards_and_turn(
    tmp_path: Path, opts: dict[str, Any], steps: int, seed: int
) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=60)
    room_id = open_room(m, "abc", turn_seconds=30, **opts)
    m.watch(room_id, "s")
    m.start(room_id, "a")
    play_randomly(m, clock, room_id, steps, seed)
    before = game_of(m, room_id)
    assert not before.finished
    seen = views_of(m, room_id, "abc")
    summary = m.room(room_id)
    assert summary is not None
    # the process dies: no close(), a new manager opens the same journal
    clock2 = FakeClock(1000.0)
    m2 = manager_for(tmp_path, clock2, reconnect_grace=60)
    after = game_of(m2, room_id)
    assert after.state_hash() == before.state_hash()
    restored = m2.room(room_id)
    assert restored is not None and restored.status_label == "게임 중"
    assert restored.players == summary.players and restored.host == summary.host
    assert restored.offline == summary.players and restored.spectators == ()
    assert restored.name == "저널 방" and restored.options == summary.options
    assert m2.room_of("b") == room_id and m2.room_of("s") is None
    # timers: each seat's grace and a fresh, full engine deadline, from the resume
    seconds = after.pending()["seconds"]
    assert sorted(clock2.pending) == sorted([1060.0] * 3 + [1000.0 + seconds])
    # each player comes back to exactly the seat, stack, cards and turn they had
    for nick in "abc":
        assert m2.session_connected(nick) == room_id
    assert m2.room(room_id).offline == ()
    assert views_of(m2, room_id, "abc") == seen
    inbox = Inbox("a")
    m2.subscribe_room(room_id, "a", inbox)
    assert inbox.updates[-1].seconds_left(clock2.time()) == seconds
    assert any(e.get("type") == "resumed" for e in inbox.updates[-1].events)
    # and the game goes on from there, journaled on top of the old log
    play_randomly(m2, clock2, room_id, 10, seed + 100)
    live = game_of(m2, room_id)
    if not live.finished:
        (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
        assert saved.rebuild().state_hash() == live.state_hash()


def test_resumed_players_who_never_return_end_the_game_after_the_grace(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=60)
    room_id = open_room(m, "abc", turn_seconds=60)
    m.start(room_id, "a")
    play_randomly(m, clock, room_id, 3, 9)
    clock2 = FakeClock()
    m2 = manager_for(tmp_path, clock2, reconnect_grace=60)
    lobby: list[list[Any]] = []
    m2.subscribe_lobby(lobby.append)
    assert [r.id for r in lobby[-1]] == [room_id]
    assert m2.session_connected("a") == room_id  # only a comes back
    clock2.advance(59)
    assert m2.room(room_id).status == "playing"
    clock2.advance(1)  # b and c are gone for the engine: a alone cannot play
    summary = m2.room(room_id)
    assert summary is not None and summary.status == "finished" and summary.players == ("a",)
    assert Journal(tmp_path / "g.sqlite3").open_games() == []
    assert m2.room_of("b") is None


def test_a_seat_past_its_grace_before_the_crash_stays_disconnected(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=10)
    room_id = open_room(m, "abc", turn_seconds=60)
    m.start(room_id, "a")
    m.session_disconnected("c")
    clock.advance(10)
    assert not game_of(m, room_id).is_connected("c")
    m2 = manager_for(tmp_path, FakeClock(), reconnect_grace=10)
    assert m2.session_connected("c") == room_id
    events = m2.log(room_id)
    assert {"type": "reconnect", "player": "c"} in events
    assert game_of(m2, room_id).is_connected("c")


def test_resume_arms_timers_once_the_event_loop_runs(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock)
    room_id = open_room(m, "ab", turn_seconds=15)
    m.start(room_id, "a")
    # like __main__: the manager is built before asyncio.run, on the loop's clock
    m2 = RoomManager(journal=Journal(tmp_path / "g.sqlite3"), reconnect_grace=60)
    assert m2.seconds_left(room_id) is None  # nothing armed without a loop

    async def inside() -> None:
        assert m2.session_connected("a") == room_id  # first call from inside the loop
        assert m2.seconds_left(room_id) == pytest.approx(15, abs=1)  # armed, on the loop's clock
        m2.close()

    asyncio.run(inside())
    assert isinstance(m2.clock, LoopClock)


def test_removing_a_bot_arms_resumed_rooms_like_every_other_call(tmp_path: Path) -> None:
    """remove_bot used to skip the step every other public call takes first (arming the rooms
    resumed before the loop ran), so their grace timers and deadlines waited for another call."""
    m = manager_for(tmp_path, FakeClock())
    room_id = open_room(m, "ab", turn_seconds=15)
    m.start(room_id, "a")
    m2 = RoomManager(journal=Journal(tmp_path / "g.sqlite3"), reconnect_grace=60)
    summary = m2.room(room_id)
    assert summary is not None and summary.grace_ends == ()  # nothing armed without a loop

    async def inside() -> None:
        with refused("room_gone"):
            m2.remove_bot("no-such-room", "a")  # the first call from inside the loop
        summary = m2.room(room_id)
        assert summary is not None and {nick for nick, _ in summary.grace_ends} == {"a", "b"}
        m2.close()

    asyncio.run(inside())


def test_a_journaled_game_that_had_ended_is_closed_not_resumed(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "g.sqlite3")
    options = Options(hand_limit=10)
    game = Game.new(options, ["a", "b"], "s")
    journal.start_game(GameRecord("old-1", "방", "a", options, "s", ["a", "b"], {}))
    while not game.finished:
        game.timeout()
        journal.record("old-1", None, {})
    journal.start_game(GameRecord("bad-1", "방", "a", options, "s", ["a", "b"], {}))
    journal.record("bad-1", "zzz", {"type": "check"})  # cannot replay
    journal.close()
    m = manager_for(tmp_path, FakeClock())
    assert m.rooms() == []
    results = {g["roomId"]: g["result"] for g in Journal(tmp_path / "g.sqlite3").finished_games()}
    old = results["old-1"]
    assert old and "ranking" in old and old["reason"] == "hands"
    assert results["bad-1"] == {"aborted": "replayFailed"}


def test_room_and_game_lifecycle_is_logged_without_cards(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock()
    with caplog.at_level(logging.INFO, logger="seotda.rooms"):
        m = manager_for(tmp_path, clock)
        room_id = open_room(m, "ab", hand_limit=10)
        m.start(room_id, "a")
        for _ in range(300):
            clock.advance(20)
        m.leave(room_id, "a")
        m.leave(room_id, "b")
        manager_for(tmp_path, FakeClock())
    records = [record_fields(r) for r in caplog.records if r.name == "seotda.rooms"]
    events = [r.get("event") for r in records]
    assert events[:4] == ["room_created", "game_started", "game_finished", "room_closed"]
    finished = records[2]
    assert finished["room"] == room_id and finished["reason"] == "hands" and finished["hands"] == 10
    text = caplog.text
    assert "cards" not in text and "month" not in text


def test_a_game_waiting_for_a_gusa_choice_resumes_there(tmp_path: Path) -> None:
    """Issue 36: the server dies while a 구사 holder decides (seed-27 deals one in hand 1); the
    resumed room waits for the same holder, with a fresh deadline, and goes on from there."""
    clock = FakeClock()
    m = manager_for(tmp_path, clock, seed_source=lambda: "seed-27", reconnect_grace=60)
    room_id = open_room(m, "abc", deal_mode="oneRound", gusa_choice=True, ttaeng_value="school")
    m.start(room_id, "a")
    while (pending := game_of(m, room_id).pending())["phase"] == "betting":
        (actor,) = pending["players"]
        kinds = [a["type"] for a in game_of(m, room_id).legal_actions(actor)]
        m.act(room_id, actor, {"type": "check" if "check" in kinds else "call"})
    assert pending["phase"] == "gusaChoice"
    (holder,) = pending["players"]
    before = game_of(m, room_id)
    seen = views_of(m, room_id, "abc")
    assert seen[holder]["gusaChoice"] == {"players": [holder]}
    clock2 = FakeClock(1000.0)
    m2 = manager_for(tmp_path, clock2, reconnect_grace=60)
    after = game_of(m2, room_id)
    assert after.state_hash() == before.state_hash()
    assert after.pending() == pending
    # the holder's full turn (turnSeconds), from the resume
    assert 1000.0 + Options().turn_seconds in clock2.pending
    for nick in "abc":
        m2.session_connected(nick)
    assert views_of(m2, room_id, "abc") == seen
    m2.act(room_id, holder, {"type": "gusaChoice", "accept": False})
    live = game_of(m2, room_id)
    assert live.view(None).get("handPhase") == "handEnd"
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert saved.rebuild().state_hash() == live.state_hash()
