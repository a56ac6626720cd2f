"""A ``Line`` whose new text needs no layout now is still measured anew at the next one
(``tuning/measure_later``). Before, Textual's box-model and arrangement caches kept the old
text's height: after a game at 80×24 the waiting room's status and ranking were drawn over by
the own-cards box, still as tall as the rules text it had held (found in issue 36)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from seotda_tui import tuning
from seotda_tui.ui.widgets.lines import Line

WORDS = "가나다 " * 10  # 70 cells: one row at 80, two at 54


class Lines(App[None]):
    CSS = """
    #left { width: 1fr; }
    #side { width: 26; }
    #below { height: 1; }
    """

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(id="left"):
                yield Line(id="text")
                yield Line(id="sticky", sticky=True)
                yield Static("아래", id="below")
            yield Static("기록", id="side")


def rows(app: Lines, selector: str) -> tuple[int, int]:
    region = app.query_one(selector).region
    return region.y, region.height


async def test_a_text_set_at_one_width_is_measured_at_the_width_it_is_shown_at() -> None:
    tuning.install()
    app = Lines()
    async with app.run_test(size=(80, 10)) as pilot:
        line, side = app.query_one("#text", Line), app.query_one("#side")
        line.show("짧은 글")
        await pilot.pause()
        side.display = False  # the left side 80 wide: laid out there once
        await pilot.pause()
        line.show(WORDS)  # one row at 80: no layout asked for
        await pilot.pause()
        assert rows(app, "#text") == (0, 1)
        side.display = True  # back to the width of the first layout
        await pilot.pause()
        assert app.query_one("#text").size.width == 54
        assert rows(app, "#text") == (0, 2)
        assert rows(app, "#below")[0] == 3  # (the sticky line between keeps its one row)


async def test_a_sticky_line_shrinks_at_the_next_layout() -> None:
    tuning.install()
    app = Lines()
    async with app.run_test(size=(80, 10)) as pilot:
        sticky = app.query_one("#sticky", Line)
        sticky.show("\n".join(["규칙"] * 5))
        await pilot.pause()
        assert rows(app, "#sticky") == (1, 5)
        sticky.show()  # shorter: the blank rows stay until the next layout
        await pilot.pause()
        if tuning.enabled("measure_later"):  # (its stock fallback lays out at once)
            assert rows(app, "#below") == (6, 1)
        app.query_one("#text", Line).show(WORDS)  # another line grows: a layout
        await pilot.pause()
        assert rows(app, "#text") == (0, 2)
        assert rows(app, "#sticky") == (2, 1)
        assert rows(app, "#below") == (3, 1)
