"""Bots in rooms (fake clock): seating, playing through the manager, blindness, determinism, resume."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from engine import Options
from engine.types import View
from seotda_tui.rooms import RoomError, RoomManager, RoomUpdate
from seotda_tui.rooms import bots as bot_rules
from seotda_tui.rooms.bot_seats import BOT_DELAY, BotPlayer
from seotda_tui.rooms.bots import decide
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Entry, Journal
from seotda_tui.sanitize import validate_nickname

from .refusals import refused


class Inbox:
    def __init__(self) -> None:
        self.updates: list[RoomUpdate] = []

    def __call__(self, update: RoomUpdate) -> None:
        self.updates.append(update)

    @property
    def last(self) -> RoomUpdate:
        return self.updates[-1]


def manager(
    tmp_path: Path | None = None, seed: str = "bots-1", **kw: Any
) -> tuple[RoomManager, FakeClock]:
    clock = FakeClock()
    journal = Journal(tmp_path / "g.sqlite3") if tmp_path is not None else None
    return RoomManager(clock=clock, seed_source=lambda: seed, journal=journal, **kw), clock


def run_until_over(m: RoomManager, clock: FakeClock, room_id: str, limit: float = 20000) -> None:
    start = clock.now
    while m.room(room_id) is not None and m.room(room_id).status == "playing":
        assert clock.now - start < limit, "the game did not end"
        clock.advance(0.5)


def hidden_leak(view: Mapping[str, Any], viewer: str) -> bool:
    for seat in view["seats"]:
        if seat["id"] != viewer and any(c != {"hidden": True} for c in seat.get("cards", [])):
            return True
    return False


# ---------------------------------------------------------------- seating


def test_host_adds_and_removes_bots_up_to_the_seat_limit() -> None:
    m, _clock = manager()
    room = m.create_room("철수", "봇 방", Options(card_mode="three"))  # 3장: at most 6 seats
    m.join(room.id, "영희")
    with refused("not_host"):
        m.add_bot(room.id, "영희")
    with refused("unknown_bot"):
        m.add_bot(room.id, "철수", "genius")
    names = [
        m.add_bot(room.id, "철수", level) for level in ("cautious", "strong", "random", "strong")
    ]
    assert names == ["봇1(신중)", "봇2(강함)", "봇3(무작위)", "봇4(강함)"]
    summary = m.room(room.id)
    assert summary is not None and summary.players == ("철수", "영희", *names)
    assert summary.bots == tuple(names) and summary.offline == ()
    with refused("room_full"):
        m.add_bot(room.id, "철수")
    with refused("not_host"):
        m.remove_bot(room.id, "영희")
    assert m.remove_bot(room.id, "철수") == "봇4(강함)"  # the last one by default
    assert m.remove_bot(room.id, "철수", "봇2(강함)") == "봇2(강함)"
    with refused("not_a_bot"):
        m.remove_bot(room.id, "철수", "영희")
    assert m.add_bot(room.id, "철수", "strong") == "봇2(강함)"  # the lowest free number
    events = [e for e in m.log(room.id) if e.get("bot")]
    assert events[0] == {"type": "join", "player": "봇1(신중)", "bot": "cautious"}
    assert m.room_of("봇1(신중)") is None  # bots are no sessions


def test_bot_names_are_valid_looking_but_reserved_for_bots() -> None:
    for name in ("봇1(신중)", "봇12(무작위)", "봇3"):
        with pytest.raises(ValueError, match="봇 전용"):
            validate_nickname(name)
    assert validate_nickname("봇") == "봇" and validate_nickname("로봇1") == "로봇1"


def test_bots_are_never_hosts_and_never_keep_a_room_open() -> None:
    m, _clock = manager()
    lobby: list[list[Any]] = []
    m.subscribe_lobby(lobby.append)
    room = m.create_room("a", "x", Options())
    m.add_bot(room.id, "a")
    m.join(room.id, "b")
    m.leave(room.id, "a")
    assert m.room(room.id).host == "b"
    m.watch(room.id, "s")
    m.leave(room.id, "b")
    assert m.room(room.id).host is None  # a spectator keeps it
    m.leave(room.id, "s")
    assert m.room(room.id) is None and lobby[-1] == []


def test_no_bot_changes_during_a_game() -> None:
    m, _clock = manager()
    room = m.create_room("a", "x", Options())
    m.add_bot(room.id, "a")
    m.start(room.id, "a")
    with refused("game_running"):
        m.add_bot(room.id, "a")
    with refused("game_running"):
        m.remove_bot(room.id, "a")


# ---------------------------------------------------------------- playing


def test_one_human_and_three_bots_play_to_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []
    real_call_later = FakeClock.call_later

    def spy(self: FakeClock, delay: float, callback: Any) -> Any:
        if getattr(callback, "__self__", None).__class__ is BotPlayer:
            delays.append(delay)
        return real_call_later(self, delay, callback)

    monkeypatch.setattr(FakeClock, "call_later", spy)
    m, clock = manager(seed="full-game")
    m.session_connected("사람")
    room = m.create_room("사람", "x", Options(hand_limit=10, turn_seconds=15))
    bots = [m.add_bot(room.id, "사람", level) for level in ("cautious", "strong", "random")]
    inbox = Inbox()
    m.subscribe_room(room.id, "사람", inbox)
    m.start(room.id, "사람")
    run_until_over(m, clock, room.id)  # the human never acts: every turn of theirs times out
    summary = m.room(room.id)
    assert summary is not None and summary.status == "finished"
    result = inbox.last.result
    assert result is not None and result["reason"] == "hands"
    assert {row["playerId"] for row in result["ranking"]} == {"사람", *bots}
    assert summary.players == ("사람", *bots)  # bots keep their seats for the next game
    drivers = m.bot_drivers(room.id)
    assert set(drivers) == set(bots) and all(d.errors == 0 for d in drivers.values())
    assert delays and all(BOT_DELAY[0] <= d <= BOT_DELAY[1] for d in delays)
    bets = [e for e in m.log(room.id) if e["type"] == "bet" and e["player"] in bots]
    assert bets  # the bots really played
    m.start(room.id, "사람")  # and play again
    assert m.room(room.id).status == "playing"


def test_bots_only_ever_see_their_own_view(monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[tuple[str, RoomUpdate]] = []
    decided: list[tuple[str, View]] = []
    real_update = BotPlayer.on_update

    def watch(self: BotPlayer, update: RoomUpdate) -> None:
        received.append((self.nick, update))
        real_update(self, update)

    def spy_decide(level: str, view: View, options: Options, seed: Any = 0) -> Any:
        decided.append((str(seed), view))
        return decide(level, view, options, seed)

    monkeypatch.setattr(BotPlayer, "on_update", watch)
    monkeypatch.setattr(bot_rules, "decide", spy_decide)
    m, clock = manager(seed="blind")
    room = m.create_room("a", "x", Options(card_mode="three", hand_limit=10))
    m.join(room.id, "b")
    bots = [m.add_bot(room.id, "a", level) for level in ("strong", "random")]
    m.start(room.id, "a")
    for _ in range(600):
        clock.advance(0.5)
    assert decided and any(u.view is not None and u.room.status == "playing" for _, u in received)
    for nick, update in received:
        assert nick in bots and update.viewer in (nick, None)
        view = update.view
        if view is not None and update.room.status == "playing":
            assert update.viewer == nick and view["viewer"] == nick
            if not view.get("showdown"):
                assert not hidden_leak(view, nick)
    for salt, view in decided:
        assert view["viewer"] in bots and salt != "blind"  # a salt, never the deck's seed
    # the bot drivers hold no game
    for driver in m.bot_drivers(room.id).values():
        assert not any(type(v).__name__ == "Game" for v in vars(driver).values())


def journal_of(tmp_path: Path, seed: str, human_moves: bool) -> list[Entry]:
    m, clock = manager(tmp_path, seed=seed)
    m.session_connected("사람")
    room = m.create_room("사람", "x", Options(hand_limit=50))
    for level in ("strong", "cautious", "random"):
        m.add_bot(room.id, "사람", level)
    m.start(room.id, "사람")
    game = m.live_game(room.id)
    assert game is not None
    for _ in range(150):
        clock.advance(0.5)
        if human_moves and "사람" in game.pending()["players"] and not game.finished:
            view = game.view("사람")  # as RoomUpdate.view carries it
            action = decide("random", view, game.options, "사람")
            assert action is not None
            m.act(room.id, "사람", action)
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert saved.rebuild().state_hash() == game.state_hash()
    m.close()
    return saved.log


def test_same_seed_same_journal(tmp_path: Path) -> None:
    first = journal_of(tmp_path / "1", "같은 시드", human_moves=True)
    second = journal_of(tmp_path / "2", "같은 시드", human_moves=True)
    assert first == second and len(first) > 20
    assert any(p is not None and p.startswith("봇") for p, _ in first)
    other = journal_of(tmp_path / "3", "다른 시드", human_moves=True)
    assert other != first


def test_bots_resume_from_the_journal(tmp_path: Path) -> None:
    m, clock = manager(tmp_path, seed="resume-bots", reconnect_grace=30)
    m.session_connected("사람")
    room = m.create_room("사람", "x", Options(hand_limit=10, turn_seconds=15))
    bots = [m.add_bot(room.id, "사람", level) for level in ("strong", "cautious")]
    m.start(room.id, "사람")
    for _ in range(40):
        clock.advance(0.5)
    before = m.live_game(room.id)
    assert before is not None and not before.finished
    # crash; a new server on the same journal
    m2, clock2 = manager(tmp_path, reconnect_grace=30)
    summary = m2.room(room.id)
    assert summary is not None and summary.bots == tuple(bots) and summary.offline == ("사람",)
    assert m2.live_game(room.id).state_hash() == before.state_hash()
    assert set(m2.bot_drivers(room.id)) == set(bots)
    assert m2.session_connected("사람") == room.id
    inbox = Inbox()
    m2.subscribe_room(room.id, "사람", inbox)
    start = len(Journal(tmp_path / "g.sqlite3").open_games()[0].log)
    run_until_over(m2, clock2, room.id)
    assert inbox.last.result is not None and inbox.last.result["reason"] == "hands"
    finished = Journal(tmp_path / "g.sqlite3").finished_games()
    assert finished and finished[0]["roomId"] == f"{room.id}-1"
    assert start > 0 and all(d.errors == 0 for d in m2.bot_drivers(room.id).values())


def test_a_game_of_bots_ends_when_the_humans_are_gone(tmp_path: Path) -> None:
    m, clock = manager(tmp_path, seed="alone", reconnect_grace=20)
    m.session_connected("a")
    m.session_connected("b")
    room = m.create_room("a", "x", Options(turn_seconds=60))
    m.join(room.id, "b")
    for level in ("strong", "random"):
        m.add_bot(room.id, "a", level)
    m.start(room.id, "a")
    clock.advance(5)
    m.leave(room.id, "a")
    assert m.room(room.id).status == "playing"  # b is still there
    m.session_disconnected("b")
    clock.advance(19)
    assert m.room(room.id).status == "playing"  # within b's grace
    clock.advance(1)
    assert m.room(room.id) is None  # the game ended, and with no human the room closed
    log = Journal(tmp_path / "g.sqlite3")
    assert log.open_games() == []
    result = log.finished_games()[0]["result"]
    assert result and "ranking" in result and result["reason"] == "botsOnly"  # not "1 connected"
    assert clock.pending == []


# ---------------------------------------------------------------- load smoke


class Session:
    """A person's session that answers from its own view (like a screen would)."""

    def __init__(self, m: RoomManager, room_id: str, nick: str) -> None:
        self.m, self.room_id, self.nick = m, room_id, nick
        self.updates: list[RoomUpdate] = []
        self.errors: list[str] = []
        m.session_connected(nick)
        m.subscribe_room(room_id, nick, self.updates.append)

    def maybe_act(self) -> None:
        update = self.updates[-1]
        if update.view is None or update.room.status != "playing":
            return
        action = decide("random", update.view, update.room.options, self.nick)
        if action is not None:
            try:
                self.m.act(self.room_id, self.nick, action)
            except RoomError as error:
                self.errors.append(str(error))


def test_load_smoke_two_full_tables_of_people_and_bots() -> None:
    m, clock = manager(seed="load")
    sessions: list[Session] = []
    rooms = []
    for table, humans in enumerate((["갑", "을"], ["병", "정", "무"])):
        m.session_connected(humans[0])
        room = m.create_room(humans[0], f"탁자{table}", Options(card_mode="three", hand_limit=10))
        for nick in humans[1:]:
            m.join(room.id, nick)
        while len(m.room(room.id).players) < 6:
            m.add_bot(room.id, humans[0], ("strong", "cautious", "random")[len(sessions) % 3])
        sessions += [Session(m, room.id, nick) for nick in humans]
        rooms.append(room.id)
        m.start(room.id, humans[0])
    assert len(sessions) + sum(len(m.room(r).bots) for r in rooms) == 12
    for step in range(4000):
        clock.advance(0.5)
        if step % 3 == 0:  # people are a bit slower than bots
            for session in sessions:
                session.maybe_act()
        for room_id in rooms:  # every session's latest view agrees with the game
            game = m.live_game(room_id)
            assert game is not None
            for session in sessions:
                if session.room_id == room_id and m.room(room_id).status == "playing":
                    assert session.updates[-1].view == game.view(session.nick)
        if all(m.room(r).status == "finished" for r in rooms):
            break
    assert all(m.room(r).status == "finished" for r in rooms)
    assert all(not s.errors for s in sessions)
    for room_id in rooms:
        assert all(d.errors == 0 for d in m.bot_drivers(room_id).values())
        assert m.live_game(room_id).result()["reason"] == "hands"


# ---------------------------------------------------------------- the waiting room's keys


async def test_host_seats_and_removes_bots_with_plus_and_minus() -> None:
    from types import SimpleNamespace

    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.table import TableScreen

    m, _clock = manager()
    room = m.create_room("영희", "봇 방", Options())
    m.join(room.id, "철수")
    host = make_app_factory(m)(SimpleNamespace(nickname="영희"), None)
    guest = make_app_factory(m)(SimpleNamespace(nickname="철수"), None)
    async with host.run_test(size=(80, 24)) as pilot, guest.run_test(size=(80, 24)) as other:
        for app, p in ((host, pilot), (guest, other)):
            await p.pause()
            assert isinstance(app.screen, TableScreen)
        await pilot.press("plus", "plus", "equals_sign")
        await pilot.pause()
        assert m.room(room.id).bots == ("봇1(신중)", "봇2(강함)", "봇3(무작위)")
        await pilot.press("minus")
        await pilot.pause()
        summary = m.room(room.id)
        assert summary is not None and summary.bots == ("봇1(신중)", "봇2(강함)")
        await pilot.pause()
        seats = [s.text.split("│")[0] for s in host.screen._compositor.render_strips()]
        text = "\n".join(seats)  # (the room log on the right still tells of 봇3)
        assert "봇1(신중)" in text and "봇2(강함)" in text and "봇3" not in text, text
        assert "+ 봇" in text and "- 봇" in text  # the host's buttons
        await other.press("plus")  # not the host: refused, with the reason on screen
        await other.pause()
        assert m.room(room.id).bots == ("봇1(신중)", "봇2(강함)")
        text = "\n".join(s.text for s in guest.screen._compositor.render_strips())
        assert "방장만 봇을 넣을 수 있어요" in text
