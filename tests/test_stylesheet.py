"""Sessions share parsed stylesheets (``seotda_tui/tuning/stylesheet.py``), variables respected."""

from __future__ import annotations

from textual.color import Color

from seotda_tui.testing import Table
from seotda_tui.tuning.stylesheet import SharedStylesheet

CSS = "Static { background: $accent; } #x { height: 3; }"


def parsed(variables: dict[str, str]) -> SharedStylesheet:
    sheet = SharedStylesheet(variables=variables)
    sheet.add_source(CSS, read_from=("test", "css"))
    sheet.parse()
    return sheet


def test_one_parse_serves_every_stylesheet_with_the_same_variables() -> None:
    first, second = parsed({"accent": "red"}), parsed({"accent": "red"})
    assert first.rules and all(a is b for a, b in zip(first.rules, second.rules, strict=True))


def test_other_variables_are_parsed_on_their_own() -> None:
    red, blue = parsed({"accent": "red"}), parsed({"accent": "blue"})
    assert red.rules[0] is not blue.rules[0]
    assert red.rules[0].styles.background == Color.parse("red")
    assert blue.rules[0].styles.background == Color.parse("blue")


async def test_sessions_share_the_app_stylesheet() -> None:
    async with Table.open(["a", "b"], seed=1) as table:
        sheets = [table.app(name).stylesheet for name in ("a", "b")]
        assert all(isinstance(sheet, SharedStylesheet) for sheet in sheets)
        a, b = (sheet.rules for sheet in sheets)
        assert len(a) == len(b) > 50
        assert all(x is y for x, y in zip(a, b, strict=True))
