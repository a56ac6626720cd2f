"""SVG snapshots of the table at 80×24 and 120×40 (fixed seed, fixed clock, nothing moving).

Update after an intended change with ``SEOTDA_UPDATE_SNAPSHOTS=1 make test ARGS=tests/test_snapshots.py``
and look at the SVGs in tests/snapshots/ (any browser shows them); a snapshot that is missing
fails (it is written only under that flag). Each snapshot has a ``.txt`` twin with the plain
screen, compared first so a failure shows a readable diff. The SVG is compared in both of
``make test``'s passes: with the tuning on, and on stock Textual (``SEOTDA_STOCK_TEXTUAL=1``), where
a row's background may come split into spans with an empty one between (a ``width="0"`` rect, which
shows nothing, and with it the id rich hashes from the spans): both are left out of the comparison.
The ``.txt`` first line names the Textual version that wrote the pair, so a failure under
another version says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import textual

from engine import Options
from seotda_tui.testing import Table

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SEOTDA_UPDATE_SNAPSHOTS") == "1"
DEAL = {
    "영희": ["3광", "7열"],
    "철수": ["9열", "9띠"],
    "민수": ["1띠", "2열"],
    "지영": ["5띠", "6띠"],
}


def visible(svg: str) -> str:
    """``svg`` without what draws nothing: empty background rects, and the id rich derives from
    the spans (stock Textual splits some rows' spans where the tuning keeps them whole)."""
    return _TERMINAL_ID.sub("terminal", _EMPTY_RECT.sub("", svg))


_EMPTY_RECT = re.compile(r'<rect [^>]*width="0" [^>]*/>')
_TERMINAL_ID = re.compile(r"terminal-\d+")


def check(name: str, svg: str, text: str) -> None:
    """Compare a screen with its snapshot pair; write the pair only under the update flag."""
    svg_path, text_path = SNAPSHOTS / f"{name}.svg", SNAPSHOTS / f"{name}.txt"
    version = f"textual {textual.__version__}"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        svg_path.write_text(svg, encoding="utf-8")
        text_path.write_text(f"{version}\n{text}\n", encoding="utf-8")
        return
    if not (svg_path.exists() and text_path.exists()):
        pytest.fail(f"no snapshot {name}: write it with SEOTDA_UPDATE_SNAPSHOTS=1, then look at it")
    recorded, _, expected = text_path.read_text(encoding="utf-8").partition("\n")
    assert text + "\n" == expected
    assert visible(svg) == visible(svg_path.read_text(encoding="utf-8")), (
        f"{name}.svg differs (the text is the same); written under {recorded}, this is {version}"
    )


async def mid_hand(t: Table) -> None:
    """Everyone checks the first round; in the second, the first raises half and one calls."""
    for _ in range(4):
        await t.press(t.actor, "2")
    await t.press(t.actor, "7")
    await t.press(t.actor, "4")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_table_mid_hand(size: tuple[int, int]) -> None:
    players = ["영희", "철수", "민수", "지영"]
    async with Table.open(players, seed=7, deal=DEAL, size=size, spectators=["구경꾼"]) as t:
        await mid_hand(t)
        await t.say("민수", "좋은 패 왔다!")
        app = t.app("철수")
        check(f"table_{size[0]}x{size[1]}", app.export_screenshot(title="섯다"), t.text("철수"))


async def test_table_showdown_80x24() -> None:
    players = ["영희", "철수", "민수", "지영"]
    async with Table.open(players, seed=7, deal=DEAL) as t:
        for _ in range(8):
            if t.actor is None:
                break
            kinds = [a["type"] for a in t.legal(t.actor)]
            await t.press(t.actor, "2" if "check" in kinds else "4")
        screen = t.screen("철수")
        screen._flash(None)  # the banner has its own test; the snapshot shows what stays
        await t.settle()
        check("showdown_80x24", t.app("철수").export_screenshot(title="섯다"), t.text("철수"))


TEN = ["영희", "철수", "민수", "지영", "가나다라마바사아", "하늘", "바다", "산들", "구름", "별빛"]


@pytest.mark.parametrize("viewer", ["철수", "구경꾼"])
async def test_ten_seats_and_a_spectator_mid_hand_80x24(viewer: str) -> None:
    """The fullest table at the smallest size, as a waiting player and as a spectator: the
    pot, whose turn it is and every seat stay on screen (issue #16, item 1)."""
    async with Table.open(TEN, options=Options(), seed=7, spectators=["구경꾼"]) as t:
        for _ in range(3):
            await t.press(t.actor, "2")
        screen = t.text(viewer)
        assert "판돈" in screen and "차례" in screen
        check(f"ten_seats_{'player' if viewer == '철수' else 'spectator'}_80x24",
              t.app(viewer).export_screenshot(title="섯다"), screen)  # fmt: skip
