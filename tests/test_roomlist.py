"""The lobby's room list: cursor keys, scrolling in a small terminal, clicks, live changes."""

from __future__ import annotations

from textual import events

from seotda_tui.rooms import RoomSummary
from seotda_tui.ui.app import SeotdaApp
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.roomlist import RoomList

from .test_app_pilot import SIZE, app_for, manager, screen_text, settle


def row_line(text: str, number: int) -> str | None:
    """The screen line of the room numbered ``number`` (the first column), if shown."""
    for line in text.splitlines():
        if line.split()[:1] == [str(number)]:
            return line
    return None


def thirty_rooms() -> tuple[list[RoomSummary], SeotdaApp]:
    """More rooms than an 80×24 lobby shows, and a player's app to look at them."""
    m = manager()
    rooms = [m.create_room(f"호스트{i}", f"방{i}", {}) for i in range(30)]
    return rooms, app_for(m, "영희")


async def test_keys_move_the_cursor_and_the_list_scrolls_to_keep_it_shown() -> None:
    rooms, app = thirty_rooms()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        room_list = app.screen.query_one(RoomList)
        assert room_list.has_focus and room_list.row_count == 30
        assert room_list.selected_key == rooms[0].id
        shown = room_list.size.height - 1
        assert shown < 30  # 80×24: the list must scroll
        await pilot.press("end")
        await settle(pilot)
        assert room_list.selected_key == rooms[29].id
        text = screen_text(app)
        assert row_line(text, 30) is not None and row_line(text, 1) is None
        await pilot.press("home")
        await settle(pilot)
        assert room_list.selected_key == rooms[0].id and row_line(screen_text(app), 1)
        await pilot.press("pagedown")
        await settle(pilot)
        assert room_list.selected_key == rooms[shown].id
        assert row_line(screen_text(app), shown + 1) is not None
        await pilot.press("up", "up")
        await settle(pilot)
        assert room_list.selected_key == rooms[shown - 2].id
        await pilot.press("ctrl+home", *["down"] * 3)
        await settle(pilot)
        assert room_list.selected_key == rooms[3].id


async def test_the_cursor_stays_on_its_room_as_the_list_changes() -> None:
    m = manager()
    first = m.create_room("민수", "민수네 판", {})
    second = m.create_room("지영", "지영이 방", {})
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        room_list = app.screen.query_one(RoomList)
        await pilot.press("down")
        await settle(pilot)
        assert room_list.selected_key == second.id
        m.leave(first.id, "민수")  # the room above the cursor closes
        await settle(pilot)
        assert room_list.selected_key == second.id and room_list.cursor == 0
        assert "지영이 방" in screen_text(app) and "민수네 판" not in screen_text(app)
        m.leave(second.id, "지영")  # the cursor's own room closes: the list is empty
        await settle(pilot)
        assert room_list.selected_key is None
        assert "아직 방이 없어요" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert "방을 먼저 골라 주세요" in screen_text(app)


async def test_click_moves_the_cursor_and_a_second_click_joins() -> None:
    m = manager()
    m.create_room("민수", "민수네 판", {})
    wanted = m.create_room("지영", "지영이 방", {})
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        room_list = app.screen.query_one(RoomList)
        await pilot.click(RoomList, offset=(10, 2))  # row 0 is the header
        await settle(pilot)
        assert room_list.selected_key == wanted.id
        assert isinstance(app.screen, LobbyScreen)
        await pilot.click(RoomList, offset=(10, 2))
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert m.room_of("영희") == wanted.id


async def test_the_wheel_scrolls_without_moving_the_cursor() -> None:
    rooms, app = thirty_rooms()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        room_list = app.screen.query_one(RoomList)
        for _ in range(3):  # the wheel, as the driver delivers it to the widget under the mouse
            room_list.post_message(
                events.MouseScrollDown(room_list, 5, 3, 0, 1, 0, False, False, False)
            )
        await settle(pilot)
        text = screen_text(app)
        assert row_line(text, 1) is None and row_line(text, 4) is not None
        assert room_list.selected_key == rooms[0].id
        await pilot.press("down")  # the cursor comes back into view
        await settle(pilot)
        assert room_list.selected_key == rooms[1].id and row_line(screen_text(app), 2)


async def test_a_terminal_too_small_and_back_shows_the_whole_list_again() -> None:
    """Found over ssh: after the too-small notice the list kept only the cursor's row."""
    m = manager()
    m.create_room("민수", "민수네 판", {})
    second = m.create_room("지영", "지영이 방", {})
    app = app_for(m, "영희")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        for size in ((60, 15), (100, 8), (100, 30)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
        text = screen_text(app)
        assert row_line(text, 1) is not None and row_line(text, 2) is not None
        assert app.screen.query_one(RoomList).selected_key == second.id


async def test_the_selected_rooms_rules_follow_the_cursor_and_i_shows_them_all() -> None:
    from engine import Options
    from seotda_tui.ui.screens.help import HelpScreen

    m = manager()
    m.create_room("민수", "민수네 판", {})
    m.create_room(
        "지영", "지영이 방", Options(card_mode="three", turn_seconds=60, tie_rule="split")
    )
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "1번 방의 규칙" in text and "2장 섯다" in text and "차례 20초" in text
        await pilot.press("down")
        await settle(pilot)
        text = screen_text(app)
        assert "2번 방의 규칙" in text and "3장 섯다(2장 고르기)" in text and "차례 60초" in text
        assert "1번 방의 규칙" not in text
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "동점이면 나눠 가짐" in screen_text(app)  # beyond the lobby's short view
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, LobbyScreen)


async def test_the_rules_column_is_shortened_on_purpose_only_when_it_must() -> None:
    m = manager()
    m.create_room("민수", "민수네 판", {"maxRaise": "full"})
    long_host = "가나다라마바사아"  # 16 cells
    m.create_room(long_host, "가나다라마바사아자차", {})  # a 20-cell name
    app = app_for(m, "영희")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "2장·1,000칩·학교 10·20판·풀" in screen_text(app)  # room for it all
        await pilot.resize_terminal(*SIZE)
        await settle(pilot)
        room_list = app.screen.query_one(RoomList)
        shown = room_list.shown_cells(0)[-1]
        # a shorter form: the starting chips make room first (issue 32 item 15), then the end
        assert shown != "2장·1,000칩·학교 10·20판·풀" and shown.startswith("2장·학교 10")
        assert row_line(screen_text(app), 1).rstrip().endswith(shown)
