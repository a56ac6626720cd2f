"""Keys, dialogs and feedback lines at the table (issue #16), scripted with the pilot harness."""

from __future__ import annotations

from engine import Options
from engine.types import BetEvent
from seotda_tui.testing import Table

from .gamekit import busted_at_rebuy


def bets(t: Table) -> list[BetEvent]:
    return [e for e in t.manager.log(t.room_id) if e["type"] == "bet"]


# ---------------------------------------------------------------------- 2. the too-small screen
async def test_keys_do_nothing_while_the_table_is_hidden_by_the_too_small_notice() -> None:
    async with Table.open(["a", "b"], options=Options(), seed=5) as t:
        actor = t.actor
        assert actor is not None
        await t.pilot(actor).resize_terminal(70, 20)
        await t.settle()
        assert "창을 키워 주세요" in t.text(actor)
        await t.press(actor, "3", "4", "8", "q", "question_mark")  # 삥, 콜, 다이, leave, help
        assert bets(t) == [] and t.actor == actor
        assert t.manager.room_of(actor) == t.room_id
        assert type(t.screen(actor)).__name__ == "TableScreen"
        await t.pilot(actor).resize_terminal(80, 24)
        await t.settle()
        await t.press(actor, "3")  # visible again: the same key bets
        assert [(e["player"], e["action"]) for e in bets(t)] == [(actor, "ping")]


# ---------------------------------------------------------------------- 5. help keys
async def test_help_switches_tabs_and_scrolls_with_the_keys_its_footer_names() -> None:
    from textual.containers import VerticalScroll
    from textual.widgets import TabbedContent

    from seotda_tui.ui.screens.help import HelpScreen

    async with Table.open(["a", "b"], seed=5) as t:
        await t.press("a", "question_mark")
        help_screen = t.screen("a")
        assert isinstance(help_screen, HelpScreen)
        assert "←/→ 탭 · ↑/↓ 스크롤" in t.text("a")
        tabs = help_screen.query_one(TabbedContent)

        def scroller() -> VerticalScroll:
            pane = tabs.active_pane
            assert pane is not None
            return pane.query_one(VerticalScroll)

        assert tabs.active == "help-jokbo"
        await t.press("a", "down", "down")
        assert scroller().scroll_y == 2
        await t.press("a", "right")  # at once, without Tab first
        assert tabs.active == "help-rules-pane"
        await t.press("a", "left")
        assert tabs.active == "help-jokbo"
        await t.press("a", "tab")  # Tab is the next tab too, and the keys keep working
        rules = scroller()
        assert tabs.active == "help-rules-pane" and rules.max_scroll_y > 2
        await t.press("a", "down")
        assert rules.scroll_y == 1
        await t.press("a", "pagedown")
        assert rules.scroll_y > 1
        await t.press("a", "end")
        assert rules.scroll_y == rules.max_scroll_y
        await t.press("a", "home")
        assert rules.scroll_y == 0
        await t.press("a", "right", "shift+tab", "right", "right")  # 키, 규칙, 키, round to 족보
        assert tabs.active == "help-jokbo"
        await t.press("a", "escape")
        assert type(t.screen("a")).__name__ == "TableScreen"


# ---------------------------------------------------------------------- 6. results screens
async def play_out(t: Table) -> None:
    """Let every turn time out until the game ends (10 hands)."""
    for _ in range(400):
        if t.manager.room(t.room_id).status != "playing":
            break
        t.clock.advance(20)
    await t.settle()
    assert t.manager.room(t.room_id).status == "finished"


async def test_a_spectator_who_keeps_the_results_open_sees_only_the_newest_one() -> None:
    from seotda_tui.ui.screens.results import ResultsScreen
    from seotda_tui.ui.screens.table import TableScreen

    async with Table.open(["a", "b"], spectators=["c"], seed=3, options={"handLimit": 10}) as t:
        await play_out(t)
        assert isinstance(t.screen("c"), ResultsScreen)
        first = t.screen("c").result
        await t.press("a", "enter")
        t.manager.start(t.room_id, "a")  # the host starts again; c still looks at the results
        await t.settle()
        assert isinstance(t.screen("c"), ResultsScreen)
        assert "새 게임이 진행 중이에요" in t.text("c")  # and says the live table is one key away
        await play_out(t)
        newest = t.manager.result(t.room_id)  # the second game's
        assert newest is not None and newest is not first
        stack = t.app("c").screen_stack
        assert [type(s) for s in stack[-2:]] == [TableScreen, ResultsScreen]
        assert sum(isinstance(s, ResultsScreen) for s in stack) == 1
        assert t.screen("c").result is newest
        assert "새 게임이 진행 중이에요" not in t.text("c")
        await t.press("c", "enter")
        assert isinstance(t.screen("c"), TableScreen)


# ---------------------------------------------------------------------- 7. feedback lines
OUT_OF_TURN = "아직 내 차례가 아니에요"


async def test_a_bet_key_out_of_turn_says_so_on_that_players_screen_only() -> None:
    async with Table.open(["a", "b"], seed=5) as t:
        actor = t.actor
        other = "b" if actor == "a" else "a"
        await t.press(other, "4")
        assert OUT_OF_TURN in t.text(other) and OUT_OF_TURN not in t.text(actor)
        assert bets(t) == []
        await t.press(actor, "3")  # 삥: now it is the other's turn, the line has had its moment
        assert t.actor == other
        assert OUT_OF_TURN not in t.text(other)


async def test_a_bet_key_the_bar_does_not_offer_says_the_engines_reason_and_changes_nothing() -> (
    None
):
    """풀 in a room capped at 하프 and 체크 after a bet: the actor reads why (the engine's
    refusal, in their language), not only "not now", and the game does not move."""
    for language, full, check in (
        (None, "이 방에서는 풀을 할 수 없어요(하프까지)", "누가 이미 걸어서 체크할 수 없어요"),
        ("en", "No Full in this room (up to Half)", "Someone has bet already: no Check"),
    ):
        async with Table.open(["a", "b"], seed=5, language=language) as t:
            actor = t.actor
            other = "b" if actor == "a" else "a"
            await t.press(actor, "8")
            assert full in t.text(actor) and full not in t.text(other)
            row = next(line for line in t.text(actor).splitlines() if full in line)
            assert ("q leave" if language else "q 나가기") in row  # whole, beside the prompts
            assert bets(t) == [] and t.actor == actor
            await t.press(actor, "3")  # 삥
            await t.press(other, "2")  # 체크 after the 삥
            assert check in t.text(other)
            assert [e["action"] for e in bets(t)] == ["ping"] and t.actor == other


async def test_a_spectators_player_keys_say_so_and_change_nothing() -> None:
    from seotda_tui.ui.screens.table_actions import WATCHER_BET, WATCHER_KEY

    async with Table.open(["a", "b"], spectators=["w"], seed=5) as t:
        before = (len(t.manager.log(t.room_id)), t.actor, t.game.pending())
        for key in "12345678":  # the whole betting bar, each the actor's legal key or not
            await t.press("w", key)
            assert WATCHER_BET in t.text("w"), (key, t.text("w"))
            assert WATCHER_BET not in t.text("a") + t.text("b")
        for key in ("y", "n", "space", "enter", "r"):  # the prompts' and the 3장 choice's keys
            await t.press("w", key)
            assert WATCHER_KEY in t.text("w"), (key, t.text("w"))
        assert (len(t.manager.log(t.room_id)), t.actor, t.game.pending()) == before
        assert "w" in t.manager.room(t.room_id).spectators
        await t.press(t.actor, "3")  # the game moves on: the line has had its moment
        assert WATCHER_KEY not in t.text("w")


async def test_a_spectator_in_a_waiting_room_is_told_how_to_sit_down() -> None:
    from seotda_tui.ui.screens.table_actions import WATCHER_JOIN

    async with Table.open(["a", "b"], spectators=["w"], start=False) as t:
        await t.press("w", "3")
        assert WATCHER_JOIN.text() in t.text("w"), t.text("w")
        assert t.manager.room(t.room_id).players == ("a", "b")
        await t.press("w", "j")
        assert "w" in t.manager.room(t.room_id).players


async def test_an_own_turn_timing_out_says_what_was_played_for_you() -> None:
    async with Table.open(["a", "b"], seed=5) as t:
        first = t.actor
        assert first is not None
        second = "b" if first == "a" else "a"
        await t.advance(t.game.pending()["seconds"] + 1)
        assert "시간이 지나 자동으로 체크했어요" in t.text(first)
        assert "자동으로" not in t.text(second)
        await t.press(second, "3")  # 삥 (the hand is opened): the next timeout is a 다이
        await t.advance(t.game.pending()["seconds"] + 1)
        assert t.seat(first).get("folded")
        assert "시간이 지나 자동으로 다이했어요" in t.text(first)
        assert "자동으로" not in t.text(second)


async def test_the_three_card_auto_pick_and_a_stale_pick_reminder() -> None:
    async with Table.open(["a", "b"], options={"cardMode": "three"}, seed=5) as t:
        for _ in range(2):
            await t.press(t.actor, "2")  # check, check: the third card and the choice
        assert t.game.view(None).get("handPhase") == "choose"
        await t.press("a", "enter")
        assert "카드 두 장을 골라 주세요" in t.text("a")
        cards = t.own_cards("b")[:2]
        await t.act("b", {"type": "choose", "cardIds": cards})
        await t.advance(t.game.pending()["seconds"] + 1)
        assert t.game.view(None).get("handPhase") == "betting"
        text = t.text("a")
        assert "시간이 지나 자동으로 두 장 골랐어요" in text
        assert "카드 두 장을 골라 주세요" not in text  # the reminder's moment has passed
        assert "자동으로" not in t.text("b")


async def test_a_lapsed_rebuy_window_is_explained_to_the_busted_player() -> None:
    async with busted_at_rebuy() as t:
        await t.advance(t.game.pending()["seconds"] + 1)
        assert "시간이 지나 리바이하지 않았어요" in t.text("b")
        assert "리바이하지 않았어요" not in t.text("a")


# ---------------------------------------------------------------------- 15. stale messages
async def test_a_lobby_error_clears_after_a_few_seconds_on_the_apps_clock() -> None:
    from seotda_tui.ui.screens.lobby import LobbyScreen

    async with Table.open(["a", "b"], spectators=["c"], seed=5) as t:
        await t.press("c", "q")  # a spectator leaves at once
        assert isinstance(t.screen("c"), LobbyScreen)
        t.manager.set_locked(t.room_id, "a", True)
        await t.press("c", "enter")  # back into the locked room: refused
        assert "방장이 방을 잠가서" in t.text("c")
        await t.advance(2)
        assert "방장이 방을 잠가서" in t.text("c")
        await t.advance(5)
        assert "방장이 방을 잠가서" not in t.text("c")


# ---------------------------------------------------------------------- 12. the room name's limit
async def test_the_room_name_field_counts_cells_and_takes_nothing_past_the_limit() -> None:
    from types import SimpleNamespace

    from textual import events
    from textual.widgets import Input

    from seotda_tui.rooms import ROOM_NAME_CELLS, RoomManager
    from seotda_tui.rooms.clock import FakeClock
    from seotda_tui.ui.app import make_app_factory

    from .test_app_pilot import open_create_form

    manager = RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    app = make_app_factory(manager)(SimpleNamespace(nickname="영희"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_create_form(pilot)
        name = form.query_one("#room-name", Input)
        text = "\n".join(s.text for s in form._compositor.render_strips())
        assert f"9/{ROOM_NAME_CELLS}칸" in text  # "영희의 방": 9 cells
        await pilot.press("end", *["backspace"] * 9, *"abcdefghij" * 4)  # 40 typed
        await pilot.pause()
        assert name.value == "abcdefghij" * 2
        text = "\n".join(s.text for s in form._compositor.render_strips())
        assert f"{ROOM_NAME_CELLS}/{ROOM_NAME_CELLS}칸" in text
        await pilot.press(*["backspace"] * 11, *"가나다라마바")  # 9 + 2 cells each
        await pilot.pause()
        assert name.value == "abcdefghi가나다라마"  # 바 would be 21 cells
        text = "\n".join(s.text for s in form._compositor.render_strips())
        assert f"19/{ROOM_NAME_CELLS}칸" in text
        name.post_message(events.Paste("xyz"))  # pasted: as much as fits
        await pilot.pause()
        assert name.value == "abcdefghi가나다라마x"
        await pilot.press("enter")
        await pilot.pause()
        (room,) = manager.rooms()
        assert room.name == name.value


# ---------------------------------------------------------------------- q in the lobby
async def test_q_in_the_lobby_asks_before_disconnecting() -> None:
    from types import SimpleNamespace

    from seotda_tui.rooms import RoomManager
    from seotda_tui.rooms.clock import FakeClock
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.lobby import LobbyScreen

    app = make_app_factory(RoomManager(clock=FakeClock()))(SimpleNamespace(nickname="영희"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert "접속을 끊고 나갈까요?" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.is_running
        await pilot.press("ㅂ", "y")  # (the Korean-IME q)
        await pilot.pause()
        assert not app.is_running
