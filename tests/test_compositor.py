"""The narrowed compositor (``seotda_tui/tuning/compositor.py``) paints exactly what Textual's does.

Two identical apps, one per compositor, get the same random content changes and partial
refreshes; every frame each one sends is played into a pyte terminal. After every step both
terminals must match each other and a full render of the true screen from scratch.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pyte
import pytest
from textual._compositor import Compositor, LayoutUpdate
from textual.app import App, ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from seotda_tui.tuning.compositor import DirtyCompositor

WIDTH, HEIGHT = 60, 20

CSS = """
Screen { background: #202020; }
#top { height: 3; background: #303060; border: round white; }
#grid { grid-size: 3; grid-gutter: 0 1; height: 9; }
#grid > Static { border: solid #808080; background: #402020 50%; height: 3; }
#side { width: 14; background: #204020; padding: 0 1; }
#overlay { layer: above; offset: 20 6; width: 18; height: 5; background: #606000 80%;
           border: heavy red; }
#bottom { dock: bottom; height: 2; background: #000060; }
Screen { layers: base above; }
"""


class Recording:
    """Keeps every frame the compositor produces, as the bytes a terminal would get."""

    frames: list[str]
    console: Any

    def render_update(self, full: bool = False, screen_stack: Any = None) -> Any:
        update = super().render_update(full=full, screen_stack=screen_stack)  # type: ignore[misc]
        if update is not None:
            self.frames.append(update.render_segments(self.console))
        return update


class StockRecording(Recording, Compositor):  # type: ignore[misc]  # render_update's Any
    pass


class DirtyRecording(Recording, DirtyCompositor):  # type: ignore[misc]  # (as above)
    pass


class Board(Screen[None]):
    def __init__(self, compositor: type[Compositor]) -> None:
        super().__init__()
        self._compositor = compositor()

    def compose(self) -> ComposeResult:
        yield Static("title", id="top")
        with Horizontal():
            with Vertical():
                with Grid(id="grid"):
                    for i in range(6):
                        yield Static(f"box {i}", id=f"box{i}")
                yield Static("middle", id="middle")
            yield Static("side", id="side")
        yield Static("overlay", id="overlay")
        yield Static("bottom", id="bottom")


class BoardApp(App[None]):
    CSS = CSS

    def __init__(self, compositor: type[Compositor]) -> None:
        super().__init__()
        self.compositor_type = compositor

    def on_mount(self) -> None:
        screen = Board(self.compositor_type)
        screen._compositor.frames = []  # type: ignore[attr-defined]
        screen._compositor.console = self.console  # type: ignore[attr-defined]
        self.push_screen(screen)


def cells(screen: pyte.Screen) -> list[list[tuple[str, str, str, bool]]]:
    return [
        [(c.data, c.fg, c.bg, c.bold) for c in (screen.buffer[y][x] for x in range(WIDTH))]
        for y in range(HEIGHT)
    ]


def play(frames: list[str]) -> pyte.Screen:
    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.Stream(screen)
    for frame in frames:
        stream.feed(frame)
    return screen


class Terminal:
    """A pyte terminal fed each new frame of one app once."""

    def __init__(self, app: App[None]) -> None:
        self.app, self.screen, self.fed = app, pyte.Screen(WIDTH, HEIGHT), 0
        self.stream = pyte.Stream(self.screen)

    def catch_up(self) -> list[list[tuple[str, str, str, bool]]]:
        frames = self.app.screen._compositor.frames  # type: ignore[attr-defined]
        for frame in frames[self.fed :]:
            self.stream.feed(frame)
        self.fed = len(frames)
        return cells(self.screen)


def fresh_render(app: App[None]) -> pyte.Screen:
    update = app.screen._compositor.render_update(full=True)
    assert isinstance(update, LayoutUpdate)
    return play([update.render_segments(app.console)])


ASCII = ["", "x", "pot 1,200", "call half", "a much longer line of text here", "9"]
KOREAN = ["판돈 1,200", "다이", "콜 하프", "광땡!"]


def step(rng: random.Random, widgets: Sequence[Widget], words: list[str]) -> tuple[str, int, Any]:
    """One change, drawn once and applied identically to both apps."""
    index = rng.randrange(len(widgets))
    if rng.random() < 0.6:
        return ("update", index, rng.choice(words) * rng.randint(1, 3))
    widget = widgets[index]
    width, height = max(widget.size.width, 1), max(widget.size.height, 1)
    x, y = rng.randrange(width), rng.randrange(height)
    return ("refresh", index, Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y)))


def apply(app: App[None], change: tuple[str, int, Any]) -> None:
    kind, index, value = change
    widget = list(app.screen.query(Static))[index]
    if kind == "update":
        widget.update(value)
    else:
        widget.refresh(value)


@pytest.mark.parametrize(("seed", "words"), [(0, ASCII), (1, ASCII), (2, ASCII + KOREAN)])
async def test_partial_updates_paint_what_textual_paints(seed: int, words: list[str]) -> None:
    """With wide characters only the two compositors are compared: a refresh that starts or
    ends inside a wide character repaints a blank half in both (Textual crops strips by cell;
    the app's own refreshes cover whole characters, see ``TextLines.refresh_changed``)."""
    rng = random.Random(seed)
    stock, dirty = BoardApp(StockRecording), BoardApp(DirtyRecording)
    async with stock.run_test(size=(WIDTH, HEIGHT)) as stock_pilot:
        async with dirty.run_test(size=(WIDTH, HEIGHT)) as dirty_pilot:
            await stock_pilot.pause()
            await dirty_pilot.pause()
            stock_terminal, dirty_terminal = Terminal(stock), Terminal(dirty)
            for _ in range(30):
                widgets = list(stock.screen.query(Static))
                changes = [step(rng, widgets, words) for _ in range(rng.randint(1, 3))]
                for change in changes:
                    apply(stock, change)
                    apply(dirty, change)
                await stock_pilot.pause()
                await dirty_pilot.pause()
                shown = dirty_terminal.catch_up()
                assert shown == stock_terminal.catch_up()
                if words is ASCII:
                    assert shown == cells(fresh_render(dirty))
            assert any(len(frame) < 600 for frame in dirty.screen._compositor.frames)  # type: ignore[attr-defined]


async def test_only_widgets_under_a_change_are_rendered() -> None:
    """Not the other widgets, and not the containers and screen behind the changed ones."""
    app = BoardApp(DirtyRecording)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        rendered: list[str] = []
        for widget in [app.screen, *app.screen.walk_children(Widget)]:
            original = widget.render_lines

            def spy(crop: Region, widget: Widget = widget, original: Any = original) -> Any:
                rendered.append(widget.id or type(widget).__name__)
                return original(crop)

            widget.render_lines = spy  # type: ignore[method-assign]
        app.screen.query_one("#top", Static).refresh()
        app.screen.query_one("#box1", Static).refresh()
        await pilot.pause()
        assert set(rendered) == {"top", "box1"}


async def test_a_change_at_the_end_of_a_wide_row_sends_only_its_cells() -> None:
    """Textual sends a row piece from its left edge; the narrowed update starts at the span."""
    stock, dirty = BoardApp(StockRecording), BoardApp(DirtyRecording)
    async with stock.run_test(size=(WIDTH, HEIGHT)) as stock_pilot:
        async with dirty.run_test(size=(WIDTH, HEIGHT)) as dirty_pilot:
            for app, pilot in ((stock, stock_pilot), (dirty, dirty_pilot)):
                await pilot.pause()
                app.screen.query_one("#top", Static).update("판돈 " + "1,200 " * 6)
                await pilot.pause()
                app.screen.query_one("#top", Static).refresh(Region(40, 1, 2, 1))
                await pilot.pause()
            sent = [app.screen._compositor.frames[-1] for app in (stock, dirty)]  # type: ignore[attr-defined]
            assert len(sent[1]) < len(sent[0]) / 2
            assert Terminal(dirty).catch_up() == Terminal(stock).catch_up()


class ScrolledBoard(Screen[None]):
    """A scrolled container whose first and last visible children are cut by its edges, next
    to a fixed widget, under an overlay that covers part of both."""

    DEFAULT_CSS = """
    #scroller { height: 9; width: 40; border: solid green; }
    #scroller > Static { height: 2; background: #203040; }
    #fixed { height: 4; background: #402040; }
    #overlay { layer: above; offset: 30 4; width: 16; height: 4; background: #606000 80%; }
    ScrolledBoard { layers: base above; }
    """

    def __init__(self, compositor: type[Compositor]) -> None:
        super().__init__()
        self._compositor = compositor()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroller"):
            for i in range(12):
                yield Static(f"row {i}\nsecond line {i}", id=f"row{i}")
        yield Static("fixed", id="fixed")
        yield Static("overlay", id="overlay")


class ScrolledApp(App[None]):
    def __init__(self, compositor: type[Compositor]) -> None:
        super().__init__()
        self.compositor_type = compositor

    def on_mount(self) -> None:
        screen = ScrolledBoard(self.compositor_type)
        screen._compositor.frames = []  # type: ignore[attr-defined]
        screen._compositor.console = self.console  # type: ignore[attr-defined]
        self.push_screen(screen)


@pytest.mark.parametrize("seed", [3, 4])
async def test_a_scrolled_and_clipped_container_paints_what_textual_paints(seed: int) -> None:
    """Changes to children that are partly scrolled out (their rows above or below the
    container's clip), to hidden ones, and scrolling itself: the same screen both ways."""
    rng = random.Random(seed)
    stock, dirty = ScrolledApp(StockRecording), ScrolledApp(DirtyRecording)
    async with stock.run_test(size=(WIDTH, HEIGHT)) as stock_pilot:
        async with dirty.run_test(size=(WIDTH, HEIGHT)) as dirty_pilot:
            pilots = ((stock, stock_pilot), (dirty, dirty_pilot))
            for app, pilot in pilots:
                await pilot.pause()
                app.screen.query_one("#scroller", VerticalScroll).scroll_to(y=3, animate=False)
                await pilot.pause()
            stock_terminal, dirty_terminal = Terminal(stock), Terminal(dirty)
            assert dirty_terminal.catch_up() == stock_terminal.catch_up()
            for _ in range(25):
                scroll = rng.random() < 0.2
                y = rng.randrange(0, 16)
                widgets = list(stock.screen.query(Static))
                changes = [step(rng, widgets, ASCII) for _ in range(rng.randint(1, 3))]
                for app, _ in pilots:
                    if scroll:
                        app.screen.query_one(VerticalScroll).scroll_to(y=y, animate=False)
                    for change in changes:
                        apply(app, change)
                for _, pilot in (*pilots, *pilots):  # a scroll repaints a frame later
                    await pilot.pause()
                shown = dirty_terminal.catch_up()
                assert shown == stock_terminal.catch_up()
                assert shown == cells(fresh_render(dirty))
            scrolled = dirty.screen.query_one(VerticalScroll).scroll_offset.y
            assert scrolled > 0  # the comparison did run on a scrolled container
