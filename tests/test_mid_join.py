"""Issue 32: joining a running game at the next hand (the ``midJoin`` option, ``Game.join``),
and each win's net (the pot less what the winner put in) in payouts and hand results.

The engine decides: a spectator queued with ``join`` sits down when the next hand starts, on a
new seat with the starting chips, and pays that hand's school like everyone; refusals name why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine import Game, Options
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal

from .gamekit import act, must_fail, new_game, refusal, seat, stack, total_chips
from .refusals import refused
from .test_room_journal import Inbox, manager_for, open_room, views_of


def _finish_hand(game: Game) -> list[dict[str, Any]]:
    """Play the current hand to its end by timeouts (check, then die) and confirm it."""
    events: list[Any] = []
    hand_no = game.view(None).get("handNo")
    while game.view(None).get("handNo") == hand_no and not game.finished:
        events += game.timeout()
    return events


def test_join_queues_then_seats_at_the_next_hand_paying_school() -> None:
    game, (a, b, c) = new_game(3, base_unit=10)
    assert game.options.mid_join  # on by default
    assert game.join("zed") == [{"type": "joinQueued", "player": "zed"}]
    view: dict[str, Any] = dict(game.view(None))
    assert view["joining"] == ["zed"]
    assert "zed" not in game.players  # no seat in the hand being played
    assert "zed" not in view.get("pots", [{}])[0].get("eligible", [])
    must_fail(game, "zed", {"type": "join"}, "alreadyJoining")
    events = _finish_hand(game)
    seated = [e for e in events if e["type"] == "seated"]
    assert seated == [{"type": "seated", "player": "zed", "seat": 3, "stack": 1000}]
    school = [e for e in events if e["type"] == "school" and e["player"] == "zed"]
    assert school == [{"type": "school", "player": "zed", "amount": 10, "allIn": False}]
    start = next(e for e in events if e["type"] == "handStart" and e["handNo"] == 2)
    assert "zed" in start["players"]
    # the seated event comes before the hand that seats them starts
    kinds = [e["type"] for e in events]
    assert kinds.index("seated") < kinds.index("handStart")
    assert game.players[-1] == "zed" and game.view(None)["joining"] == []
    assert stack(game, "zed") == 990
    assert seat(game, "zed")["inHand"]
    assert game.chips_in_play() == total_chips(game) == 4000
    # the new player plays like anyone: their turn comes in the betting order
    while game.pending()["players"] != ["zed"]:
        game.timeout()
    assert {x["type"] for x in game.legal_actions("zed")} >= {"die", "check"}


def test_join_refusals_name_why() -> None:
    game, (a, b, c) = new_game(3, mid_join=False)
    must_fail(game, "zed", {"type": "join"}, "midJoinOff")
    game, (a, b, c) = new_game(3)
    must_fail(game, a, {"type": "join"}, "alreadySeated")
    # a player's own keys cannot ask for it: the room manager sends it for a spectator
    assert refusal(game, "zed", {"type": "join"}, own=True).code == "systemOnly"
    full, names = new_game(6, card_mode="three")  # three-card: six seats at most
    must_fail(full, "zed", {"type": "join"}, "tableFull")
    five, _names = new_game(5, card_mode="three")
    five.join("yu")
    must_fail(five, "zed", {"type": "join"}, "tableFull")  # the queued seat counts


def test_no_join_when_no_hand_is_left() -> None:
    game, players = new_game(2, end_condition="hands", hand_limit=10)
    for _ in range(8):
        _finish_hand(game)
    assert game.view(None)["handNo"] == 9
    assert game.check_join("zed") is None  # hand 10 is still to come
    _finish_hand(game)
    assert game.view(None)["handNo"] == 10
    must_fail(game, "zed", {"type": "join"}, "noHandsLeft")


def test_queued_player_who_leaves_never_sits() -> None:
    game, (a, b, c) = new_game(3)
    game.join("zed")
    assert game.apply("zed", {"type": "leave"}) == [{"type": "joinCancel", "player": "zed"}]
    events = _finish_hand(game)
    assert not any(e["type"] == "seated" for e in events)
    assert "zed" not in game.players


def test_join_replays_identically_from_the_log() -> None:
    """The journal stores actions: a join is one, so the replay rebuilds the same game."""
    options = Options(base_unit=10)
    game = Game.new(options, ["x", "y"], "seed-1")
    log: list[tuple[str | None, dict[str, Any]]] = []
    for step in range(40):
        if step == 3:
            log.append(("zed", {"type": "join"}))
            game.apply("zed", {"type": "join"})
            continue
        log.append((None, {}))
        game.timeout()
    assert "zed" in game.players
    again = Game.replay(options, ["x", "y"], "seed-1", log)
    assert again.state_hash() == game.state_hash()
    assert Game.from_dict(game.to_dict()).state_hash() == game.state_hash()


def test_join_during_the_rebuy_question_sits_at_the_next_hand() -> None:
    game, (a, b) = new_game(
        2,
        seed=5,
        starting_chips=500,
        max_raise="full",
        cards={"a": [0, 4], "b": [3, 5]},  # a: 13광땡; b: 2띠 + 3띠
    )
    while game.pending()["phase"] == "betting":
        kinds = [x["type"] for x in game.legal_actions(game.pending()["players"][0])]
        act(game, game.pending()["players"][0], "full" if "full" in kinds else "call")
    while game.pending()["phase"] == "handEnd":
        game.timeout()
    assert game.pending()["phase"] == "rebuy"
    game.join("zed")
    events = act(game, b, "rebuy", accept=True)
    assert any(e["type"] == "seated" and e["player"] == "zed" for e in events)
    assert stack(game, "zed") == 490


def test_net_of_a_win_is_the_pot_less_what_the_winner_put_in() -> None:
    game, (a, b, c) = new_game(3, deal_mode="oneRound", base_unit=10)
    act(game, a, "ping")  # 10 more: a has 20 in
    act(game, b, "die")  # b lost the 10 school
    events = act(game, c, "die")
    payout = next(e for e in events if e["type"] == "payout")
    assert payout["amount"] == 40  # the gross pot: 3 schools + a's ping
    assert payout["net"] == 20  # what a won from the others
    assert stack(game, a) == 1000 + 20
    (result,) = game.view(None)["results"]
    assert result["net"] == {a: 20}


# ---------------------------------------------------------------- the room manager and journal
def _advance_to_hand(m: Any, clock: Any, room_id: str, hand_no: int) -> None:
    """Let the room's deadlines run (check/die, ready) until hand ``hand_no`` starts."""
    for _ in range(200):
        game = m.live_game(room_id)
        if game.finished or game.view(None).get("handNo") == hand_no:
            return
        clock.advance(game.pending()["seconds"] or 1)
    raise AssertionError("the hand never came")


def test_manager_queues_a_spectator_and_seats_them_at_the_next_hand(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock)
    room_id = open_room(m, "ab", turn_seconds=15)
    m.start(room_id, "a")
    m.session_connected("s")
    m.watch(room_id, "s")
    inbox = Inbox("s")
    m.subscribe_room(room_id, "s", inbox)
    with refused("game_running"):  # someone not watching is not queued behind the screen
        m.join(room_id, "t")
    m.join(room_id, "s")
    assert inbox.updates[-1].view["joining"] == ["s"]
    assert inbox.updates[-1].viewer is None  # still watching this hand: no cards
    assert any(e["type"] == "joinQueued" for e in inbox.updates[-1].events)
    with refused("already_joining"):
        m.join(room_id, "s")
    summary = m.room(room_id)
    assert summary.spectators == ("s",) and "s" not in summary.players
    _advance_to_hand(m, clock, room_id, 2)
    summary = m.room(room_id)
    assert summary.players == ("a", "b", "s") and summary.spectators == ()
    last = inbox.updates[-1]
    assert last.viewer == "s"  # the own view: cards of the new hand
    own = next(x for x in last.view["seats"] if x["id"] == "s")
    assert own["inHand"] and own["stack"] == 1000 - 10
    assert all("hidden" not in c for c in own["cards"])
    # the seat plays: its turn comes and the manager takes its action
    game = m.live_game(room_id)
    while game.pending()["players"] != ["s"]:
        clock.advance(game.pending()["seconds"] or 1)
    m.act(room_id, "s", {"type": "die"})
    # the journal replays the game with the join to the same state
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert ("s", {"type": "join"}) in saved.log
    assert saved.rebuild().state_hash() == game.state_hash()


def test_manager_refusals_reach_the_spectator(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock)
    room_id = open_room(m, "ab", mid_join=False)
    m.start(room_id, "a")
    m.watch(room_id, "s")
    with refused("mid_join_off"):
        m.join(room_id, "s")
    other = open_room(m, "cd", end_condition="hands", hand_limit=10)
    m.start(other, "c")
    _advance_to_hand(m, clock, other, 10)
    m.watch(other, "s2")
    with refused("no_hands_left"):
        m.join(other, "s2")


def test_a_queued_spectator_who_leaves_gives_up_the_seat(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock)
    room_id = open_room(m, "ab")
    m.start(room_id, "a")
    m.session_connected("s")
    m.watch(room_id, "s")
    m.join(room_id, "s")
    m.session_disconnected("s")  # the spectator's only session closed
    assert m.live_game(room_id).joining == []
    _advance_to_hand(m, clock, room_id, 2)
    assert "s" not in m.live_game(room_id).players and m.room(room_id).players == ("a", "b")


def test_resume_after_restart_keeps_the_joined_seat_and_drops_the_queue(tmp_path: Path) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=60)
    room_id = open_room(m, "ab", turn_seconds=15)
    m.start(room_id, "a")
    m.watch(room_id, "s")
    m.join(room_id, "s")
    _advance_to_hand(m, clock, room_id, 2)
    m.watch(room_id, "q")
    m.join(room_id, "q")  # queued when the process dies
    before = m.live_game(room_id)
    seen = views_of(m, room_id, "abs")
    # the process dies: a new manager opens the same journal and replays the join
    clock2 = FakeClock(1000.0)
    m2 = manager_for(tmp_path, clock2, reconnect_grace=60)
    after = m2.live_game(room_id)
    restored = m2.room(room_id)
    assert restored.players == ("a", "b", "s") and restored.offline == ("a", "b", "s")
    # q's queue went with the spectators of the old process (a journaled leave)
    assert after.joining == [] and before.joining == ["q"]
    for nick in "abs":
        assert m2.session_connected(nick) == room_id
    assert views_of(m2, room_id, "abs") == {
        nick: {**view, "joining": []} for nick, view in seen.items()
    }
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert ("q", {"type": "leave"}) in saved.log
    assert saved.rebuild().state_hash() == after.state_hash()


# ---------------------------------------------------------------- workers: across the hub
async def test_join_at_the_next_hand_across_the_hub(tmp_path: Path) -> None:
    """``--workers``: a worker's session asks the rooms process; the answer and the pushes come
    back over the hub protocol (a refusal keeps its code)."""
    from .test_workers_protocol import Worker, serving

    async with serving(tmp_path) as (_hub, path):
        w = await Worker.connect(path)
        answer, _ = await w.call("create_room", "영희", "방", {}, False, True)
        room = answer["v"]["id"]
        await w.call("join", room, "철수", None)
        await w.call("start", room, "영희")
        await w.call("watch", room, "민수", None)
        await w.call("subscribe_room", 5, room, "민수")
        answer, pushes = await w.call("join", room, "민수", None)
        assert answer["v"] is None
        last = [p["v"] for p in pushes if p.get("s") == 5][-1]
        assert last["view"]["joining"] == ["민수"]
        assert any(e["type"] == "joinQueued" for e in last["events"])
        answer, _ = await w.call("join", room, "민수", None)
        assert answer["e"] == "room" and answer["c"] == "already_joining"
        answer, _ = await w.call("create_room", "지영", "끈 방", {"midJoin": False}, False, True)
        off = answer["v"]["id"]
        await w.call("join", off, "준호", None)
        await w.call("start", off, "지영")
        await w.call("watch", off, "수아", None)
        answer, _ = await w.call("join", off, "수아", None)
        assert answer["e"] == "room" and answer["c"] == "mid_join_off"
