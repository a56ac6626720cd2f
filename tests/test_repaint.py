"""What a push costs each screen: a bet repaints a few widgets and never lays the screen out.

A layout of the table screen costs ~25 ms of CPU against ~5 ms for a repaint, once per seat per
action on the one event loop (BENCHMARKS.md). These tests pin the causes that were fixed: the
bet buttons' amounts, the hand log while hidden, the own-hand texts, the second card of
2-card Seotda, the phase prompts, the countdown, and lobbies nobody looks at.
"""

from __future__ import annotations

import gc
from collections import Counter
from types import SimpleNamespace
from typing import Any, cast

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.screen import Screen

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.create_room import CreateRoomScreen
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets import textlines
from seotda_tui.ui.widgets.actions import ActionBar, PromptBar
from seotda_tui.ui.widgets.gauge import gauge_text
from seotda_tui.ui.widgets.hand import HandCard, HandCards
from seotda_tui.ui.widgets.handlog import HandLog
from seotda_tui.ui.widgets.textlines import SPAN_GAP, changed_spans, text_cells

SIZE = (100, 30)  # the log is hidden below 110 columns


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts screen layouts per player (``Screen._refresh_layout`` is where Textual does it)."""
    counts: Counter[str] = Counter()
    original = Screen._refresh_layout

    def counting(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        if isinstance(self, TableScreen):
            counts[self.nickname] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counting)
    return counts


def kinds(t: Table) -> set[str]:
    return {a["type"] for a in t.legal(t.actor)}


async def test_betting_repaints_without_laying_out_any_screen(layouts: Counter[str]) -> None:
    async with Table.open(["a", "b", "c"], seed=5, size=SIZE) as t:
        await t.press(t.actor, "3")  # 삥: amounts on the next player's bar change
        layouts.clear()
        for _ in range(4):  # call/check around, and the second card arrives mid-hand
            await t.press(t.actor, "4" if "call" in kinds(t) else "2")
        assert t.game.view(None).get("street") == 1  # the second card was dealt on the way
        assert all(len(t.screen(n).query_one(HandCards).cards) == 2 for n in "abc")
        assert not layouts, layouts


async def test_the_next_hand_starts_without_laying_out_again(layouts: Counter[str]) -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE) as t:
        hands = 0
        while hands < 3:
            if t.game.view(None).get("handPhase") == "betting":
                await t.press(t.actor, "2" if "check" in kinds(t) else "4")
                continue
            for nick in "ab":
                await t.press(nick, "space")  # ready
            await t.advance(5)
            hands += 1
            if hands == 1:
                layouts.clear()  # the first hand end may grow the hand text's box once
        assert t.game.hands_played >= 3
        assert sum(layouts.values()) <= 2, layouts


async def test_a_game_start_lays_each_seat_s_screen_out_once(layouts: Counter[str]) -> None:
    """The waiting room turns into the table in one layout: the own card places are mounted
    already, and the new sizes do not ask for a second pass (``seotda_tui.tuning.layout_once``)."""
    async with Table.open(["a", "b", "c"], seed=5, size=SIZE, start=False) as t:
        layouts.clear()
        t.manager.start(t.room_id, "a")
        for _ in range(3):
            await t.settle()
        assert all("차례" in t.text(n) for n in "abc")
        assert dict(layouts) == {"a": 1, "b": 1, "c": 1}


async def test_the_hidden_hand_log_holds_lines_until_shown() -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE) as t:
        actor = t.actor
        await t.press(actor, "3")
        log = t.screen("a").query_one(HandLog)
        assert log.held > 0 and not log.lines  # hidden below 110 columns: nothing written
        await t.press("a", "l")  # show it
        assert log.held == 0
        shown = "\n".join(strip.text for strip in log.lines)
        assert f"{actor} 삥" in shown
        assert f"{actor} 삥" in t.text("a")


async def test_a_burst_of_updates_is_logged_whole_and_drawn_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Actions played before the screens had a turn (bots, a busy loop) reach each table as
    one message: every hand-log line is written, in order, and the table is drawn once."""
    draws: Counter[str] = Counter()
    redraw = TableScreen._redraw

    def counting(self: TableScreen) -> None:
        draws[self.nickname] += 1
        redraw(self)

    monkeypatch.setattr(TableScreen, "_redraw", counting)
    async with Table.open(["a", "b", "c"], seed=5, size=(120, 40)) as t:
        draws.clear()
        acted = []
        for _ in range(5):  # server-side, with no await between: the screens wait
            actor, kind = t.actor, "check" if "check" in kinds(t) else "call"
            assert actor is not None
            t.manager.act(t.room_id, actor, {"type": kind})
            acted.append(f"{actor} {'체크' if kind == 'check' else '콜'}")
        await t.settle()
        assert draws == {"a": 1, "b": 1, "c": 1}
        shown = [s.text.rstrip() for s in t.screen("c").query_one(HandLog).lines]
        played = [line for line in shown if line.endswith(("체크", "콜"))]
        assert played[-len(acted) :] == acted, shown


async def test_blank_card_places_keep_the_second_card_s_room() -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE) as t:
        hand = t.screen("a").query_one(HandCards)
        places = list(hand.query_children(HandCard))
        assert len(places) == 2 and [p.blank for p in places] == [False, True]
        assert len(hand.cards) == 1  # 2-card Seotda: one card first
        assert places[1].size == places[0].size  # the empty place is as big as a card
        assert places[1].tooltip is None


async def test_prompts_are_one_line_whose_labels_can_be_clicked() -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE, start=False) as t:
        bar = t.screen("a").query_one(PromptBar)
        labels = [label for _, label, _ in bar.prompts]
        assert labels[0] == "s 시작" and "s 시작" in t.text("a")
        start, end, action, enabled = bar.spans()[0]
        assert action == "start" and enabled and end - start == cell_len(" s 시작 ")
        await t.pilot("a").click(PromptBar, offset=(start + 1, 0))
        await t.settle()
        assert t.manager.room(t.room_id).status == "playing"


async def test_a_guest_s_disabled_prompt_does_nothing_when_clicked() -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE, start=False) as t:
        t.manager.leave(t.room_id, "b")
        await t.settle()
        bar = t.screen("a").query_one(PromptBar)
        start, _, action, enabled = bar.spans()[0]
        assert action == "start" and not enabled  # alone: cannot start
        await t.pilot("a").click(PromptBar, offset=(start + 1, 0))
        await t.settle()
        assert t.manager.room(t.room_id).status != "playing"


def cells(seconds: int | None, parts: Any = (("b님 차례", ""),), width: int = 78) -> Any:
    return text_cells(gauge_text(parts, seconds, 30, width, False), width)


def test_a_line_s_cells_are_two_objects_for_the_collector_not_one_per_cell() -> None:
    """The line memo keeps ~1,000 lines: a tuple per cell was ~100 young objects per line for
    every generation-1 pass to walk."""
    line = Text("가나다 " + "x" * 96)
    line.stylize("bold", 0, 3)
    text_cells(line, 99)  # rich's character widths and the style numbers: made once
    gc.collect()
    before = len(gc.get_objects())
    cells = text_cells(line, 100)
    assert len(gc.get_objects()) - before <= 6  # the two tuples, the memo's entry
    assert len(cells[0]) == len(cells[1]) == 100 and cells[0][:2] == ("가", "")


def test_style_numbers_are_never_reused_after_their_styles_are_evicted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(textlines, "STYLE_NUMBERS", 2)
    bold, plain = Text("ab", style="bold"), Text("ab", style="italic")
    old = text_cells(bold, 2)
    for n in range(5):  # evicts the first styles
        textlines.style_number((f"style {n}",))
    assert changed_spans(old, text_cells(plain, 2)) == [(0, 2)]  # italic got a new number


def test_a_tick_repaints_only_the_cells_that_changed() -> None:
    spans = changed_spans(cells(29), cells(28))
    assert sum(end - start for start, end in spans) <= 6  # the number and a bar cell at most
    start = spans[0][0]
    chars_28, chars_29 = cells(28)[0], cells(29)[0]
    assert "".join(chars_28).rstrip().endswith("28초")
    assert chars_29[:start] == chars_28[:start]
    assert changed_spans(cells(12), cells(12)) == []
    # "10초" → "9초": the line got shorter
    assert changed_spans(cells(10), cells(9))[-1][1] == len(cells(10)[0])


def test_a_changed_span_never_starts_inside_a_wide_character() -> None:
    old = text_cells(Text("가나다"), 10)
    new = text_cells(Text("가나라"), 10)
    assert changed_spans(old, new) == [(4, 6)]
    assert changed_spans(text_cells(Text("ab"), 10), text_cells(Text("a"), 10)) == [(1, 2)]


def test_changes_far_apart_are_separate_spans_and_near_ones_one() -> None:
    """The actor's marker moving from one seat box to another sends two small spans."""
    far = " " * (SPAN_GAP + 5)
    old = text_cells(Text(f"▶a{far}b"), 40)
    new = text_cells(Text(f" a{far}▶"), 40)
    assert changed_spans(old, new) == [(0, 1), (len(far) + 2, len(far) + 3)]
    near = text_cells(Text("x  y"), 40), text_cells(Text("X  Y"), 40)
    assert changed_spans(*near) == [(0, 4)]


async def test_no_lobby_follows_the_rooms_while_its_player_sits_at_a_table() -> None:
    async with Table.open(["a", "b"], seed=5, size=SIZE, start=False) as t:
        manager = t.manager
        assert isinstance(t.screen("a"), TableScreen)
        assert manager.lobby_subscribers == 0  # the tables replaced the lobbies: no pushes
        manager.create_room("c", "다른 방", {})
        await t.press("a", "q")  # back to the lobby (the waiting room leaves at once)
        await t.settle()
        assert manager.lobby_subscribers == 1
        assert "다른 방" in t.text("a")  # the list is current again


async def test_a_lobby_under_the_room_form_follows_nothing_until_shown_again() -> None:
    manager = RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    app = make_app_factory(manager)(SimpleNamespace(nickname="a"), None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and manager.lobby_subscribers == 1
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, CreateRoomScreen) and manager.lobby_subscribers == 0
        manager.create_room("b", "다른 방", {})
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and manager.lobby_subscribers == 1
        assert "다른 방" in "\n".join(s.text for s in app.screen._compositor.render_strips())


async def test_a_long_amount_is_cut_to_its_place_and_moves_no_neighbour() -> None:
    async with Table.open(["a", "b"], seed=5, size=(80, 24)) as t:
        bar = t.screen(t.actor).query_one(ActionBar)
        bar.set_legal([{"type": "call", "amount": 123_456_789, "allIn": True}])
        rows = [line.plain for line in bar.text_lines()]
        width = bar.region_of(0).width
        assert all(cell_len(row) == 4 * width + 3 for row in rows)  # four places, three gaps
        starts = [bar.region_of(i).x for i in range(4)]
        for i, start in enumerate(starts[1:], 1):  # every label still begins at its place
            label = bar.places[i][0]
            assert row_text_at(rows[0], start).startswith(" " + label[:3]), (i, rows[0])


def row_text_at(row: str, cell: int) -> str:
    """The text of ``row`` from terminal cell ``cell`` (wide characters count twice)."""
    x = 0
    for i, char in enumerate(row):
        if x >= cell:
            return row[i:]
        x += cell_len(char)
    return ""


async def test_the_longest_prompt_row_fits_80_columns() -> None:
    """Six prompts of the 3-card choice; the message beside them takes room only when shown."""
    async with Table.open(["a", "b"], seed=5, options={"cardMode": "three"}, size=(80, 24)) as t:
        while t.game.view(None).get("handPhase") != "choose":
            await t.press(t.actor, "4" if "call" in kinds(t) else "2")
        await t.press("a", "1")
        row = next(line for line in t.text("a").split("\n") if line.startswith("  1 *"))
        assert "Enter 확정" in row and "r 추천" in row and "q 나가기" in row, row


async def test_the_screens_of_a_table_share_each_seat_s_box_rows() -> None:
    """Each screen shows the other seats, so the grids differ, but a seat's box is the same
    on every other screen: its rows are rendered once for the table, not once per screen."""
    from seotda_tui.ui.widgets import seats

    async with Table.open(["a", "b", "c"], seed=5, size=SIZE) as t:
        seats._BOX_ROWS.clear()
        await t.press(t.actor, "2")  # a check: repaints the actor's box and the next actor's
        await t.settle()
        keys = cast(list[tuple[Any, ...]], list(seats._BOX_ROWS))  # (seat info, ..., row)
        drawn = Counter((key[0].name, key[4]) for key in keys)
        assert drawn and set(drawn.values()) == {1}
        for name in t.apps:
            grid = t.screen(name).query_one(seats.SeatBoxes)
            assert sorted(i.name for i in grid.infos) == [n for n in ("a", "b", "c") if n != name]
            assert all(n in t.text(name) for n in ("a", "b", "c"))


async def test_a_bet_repaints_only_the_cells_of_the_boxes_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from textual.geometry import Region

    from seotda_tui.ui.widgets.seats import SeatBoxes, box_width

    regions: dict[int, list[Region]] = {}

    def spy(self: SeatBoxes, *args: Any, **kwargs: Any) -> Any:
        regions.setdefault(id(self), []).extend(a for a in args if isinstance(a, Region))
        return original(self, *args, **kwargs)

    original = SeatBoxes.refresh
    async with Table.open(["a", "b", "c", "d"], seed=5, size=SIZE) as t:
        actor = t.actor
        monkeypatch.setattr(SeatBoxes, "refresh", spy)
        await t.press(actor, "2")
        nxt = t.actor
        for name in t.apps:
            if name in (actor, nxt):
                continue
            grid = t.screen(name).query_one(SeatBoxes)
            width = box_width(grid.cards, grid.style_name)
            names = [i.name for i in grid.infos]
            boxes = {names.index(actor), names.index(nxt)}
            assert regions[id(grid)]
            for region in regions[id(grid)]:
                box = region.x // (width + 1)
                assert box in boxes and region.right <= box * (width + 1) + width
