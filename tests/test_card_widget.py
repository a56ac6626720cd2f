"""Card rendering (seotda_tui/ui/widgets/card.py): cell widths, labels, marks, widget clicks."""

from __future__ import annotations

import itertools

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult

from engine import DECK, Card
from seotda_tui.ui.widgets.card import CardView
from seotda_tui.ui.widgets.card_art import (
    ASCII_CODES,
    DIMENSIONS,
    KEY_YEOL_MONTHS,
    SIZES,
    STYLES,
    big_digits,
    card_dimensions,
    render_card,
    render_card_lines,
)

CARDS: list[Card | None] = [None, *DECK]
COLOR_SYSTEMS = ["truecolor", "256", "standard", None]
COMBOS = list(itertools.product(SIZES, STYLES))


def plain_lines(card: Card | None, size: str, style: str, **kw: object) -> list[str]:
    return [line.plain for line in render_card_lines(card, size, style, **kw)]  # type: ignore[arg-type]


def kind_word(card: Card) -> str:
    return card.label.split()[1]


@pytest.mark.parametrize("color_system", COLOR_SYSTEMS)
@pytest.mark.parametrize(("size", "style"), COMBOS)
def test_every_line_has_the_declared_cell_width(
    size: str, style: str, color_system: str | None
) -> None:
    width, height = card_dimensions(size, style)
    for card in CARDS:
        for selected, dimmed in itertools.product((False, True), repeat=2):
            lines = plain_lines(
                card, size, style, color_system=color_system, selected=selected, dimmed=dimmed
            )
            assert len(lines) == height, (card, size, style)
            assert {cell_len(line) for line in lines} == {width}, (card, size, style, lines)


def test_hangul_is_counted_as_two_cells() -> None:
    # Guards against a regression to len(): 흑싸리 is 3 characters but 6 cells.
    lines = plain_lines(DECK[6], "large", "box")
    assert any("흑싸리" in line for line in lines)
    assert {len(line) for line in lines} != {12}
    assert {cell_len(line) for line in lines} == {12}


def test_console_output_width_matches_dimensions() -> None:
    console = Console(width=40, force_terminal=True, color_system="truecolor", record=True)
    for (size, style), (width, height) in DIMENSIONS.items():
        with console.capture() as capture:
            console.print(render_card(DECK[0], size, style))  # type: ignore[arg-type]
        out = Text.from_ansi(capture.get()).plain.rstrip("\n").split("\n")
        assert len(out) == height
        assert {cell_len(line) for line in out} == {width}


@pytest.mark.parametrize(("size", "style"), COMBOS)
def test_each_card_shows_month_number_and_kind_as_text(size: str, style: str) -> None:
    for card in DECK:
        text = "\n".join(plain_lines(card, size, style))
        assert str(card.month) in text
        if style == "ascii":
            kind = (
                "plain"
                if card.kind == "normal" and card.month == 8
                else ("ribbon" if card.kind == "normal" else card.kind)
            )
            assert ASCII_CODES[kind] in text, (card, text)
        elif size == "large":
            assert card.label in text, (card, text)
        else:
            assert kind_word(card)[0] in text, (card, text)


def test_large_box_shows_plant_and_animal() -> None:
    for card in DECK:
        text = "\n".join(plain_lines(card, "large", "box"))
        assert card.plant in text
    assert "두견새" in "\n".join(plain_lines(DECK[6], "large", "box"))
    assert "(광)" in "\n".join(plain_lines(DECK[14], "large", "box"))
    assert "기러기" in "\n".join(plain_lines(DECK[15], "large", "box"))
    assert "띠" in "\n".join(plain_lines(DECK[17], "large", "box"))


@pytest.mark.parametrize(("size", "style"), COMBOS)
def test_key_yeol_cards_have_the_strong_mark_and_others_do_not(size: str, style: str) -> None:
    strong_corner = "#" if style == "ascii" else "╔"
    for card in CARDS:
        lines = plain_lines(card, size, style)
        key = card is not None and card.kind == "yeol" and card.month in KEY_YEOL_MONTHS
        assert (lines[0][0] == strong_corner) is key, (card, lines)
        star = "*" if style == "ascii" else "★"
        body = "\n".join(lines[1:-1])
        if key and (size == "large" or style != "box"):  # compact box: double border alone
            assert star in body, (card, body)
        if card is not None and not key:
            assert "★" not in body


def test_back_shows_no_month_or_kind() -> None:
    for size, style in COMBOS:
        text = "\n".join(plain_lines(None, size, style))
        assert not any(ch.isdigit() for ch in text)
        for word in ("광", "열", "띠", "G", "Y", "T"):
            assert word not in text


@pytest.mark.parametrize("size", SIZES)
def test_ascii_style_is_pure_ascii(size: str) -> None:
    for card, cs in itertools.product(CARDS, COLOR_SYSTEMS):
        for line in plain_lines(card, size, "ascii", color_system=cs, selected=True):
            assert line.isascii() and line.isprintable(), line


def test_big_digits_draw_ten() -> None:
    one = [" █ ", "██ ", " █ ", " █ ", "███"]
    zero = ["███", "█ █", "█ █", "█ █", "███"]
    assert big_digits(10) == [f"{a} {b}" for a, b in zip(one, zero)]
    lines = plain_lines(DECK[18], "large", "big")
    for row, expected in zip(lines[1:6], big_digits(10)):
        assert expected in row
    assert big_digits(10, half_height=True) == ["▄█  █▀█", " █  █ █", "▀▀▀ ▀▀▀"]
    compact = plain_lines(DECK[18], "compact", "big")
    assert compact[1:4] == [f"│{r}│" for r in big_digits(10, half_height=True)]


def test_colour_systems_differ_but_text_does_not() -> None:
    card = DECK[0]
    plains = {tuple(plain_lines(card, "large", "box", color_system=cs)) for cs in COLOR_SYSTEMS}
    assert len(plains) == 1
    mono = render_card(card, "large", "box", None)
    assert all(span.style is None or "#" not in str(span.style) for span in mono.spans)
    assert "#" in str(render_card(card, "large", "box", "truecolor").spans)
    assert "green" in str(render_card(card, "large", "box", "standard").spans)


def test_selected_and_dimmed_change_styles() -> None:
    base = render_card(DECK[0])
    assert render_card(DECK[0], selected=True).spans != base.spans
    assert "dim" in str(render_card(DECK[0], dimmed=True).spans)


def test_unknown_size_or_style_is_rejected() -> None:
    with pytest.raises(ValueError):
        render_card(DECK[0], "huge", "box")  # type: ignore[arg-type]


class CardApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.clicked: list[CardView.Clicked] = []

    def compose(self) -> ComposeResult:
        yield CardView(DECK[6], id="one")

    def on_card_view_clicked(self, message: CardView.Clicked) -> None:
        self.clicked.append(message)


def rendered_plain(view: CardView) -> str:
    return view.render().plain


async def test_card_view_click_posts_clicked_and_selection_raises_card() -> None:
    app = CardApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one("#one", CardView)
        assert view.size == (12, 8)  # 7 card lines + 1 line for raising
        await pilot.click("#one", offset=(3, 3))
        await pilot.pause()
        assert [m.card_view for m in app.clicked] == [view]
        assert app.clicked[0].card == DECK[6] and app.clicked[0].control is view

        before = rendered_plain(view)
        assert before.split("\n")[0].strip() == ""  # unselected: card sits one line low
        view.selected = True
        await pilot.pause()
        after = rendered_plain(view)
        assert after != before
        assert after.split("\n")[0].startswith("╔")  # raised to the top line
        assert "▲" in after.split("\n")[-1]

        view.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.clicked) == 2


async def test_card_view_style_switch_relayouts() -> None:
    app = CardApp()
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one("#one", CardView)
        view.size_name = "compact"
        view.style_name = "ascii"
        await pilot.pause()
        assert view.size == (5, 4)
        assert rendered_plain(view).isascii()
