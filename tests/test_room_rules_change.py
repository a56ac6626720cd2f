"""The host changes the room's rules between games (issue 32), without making a new room: the
host menu's 방 규칙 바꾸기 opens the room form filled with the room's rules; everyone in the room
(and the lobby) sees the new ones, the log says what changed, and the privacy, the lock and the
bars stay. Not while a game runs. The manager with a fake clock, then pilots (the host, a
seated player, a spectator) at 80×24 and 120×40, Korean and English."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from engine import Options
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.testing import Table
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.moderation import ModerationScreen, menu_items
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.choice import Choice

from .refusals import refused
from .test_workers_protocol import Worker, serving


def manager(**kw: object) -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 7, **kw)  # type: ignore[arg-type]


def test_the_host_changes_the_rules_of_a_waiting_room_and_the_log_says_what() -> None:
    m = manager()
    room = m.create_room("영희", "비밀 방", Options(), private=True)
    code = m.room_code(room.id, "영희")
    m.join(room.id, "철수", code)
    m.set_locked(room.id, "영희", True)
    seen: list[list[int]] = []
    m.subscribe_lobby(lambda rooms: seen.append([r.options.starting_chips for r in rooms]))
    with refused("not_host"):
        m.change_options(room.id, "철수", Options(starting_chips=2000))
    m.change_options(room.id, "영희", Options(starting_chips=2000, hints=False))
    summary = m.room(room.id)
    assert summary is not None and summary.options == Options(starting_chips=2000, hints=False)
    assert summary.locked and summary.private and summary.listed  # kept as they were
    assert m.room_code(room.id, "영희") == code
    assert {
        "type": "optionsChanged",
        "by": "영희",
        "changes": [["starting_chips", 1000, 2000], ["hints", True, False]],
    } in m.log(room.id)
    assert seen[-1] == [2000]  # the lobby too
    before = len(m.log(room.id))
    m.change_options(room.id, "영희", summary.options)  # nothing new: nothing said
    assert len(m.log(room.id)) == before
    m.start(room.id, "영희")  # the next game is played by them
    game = m.live_game(room.id)
    assert game is not None and game.options.starting_chips == 2000


def test_not_while_a_game_runs_and_the_seated_must_still_fit() -> None:
    m = manager()
    room = m.create_room("영희", "방", Options())
    for nick in ("철수", "민수", "지영", "수진"):
        m.join(room.id, nick)
    for nick in ("하나", "두리"):
        m.join(room.id, nick)
    with refused("player_count"):  # seven seated: 3장 seats at most 6
        m.change_options(room.id, "영희", Options(card_mode="three"))
    assert m.room(room.id).options == Options()
    m.start(room.id, "영희")
    with refused("game_running"):
        m.change_options(room.id, "영희", Options(starting_chips=2000))


def test_a_finished_games_record_keeps_its_rules_and_the_next_game_has_the_new(
    tmp_path: Path,
) -> None:
    m = manager(journal=Journal(tmp_path / "j.db"))
    room = m.create_room("영희", "방", Options())
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    m.leave(room.id, "철수")  # the game ends: one left in play
    assert m.room(room.id).status == "finished"
    m.change_options(room.id, "영희", Options(starting_chips=5000))
    history = m.history
    assert history is not None
    (game,) = history.games("영희")
    replay = history.replay(game.key, "영희")
    assert replay is not None and replay.options == Options()  # played by the old rules
    m.join(room.id, "민수")
    m.start(room.id, "영희")
    assert m.live_game(room.id).options.starting_chips == 5000


def test_the_menu_offers_the_rules_only_between_games() -> None:
    m = manager()
    room = m.create_room("영희", "방", Options())
    m.join(room.id, "철수")
    assert ("rules", "") in [c for c, _ in menu_items(m.room(room.id), "영희")]
    m.start(room.id, "영희")
    assert ("rules", "") not in [c for c, _ in menu_items(m.room(room.id), "영희")]


TEXTS = {
    "ko": {
        "title": "방 규칙 바꾸기",
        "said": "방장이 방 규칙을 바꿨어요",
        "rules": "시작 2,000칩",
        "old": "시작 1,000칩",
        "logged": "시작 칩: 1,000칩 → 2,000칩",
    },
    "en": {
        "title": "Room rules",
        "said": "The host changed the rules",
        "rules": "start 2,000 chips",
        "old": "start 1,000 chips",
        "logged": "Starting chips: 1,000 chips →",  # (the log wraps the rest)
    },
}
EVERYONE = ("a", "b", "w")  # the host, a seated player, a spectator


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_host_menu_opens_the_filled_form_and_everyone_sees_the_new_rules(
    language: str, size: tuple[int, int]
) -> None:
    texts = TEXTS[language]
    options = Options(card_mode="three", hand_limit=30)  # not the server's defaults
    async with Table.open(
        ["a", "b"], spectators=["w"], options=options, start=False, language=language, size=size
    ) as t:
        await t.press("a", "m")
        menu = cast(ModerationScreen, t.screen("a"))
        assert isinstance(menu, ModerationScreen)
        for _ in range([c for c, _label in menu.items].index(("rules", ""))):
            await t.press("a", "down")
        await t.press("a", "enter")
        form = t.screen("a")
        assert isinstance(form, CreateRoomScreen), t.text("a")
        assert texts["title"] in t.text("a")
        assert Options.from_dict(form.values()) == options  # filled with the room's rules
        form.query_one("#opt-starting_chips", Choice).focus()
        await t.press("a", "right")  # 1,000 → 2,000
        await t.press("a", "enter")
        assert isinstance(t.screen("a"), TableScreen), t.text("a")
        summary = t.manager.room(t.room_id)
        assert summary is not None
        assert summary.options == Options(card_mode="three", hand_limit=30, starting_chips=2000)
        for nick in EVERYONE:
            text = t.text(nick)
            assert texts["said"] in text and texts["rules"] in text, (nick, text)
            assert texts["old"] not in text, (nick, text)
        if size[0] >= 110:  # the hand log shows beside the room: the change itself
            assert texts["logged"] in t.text("b"), t.text("b")


async def test_escape_leaves_the_rules_as_they_were() -> None:
    async with Table.open(["a", "b"], start=False) as t:
        await t.press("a", "m")
        menu = cast(ModerationScreen, t.screen("a"))
        for _ in range([c for c, _label in menu.items].index(("rules", ""))):
            await t.press("a", "down")
        await t.press("a", "enter")
        form = t.screen("a")
        assert isinstance(form, CreateRoomScreen)
        form.query_one("#opt-starting_chips", Choice).focus()
        await t.press("a", "right", "escape")
        assert isinstance(t.screen("a"), TableScreen)
        assert t.manager.room(t.room_id).options == Options()


async def test_the_rules_change_through_the_rooms_process(tmp_path: Path) -> None:
    """With ``--workers``: a worker's call reaches the one manager, and its pushes carry the
    new rules; bad rules and a guest's try come back as refusals."""
    async with serving(tmp_path) as (_hub, path):
        w = await Worker.connect(path)
        answer, _ = await w.call("create_room", "영희", "방", {}, False, True)
        room = answer["v"]["id"]
        await w.call("join", room, "철수", None)
        await w.call("subscribe_room", 7, room, "철수")
        answer, pushes = await w.call("change_options", room, "영희", {"startingChips": 2000})
        assert answer["v"] is None
        pushed = pushes[-1]["v"]
        assert pushed["room"]["options"]["startingChips"] == 2000
        assert [e["type"] for e in pushed["events"]] == ["optionsChanged"]
        answer, _ = await w.call("change_options", room, "영희", {"startingChips": -5})
        assert answer["e"] == "options"
        answer, _ = await w.call("change_options", room, "철수", {})
        assert answer["e"] == "room" and answer["c"] == "not_host"
