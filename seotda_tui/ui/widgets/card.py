"""The Textual widget that shows one hwatu card (``CardView``) and turns mouse clicks or
Enter/Space into a ``CardView.Clicked`` message; the drawing itself is :mod:`.card_art`'s.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from engine import Card

from ..colour_isolation import client_color_system
from ..geometry import card_dimensions
from .card_art import STYLES, SizeName, StyleName, fit, render_card_lines, span

_AUTO = "auto"


class CardView(Widget, can_focus=True):
    """One card. Its extra top/bottom line lets a selected card rise without moving neighbours."""

    DEFAULT_CSS = """
    CardView {
        width: auto;
        height: auto;
    }
    CardView:focus {
        background-tint: $foreground 10%;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "press", "Choose card", show=False),
        Binding("space", "press", "Choose card", show=False),
    ]

    card: reactive[Card | None] = reactive(None)
    size_name: reactive[SizeName] = reactive("large", layout=True)
    style_name: reactive[str] = reactive("box", layout=True)
    selected: reactive[bool] = reactive(False)
    dimmed: reactive[bool] = reactive(False)
    #: A word above the card (e.g. "버림" over the 3-card discard): dim alone is not enough,
    #: terminals without the faint attribute (and screen readers) show it as a normal card.
    mark: reactive[str] = reactive("")
    #: "auto" follows the app console (NO_COLOR gives None); otherwise a rich colour-system name.
    color_system: reactive[str | None] = reactive(_AUTO)

    class Clicked(Message):
        """Posted when the card is clicked or activated with Enter/Space."""

        def __init__(self, card_view: CardView) -> None:
            self.card_view = card_view
            self.card = card_view.card
            super().__init__()

        @property
        def control(self) -> CardView:
            return self.card_view

    def __init__(
        self,
        card: Card | None = None,
        *,
        size_name: SizeName = "large",
        style_name: StyleName = "box",
        selected: bool = False,
        dimmed: bool = False,
        follow_app: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        card_dimensions(size_name, style_name)  # fail early on a typo
        #: Follow the app's per-session ``card_style`` reactive (ASCII / big-text modes).
        self.follow_app = follow_app
        self.set_reactive(CardView.card, card)
        self.set_reactive(CardView.size_name, size_name)
        self.set_reactive(CardView.style_name, style_name)
        self.set_reactive(CardView.selected, selected)
        self.set_reactive(CardView.dimmed, dimmed)
        self._update_tooltip()

    def on_mount(self) -> None:
        # Later changes come from ``SeotdaApp.watch_card_style``, not from a ``watch`` of the
        # app here: Textual keeps such a watcher, and with it this card and everything it is
        # part of, until the watched value next changes, long after the card is removed.
        if self.follow_app and hasattr(self.app, "card_style"):
            self.follow_style(self.app.card_style)

    def follow_style(self, style: str) -> None:
        if style in STYLES:
            self.style_name = style

    def _update_tooltip(self) -> None:
        self.tooltip = self.card.label if self.card is not None else None

    def watch_card(self) -> None:
        self._update_tooltip()

    def _resolved_color_system(self) -> str | None:
        if self.color_system != _AUTO:
            return self.color_system
        try:
            return client_color_system(self.app)
        except RuntimeError:  # NoActiveAppError: not inside a running app
            return "truecolor"

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return card_dimensions(self.size_name, self.style_name)[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return card_dimensions(self.size_name, self.style_name)[1] + 1

    def render(self) -> Text:
        lines = render_card_lines(
            self.card,
            self.size_name,
            self.style_name,  # type: ignore[arg-type]
            self._resolved_color_system(),
            selected=self.selected,
            dimmed=self.dimmed,
        )
        width = lines[0].cell_len
        if self.selected:
            marker = "^" if self.style_name == "ascii" else "▲"
            lines.append(fit(span(marker, "bold"), width))
        else:
            lines.insert(0, fit(span(self.mark, "bold"), width))
        text = Text("\n", no_wrap=True, overflow="crop").join(lines)
        text.no_wrap = True
        return text

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self))

    def action_press(self) -> None:
        self.post_message(self.Clicked(self))
