"""Every screen at 80×24 with the longest nicknames (8 Hangul syllables = 16 cells) and amounts
(stacks of 9,999,999칩): no text is cut unless it was shortened on purpose (tests/fitkit.py)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from engine import Game, Options
from seotda_tui.rooms import RoomManager
from seotda_tui.testing import Table
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.confirm import ConfirmScreen
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.help import HelpScreen
from seotda_tui.ui.screens.results import ResultsScreen
from seotda_tui.ui.widgets.pot import PotView

from .fitkit import cuts
from .test_app_pilot import play_until
from .test_table_text import LONG, WATCHER

BIG = 9_999_999


def fits(app: Any, where: str) -> None:
    found = cuts(app)
    assert not found, f"{where}: " + "\n".join(found)


def big_stacks(players: Sequence[str], seed: int, options: Options | None = None) -> dict[str, int]:
    """~9,999,999칩 stacks, every other seat ~99,999 (its calls turn all-in with long amounts),
    by the seat order the seed gives (an engine game with the same seed says it)."""
    seats = Game.new(options or Options(), players, seed).players
    return {p: BIG if i % 2 == 0 else 99_999 for i, p in enumerate(seats)}


async def make_away(t: Table, *nicks: str) -> None:
    """Mark seats away as play does (§5.7: two timeouts in a row); the others check or call."""
    for _ in range(200):
        if all(t.seat(n).get("away") for n in nicks):
            return
        actor = t.actor
        if actor is None or actor in nicks:
            await t.advance((t.game.pending()["seconds"] or 0) + 1)
            continue
        kinds = [a["type"] for a in t.legal(actor)]
        await t.act(actor, {"type": "check" if "check" in kinds else "call"})
    raise AssertionError(f"{nicks} never went away")


async def test_lobby_and_form_with_a_long_nickname() -> None:
    manager = RoomManager(seed_source=lambda: 1)
    manager.create_room(LONG[1], "가나다라마바사아자차카타파하", Options())
    app = make_app_factory(manager)(SimpleNamespace(nickname=LONG[0]), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        fits(app, "lobby")
        await pilot.press("t")
        fits(app, "lobby, chat open")
        await pilot.press("escape", "n")
        await pilot.pause()
        assert isinstance(app.screen, CreateRoomScreen)
        fits(app, "new-room form")


#: Rooms whose names fill the 20-cell limit, with rules far from the defaults.
RULED_ROOMS = [
    (
        "가나다라마바사아자차",
        Options(
            card_mode="three",
            starting_chips=5000,
            base_unit=50,
            end_condition="lastStanding",
            max_raise="full",
            school_up_every=15,
            turn_seconds=60,
            rebuy="limited",
            rebuy_limit=3,
            dealer_rule="rotate",
        ),
    ),
    (
        "하하하하하하하하하하",
        Options(
            hand_limit=50,
            max_raise="full",
            ttaengjabi="loose",
            tie_rule="split",
            rejoin_cost="full",
        ),
    ),
    ("카타파하가나다라마바", Options(starting_chips=2000, base_unit=20, hints=False)),
    ("짧은 방", Options()),
]


async def test_lobby_with_long_rooms_in_every_state() -> None:
    """Waiting, playing and finished rooms with long names and hosts and non-default rules:
    every cell is shown whole (the 규칙 column in the longest form its column fits) and the
    selected room's rules are shown below the list, for each room the cursor visits."""
    manager = RoomManager(seed_source=lambda: 1)
    rooms = [
        manager.create_room(LONG[n + 1], name, options)
        for n, (name, options) in enumerate(RULED_ROOMS)
    ]
    for room, guest, watcher in ((rooms[1], LONG[6], WATCHER), (rooms[2], LONG[7], LONG[8])):
        manager.join(room.id, guest)
        manager.watch(room.id, watcher)
        manager.start(room.id, room.host or "")
    play_until(manager, rooms[2].id, lambda g: g is None or g.finished)  # "종료"
    assert [r.status_label for r in manager.rooms()] == ["대기 중", "게임 중", "종료", "대기 중"]
    app = make_app_factory(manager)(SimpleNamespace(nickname=LONG[0]), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for n in range(len(RULED_ROOMS)):
            text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            assert f"{n + 1}번 방의 규칙" in text, text
            fits(app, f"lobby, room {n + 1} selected")
            await pilot.press("down")
            await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        fits(app, "the selected room's rules")


async def test_waiting_room_host_guest_and_watcher() -> None:
    async with Table.open(LONG[:3], spectators=[WATCHER], start=False) as t:
        for nick in (LONG[0], LONG[1], WATCHER):
            fits(t.app(nick), f"waiting room ({nick})")
        await t.press(WATCHER, "4")  # a player-only key: the line says how to sit down
        assert "j 키로 참가해요" in t.text(WATCHER)
        fits(t.app(WATCHER), "waiting room, a watcher's bet key")


async def test_full_table_in_every_phase() -> None:
    async with Table.open(LONG, spectators=[WATCHER], seed=3, stacks=big_stacks(LONG, 3)) as t:
        actor = t.actor
        assert actor is not None
        await t.act(actor, {"type": "half"})  # a round bet and a raise on the action bar
        for nick in (t.actor, actor, WATCHER):
            fits(t.app(nick), f"betting ({nick})")
        await t.press(WATCHER, "4")
        assert "관전 중에는 베팅할 수 없어요" in t.text(WATCHER)
        fits(t.app(WATCHER), "betting, a watcher's bet key")
        for _ in range(30):  # raise to millions: long amounts, then calls that are all-in
            kinds = [a["type"] for a in t.legal(t.actor)]
            kind = next(k for k in ("full", "half", "call", "check") if k in kinds)
            await t.act(t.actor, {"type": kind})
            if t.actor is None:
                break
            fits(t.app(t.actor), f"betting, pot {t.game.pot_total():,}")
        await t.press(actor, "t")
        fits(t.app(actor), "chat open")
        await t.press(actor, "escape")
        await t.press(actor, "q")
        assert isinstance(t.app(actor).screen, ConfirmScreen)
        fits(t.app(actor), "leave dialog")
        await t.press(actor, "escape")
        t.play_until(lambda g: g.view(None).get("handPhase") == "handEnd")
        await t.settle()
        for nick in (LONG[0], LONG[5], WATCHER):
            fits(t.app(nick), f"showdown ({nick})")


async def test_a_room_name_at_its_limit_with_the_longest_host_and_watchers() -> None:
    """Found over ssh: "… · 방장 가나다라마바사아 · 관전" lost "1명" at the edge."""
    name = "가나다라마바사아자차"  # 20 cells, the form's limit
    stacks = big_stacks(LONG[:3], 3)
    async with Table.open(
        LONG[:3], spectators=[WATCHER], seed=3, start=False, name=name, stacks=stacks
    ) as t:
        for nick in (LONG[0], WATCHER):
            fits(t.app(nick), f"waiting room, long room name ({nick})")
        t.manager.start(t.room_id, LONG[0])
        await t.settle()
        for nick in (LONG[0], LONG[1], WATCHER):
            text = t.text(nick).splitlines()[0]
            assert "관전 1명" in text, text
            fits(t.app(nick), f"betting, long room name ({nick})")


async def test_badges_and_a_long_chat_line() -> None:
    async with Table.open(LONG, spectators=[WATCHER], seed=3, stacks=big_stacks(LONG, 3)) as t:
        t.manager.leave(t.room_id, LONG[2])  # [나감]
        await make_away(t, LONG[3])  # [자리 비움]
        await t.say(LONG[4], "가" * 100)  # the longest chat line (200 cells)
        for nick in (LONG[0], WATCHER):
            fits(t.app(nick), f"badges, chat ({nick})")


async def test_two_badges_in_a_seat_box() -> None:
    async with Table.open(LONG[:4], seed=3) as t:
        await make_away(t, LONG[2], LONG[3])  # [자리 비움]
        t.manager.leave(t.room_id, LONG[2])  # [나감] and, once it is their turn, [다이]
        await t.settle()
        assert t.seat(LONG[2]).get("away") and t.seat(LONG[3]).get("away")
        for nick in (LONG[0], LONG[1]):
            assert t.screen(nick).layout_choice[0] == "box"
            fits(t.app(nick), f"badges in boxes ({nick})")


async def test_rejoin_phase() -> None:
    deal = {LONG[0]: ["4띠", "9열"], LONG[1]: ["1띠", "2열"], LONG[2]: ["5띠", "6띠"]}
    options = Options(rejoin_cost="half", deal_mode="oneRound")
    stacks = big_stacks(LONG[:3], 11, options)
    async with Table.open(LONG[:3], options=options, seed=11, deal=deal, stacks=stacks) as t:
        while t.actor is not None:
            await t.press(t.actor, "1" if t.actor == LONG[2] else "2")
        for nick in LONG[:3]:
            fits(t.app(nick), f"gusa at the showdown ({nick})")
            await t.press(nick, "space")
        assert t.game.view(None).get("handPhase") == "rejoin"
        for nick in LONG[:3]:
            fits(t.app(nick), f"rejoin ({nick})")


async def test_lobby_refusal_to_join_a_started_game() -> None:
    async with Table.open(LONG[:2], seed=3) as t:
        app = make_app_factory(t.manager, chat=t.chat)(
            SimpleNamespace(nickname=LONG[5]), None
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("enter")  # join the (started) room
            await pilot.pause()
            fits(app, "lobby refusal")


async def test_three_card_choice() -> None:
    options = Options(card_mode="three")
    stacks = big_stacks(LONG[:6], 3, options)
    async with Table.open(LONG[:6], options=options, seed=3, stacks=stacks) as t:
        t.play_until(lambda g: g.view(None).get("handPhase") == "choose")
        await t.refresh()
        nick = t.game.pending()["players"][0]
        fits(t.app(nick), "3장 choice")
        await t.press(nick, "r")
        fits(t.app(nick), "3장 choice, recommended pair picked")


async def test_results_and_help() -> None:
    async with Table.open(LONG[:4], seed=3, options={"handLimit": 10}) as t:
        nick = LONG[0]
        await t.press(nick, "question_mark")
        assert isinstance(t.app(nick).screen, HelpScreen)
        for tab in range(3):
            fits(t.app(nick), f"help tab {tab}")
            await t.press(nick, "right")
        await t.press(nick, "escape")
        for _ in range(300):
            if getattr(t.manager.room(t.room_id), "status", None) != "playing":
                break
            t.clock.advance(20)
        await t.settle()
        assert isinstance(t.app(nick).screen, ResultsScreen)
        fits(t.app(nick), "results")
        for who in (nick, LONG[1]):
            await t.press(who, "enter")
            fits(t.app(who), f"finished room ({who})")


def pot_reads(t: Table, nick: str) -> None:
    """The pot's lines are all on screen, none under the own row docked below it (issue 32
    item 7: 3장 with the log open showed the big digits' top row only)."""
    screen = t.screen(nick)
    pot, hand = screen.query_one(PotView), screen.query_one("#hand")
    assert pot.amount is not None
    if hand.display and hand.region:
        assert pot.region.bottom <= hand.region.y, (nick, pot.region, hand.region)
    fits(t.app(nick), f"3장, log open ({nick}, {screen.layout_choice})")


async def test_the_pot_reads_in_three_card_seotda_with_the_log_open() -> None:
    options = Options(card_mode="three")
    for players in (LONG[:3], ["a", "b", "c", "d", "e"], LONG[:6]):
        stacks = big_stacks(players, 3, options)
        async with Table.open(
            players, options=options, seed=3, stacks=stacks, spectators=[WATCHER]
        ) as t:
            for nick in (players[0], players[1], WATCHER):
                await t.press(nick, "l")
                pot_reads(t, nick)
            t.play_until(lambda g: g.view(None).get("handPhase") == "choose")
            await t.refresh()
            for nick in (players[0], WATCHER):
                pot_reads(t, nick)


def places_told(t: Table, nick: str, more: str, whole: bool = True) -> None:
    """Every place of the last game is on ``nick``'s waiting-room banner, or counted in its
    "… N more" (issue 32 item 8: an 80×24 spectator saw 4 of 9 places, cut without a word)."""
    banner = t.screen(nick).query_one("#banner").plain
    result = t.manager.result(t.room_id)
    assert result is not None, "no finished game"
    ranking = result["ranking"]
    shown = [row for row in ranking if f" {row['playerId']} " in banner + " "]
    hidden = len(ranking) - len(shown)
    assert hidden == 0 or more.format(n=hidden) in banner, (nick, hidden, banner)
    assert shown and shown[0]["rank"] == 1, banner
    if whole:  # (fitkit renders the intended texts in Korean)
        fits(t.app(nick), f"the last game's result in the waiting room ({nick})")


async def test_nine_places_in_the_waiting_room_for_players_and_spectators() -> None:
    players = [f"선수{n}" for n in range(9)]
    async with Table.open(players, seed=3, spectators=[WATCHER], options={"handLimit": 10}) as t:
        t.play_until(lambda g: g.finished)
        await t.settle()
        for nick in (players[0], players[1], WATCHER):
            if isinstance(t.app(nick).screen, ResultsScreen):
                await t.press(nick, "enter")
            places_told(t, nick, "… 외 {n}명")
        await t.pilot(WATCHER).resize_terminal(120, 40)
        await t.settle()
        places_told(t, WATCHER, "… 외 {n}명")
        await t.pilot(WATCHER).resize_terminal(80, 24)
        await t.press(WATCHER, "L")  # English
        places_told(t, WATCHER, "… {n} more", whole=False)


async def test_a_full_waiting_room_keeps_its_seats_and_status_above_the_rules() -> None:
    """Ten seated at 80×24 before the start: the rules (under the seats) covered the last
    four seats and the status line; now only the topics that fit are shown (i has them all)."""
    names = [f"p{i}" for i in range(10)]
    async with Table.open(names, start=False) as t:
        text = t.text("p1")
        rows = text.splitlines()
        assert all(any(row.startswith(f"   {n} ") for row in rows) for n in names), text
        assert "방장 p0님이 시작하기를 기다려요" in text and "■ 이 방의 규칙" in text, text
        fits(t.app("p1"), "full waiting room")
