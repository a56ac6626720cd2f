"""The layer's ``shared_rows``: line-API widgets hand their shared rows to the compositor
themselves. The cells must be the ones Textual's own path (the styles cache) makes, for whole
rows and cropped ones, on every screen of a table as the game moves."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from seotda_tui import tuning
from seotda_tui.testing import Table
from seotda_tui.tuning.shared_rows import plain, render_shared
from seotda_tui.ui.widgets.textlines import TextLines


def cells(strip: Strip) -> list[tuple[str, object]]:
    return [(char, segment.style) for segment in strip for char in segment.text]


async def check_every_widget(table: Table) -> int:
    """Compare both ways of rendering for every line-API widget of every screen."""
    compared = 0
    for name in table.apps:
        for widget in table.screen(name).query(TextLines):
            width, height = widget.size
            if not widget.display or not width or not height or not plain(widget):
                continue
            for crop in (widget.size.region, Region(1, 0, max(1, width - 3), height)):
                ours = render_shared(widget, crop)
                assert ours is not None
                textual = Widget.render_lines(widget, crop)  # Textual's own path
                assert [cells(s) for s in ours] == [cells(s) for s in textual], (name, widget)
                compared += 1
    return compared


@pytest.mark.filterwarnings("ignore::ResourceWarning")
async def test_rows_match_textuals_own_rendering() -> None:
    async with Table.open(["가", "b", "철수", "d"], seed=5, size=(100, 30)) as table:
        compared = await check_every_widget(table)
        for _ in range(6):
            if table.actor is None:
                break
            kinds = {action["type"] for action in table.legal(table.actor)}
            await table.press(table.actor, "4" if "call" in kinds else "2")
            compared += await check_every_widget(table)
        await table.press("b", "a")  # the ASCII style on one screen
        compared += await check_every_widget(table)
        assert compared > 40


async def test_a_padded_widget_goes_textuals_way() -> None:
    async with Table.open(["a", "b"], seed=5, size=(100, 30)) as table:
        bars = [w for w in table.screen("a").query(TextLines) if not plain(w)]
        assert bars  # the action bar has padding in app.tcss
        bar = bars[0]
        assert render_shared(bar, bar.size.region) is None
        assert [cells(s) for s in bar.render_lines(bar.size.region)] == [
            cells(s) for s in Widget.render_lines(bar, bar.size.region)
        ]


def test_the_override_is_on_where_the_layer_is() -> None:
    report = tuning.install()
    if report.get("shared_rows") == "stock_textual":
        assert not tuning.enabled("shared_rows")
    else:
        assert report["shared_rows"] is None
        assert tuning.enabled("shared_rows")
