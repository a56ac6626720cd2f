"""Issue 32 item 17: the table's bet labels read one way, and a wide terminal's spare columns
go to the hand log."""

from __future__ import annotations

from rich.cells import cell_len
from textual.containers import Vertical

from engine import Options
from seotda_tui.testing import Table
from seotda_tui.ui.present.shape import LOG_WIDTH, MAX_LOG_WIDTH, WIDE_LOG_WIDTH, log_width
from seotda_tui.ui.widgets.actions import ActionBar
from seotda_tui.ui.widgets.handlog import HandLog


def test_the_log_takes_the_columns_the_table_leaves() -> None:
    assert log_width(80) == LOG_WIDTH and log_width(120) == WIDE_LOG_WIDTH
    widths = [log_width(w) for w in range(110, 260)]
    assert widths == sorted(widths) and widths[-1] == MAX_LOG_WIDTH
    assert log_width(200) == 78  # 200 - 2 borders - the table's 120


async def test_at_200x60_the_log_is_wide_and_keeps_long_lines_whole() -> None:
    async with Table.open(["a", "b", "c"], seed=5, size=(200, 60)) as t:
        for nick in ("a", "b"):
            screen = t.screen(nick)
            side = screen.query_one("#side", Vertical)
            assert side.region.width == log_width(200) > WIDE_LOG_WIDTH
            log = screen.query_one(HandLog)
            assert log.region.width > WIDE_LOG_WIDTH


async def test_bet_labels_are_shortened_alike() -> None:
    """``6 쿼터 (+320) 올인`` does not fit an 80-column place, ``8 풀 (+320) 올인`` does: both
    drop their brackets, not only the longer one."""
    async with Table.open(["a", "b"], seed=5, size=(80, 24)) as t:
        bar = t.screen(t.actor).query_one(ActionBar)
        bar.set_legal(
            [
                {"type": "die"},
                {"type": "quarter", "amount": 320, "allIn": True},
                {"type": "full", "amount": 320, "allIn": True},
            ]
        )
        shown = [bar.shown_label(i) for i, (_, on) in enumerate(bar.places) if on]
        assert len(shown) == 3
        assert any("+320" in label for label in shown)
        assert not any("(" in label for label in shown), shown
        drawn = " ".join(line.plain for line in bar.text_lines())
        assert all(label in drawn for label in shown)


async def test_bet_labels_keep_their_brackets_where_every_one_fits() -> None:
    async with Table.open(["a", "b"], seed=5, size=(120, 40)) as t:
        bar = t.screen(t.actor).query_one(ActionBar)
        bar.set_legal(
            [
                {"type": "quarter", "amount": 320, "allIn": True},
                {"type": "full", "amount": 320, "allIn": True},
            ]
        )
        shown = [bar.shown_label(i) for i, (_, on) in enumerate(bar.places) if on]
        assert shown and all("(+320)" in label for label in shown), shown


async def test_mode_notices_go_on_the_message_line_not_over_a_seat() -> None:
    """``a``, ``b`` and ``L`` said so in a toast over the top right corner: a seat's name and
    chips. On the table (and the lobby) they go on the screen's own message line."""
    async with Table.open(["a", "b", "c"], seed=5, spectators=["w"], notifications=True) as t:
        for nick in ("a", "w"):
            for key, shown in (("a", "ASCII 모드 켬"), ("b", "큰 글씨 켬"), ("L", "English")):
                await t.press(nick, key)
                await t.pilot(nick).pause(0.05)
                text = t.text(nick)
                assert shown in text, text
                assert not t.app(nick).screen.query("Toast"), text
                for seat in ("a", "b", "c"):  # every seat's name still reads
                    assert seat in text
            await t.press(nick, "L")  # back to Korean
        await t.press("a", "q", "y")  # the leave question, then the lobby
        await t.press("a", "a")
        assert "ASCII 모드 끔" in t.text("a") and not t.app("a").screen.query("Toast")


def _log_rows(log: HandLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


def _wider_rows(log: HandLog) -> list[str]:
    width = log.scrollable_content_region.width
    return [row for row in _log_rows(log) if cell_len(row) > width]


async def _until_rewrapped(t: Table, log: HandLog) -> None:
    """Until the log's rows fit its width (a resize is several hops: the screen's layout, the
    log's ``Resize``; a pause alone can end before them on a busy box), at most ~2 s."""
    for _ in range(100):
        if not _wider_rows(log):
            return
        await t.pilot("a").pause(0.02)


async def test_the_log_wraps_its_lines_again_when_the_terminal_shrinks_or_grows() -> None:
    """Lines written at 200 columns (a 78-cell log) re-wrap at 120 (40) and, with the log shown
    by hand, at 80 (26): none is cut at the new edge. Once per width change, not per write."""
    words = " ".join(f"낱말{i:02}" for i in range(20))  # 20 × 6 cells + spaces: 139 cells
    async with Table.open(["a", "b"], seed=5, size=(200, 60)) as t:
        await t.say("b", words)
        log = t.screen("a").query_one(HandLog)
        assert any(row.startswith("b: 낱말00") for row in _log_rows(log))
        for size, shown in (((120, 40), False), ((80, 24), True), ((200, 60), False)):
            await t.pilot("a").resize_terminal(*size)
            if shown:
                await t.press("a", "l")
            await t.settle()
            await _until_rewrapped(t, log)
            side = t.screen("a").query_one("#side", Vertical)
            assert side.region.width == log_width(size[0])
            width = log.scrollable_content_region.width
            rows = _log_rows(log)
            assert not _wider_rows(log), (size, width, rows)
            start = next(i for i, row in enumerate(rows) if row.startswith("b: 낱말00"))
            end = next(i for i, row in enumerate(rows) if row.endswith("낱말19"))
            assert " ".join(rows[start : end + 1]) == f"b: {words}", (size, rows)
            assert end - start + 1 >= cell_len(f"b: {words}") / width
        rewraps = log.rewraps
        actor = t.actor
        assert actor is not None
        await t.press(actor, "3")  # a new line at the same width: no rewrap
        assert log.rewraps == rewraps and f"{actor} 삥" in " ".join(_log_rows(log))


async def test_a_rewrap_keeps_a_log_read_back_where_it_was_and_one_followed_at_its_end() -> None:
    async with Table.open(["a", "b"], seed=5, size=(120, 40)) as t:
        for i in range(30):
            t.clock.advance(5)  # (the chat's rate limit)
            await t.say("b", f"{i:02} " + "말 " * 20)
        reader, follower = (t.screen(nick).query_one(HandLog) for nick in ("a", "b"))
        assert reader.max_scroll_y > 10 and follower.is_vertical_scroll_end
        reader.scroll_home(animate=False)
        await t.settle()
        for nick in ("a", "b"):
            await t.pilot(nick).resize_terminal(200, 60)
        await t.settle()
        for log in (reader, follower):
            await _until_rewrapped(t, log)
        await t.settle()
        assert reader.rewraps == follower.rewraps == 1
        assert reader.scroll_y < reader.max_scroll_y // 2  # still near the top
        assert follower.is_vertical_scroll_end


async def test_a_log_hidden_from_the_start_is_shown_at_its_end_after_the_game() -> None:
    """At 80×24 the log is hidden during a game; a game started at once never showed it. After
    the game the waiting room shows it: it must be at its end (the result), not scrolled to
    the top (it wrapped its lines at width 0, then "re-wrapped" them as if read back)."""
    options = Options(end_condition="hands", hand_limit=10)
    async with Table.open(["a", "b"], options=options, seed=5) as t:
        t.play_until(lambda g: g.finished)
        await t.settle()
        await t.press("a", "enter")  # from the results to the room
        log = t.screen("a").query_one(HandLog)
        assert log.display and log.max_scroll_y > 0
        assert log.is_vertical_scroll_end, (log.scroll_y, log.max_scroll_y)
        assert "게임 끝!" in " ".join(_log_rows(log)[-6:])
