"""Room manager with a fake clock: membership, start, deadlines, per-viewer pushes, reconnects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine import DECK, Options, OptionsError
from engine.types import View
from seotda_tui.rooms import RoomError, RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.events import RoomEvent

from .gamekit import refusal
from .refusals import refused


class Inbox:
    """Collects one session's pushes."""

    def __init__(self) -> None:
        self.updates: list[RoomUpdate] = []

    def __call__(self, update: RoomUpdate) -> None:
        self.updates.append(update)

    @property
    def last(self) -> RoomUpdate:
        return self.updates[-1]

    @property
    def view(self) -> View:
        assert self.last.view is not None
        return self.last.view

    def events(self) -> list[RoomEvent]:
        return [e for u in self.updates for e in u.events]


def make(
    *nicks: str, grace: float = 60.0, **opts: Any
) -> tuple[RoomManager, FakeClock, str, dict[str, Inbox]]:
    clock = FakeClock()
    manager = RoomManager(clock=clock, reconnect_grace=grace, seed_source=lambda: 1234)
    for nick in nicks:
        manager.session_connected(nick)
    room = manager.create_room(nicks[0], "테스트 방", Options(**opts))
    for nick in nicks[1:]:
        manager.join(room.id, nick)
    inboxes = {}
    for nick in nicks:
        inboxes[nick] = Inbox()
        manager.subscribe_room(room.id, nick, inboxes[nick])
    return manager, clock, room.id, inboxes


def actor(inboxes: dict[str, Inbox]) -> str:
    return next(iter(inboxes.values())).view["actor"]


def game_of(manager: RoomManager, room_id: str):  # test-only peek at the server state
    return manager.live_game(room_id)


def hidden_leak(view: Mapping[str, Any], viewer: str | None) -> bool:
    """True if ``view`` shows any card of a seat other than the viewer's (outside a showdown)."""
    for seat in view["seats"]:
        if seat["id"] == viewer:
            continue
        for card in seat.get("cards", []):
            if card != {"hidden": True}:
                return True
    return False


# ---------------------------------------------------------------- membership


def test_create_join_watch_and_lobby_updates() -> None:
    manager = RoomManager(clock=FakeClock())
    lobby: list[list[Any]] = []
    manager.subscribe_lobby(lobby.append)
    assert lobby == [[]]
    room = manager.create_room("영희", "", Options())
    assert room.name == "영희의 방" and room.host == "영희" and room.players == ("영희",)
    assert room.status_label == "대기 중" and room.max_players == 10
    manager.join(room.id, "철수")
    manager.watch(room.id, "민수")
    summary = lobby[-1][0]
    assert summary.players == ("영희", "철수") and summary.spectators == ("민수",)
    assert manager.room_of("철수") == room.id
    with refused("in_other_room") as elsewhere:
        manager.create_room("철수", "또", Options())
    assert elsewhere.value.values == {"room": "영희의 방"}
    # a spectator may sit down before the start
    manager.join(room.id, "민수")
    assert manager.room(room.id).players == ("영희", "철수", "민수")


def test_invalid_options_are_refused_with_the_engine_message() -> None:
    manager = RoomManager(clock=FakeClock())
    with pytest.raises(OptionsError, match="시작 칩"):
        manager.create_room("a", "x", {"startingChips": 500, "baseUnit": 50})
    assert manager.rooms() == []


def test_room_name_is_cleaned() -> None:
    manager = RoomManager(clock=FakeClock())
    room = manager.create_room("a", "\x1b[31m빨강\x1b[0m방\n이름", Options())
    assert "\x1b" not in room.name and "\n" not in room.name and room.name.startswith("빨강방")


def test_only_host_starts_with_two_players_and_seats_are_limited() -> None:
    manager = RoomManager(clock=FakeClock())
    room = manager.create_room("a", "x", Options(card_mode="three"))
    with refused("too_few_players"):
        manager.start(room.id, "a")
    for nick in "bcdef":
        manager.join(room.id, nick)
    with refused("room_full"):
        manager.join(room.id, "g")
    with refused("not_host"):
        manager.start(room.id, "b")
    manager.start(room.id, "a")
    assert manager.room(room.id).status_label == "게임 중"
    with refused("game_running"):
        manager.join(room.id, "g")
    manager.watch(room.id, "g")  # watching is always allowed
    assert manager.room(room.id).spectators == ("g",)


def test_host_passes_on_and_empty_room_closes() -> None:
    manager = RoomManager(clock=FakeClock())
    lobby: list[list[Any]] = []
    manager.subscribe_lobby(lobby.append)
    room = manager.create_room("a", "x", Options())
    manager.join(room.id, "b")
    manager.watch(room.id, "c")
    manager.leave(room.id, "a")
    assert manager.room(room.id).host == "b"
    manager.leave(room.id, "b")
    assert manager.room(room.id).host is None  # only a spectator is left
    manager.join(room.id, "d")
    assert manager.room(room.id).host == "d"
    manager.leave(room.id, "d")
    manager.leave(room.id, "c")
    assert manager.room(room.id) is None and lobby[-1] == []
    assert manager.room_of("c") is None


def test_waiting_player_or_spectator_who_disconnects_leaves() -> None:
    manager = RoomManager(clock=FakeClock())
    for nick in "abc":
        manager.session_connected(nick)
    room = manager.create_room("a", "x", Options())
    manager.join(room.id, "b")
    manager.watch(room.id, "c")
    manager.session_disconnected("b")
    manager.session_disconnected("c")
    assert manager.room(room.id).players == ("a",) and manager.room(room.id).spectators == ()


# ---------------------------------------------------------------- views and actions


def test_each_session_gets_only_its_own_view() -> None:
    manager, _clock, room_id, inboxes = make("a", "b", "c")
    spectator = Inbox()
    manager.watch(room_id, "s")
    manager.subscribe_room(room_id, "s", spectator)
    manager.start(room_id, "a")
    for _ in range(30):  # play a few betting steps, checking every push
        mover = actor(inboxes)
        legal = [a["type"] for a in inboxes[mover].view["legalActions"]]
        kind = "call" if "call" in legal else "ping" if "ping" in legal else "check"
        manager.act(room_id, mover, {"type": kind})
        if inboxes["a"].view.get("handPhase") != "betting":
            break
    for nick, inbox in inboxes.items():
        assert any(u.view and not u.view.get("showdown") for u in inbox.updates), nick
        for update in inbox.updates:
            assert update.viewer == nick or update.view is None
            if update.view and not update.view.get("showdown"):
                assert not hidden_leak(update.view, nick)
                own = next(s for s in update.view["seats"] if s["id"] == nick)
                assert all("id" in c for c in own.get("cards", []))
    assert any(update.view for update in spectator.updates), "the spectator never saw the game"
    for update in spectator.updates:
        assert update.viewer is None
        if update.view:
            assert update.view["viewer"] is None and update.view["legalActions"] == []
            if not update.view.get("showdown"):
                assert not hidden_leak(update.view, None)
    # events are public: never a dealt card's identity
    for event in spectator.events():
        if event["type"] == "dealt":
            assert set(event) == {"type", "to", "count"}


def test_illegal_action_raises_the_engines_reason_and_changes_nothing() -> None:
    manager, _clock, room_id, inboxes = make("a", "b")
    manager.start(room_id, "a")
    game = game_of(manager, room_id)
    before = game.state_hash()
    pushes = len(inboxes["a"].updates)
    other = "b" if actor(inboxes) == "a" else "a"
    refused = [
        (other, {"type": "check"}, "notYourTurn"),
        (actor(inboxes), {"type": "call"}, "nothingToCall"),
        (actor(inboxes), {"type": "leave"}, "systemOnly"),  # the manager's to send, not a key's
        ("stranger", {"type": "check"}, "notParticipant"),
    ]
    for nick, action, code in refused:
        reason = refusal(game, nick, action, own=True)  # what the engine says, and why
        assert reason.code == code
        with pytest.raises(RoomError) as info:
            manager.act(room_id, nick, action)
        assert str(info.value) == str(reason)  # the same words, relayed
    assert game.state_hash() == before and len(inboxes["a"].updates) == pushes


def test_a_bet_is_pushed_to_the_other_player() -> None:
    manager, _clock, room_id, inboxes = make("a", "b")
    manager.start(room_id, "a")
    mover = actor(inboxes)
    other = "b" if mover == "a" else "a"
    manager.act(room_id, mover, {"type": "ping"})
    seat = next(s for s in inboxes[other].view["seats"] if s["id"] == mover)
    assert seat["bet"] == 10 and seat["lastAction"] == {"type": "ping", "amount": 10}
    assert {
        "type": "bet",
        "player": mover,
        "action": "ping",
        "amount": 10,
        "allIn": False,
    } in inboxes[other].last.events
    assert inboxes[other].view["actor"] == other
    assert [a["type"] for a in inboxes[other].view["legalActions"]][:2] == ["die", "call"]


# ---------------------------------------------------------------- time


def test_deadline_is_scheduled_and_timeout_applied() -> None:
    manager, clock, room_id, inboxes = make("a", "b", turn_seconds=15)
    manager.start(room_id, "a")
    first = actor(inboxes)
    assert clock.pending == [15.0] and inboxes["a"].last.seconds_left(clock.time()) == 15.0
    clock.advance(14.9)
    assert actor(inboxes) == first
    clock.advance(0.2)
    assert {"type": "timeout", "player": first, "action": "check"} in inboxes["a"].last.events
    assert actor(inboxes) != first
    assert clock.pending == [15.0 + 15.0]  # the next player's deadline replaced the old one


def test_an_action_reschedules_the_deadline() -> None:
    manager, clock, room_id, inboxes = make("a", "b")
    manager.start(room_id, "a")
    clock.advance(10)
    manager.act(room_id, actor(inboxes), {"type": "check"})
    assert clock.pending == [30.0]  # 10 s + a fresh 20 s, not the old 20 s
    clock.advance(19)
    fresh = Inbox()
    manager.subscribe_room(room_id, "a", fresh)
    assert fresh.last.deadline_at == 30.0  # a moment on the rooms' clock
    assert fresh.last.seconds_left(clock.time()) == pytest.approx(1.0)


def test_simultaneous_phase_keeps_its_deadline_when_one_answers() -> None:
    manager, clock, room_id, inboxes = make("a", "b", "c")
    manager.start(room_id, "a")
    # everybody checks twice: the hand goes to the showdown, then handEnd (4 s, everyone ready)
    for _ in range(6):
        view = inboxes["a"].view
        if view["handPhase"] != "betting":
            break
        manager.act(room_id, view["actor"], {"type": "check"})
    view = inboxes["a"].view
    assert view["handPhase"] == "handEnd" and view["pending"]["seconds"] == 4
    due = clock.pending
    waiting = view["pending"]["players"]
    manager.act(room_id, waiting[0], {"type": "ready"})
    assert clock.pending == due  # still the same 4 s
    clock.advance(4)
    assert inboxes["a"].view["handNo"] == 2


# ---------------------------------------------------------------- disconnects


def test_disconnect_grace_then_engine_disconnect() -> None:
    manager, clock, room_id, inboxes = make("a", "b", "c", grace=60, turn_seconds=60)
    manager.start(room_id, "a")
    manager.session_disconnected("b")
    assert manager.room(room_id).offline == ("b",)
    seat = next(s for s in inboxes["a"].view["seats"] if s["id"] == "b")
    assert seat["connected"] is True  # the engine does not know yet
    assert {"type": "offline", "player": "b"} in inboxes["a"].last.events
    clock.advance(59)
    assert not any(e["type"] == "disconnect" for e in inboxes["a"].events())
    clock.advance(1)
    assert {"type": "disconnect", "player": "b"} in inboxes["a"].events()
    assert game_of(manager, room_id).is_connected("b") is False
    # reconnecting now tells the engine, and the seat and cards come back
    assert manager.session_connected("b") == room_id
    assert {"type": "reconnect", "player": "b"} in inboxes["a"].events()
    assert manager.room(room_id).offline == ()


def test_reconnect_within_grace_cancels_and_restores_cards() -> None:
    manager, clock, room_id, inboxes = make("a", "b", "c")
    manager.start(room_id, "a")
    cards_before = next(s for s in inboxes["b"].view["seats"] if s["id"] == "b")["cards"]
    manager.session_disconnected("b")
    clock.advance(10)
    assert manager.session_connected("b") == room_id
    fresh = Inbox()  # the new session's first push: same seat, same cards, mid-hand
    manager.subscribe_room(room_id, "b", fresh)
    assert fresh.last.snapshot and fresh.last.viewer == "b"
    own = next(s for s in fresh.view["seats"] if s["id"] == "b")
    assert own["cards"] == cards_before
    assert all("hidden" not in c and DECK[c["id"]].month == c["month"] for c in own["cards"])
    assert any(e["type"] == "dealt" for e in fresh.last.events)  # the log came along
    clock.advance(120)
    assert not any(e["type"] == "disconnect" for e in inboxes["a"].events())
    assert manager.room(room_id).offline == ()


def test_two_player_game_ends_when_the_offline_player_never_returns() -> None:
    manager, clock, room_id, inboxes = make("a", "b", grace=30, turn_seconds=60)
    manager.start(room_id, "a")
    manager.session_disconnected("b")
    clock.advance(30)
    room = manager.room(room_id)
    assert room.status_label == "종료" and room.players == ("a",)
    assert inboxes["a"].last.result is not None
    assert manager.room_of("b") is None and clock.pending == []
    # the room is back to a waiting state: someone may join and the host may start again
    manager.join(room_id, "c")
    manager.start(room_id, "a")
    assert manager.room(room_id).status == "playing"


def test_leaving_mid_game_tells_the_engine() -> None:
    manager, _clock, room_id, inboxes = make("a", "b", "c")
    manager.start(room_id, "a")
    manager.leave(room_id, "a")
    assert {"type": "leave", "player": "a"} in inboxes["b"].events()
    room = manager.room(room_id)
    assert room.host in ("b", "c") and room.left == ("a",) and "a" not in room.players
    assert (
        inboxes["b"].view["seats"][[s["id"] for s in inboxes["b"].view["seats"]].index("a")][
            "status"
        ]
        == "left"
    )


def test_a_failing_subscriber_does_not_stop_the_others() -> None:
    manager, _clock, room_id, inboxes = make("a", "b")

    def broken(update: RoomUpdate) -> None:
        raise RuntimeError("boom")

    manager.watch(room_id, "s")
    manager.subscribe_room(room_id, "s", broken)
    manager.start(room_id, "a")
    assert inboxes["b"].last.view is not None


def test_log_is_bounded_and_public() -> None:
    manager, clock, room_id, _inboxes = make("a", "b", hand_limit=50)
    manager.start(room_id, "a")
    for _ in range(400):
        clock.advance(20)
        if manager.room(room_id).status != "playing":
            break
    entries = manager.log(room_id)
    assert 0 < len(entries) <= 300
    assert all(e.get("type") != "dealt" or "cards" not in e for e in entries)


def test_room_defaults_and_close() -> None:
    clock = FakeClock()
    defaults = Options(starting_chips=2000, turn_seconds=30)
    manager = RoomManager(clock=clock, room_defaults=defaults)
    assert manager.room_defaults is defaults
    room = manager.create_room("a", "x", defaults)
    manager.join(room.id, "b")
    manager.start(room.id, "a")
    manager.session_connected("b")
    manager.session_disconnected("b")
    assert len(clock.pending) == 2  # the turn deadline and b's reconnect grace
    manager.close()
    assert clock.pending == [] and manager.rooms() == []
