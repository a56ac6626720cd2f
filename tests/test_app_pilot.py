"""Textual pilot tests: two (or three) apps sharing one RoomManager, as two SSH sessions would."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from contextlib import AsyncExitStack
from types import SimpleNamespace
from typing import Any

from engine import DECK, Options
from engine.options import SPECS
from engine.types import LegalAction, PendingPhase, SeatView, View
from seotda_tui.rooms import RoomError, RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.results import ResultsScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.actions import ActionBar
from seotda_tui.ui.widgets.hand import HandCards
from seotda_tui.ui.widgets.lines import Line
from seotda_tui.ui.widgets.pot import PotView
from seotda_tui.ui.widgets.texts import BET_ORDER

SIZE = (80, 24)


def screen_text(app: SeotdaApp) -> str:
    """What the terminal would show, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def manager() -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 42)


def app_for(m: RoomManager, nick: str) -> SeotdaApp:
    return make_app_factory(m)(SimpleNamespace(nickname=nick), None)


async def settle(*pilots: Any) -> None:
    for pilot in pilots:
        await pilot.pause()


async def open_create_form(pilot: Any) -> CreateRoomScreen:
    """From the lobby, ``n``: the create-room form, once it is up."""
    await pilot.press("n")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, CreateRoomScreen)
    return form


def seat_of(m: RoomManager, room_id: str, nick: str) -> SeatView:
    """``nick``'s seat as the manager tells ``nick``'s session (own cards face up)."""
    view = m.game_view(room_id, nick)
    assert view is not None
    return next(s for s in view["seats"] if s["id"] == nick)


def own_card_ids(m: RoomManager, room_id: str, nick: str) -> list[int]:
    return [c["id"] for c in seat_of(m, room_id, nick).get("cards", []) if "hidden" not in c]


def own_cards(m: RoomManager, room_id: str, nick: str) -> list[str]:
    """The truth, read from the server side."""
    return [DECK[i].label for i in own_card_ids(m, room_id, nick)]


async def test_lobby_lists_rooms_live() -> None:
    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert "아직 방이 없어요" in screen_text(app)
        room = m.create_room("민수", "민수네 판", {})
        await settle(pilot)
        text = screen_text(app)
        assert "민수네 판" in text and "1/10" in text and "대기 중" in text
        m.join(room.id, "지영")
        await settle(pilot)
        assert "2/10" in screen_text(app)
        m.leave(room.id, "민수")
        m.leave(room.id, "지영")
        await settle(pilot)
        assert "민수네 판" not in screen_text(app)


async def test_create_form_covers_every_option_and_shows_engine_errors() -> None:
    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        form = await open_create_form(pilot)
        assert len(form.values()) == len(SPECS)
        form.set_value("starting_chips", 500)
        form.set_value("base_unit", 50)
        await settle(pilot)
        await pilot.click("#form-create")
        await settle(pilot)
        assert isinstance(app.screen, CreateRoomScreen)
        assert "시작 칩(500)보다 클 수 없어요" in screen_text(app)
        assert m.rooms() == []
        form.set_value("base_unit", 10)
        form.set_value("card_mode", "three")
        form.set_value("hints", False)
        await settle(pilot)
        # a Button ignores clicks for 0.2 s after a press (its "-active" effect): wait it out
        while form.query_one("#form-create").has_class("-active"):
            await pilot.pause(0.05)
        await pilot.click("#form-create")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        (room,) = m.rooms()
        assert room.options.card_mode == "three" and room.options.hints is False
        assert room.max_players == 6 and room.host == "영희"


async def test_too_small_terminal_shows_only_the_notice() -> None:
    app = app_for(manager(), "영희")
    async with app.run_test(size=(70, 20)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "창을 키워 주세요" in text and "로비" not in text
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        text = screen_text(app)
        assert "창을 키워 주세요" not in text and "로비" in text


async def test_two_players_create_join_start_and_see_only_their_own_cards() -> None:
    m = manager()
    host, guest = app_for(m, "영희"), app_for(m, "철수")
    async with host.run_test(size=SIZE) as ph, guest.run_test(size=SIZE) as pg:
        await ph.press("n")
        await settle(ph)
        await ph.click("#form-create")
        await settle(ph, pg)
        assert isinstance(host.screen, TableScreen)
        (room,) = m.rooms()
        # the guest sees the room in the lobby and joins it with Enter
        assert "영희의 방" in screen_text(guest)
        await pg.press("enter")
        await settle(ph, pg)
        assert isinstance(guest.screen, TableScreen)
        assert "철수" in screen_text(host)
        # only the host may start: the guest's "s" does nothing
        await pg.press("s")
        await settle(ph, pg)
        assert m.room(room.id).status == "waiting"
        await ph.press("s")
        await settle(ph, pg)
        assert m.room(room.id).status == "playing"
        for app, me, other in ((host, "영희", "철수"), (guest, "철수", "영희")):
            mine, theirs = own_cards(m, room.id, me), own_cards(m, room.id, other)
            text = screen_text(app)
            assert all(label in text for label in mine)
            assert not any(label in text for label in theirs if label not in mine)
            assert isinstance(app.screen, TableScreen)
            seats = app.screen.shown_seats
            ids = own_card_ids(m, room.id, me)
            assert seats[other].cards == "[?]" and seats[other].faces == (None,)
            assert me not in seats  # the own seat is drawn large at the bottom
            assert [c.id for c in app.screen.query_one(HandCards).cards] == ids


async def test_a_bet_by_one_shows_on_the_others_screen() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    actor = m.live_game(room.id).view(None).get("actor")
    other = "철수" if actor == "영희" else "영희"
    a, b = app_for(m, actor), app_for(m, other)
    async with a.run_test(size=SIZE) as pa, b.run_test(size=SIZE) as pb:
        await settle(pa, pb)  # both go straight to the table: they hold seats
        assert isinstance(a.screen, TableScreen) and isinstance(b.screen, TableScreen)
        assert "내 차례예요" in screen_text(a) and f"{actor}님 차례" in screen_text(b)
        assert "3 삥 (+10)" in screen_text(a)
        await pa.press("3")  # 삥
        await settle(pa, pb)
        assert isinstance(b.screen, TableScreen)
        seats = b.screen.shown_seats
        assert seats[actor].bet == 10 and seats[actor].action == "삥"
        text = screen_text(b)
        assert "삥 10" in text and "4 콜 (+10)" in text
        assert b.screen.query_one("#pot", PotView).amount == 30
        await pb.press("l")  # the hand log, hidden at 80 columns, opens with l
        await settle(pb)
        assert f"{actor} 삥 10" in screen_text(b)
        # an illegal key explains itself in Korean and changes nothing
        await pa.press("2")
        await settle(pa)
        assert m.live_game(room.id).view(None).get("actor") == other


async def test_reconnect_returns_to_the_same_seat_and_cards() -> None:
    m = RoomManager(clock=FakeClock(), seed_source=lambda: 42, reconnect_grace=60)
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    cards = own_cards(m, room.id, "철수")
    first = app_for(m, "철수")
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(first.screen, TableScreen)
    assert m.room(room.id).offline == ("철수",)
    again = app_for(m, "철수")
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, TableScreen)
        assert m.room(room.id).offline == ()
        assert all(label in screen_text(again) for label in cards)


async def test_offline_seat_shows_connection_lost_to_others() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    m.session_connected("철수")
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        m.session_disconnected("철수")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        seats = app.screen.shown_seats  # in the reconnect grace: how long the game waits
        grace = f"끊김 {int(m.reconnect_grace)}초"
        assert grace in seats["철수"].badges
        assert f"[{grace}]" in screen_text(app)


async def test_three_card_choose_and_spectator() -> None:
    m = manager()
    room = m.create_room("영희", "판", {"cardMode": "three"})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    async with AsyncExitStack() as stack:
        apps = {nick: app_for(m, nick) for nick in ("영희", "철수", "구경꾼")}
        pilots = {
            nick: await stack.enter_async_context(app.run_test(size=SIZE))
            for nick, app in apps.items()
        }
        await settle(*pilots.values())
        # the spectator watches from the lobby with "w"
        await pilots["구경꾼"].press("w")
        await settle(*pilots.values())
        watcher = apps["구경꾼"].screen
        assert isinstance(watcher, TableScreen) and "관전 중이에요" in screen_text(apps["구경꾼"])
        assert not watcher.query_one("#actions").display
        # both check through the first betting round → everyone holds three cards
        for _ in range(2):
            actor = m.live_game(room.id).view(None).get("actor")
            await pilots[actor].press("2")
            await settle(*pilots.values())
        assert m.live_game(room.id).view(None).get("handPhase") == "choose"
        text = screen_text(apps["영희"])
        assert "카드 2장을 고르세요" in text
        for nick in ("영희", "철수"):
            await pilots[nick].press("1", "3", "enter")
            await settle(*pilots.values())
        for nick in ("영희", "철수"):
            ids = own_card_ids(m, room.id, nick)
            assert seat_of(m, room.id, nick).get("chosenIds") == [ids[0], ids[2]]
        assert m.game_view(room.id, "영희").get("handPhase") == "betting"
        spectator_text = screen_text(apps["구경꾼"])
        for nick in ("영희", "철수"):
            for card_id in own_card_ids(m, room.id, nick):
                assert DECK[card_id].label not in spectator_text


async def test_korean_input_method_keys_work() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        await pilot.press("ㄴ")  # "s" with a 두벌식 input method on
        await settle(pilot)
        assert m.room(room.id).status == "playing"


def play_until(m: RoomManager, room_id: str, done: Any, limit: int = 2000) -> None:
    """Drive the game server-side: raise as hard as allowed, call otherwise, ready up."""
    for _ in range(limit):
        game = m.live_game(room_id)
        if done(game):
            return
        pending = game.pending()
        for nick in pending["players"]:
            legal = game.legal_actions(nick)
            kinds = [a["type"] for a in legal]
            for kind in ("full", "half", "call", "check", "ready", "choose"):
                if kind in kinds:
                    action: dict[str, Any] = {"type": kind}
                    if kind == "choose":
                        action["cardIds"] = own_card_ids(m, room_id, nick)[:2]
                    with contextlib.suppress(RoomError):  # (refused: the loop tries again)
                        m.act(room_id, nick, action)
                    break
            else:
                with contextlib.suppress(RoomError):
                    m.act(
                        room_id, nick, {"type": legal[0]["type"], "accept": False} if legal else {}
                    )
            break
    raise AssertionError("the game never got there")


async def test_rebuy_prompt_and_answer() -> None:
    m = manager()
    room = m.create_room("영희", "판", {"startingChips": 500, "maxRaise": "full"})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    play_until(m, room.id, lambda g: g.view(None)["phase"] == "rebuy")
    busted = m.game_view(room.id, "")["rebuyPending"][0]
    app = app_for(m, busted)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "y 칩 다시 받기" in text and "n 그만하기" in text and "[파산]" in text
        await pilot.press("y")
        await settle(pilot)
        seat = seat_of(m, room.id, busted)
        assert (
            seat["rebuys"] == 1 and seat["stack"] + seat.get("committed", 0) == 500
        )  # then paid the school
        assert "칩 다시 받기" not in screen_text(app)


async def test_game_end_shows_result_and_room_waits_again() -> None:
    clock = FakeClock()
    m = RoomManager(clock=clock, seed_source=lambda: 3)
    room = m.create_room("영희", "판", {"handLimit": 10})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    host = app_for(m, "영희")
    async with host.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(200):  # nobody acts: timeouts play the ten hands out
            if m.room(room.id).status != "playing":
                break
            clock.advance(20)
        await settle(pilot)
        text = screen_text(host)
        assert m.room(room.id).status_label == "종료"
        assert isinstance(host.screen, ResultsScreen)  # the results screen opens by itself
        assert "게임 끝! 10판 종료" in text and "가상 칩" in text
        await pilot.press("enter")  # back to the room
        await settle(pilot)
        text = screen_text(host)
        assert "게임 끝! 10판 종료" in text
        ranking = re.findall(r"([12])위 (영희|철수)  ([\d,]+)칩  손익 ([+-]\d+)", text)
        assert [r[0] for r in ranking] == ["1", "2"] and {r[1] for r in ranking} == {"영희", "철수"}
        assert sum(int(r[2].replace(",", "")) for r in ranking) == 2000, ranking  # chips kept
        assert all(int(r[2].replace(",", "")) - 1000 == int(r[3]) for r in ranking), ranking
        assert "s 키로 다시 시작할 수 있어요" in text
        await pilot.press("s")
        await settle(pilot)
        assert m.room(room.id).status == "playing"
        banner = host.screen.query_one("#banner", Line).plain
        assert "게임 끝" not in banner and banner.startswith("기리: ")  # the old result is gone


async def test_leaving_mid_game_asks_first_then_returns_to_lobby() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    m.join(room.id, "민수")
    m.start(room.id, "영희")
    app = app_for(m, "민수")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert "정말 나갈까요?" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and "민수" in m.room(room.id).players
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)
        assert m.room(room.id).left == ("민수",) and m.room_of("민수") is None
        assert m.live_game(room.id).seat_status("민수") == "left"


async def test_markup_in_a_room_name_is_shown_as_text() -> None:
    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        m.create_room("민수", "[/]깨진[bold]방", {})
        await settle(pilot)
        assert "[/]깨진[bold]방" in screen_text(app)


async def test_prompt_and_bet_buttons_work_with_the_mouse() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#prompts", offset=(2, 0))  # "s 시작", the first prompt
        await settle(pilot)
        assert m.room(room.id).status == "playing"
        game = m.live_game(room.id)
        if game.view(None).get("actor") != "영희":
            m.act(room.id, game.view(None).get("actor"), {"type": "check"})
            await settle(pilot)
        bar = app.screen.query_one(ActionBar)
        ping = bar.region_of(BET_ORDER.index("ping"))
        await pilot.click(ActionBar, offset=(ping.x + 1 + 2, ping.y))  # the bar's padding is 1
        await settle(pilot)
        mine = next(s for s in game.view("영희")["seats"] if s["id"] == "영희")
        assert mine.get("lastAction", {})["type"] == "ping"  # type: ignore[index]


async def test_spectator_sits_down_in_a_waiting_room() -> None:
    m = manager()
    room = m.create_room("영희", "판", {})
    app = app_for(m, "민수")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert m.room(room.id).spectators == ("민수",)
        assert "j 참가" in screen_text(app)
        await pilot.press("j")
        await settle(pilot)
        assert m.room(room.id).players == ("영희", "민수")
        assert "방장 영희님이 시작하기를 기다려요" in screen_text(app)


async def test_rejoin_rebuy_and_ready_prompts_send_the_right_actions() -> None:
    """Rare phases, driven with synthetic views: each prompt maps to one engine action."""
    import dataclasses

    from seotda_tui.ui.screens.base import Pushed

    m = manager()
    room = m.create_room("영희", "판", {})
    m.join(room.id, "철수")
    m.start(room.id, "영희")
    sent: list[Mapping[str, Any]] = []
    m.act = lambda room_id, nick, action: sent.append(action)  # type: ignore[method-assign]
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.latest is not None
        base = screen.latest
        assert base.view is not None
        cases: list[tuple[PendingPhase, list[LegalAction], str, str, dict[str, object]]] = [
            (
                "rejoin",
                [
                    {"type": "rejoin", "accept": True, "amount": 40},
                    {"type": "rejoin", "accept": False, "amount": 0},
                ],
                "y 재참가 (+40)",
                "y",
                {"type": "rejoin", "accept": True},
            ),
            (
                "rebuy",
                [
                    {"type": "rebuy", "accept": True, "amount": 0},
                    {"type": "rebuy", "accept": False, "amount": 0},
                ],
                "n 그만하기",
                "n",
                {"type": "rebuy", "accept": False},
            ),
            ("handEnd", [{"type": "ready", "amount": 0}], "Space 준비", "space", {"type": "ready"}),
        ]
        for phase, legal, label, key, expected in cases:
            view: View = {
                **base.view,
                "legalActions": legal,
                "handPhase": "rejoin" if phase == "rejoin" else "handEnd",
                "phase": "rebuy" if phase == "rebuy" else "playing",
                "pending": {"phase": phase, "players": ["영희"], "seconds": 15},
            }
            screen.post_message(Pushed(dataclasses.replace(base, view=view, events=())))
            await settle(pilot)
            assert label in screen_text(app), screen_text(app)
            await pilot.press(key)
            await settle(pilot)
            assert sent[-1] == expected


async def test_form_greys_out_options_that_do_not_apply() -> None:
    app = app_for(manager(), "영희")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, CreateRoomScreen)
        assert form.query_one("#opt-rebuy_limit").disabled  # rebuy defaults to unlimited
        assert not form.query_one("#opt-deal_mode").disabled
        form.set_value("rebuy", "limited")
        form.set_value("card_mode", "three")
        await settle(pilot)
        assert not form.query_one("#opt-rebuy_limit").disabled
        assert form.query_one("#opt-deal_mode").disabled


async def test_form_starts_from_the_server_room_defaults() -> None:
    m = RoomManager(clock=FakeClock(), room_defaults=Options(starting_chips=2000, hints=False))
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, CreateRoomScreen)
        values = app.screen.values()
        assert values["starting_chips"] == 2000 and values["hints"] is False


async def test_motd_and_idle_exemption_through_the_factory() -> None:
    m = manager()
    ctx = SimpleNamespace(idle_exempt=None)
    app = make_app_factory(m, motd="금요일 밤 9시 정기전!")(SimpleNamespace(nickname="영희"), ctx)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "금요일 밤 9시 정기전!" in screen_text(app)
        assert ctx.idle_exempt() is False  # in the lobby: the idle timeout applies
        room = m.create_room("철수", "판", {})
        m.join(room.id, "영희")
        assert ctx.idle_exempt() is True  # in a room: the table's own timers apply
        m.leave(room.id, "철수")
        assert ctx.idle_exempt() is False  # but not for the host of a room not playing
        m.join(room.id, "철수")
        m.start(room.id, "영희")
        assert ctx.idle_exempt() is True


def test_table_text_from_a_real_view() -> None:
    """The pure view → text layer: badges, hidden cards, pot and banners."""
    from seotda_tui.ui.present import text as tt
    from seotda_tui.ui.present import waiting

    m = manager()
    room = m.create_room("영희", "판", {})
    for nick in ("철수", "민수"):
        m.join(room.id, nick)
    m.start(room.id, "영희")
    game = m.live_game(room.id)
    first = game.view(None).get("actor")
    m.act(room.id, first, {"type": "die"})
    m.session_connected("민수")
    m.session_disconnected("민수")
    summary = m.room(room.id)
    view = game.view("영희")
    infos = {i.name: i for i in tt.seat_infos(summary, view, "영희")}
    assert "다이" in infos[first].badges and "연결 끊김" in infos["민수"].badges
    for nick, info in infos.items():
        assert info.me == (nick == "영희")
        if nick != "영희":
            assert info.cards == "[?]"
    assert tt.pot_values(view)[0] == 30
    commitment = view["deal"]["commitment"]  # issue 36: every deal is committed to first
    assert tt.title_text(summary, view) == (
        f"판 · 게임 중 · 1판/20판 · 학교 10 · 약속 {commitment[:8]} · 방장 영희"
    )
    assert tt.title_text(summary, view, commitment=False) == (
        "판 · 게임 중 · 1판/20판 · 학교 10 · 방장 영희"
    )
    actor = view["actor"]
    expected = "내 차례예요!" if actor == "영희" else f"{actor}님 차례"
    assert tt.status_parts(view, "영희", view["legalActions"], False)[0][0] == expected
    rematch: View = {**view, "rematchNo": 2, "rematchReason": "gusa"}
    assert tt.banner_parts(rematch)[0][0].startswith("재경기 2회차 - 구사")
    assert waiting.waiting_status(summary, "철수") == "방장 영희님이 시작하기를 기다려요"


def test_korean_object_particle() -> None:
    from seotda_tui.ui.widgets.texts import object_particle

    assert [object_particle(w) for w in ("삥", "콜", "체크", "따당", "하프", "풀")] == [
        "삥을",
        "콜을",
        "체크를",
        "따당을",
        "하프를",
        "풀을",
    ]


async def test_ten_seats_fit_80x24() -> None:
    m = manager()
    names = [
        "영희",
        "철수",
        "민수",
        "지영",
        "가나다라마바사아",
        "bob",
        "carol",
        "dave",
        "eve",
        "frank",
    ]
    room = m.create_room(names[0], "열 명", {})
    for nick in names[1:]:
        m.join(room.id, nick)
    m.watch(room.id, "구경꾼")
    m.start(room.id, names[0])
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert all(nick in text for nick in names) and "관전 1명" in text
        # the own card is not cut off (a key 열 card is drawn double-lined)
        assert "╰────╯" in text.splitlines()[-5] or "╚════╝" in text.splitlines()[-5], text
        assert text.count("╭────╮") >= 9  # nine opponents' backs
        assert "차례" in text and "8 풀" in text


def test_lobby_rows_number_rooms_instead_of_showing_internal_ids() -> None:
    from engine import Options
    from seotda_tui.rooms import RoomManager
    from seotda_tui.ui.screens.lobby import row_cells

    manager = RoomManager()
    room = manager.create_room("영희", "영희의 방", Options())
    (summary,) = manager.rooms()
    cells = row_cells(summary, 1)
    assert cells[0] == "1" and room.id not in cells and cells[1] == "영희의 방"


async def test_form_options_change_with_the_arrow_keys_and_enter_creates() -> None:
    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        form = await open_create_form(pilot)
        await pilot.press("tab")  # from the name field to 카드 방식
        await pilot.press("right")
        await settle(pilot)
        assert form.values()["card_mode"] == "three"
        assert "<3장 섯다 (골라 쓰기)>" in screen_text(app)  # the longest label fits at 80
        await pilot.press("left", "left")  # wraps round (issue 36: the variants come last)
        await settle(pilot)
        assert form.values()["card_mode"] == "regret"
        await pilot.press("space")
        await settle(pilot)
        assert form.values()["card_mode"] == "two"
        await pilot.press("enter")  # on a choice: creates the room
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        (room,) = m.rooms()
        assert room.options.card_mode == "two"
