"""The frames between the rooms process and the workers (``seotda_tui/cluster/``), and the hub's
answers to what a worker may send, with a real hub on a unix socket in this process."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import json
import logging
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from engine import Game, IllegalAction, Options
from engine.types import GameResult, View
from seotda_tui.cluster import calls, shape
from seotda_tui.cluster import protocol as wire
from seotda_tui.cluster.calls import ROOM_CALLS
from seotda_tui.cluster.hub import _OPS as hub_ops
from seotda_tui.cluster.hub import ROOM_OPS, GlobalLimits, Hub
from seotda_tui.cluster.link import HubLink
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomError, RoomManager, RoomService, RoomSummary, RoomUpdate
from seotda_tui.rooms.api import room_calls
from seotda_tui.rooms.chat import QUICK_LINES, ChatHub, ChatMessage
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.events import RoomEvent
from seotda_tui.ssh.admission import PendingLogins
from seotda_tui.ssh.limits import AuthJail, ConnectLimiter

from .gamekit import random_action, random_options
from .tiers import sized

ROOT = Path(__file__).resolve().parents[1]


def test_one_process_never_imports_the_cluster() -> None:
    code = (
        "import sys, seotda_tui.cli, seotda_tui.ui.app, seotda_tui.ssh.server; "
        "print([m for m in sys.modules if m.startswith('seotda_tui.cluster')])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_summaries_updates_and_chat_lines_come_back_equal() -> None:
    """Equal, with their moments (a grace's end, a deadline) moved onto the receiver's clock:
    the wire carries seconds left (rooms/api.py's convention), the hub's clock and a worker's
    share no reference point. Here the hub's reads 1000, the worker's 40."""
    hub_now, worker_now = 1000.0, 40.0
    summary = RoomSummary(
        id="r1",
        name="영희의 방",
        host="영희",
        players=("영희", "철수", "봇1(신중)"),
        max_players=6,
        spectators=("민수",),
        status="playing",
        offline=("철수",),
        left=(),
        options=Options.from_dict({"starting_chips": 2000, "amhaeng": False}),
        bots=("봇1(신중)",),
        grace_ends=(("철수", 1034.5),),  # 34.5 s of grace left
        locked=True,
        barred=("길동",),
        private=True,
        listed=False,
    )
    update = RoomUpdate(
        room=summary,
        viewer="영희",
        view=Game.new(Options(), ["영희", "철수"], 1).view("영희"),  # a real view, own cards
        events=({"type": "bet", "player": "영희", "action": "call", "amount": 10, "allIn": False},),
        deadline_at=1012.5,  # the turn ends in 12.5 s
        result=None,
        snapshot=True,
        paused=True,
        notice="안내",
        code="K7QX3M9P",  # (a private room's code, for this viewer)
    )
    message = ChatMessage("lobby", "철수", "안녕", 99.5)
    quick = ChatMessage("7", "영희", QUICK_LINES[0], 100.0, canned=True)
    reader = wire.FrameReader()
    data = b"".join(
        wire.frame(m)
        for m in (
            wire.summary_to_wire(summary, hub_now),
            wire.update_to_wire(update, hub_now),
            wire.chat_to_wire(message),
            wire.chat_to_wire(quick),
        )
    )
    # byte by byte: a frame cut anywhere waits for its rest
    got: list[dict[str, Any]] = []
    for i in range(len(data)):
        got += reader.feed(data[i : i + 1])
    on_worker = dataclasses.replace(summary, grace_ends=(("철수", 74.5),))
    assert wire.summary_from_wire(got[0], worker_now) == on_worker
    back = wire.update_from_wire(got[1], worker_now)
    assert back == dataclasses.replace(update, room=on_worker, deadline_at=52.5)
    assert back.seconds_left(worker_now) == update.seconds_left(hub_now) == 12.5
    assert wire.summary_from_wire(got[0], hub_now) == summary  # one clock: the same moments
    assert wire.chat_from_wire(got[2]) == message
    assert wire.chat_from_wire(got[3]) == quick  # a quick-chat line stays canned


def test_a_room_refusal_keeps_its_code_template_and_values_across_the_wire() -> None:
    sent = RoomError("room_full", "자리가 없어요 (최대 {n}명)", n=6)
    (got,) = wire.FrameReader().feed(
        wire.frame({"t": "r", "i": 1, **wire.room_error_to_wire(sent)})
    )
    back = wire.room_error_from_wire(got)
    assert (back.code, back.template, back.values, str(back)) == (
        "room_full",
        sent.template,
        {"n": 6},
        str(sent),
    )
    for bad in ({**got, "c": "no_such_code"}, {k: v for k, v in got.items() if k != "c"}):
        with pytest.raises(wire.ProtocolError):  # a code this version does not know
            wire.room_error_from_wire(bad)


def test_an_illegal_action_keeps_the_engines_code_across_the_wire() -> None:
    """``act`` refuses like every call (issue 34): the engine's reason code travels too."""
    sent = RoomError.illegal(IllegalAction("차례가 아니에요", "notYourTurn"))
    back = wire.room_error_from_wire(wire.room_error_to_wire(sent))
    assert (back.code, back.refusal, str(back)) == ("illegal", "notYourTurn", str(sent))
    assert (
        wire.room_error_from_wire(wire.room_error_to_wire(RoomError("paused", "…"))).refusal is None
    )


def test_the_hub_serves_exactly_the_room_api() -> None:
    """The hub's room ops are RoomService's methods, one for one, derived from the Protocol
    (issue 34): a method added to rooms/api.py is served, none is listed by hand."""
    methods = {
        name
        for name, member in inspect.getmembers(RoomService, inspect.isfunction)
        if not name.startswith("_")
    }
    assert {"act", "create_room", "join", "subscribe_room", "session_connected"} <= methods
    assert set(room_calls()) == methods == set(ROOM_CALLS) == set(ROOM_OPS)
    assert methods <= set(hub_ops)  # served beside the chat's and the limits' ops
    local = {"clock", "room_defaults", "records", "history"}  # read in each process
    assert local <= set(dir(RoomService)) and not local & set(hub_ops)
    with pytest.raises(TypeError):  # a type no codec carries fails at import, naming it
        calls.codec(set[str])


def test_a_call_crosses_by_position_with_its_keywords_and_defaults() -> None:
    create = ROOM_CALLS["create_room"]
    sent = create.to_wire("영희", "판", Options(), listed=False)
    assert sent == ["영희", "판", Options().to_dict(), False, False]
    assert create.from_wire(sent) == (sent[:3], {"private": False, "listed": False})
    with pytest.raises(TypeError):  # more arguments than the method takes
        ROOM_CALLS["room_of"].from_wire(["철수", "extra"])
    with pytest.raises(TypeError):  # a room id that is not text: a bad call
        ROOM_CALLS["room"].from_wire([7])


def test_another_version_or_a_huge_frame_is_refused() -> None:
    with pytest.raises(wire.ProtocolError):
        wire.check_hello({"t": "hello", "v": wire.VERSION + 1, "worker": 0})
    assert wire.check_hello(wire.hello(3)) == 3
    with pytest.raises(wire.ProtocolError):
        list(wire.FrameReader().feed((wire.MAX_FRAME + 1).to_bytes(4, "big")))
    with pytest.raises(wire.ProtocolError):
        list(wire.FrameReader().feed((3).to_bytes(4, "big") + b"[1]"))


def wire_update() -> dict[str, Any]:
    """A real update as a hub sends it (a running game's view and events), decoded from JSON."""
    game = Game.new(Options(), ["영희", "철수", "민수"], 5)
    manager = RoomManager(clock=FakeClock())
    room = manager.create_room("영희", "방", Options())
    update = RoomUpdate(
        room=room,
        viewer="영희",
        view=game.view("영희"),
        events=tuple(game.last_events),
        deadline_at=None,
        result=None,
    )
    (got,) = wire.FrameReader().feed(wire.frame(wire.update_to_wire(update, 0.0)))
    return got


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (("view", "seats", 0, "stack"), "많이", "view.seats[0].stack: expected int, got str"),
        (("view", "seats", 1, "status"), "asleep", "view.seats[1].status: expected one of"),
        (("view", "legalActions"), {}, "view.legalActions: expected list, got dict"),
        (("events", 0, "type"), "teleport", "events[0]: unknown type 'teleport'"),
        (("events", 0, "dealer"), None, "events[0]: HandStartEvent without 'dealer'"),
        (("room", "players"), "영희", "room.players: expected list, got str"),
        (("room", "grace_in"), [["철수"]], "room.grace_in[0]: expected an array of 2"),
        (("room", "options", "cardMode"), "five", "summary: options: "),  # the engine's refusal
        (("notice_values",), [[1, 2]], "notice_values[0][0]: expected str, got int"),
        (("deadline_in",), "soon", "deadline_in: expected number, got str"),
        (("snapshot",), 1, "snapshot: expected bool, got int"),
        (("view",), [], "view: expected View, got list"),
    ],
)
def test_a_malformed_update_is_refused_saying_what_and_where(
    path: tuple[str | int, ...], value: object, said: str
) -> None:
    """A hub's push is checked against its types before a session's screen reads it (issue 34:
    the decode was unchecked, so a bad field failed later, in some screen, or not at all)."""
    good = wire_update()
    assert wire.update_from_wire(good, 0.0).view == good["view"]  # the real one passes
    bad = copy.deepcopy(good)
    where: Any = bad
    for step in path[:-1]:
        where = where[step]
    if value is None:
        del where[path[-1]]
        assert bad["events"][0]["type"] == "handStart"
    else:
        where[path[-1]] = value
    with pytest.raises(wire.ProtocolError) as info:
        wire.update_from_wire(bad, 0.0)
    assert str(info.value).startswith("malformed room ")
    assert said in str(info.value)


def test_a_malformed_summary_chat_line_or_notice_is_refused() -> None:
    summary = wire_update()["room"]
    with pytest.raises(wire.ProtocolError, match=r"malformed room summary: .*max_players"):
        wire.summary_from_wire({**summary, "max_players": "6"}, 0.0)
    with pytest.raises(wire.ProtocolError, match=r"malformed room summary: expected WireSumm"):
        wire.summary_from_wire([summary], 0.0)
    line = wire.chat_to_wire(ChatMessage("lobby", "철수", "안녕", 99.5))
    with pytest.raises(wire.ProtocolError, match=r"malformed chat line: at: expected number"):
        wire.chat_from_wire({**line, "at": "now"})
    with pytest.raises(wire.ProtocolError, match=r"malformed chat line: WireChat without 'nick'"):
        wire.chat_from_wire({k: v for k, v in line.items() if k != "nick"})


def test_a_malformed_call_or_answer_does_not_fit_its_type() -> None:
    """The derived codecs check the JSON values they used to pass as they came: an argument
    that does not fit is a bad call (a ValueError: the hub answers ``fail``), an answer that
    does not fit is refused at the worker."""
    act = ROOM_CALLS["act"]
    assert act.from_wire(["r", "철수", {"type": "call"}]) == (["r", "철수", {"type": "call"}], {})
    with pytest.raises(ValueError, match="expected object, got str"):
        act.from_wire(["r", "철수", "call"])
    log = ROOM_CALLS["log"]
    events = wire_update()["events"]
    assert log.answer_from_wire(events, 0.0) == events
    with pytest.raises(ValueError, match=r"\[1\]: unknown type 'nope'"):
        log.answer_from_wire([events[0], {"type": "nope"}], 0.0)


def test_a_malformed_push_or_notice_is_logged_and_skipped_and_the_link_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link = HubLink(Path("/nonexistent"), worker=0)
    updates: list[RoomUpdate] = []
    kicked: list[str] = []
    link.on_kick = kicked.append
    sub = link.add_sub(lambda data: updates.append(wire.update_from_wire(data, 0.0)))
    good = wire_update()
    bad = {**good, "events": [{"type": "bet", "player": "영희"}]}
    frames: list[dict[str, object]] = [
        {"t": "p", "s": sub, "k": "room", "v": bad},
        {"t": "kick"},  # no nickname
        {"t": "p", "s": "one", "k": "room", "v": good},  # not a subscription id
        {"t": "p", "s": sub, "k": "room", "v": good},
        {"t": "kick", "nick": "철수"},
    ]
    with caplog.at_level(logging.ERROR, logger="seotda.cluster"):
        link._feed(b"".join(wire.frame(f) for f in frames), None)
    assert [u.view for u in updates] == [good["view"]] and kicked == ["철수"]
    assert [r.getMessage() for r in caplog.records] == ["hub_protocol"] * 3
    said = [str(record_fields(r)["error"]) for r in caplog.records]
    assert "malformed room update: events[0]: BetEvent without 'action'" in said[0]
    assert "malformed kick: Kick without 'nick'" in said[1]
    assert "malformed push: s: expected int, got str" in said[2]


def test_every_view_event_and_result_of_real_games_fits_the_wire_check() -> None:
    """The check is derived from the engine's and the rooms' TypedDicts: a type that drifted
    from what the engine sends would refuse real pushes. Random games, every viewer's view
    after every step, their events and results, pass it."""
    for seed in range(sized(4, 40)):
        rng = random.Random(seed)
        players = [f"p{i}" for i in range(rng.randint(2, 6))]
        game = Game.new(random_options(rng), players, seed)
        events: list[Any] = list(game.last_events)
        for _ in range(300):
            if game.finished:
                break
            move = random_action(game, rng)
            events += game.timeout() if move is None else game.apply(*move)
            for viewer in (None, *players):
                shape.check(View, json_copy(game.view(viewer)), "view")
        shape.check(list[RoomEvent], json_copy(events), "events")
        shape.check(GameResult | None, json_copy(game.result()), "result")


def json_copy(value: object) -> object:
    return json.loads(json.dumps(value))


@asynccontextmanager
async def serving(tmp_path: Path, **hub_options: Any) -> AsyncIterator[tuple[Hub, Path]]:
    """A hub on this loop and its socket's path; closed afterwards."""
    progress: dict[object, int] = {}
    limits = GlobalLimits(
        max_sessions=3,
        max_sessions_per_ip=2,
        jail=AuthJail(2, 60.0),
        connects=ConnectLimiter(1000.0, 1000),
        pending=PendingLogins(per_address=2, total=3, progress=lambda key: progress.get(key, 0)),
        progress=progress,
    )
    hub = Hub(RoomManager(), ChatHub(), limits, **hub_options)
    path = tmp_path / "hub.sock"
    await hub.listen(path)
    try:
        yield hub, path
    finally:
        await hub.close()


class Worker:
    """A raw worker connection: frames out, frames in (no HubLink: it would block this loop)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.frames = reader, writer, wire.FrameReader()
        self.pending: list[dict[str, Any]] = []
        self.ids = 0

    @classmethod
    async def connect(cls, path: Path, worker: int = 0) -> Worker:
        self = cls(*await asyncio.open_unix_connection(str(path)))
        self.writer.write(wire.frame(wire.hello(worker)))
        assert wire.check_hello(await self.next()) == -1
        return self

    async def next(self) -> dict[str, Any]:
        while not self.pending:
            data = await asyncio.wait_for(self.reader.read(65536), 5)
            if not data:
                raise EOFError
            self.pending += self.frames.feed(data)
        return self.pending.pop(0)

    async def call(self, op: str, *args: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The answer, and the pushes that came before it."""
        self.ids += 1
        self.writer.write(wire.frame({"t": "q", "i": self.ids, "op": op, "a": list(args)}))
        pushes: list[dict[str, Any]] = []
        while True:
            message = await self.next()
            if message.get("t") == "r" and message.get("i") == self.ids:
                return message, pushes
            pushes.append(message)


async def test_a_bad_worker_is_dropped_and_the_others_are_served(tmp_path: Path) -> None:
    async with serving(tmp_path) as (hub, path):
        good = await Worker.connect(path)
        old = Worker(*await asyncio.open_unix_connection(str(path)))
        old.writer.write(wire.frame({"t": "hello", "v": 0, "worker": 1}))  # another version
        with pytest.raises(EOFError):
            await old.next()
        rogue = await Worker.connect(path, 2)
        rogue.writer.write(b"\xff\xff\xff\xff")  # a frame of 4 GiB
        with pytest.raises(EOFError):
            await rogue.next()
        unknown = await Worker.connect(path, 3)
        unknown.writer.write(wire.frame({"t": "q", "i": 1, "op": "close", "a": []}))
        with pytest.raises(EOFError):  # not an op the hub serves: dropped
            await unknown.next()
        answer, _ = await good.call("rooms")
        assert answer["v"] == []
        answer, _ = await good.call("room_of", "철수", "extra", "args")  # a bad call: an error
        assert answer["e"] == "fail"
        answer, _ = await good.call("rooms")  # and the worker is still served
        assert answer["v"] == []


async def test_refusals_arrive_as_room_errors_and_pushes_before_the_answer(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as (hub, path):
        w = await Worker.connect(path)
        answer, _ = await w.call("join", "nope", "철수", None)
        assert answer["e"] == "room" and answer["c"] == "room_gone"
        answer, _ = await w.call("create_room", "영희", "방", {"starting_chips": -5}, False, True)
        assert answer["e"] == "options"
        answer, _ = await w.call("create_room", "영희", "방", {}, False, True)
        room = answer["v"]["id"]
        answer, pushes = await w.call("subscribe_room", 7, room, "영희")
        assert [p["s"] for p in pushes] == [7] and pushes[0]["v"]["snapshot"]
        answer, pushes = await w.call("join", room, "철수", None)
        assert answer["v"] is None
        assert pushes and pushes[-1]["v"]["room"]["players"] == ["영희", "철수"]
        answer, _ = await w.call("act", room, "영희", {"type": "check"})  # no game yet
        assert answer["e"] == "room" and answer["c"] == "not_playing"
        answer, pushes = await w.call("start", room, "영희")
        game = hub.manager.live_game(room)
        other = next(p for p in game.players if p != game.view(None).get("actor"))
        answer, _ = await w.call("act", room, other, {"type": "check"})
        assert (answer["c"], answer["r"]) == ("illegal", "notYourTurn")


async def test_a_quick_chat_line_is_sent_by_its_number_and_pushed_canned(tmp_path: Path) -> None:
    async with serving(tmp_path) as (hub, path):
        w = await Worker.connect(path)
        await w.call("subscribe_chat", 3, "lobby")
        answer, pushes = await w.call("chat_quick", "lobby", "영희", 2)
        assert answer["v"] is None
        (line,) = [wire.chat_from_wire(p["v"]) for p in pushes if p.get("s") == 3]
        assert (line.nick, line.text, line.canned) == ("영희", QUICK_LINES[1], True)


async def test_limits_count_every_worker_and_a_gone_worker_gives_its_counts_back(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as (hub, path):
        one, two = await Worker.connect(path, 0), await Worker.connect(path, 1)
        assert (await one.call("admit", "10.0.0.1"))[0]["v"] is None
        assert (await two.call("admit", "10.0.0.1"))[0]["v"] is None
        assert (await one.call("admit", "10.0.0.1"))[0]["v"] == "ip_full"
        assert (await two.call("admit", "10.0.0.2"))[0]["v"] is None
        assert (await one.call("admit", "10.0.0.3"))[0]["v"] == "server_full"
        # the auth jail: two failures from either worker
        assert (await one.call("auth_failed", "10.9.9.9"))[0]["v"] is False
        assert (await two.call("auth_failed", "10.9.9.9"))[0]["v"] is True
        assert (await one.call("jail_remaining", "10.9.9.9"))[0]["v"] > 0
        # a nickname claimed on one worker, then on the other: the first is told to end it
        one.writer.write(wire.frame({"t": "n", "op": "claim", "a": ["철수"]}))
        two.writer.write(wire.frame({"t": "n", "op": "claim", "a": ["철수"]}))
        assert await one.next() == {"t": "kick", "nick": "철수"}
        two.writer.close()  # worker 1 dies: its two admissions are released
        await asyncio.sleep(0.2)
        assert hub.limits.admitted == 1 and hub.limits.per_address["10.0.0.1"] == 1
        assert "철수" not in hub.limits.holders


async def test_pending_logins_are_capped_across_workers_and_evicted_where_they_wait(
    tmp_path: Path,
) -> None:
    """Two per address and three in all, over both workers: a third from one address is
    refused on either; a newcomer from a quiet address evicts the busiest address's oldest
    pending login, told to the worker that holds it."""
    async with serving(tmp_path) as (hub, path):
        one, two = await Worker.connect(path, 0), await Worker.connect(path, 1)
        assert (await one.call("pending_admit", "10.0.0.1", 1))[0]["v"] == [None, None]
        assert (await two.call("pending_admit", "10.0.0.1", 1))[0]["v"] == [None, None]
        answer, _ = await two.call("pending_admit", "10.0.0.1", 2)
        assert answer["v"] == ["logins_ip_full", None]
        assert (await two.call("pending_admit", "10.0.0.2", 3))[0]["v"] == [None, None]
        # full (3): 10.0.0.3 holds none, so 10.0.0.1's oldest (worker 0's token 1) goes
        answer, pushes = await two.call("pending_admit", "10.0.0.3", 4)
        assert answer["v"] == [None, None] and pushes == []
        assert await one.next() == {"t": "evict", "token": 1, "by": "10.0.0.3"}
        # full again, and every address holds one: one more from any of them is refused
        answer, _ = await two.call("pending_admit", "10.0.0.2", 5)
        assert answer["v"] == ["logins_full", None]
        two.writer.write(wire.frame({"t": "n", "op": "pending_discard", "a": [3]}))  # logged in
        assert (await one.call("pending_admit", "10.0.0.4", 2))[0]["v"] == [None, None]
        # full; the oldest is worker 1's own token 1: it comes back in worker 1's answer
        assert (await two.call("pending_admit", "10.0.0.5", 6))[0]["v"] == [None, 1]
        one.writer.close()  # worker 0 dies: its pending login (10.0.0.4) is dropped
        await asyncio.sleep(0.2)
        assert len(hub.limits.pending) == 2
        assert hub.limits.pending.held_by("10.0.0.4") == 0


def held(admitted: list[str], failures: dict[str, list[float]] | None = None) -> dict[str, Any]:
    return {"admitted": admitted, "failures": failures or {}, "jailed": {}, "pending": []}


async def test_a_restarted_hub_admits_nobody_until_every_worker_said_what_it_holds(
    tmp_path: Path,
) -> None:
    """Three sessions at most: two held at worker 0 and one at worker 1 when the hub died. The
    new hub refuses logins until both told it (then it is full), counts their auth failures
    and jails (told to every worker), and gives a gone worker's places back as before."""
    async with serving(tmp_path, restarted_with=2) as (hub, path):
        one = await Worker.connect(path, 0)
        assert (await one.call("admit", "10.0.0.3"))[0]["v"] == "restoring"
        jailed = {"10.8.8.8": 100.0}
        restore = held(["10.0.0.1", "10.0.0.1"], {"10.9.9.9": [1.0]}) | {"jailed": jailed}
        await one.call("restore", restore)
        assert (await one.call("admit", "10.0.0.3"))[0]["v"] == "restoring"  # worker 1 not yet
        two = await Worker.connect(path, 1)
        answer, _ = await two.call("restore", held(["10.0.0.2"], {"10.9.9.9": [2.0]}))
        assert list(answer["v"]["jailed"]) == ["10.8.8.8"]  # the jails it knows, told to it
        assert (await one.call("admit", "10.0.0.3"))[0]["v"] == "server_full"
        assert hub.limits.per_address["10.0.0.1"] == 2
        assert (await two.call("jail_remaining", "10.8.8.8"))[0]["v"] > 0
        # 10.9.9.9 failed once at each worker: a third failure jails it, told to both
        answer, pushes = await one.call("auth_failed", "10.9.9.9")
        assert answer["v"] is True and pushes == [{"t": "jail", "ip": "10.9.9.9", "s": 60.0}]
        assert await two.next() == {"t": "jail", "ip": "10.9.9.9", "s": 60.0}
        two.writer.close()  # worker 1 dies: the session it held is given back
        await asyncio.sleep(0.2)
        assert (await one.call("admit", "10.0.0.3"))[0]["v"] is None


async def test_a_restarted_hub_whose_worker_never_comes_admits_after_the_settle_time(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, restarted_with=2, settle=0.3) as (_hub, path):
        one = await Worker.connect(path, 0)
        await one.call("restore", held([]))
        assert (await one.call("admit", "10.0.0.1"))[0]["v"] == "restoring"
        await asyncio.sleep(0.35)
        assert (await one.call("admit", "10.0.0.1"))[0]["v"] is None


async def test_the_pending_login_that_got_least_far_is_evicted_whichever_worker_holds_it(
    tmp_path: Path,
) -> None:
    """Three in all, one each from three addresses: a newcomer from a fourth evicts one. Worker
    0's (the oldest) has told the hub it is logging in, so worker 1's silent one goes."""
    async with serving(tmp_path) as (hub, path):
        one, two = await Worker.connect(path, 0), await Worker.connect(path, 1)
        assert (await one.call("pending_admit", "10.0.0.1", 1))[0]["v"] == [None, None]
        assert (await two.call("pending_admit", "10.0.0.2", 1))[0]["v"] == [None, None]
        assert (await two.call("pending_admit", "10.0.0.3", 2))[0]["v"] == [None, None]
        one.writer.write(wire.frame({"t": "n", "op": "pending_progress", "a": [1, 2]}))
        await one.call("rooms")  # (the notice is read before this call is answered)
        assert (await two.call("pending_admit", "10.0.0.4", 3))[0]["v"] == [None, 1]
        assert hub.limits.pending.held_by("10.0.0.1") == 1


async def test_a_worker_that_reconnects_to_the_same_hub_is_not_counted_twice(
    tmp_path: Path,
) -> None:
    """Its sessions were given back when its connection closed, so they count again; its auth
    failures never left this hub, so they do not."""
    async with serving(tmp_path) as (hub, path):
        one = await Worker.connect(path, 0)
        await one.call("restore", held(["10.0.0.1"], {"10.9.9.9": [1.0]}))
        one.writer.close()
        await asyncio.sleep(0.2)
        assert hub.limits.admitted == 0
        again = await Worker.connect(path, 0)
        await again.call("restore", held(["10.0.0.1"], {"10.9.9.9": [1.0]}))
        assert hub.limits.admitted == 1 and hub.limits.jail.failures("10.9.9.9") == 1
