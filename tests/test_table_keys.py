"""Keys, dialogs and feedback lines at the table (issue #16), scripted with the pilot harness."""

from __future__ import annotations

from engine import Options
from seotda_tui.testing import Table


def bets(t: Table) -> list[dict[str, object]]:
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

    from seotda_tui.screens.help import HelpScreen

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
        if t.manager.room(t.room_id).status != "playing":  # type: ignore[union-attr]
            break
        t.clock.advance(20)
    await t.settle()
    assert t.manager.room(t.room_id).status == "finished"  # type: ignore[union-attr]


async def test_a_spectator_who_keeps_the_results_open_sees_only_the_newest_one() -> None:
    from seotda_tui.screens.results import ResultsScreen
    from seotda_tui.screens.table import TableScreen

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
        newest = t.manager._rooms[t.room_id].result
        assert newest is not first
        stack = t.app("c").screen_stack
        assert [type(s) for s in stack[-2:]] == [TableScreen, ResultsScreen]
        assert sum(isinstance(s, ResultsScreen) for s in stack) == 1
        assert t.screen("c").result is newest
        assert "새 게임이 진행 중이에요" not in t.text("c")
        await t.press("c", "enter")
        assert isinstance(t.screen("c"), TableScreen)
