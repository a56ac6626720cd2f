"""The fitting arithmetic (ui/present/fit.py) counts the rows a ``Line`` is drawn in: the
texts it cuts to fit are measured with the wrap the widget itself uses."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical

from seotda_tui.ui.present.fit import TIP_SEPARATOR, text_rows
from seotda_tui.ui.widgets.lines import Line

TIP = TIP_SEPARATOR.join(["처음이세요? ? 족보·규칙", "1~8 베팅", "t 채팅"])
TEXTS = [
    [(TIP, "italic")],
    [("영희 님이 콜 했어요 (120칩)", ""), ("\n", ""), ("가나다라마바사아자차카타파하 ", "bold")],
    [("x" * 45, "")],
    [("a b " * 12, "")],
]


class _Lines(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical():
            for _ in TEXTS:
                yield Line()


async def test_text_rows_are_the_rows_a_line_is_drawn_in() -> None:
    app = _Lines()
    async with app.run_test(size=(60, 60)) as pilot:
        lines = list(app.query(Line))
        for parts, line in zip(TEXTS, lines):
            line.show(*parts)
        for width in (7, 10, 13, 24, 40):
            for line in lines:
                line.styles.width = width
            await pilot.pause()
            for parts, line in zip(TEXTS, lines):
                assert line.size.height == text_rows(list(parts), width), (width, parts)
