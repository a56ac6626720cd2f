"""A journal that cannot be written pauses the room; nothing unjournaled is ever applied.

The fault is injected under the journal (a connection whose writes fail like a full disk), and,
when this runs as root, made real: a tiny tmpfs filled to the last byte.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any

import pytest

from engine import Game, Options
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomError, RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.pause import PAUSED_NOTICE, PAUSED_REASON, RETRY_STEPS
from seotda_tui.rooms.recording import GameRecorder
from seotda_tui.testing import Table

from .faultkit import FailingConnection, faulty_journal, fill, tiny_tmpfs
from .refusals import refused


class Inbox:
    def __init__(self) -> None:
        self.updates: list[RoomUpdate] = []

    def __call__(self, update: RoomUpdate) -> None:
        self.updates.append(update)

    @property
    def last(self) -> RoomUpdate:
        return self.updates[-1]


def setup(
    tmp_path: Path, nicks: str = "ab", spectators: str = "s", **opts: Any
) -> tuple[RoomManager, FakeClock, FailingConnection, str, dict[str, Inbox]]:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    m = RoomManager(clock=clock, journal=journal, seed_source=lambda: "seed-3")
    for nick in nicks + spectators:
        m.session_connected(nick)
    room = m.create_room(nicks[0], "방", Options(**opts))
    for nick in nicks[1:]:
        m.join(room.id, nick)
    for nick in spectators:
        m.watch(room.id, nick)
    m.start(room.id, nicks[0])
    inboxes = {nick: Inbox() for nick in nicks + spectators}
    for nick, inbox in inboxes.items():
        m.subscribe_room(room.id, nick, inbox)
    return m, clock, conn, room.id, inboxes


def game(m: RoomManager, room_id: str) -> Game:
    g = m.live_game(room_id)  # test-only peek at the server state
    assert g is not None
    return g


def journaled(tmp_path: Path) -> Game:
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    return saved.rebuild()


def a_move(g: Game) -> tuple[str, dict[str, Any]]:
    nick = g.pending()["players"][0]
    kinds = [a["type"] for a in g.legal_actions(nick)]
    kind = next(k for k in ("check", "call", "ready") if k in kinds)
    return nick, {"type": kind}


def test_a_write_that_fails_is_not_applied_pauses_the_room_and_resumes_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    m, clock, conn, room_id, inboxes = setup(tmp_path)
    nick, action = a_move(game(m, room_id))
    m.act(room_id, nick, action)  # journaled and applied
    before = game(m, room_id).state_hash()
    conn.full = True
    nick, action = a_move(game(m, room_id))
    with caplog.at_level(logging.INFO, logger="seotda.rooms"):
        with refused("paused") as info:
            m.act(room_id, nick, action)
        assert str(info.value) == PAUSED_REASON
        assert game(m, room_id).state_hash() == before  # not applied
        for inbox in inboxes.values():  # every seat and the spectator is told; no countdown
            assert inbox.last.paused and inbox.last.deadline_at is None
        with refused("paused"):  # refused while paused
            m.act(room_id, nick, action)
        clock.advance(300)  # no timeout while paused (the turn was 20 s), only retries
        assert game(m, room_id).state_hash() == before
        with refused("paused"):
            m.act(room_id, nick, action)
        start = 1000.0
        retries = [t - start for t in conn.failed_at()[1:]]
        steps = [*RETRY_STEPS, *[RETRY_STEPS[-1]] * 40]
        expected = [sum(steps[: i + 1]) for i in range(len(retries))]
        assert retries == expected and len(retries) >= 30  # 1, 3, 8, 18, 28, ... seconds
        conn.full = False
        clock.advance(RETRY_STEPS[-1])
    assert not inboxes["a"].last.paused and not inboxes["s"].last.paused
    deadline = inboxes["a"].last.deadline_at
    assert deadline is not None
    armed = deadline - game(m, room_id).pending()["seconds"]
    assert conn.failed_at()[-1] < armed <= clock.time()  # a fresh turn, from the resume
    m.act(room_id, nick, action)
    assert journaled(tmp_path).state_hash() == game(m, room_id).state_hash()
    events = [record_fields(r).get("event") for r in caplog.records]
    # one line a GameRecorder.LOG_EVERY of the rooms' clock while writes fail (~300 s here:
    # the first failure's, then one a minute), not one line per retry (30 and more)
    failed, minutes, last = conn.failed_at(), 0, -GameRecorder.LOG_EVERY
    for at in failed:
        if at - last >= GameRecorder.LOG_EVERY:
            minutes, last = minutes + 1, at
    assert events.count("journal_error") == minutes == 5 and len(failed) > 30
    assert events.count("room_paused") == 1 and events.count("room_resumed") == 1
    assert events.count("journal_recovered") == 1


def test_timeouts_and_the_managers_own_changes_wait_and_apply_in_order(tmp_path: Path) -> None:
    m, clock, conn, room_id, inboxes = setup(tmp_path, "abc")  # b's disconnect ends nothing
    m.reconnect_grace = 5.0
    before = game(m, room_id).state_hash()
    conn.full = True
    clock.advance(game(m, room_id).pending()["seconds"])  # the timeout cannot be written
    assert inboxes["a"].last.paused and game(m, room_id).state_hash() == before
    assert not any(e.get("type") == "timeout" for e in inboxes["a"].last.events)
    m.session_disconnected("b")
    clock.advance(6)  # b's grace runs out: the engine's disconnect waits too
    m.session_connected("b")  # and so does the reconnect
    assert game(m, room_id).state_hash() == before
    assert game(m, room_id).is_connected("b")
    conn.full = False
    clock.advance(RETRY_STEPS[-1])
    assert not inboxes["a"].last.paused
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert saved.log == [(None, {}), ("b", {"type": "disconnect"}), ("b", {"type": "reconnect"})]
    assert saved.rebuild().state_hash() == game(m, room_id).state_hash()
    shown = [e["type"] for u in inboxes["s"].updates for e in u.events]
    assert "timeout" in shown and shown.index("disconnect") < shown.index("reconnect")


def test_a_game_whose_start_cannot_be_written_does_not_start(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    m = RoomManager(clock=clock, journal=journal)
    room = m.create_room("a", "방", Options())
    m.join(room.id, "b")
    conn.full = True
    with refused("start_refused"):
        m.start(room.id, "a")
    assert m.room(room.id).status == "waiting"
    assert m.live_game(room.id) is None
    conn.full = False
    m.start(room.id, "a")
    assert m.room(room.id).status == "playing"
    assert len(Journal(tmp_path / "g.sqlite3").open_games()) == 1


def test_a_finish_that_cannot_be_written_is_retried_while_the_result_stays(
    tmp_path: Path,
) -> None:
    m, clock, conn, room_id, inboxes = setup(tmp_path, spectators="")
    conn.full = True
    conn.which = lambda sql, params: "finished_at" in sql  # only the game's end fails
    m.leave(room_id, "b")  # a leaves b alone in the game: it ends
    assert inboxes["a"].last.room.status == "finished" and inboxes["a"].last.result
    assert len(Journal(tmp_path / "g.sqlite3").open_games()) == 1  # the end is not written yet
    clock.advance(RETRY_STEPS[0] + RETRY_STEPS[1])  # two retries, both failing
    assert inboxes["a"].last.result and len(conn.failed_at()) == 3
    conn.full = False
    clock.advance(RETRY_STEPS[2])
    assert Journal(tmp_path / "g.sqlite3").open_games() == []
    (done,) = Journal(tmp_path / "g.sqlite3").finished_games()
    assert done["result"] == inboxes["a"].last.result


def test_bots_stop_while_the_room_is_paused_and_play_on_after(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    m = RoomManager(clock=clock, journal=journal, seed_source=lambda: "seed-5")
    m.session_connected("a")
    room = m.create_room("a", "방", Options())
    bot = m.add_bot(room.id, "a")
    m.start(room.id, "a")
    conn.full = True
    g = game(m, room.id)
    if g.pending()["players"] == ["a"]:
        nick, action = a_move(g)
        with refused("paused"):
            m.act(room.id, nick, action)
    else:
        clock.advance(2.5)  # the bot thinks, acts, and its write fails
    assert m.paused(room.id)
    paused = game(m, room.id).state_hash()
    driver = m.bot_drivers(room.id)[bot]
    errors = driver.errors
    clock.advance(120)
    assert game(m, room.id).state_hash() == paused and driver.errors == errors
    conn.full = False
    clock.advance(RETRY_STEPS[-1])
    for _ in range(20):  # the bot plays on (a human turn: a move for a)
        if game(m, room.id).state_hash() != paused:
            break
        g = game(m, room.id)
        if g.pending()["players"] == ["a"]:
            m.act(room.id, *a_move(g))
        clock.advance(2.5)
    assert game(m, room.id).state_hash() != paused and driver.errors == errors
    assert journaled(tmp_path).state_hash() == game(m, room.id).state_hash()


def test_when_the_bots_disconnect_cannot_be_written_no_timer_runs_until_it_is(
    tmp_path: Path,
) -> None:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    m = RoomManager(clock=clock, journal=journal)
    m.session_connected("a")
    room = m.create_room("a", "방", Options())
    bots = [m.add_bot(room.id, "a"), m.add_bot(room.id, "a")]
    m.watch(room.id, "s")
    m.start(room.id, "a")
    watcher = Inbox()
    m.subscribe_room(room.id, "s", watcher)
    conn.full = True
    conn.which = lambda sql, params: "disconnect" in str(params)
    m.leave(room.id, "a")  # written; then no human is left: the bots' disconnects fail
    assert m.paused(room.id) and m.seconds_left(room.id) is None
    assert watcher.last.paused and watcher.last.deadline_at is None
    waiting = m.waiting_changes(room.id)
    assert sorted(waiting) == sorted((bot, {"type": "disconnect"}) for bot in bots)
    clock.advance(60)
    assert m.room(room.id).status == "playing"
    conn.full = False
    clock.advance(RETRY_STEPS[-1])
    assert watcher.last.room.status == "finished" and not watcher.last.paused
    (done,) = Journal(tmp_path / "g.sqlite3").finished_games()
    result = done["result"]
    assert result and "ranking" in result
    assert result["reason"] == "botsOnly"  # the person left: only bots were in it


async def test_every_seat_and_spectator_sees_the_notice_until_writes_work_again(
    tmp_path: Path,
) -> None:
    clock = FakeClock(1000.0)
    journal, conn = faulty_journal(tmp_path / "g.sqlite3", clock.time)
    manager = RoomManager(clock=clock, journal=journal, seed_source=lambda: 7)
    async with Table.open(["a", "b"], spectators=["s"], manager=manager) as t:
        actor = t.actor
        assert actor is not None and "내 차례예요" in t.text(actor)
        conn.full = True
        await t.press(actor, "3")  # 삥: cannot be written
        for nick in ("a", "b", "s"):
            assert PAUSED_NOTICE in t.text(nick), t.text(nick)
        assert "내 차례예요" not in t.text(actor)
        await t.press(actor, "3")  # the keys do nothing while paused
        assert t.game.view(None).get("actor") == actor
        await t.advance(30)
        assert PAUSED_NOTICE in t.text(actor)
        conn.full = False
        await t.advance(RETRY_STEPS[-1])
        for nick in ("a", "b", "s"):
            assert PAUSED_NOTICE not in t.text(nick)
        assert "내 차례예요" in t.text(actor)
        await t.press(actor, "3")
        assert t.actor != actor


# ---------------------------------------------------------------- a real full filesystem


def room_on_a_full_disk(disk: Path) -> tuple[RoomManager, FakeClock, str, Inbox]:
    """A game journaled on ``disk`` (a tiny tmpfs), b's inbox subscribed, then the disk filled."""
    clock = FakeClock(1000.0)
    m = RoomManager(clock=clock, journal=Journal(disk / "g.sqlite3"), seed_source=lambda: 9)
    room = m.create_room("a", "방", Options())
    m.join(room.id, "b")
    m.start(room.id, "a")
    inbox = Inbox()
    m.subscribe_room(room.id, "b", inbox)
    with contextlib.suppress(OSError):
        fill(disk / "filler")
    return m, clock, room.id, inbox


def test_a_really_full_filesystem_pauses_the_room_and_freeing_space_resumes_it(
    tmp_path: Path,
) -> None:
    with tiny_tmpfs(tmp_path / "disk") as disk:
        m, clock, room_id, inbox = room_on_a_full_disk(disk)
        filler = disk / "filler"
        shown: list[tuple[str, dict[str, Any]]] = []
        error: RoomError | None = None
        for _ in range(200):  # until a write needs a block the disk no longer has
            move = a_move(game(m, room_id))
            before = game(m, room_id).state_hash()
            try:
                m.act(room_id, *move)
            except RoomError as exc:
                error = exc
                break
            shown.append(move)
        assert error is not None and error.code == "paused" and inbox.last.paused
        assert game(m, room_id).state_hash() == before
        clock.advance(30)
        assert inbox.last.paused
        with refused("paused"):
            m.act(room_id, *a_move(game(m, room_id)))
        filler.unlink()
        clock.advance(RETRY_STEPS[-1])
        assert not inbox.last.paused
        move = a_move(game(m, room_id))
        m.act(room_id, *move)
        live = game(m, room_id).state_hash()
        m.close()
        (saved,) = Journal(disk / "g.sqlite3").open_games()
        # (a full disk may still take a write now and then: e.g. a timeout in between)
        assert saved.log[: len(shown)] == shown and saved.log[-1] == move
        assert saved.rebuild().state_hash() == live


def test_a_full_disk_keeps_the_room_paused_until_an_action_sized_write_fits(
    tmp_path: Path,
) -> None:
    """Found by hand: with the disk filled right after the start, the first action failed but
    the retry's probe (a row rewritten in place) fitted, so the room resumed after a second
    and paused again at the next key. The probe now needs the pages an action needs."""
    with tiny_tmpfs(tmp_path / "disk") as disk:
        m, clock, room_id, inbox = room_on_a_full_disk(disk)
        with refused("paused"):
            m.act(room_id, *a_move(game(m, room_id)))
        for step in RETRY_STEPS * 2:
            clock.advance(step)
            assert inbox.last.paused
            with refused("paused"):
                m.act(room_id, *a_move(game(m, room_id)))
        (disk / "filler").unlink()
        clock.advance(RETRY_STEPS[-1])
        assert not inbox.last.paused
        m.act(room_id, *a_move(game(m, room_id)))
        m.close()
