"""The player's own cards, drawn with the hwatu card widget (card.py) and reused in place.

Why not focusable ``CardView``s: the table's hotkeys (Enter to confirm, Space for ready) must keep working,
so these cards never take focus; clicks still post ``CardView.Clicked`` for the 3-card choice.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.reactive import reactive

from engine import Card

from ...i18n import N_, _
from .card import CardView
from .card_art import SizeName
from .texts import card_name

DISCARD_MARK = N_("버림")
#: Over an own card its holder may not see (인디언 섯다's first card, issue 36).
UNKNOWN_MARK = "?"
SHARED_MARK = N_("공유")


def _mark(card: Card | None, discarded: frozenset[int], shared: int | None = None) -> str:
    """The word above a card: "?" over a face-down own card, "버림" over the discard, "공유"
    over 한장공유's shared card."""
    if card is None:
        return UNKNOWN_MARK
    if card.id == shared:
        return _(SHARED_MARK)
    return _(DISCARD_MARK) if card.id in discarded else ""


class HandCard(CardView, can_focus=False):
    """A card that reacts to the mouse but leaves the keyboard to the table.

    A ``blank`` card is a place kept for a card not dealt yet: same size, nothing drawn, so the
    second card of 2-card Seotda arrives without moving anything (no layout).
    """

    blank: reactive[bool] = reactive(False)

    def _update_tooltip(self) -> None:
        self.tooltip = card_name(self.card) if self.card is not None and not self.blank else None

    def watch_blank(self) -> None:
        self._update_tooltip()

    def render(self) -> Text:
        if not self.blank:
            return super().render()
        width, height = self.get_content_width(self.size, self.size), self.size.height
        return Text("\n".join(" " * width for _ in range(max(1, height))), no_wrap=True)

    def on_click(self, event: events.Click) -> None:
        if self.blank:
            event.stop()
            return
        super().on_click(event)


class HandCards(HorizontalGroup):
    """The own cards side by side, in a fixed number of places; ``show`` only touches what
    changed, and the places stay mounted from deal to deal (mounting one lays the screen out),
    hidden while there are no cards to show."""

    DEFAULT_CSS = """
    HandCards { width: auto; height: auto; }
    HandCards > HandCard { margin-right: 1; }
    """

    #: What the last ``show`` was given: every push shows the same cards again (five reactive
    #: sets per card, each with its checks), and most pushes change none of them.
    _shown: tuple[object, ...] | None = None

    def compose(self) -> ComposeResult:
        # two blank places from the start (shown when the first cards come): mounting them at
        # the deal would lay the screen out a second time right after the game start's layout
        for _extra in range(2):
            yield self._place("large")

    def show(
        self,
        cards: list[Card],
        selected: frozenset[int] = frozenset(),
        dimmed: frozenset[int] = frozenset(),
        size: SizeName = "compact",
        places: int | None = None,
        discarded: frozenset[int] = frozenset(),
        unknown: int = 0,
        shared: int | None = None,
    ) -> None:
        """Show ``cards`` in ``places`` places (default: as many as cards; the rest blank);
        ``discarded`` cards (the 3-card choice's third) are marked "버림" above, not only dim;
        ``unknown`` own cards come first face down, marked "?" (인디언 섯다: the own first card
        everyone but its holder sees); the ``shared`` card (한장공유's) is marked "공유"."""
        faces: list[Card | None] = [None] * unknown + list(cards)
        places = len(faces) if places is None else max(places, len(faces))
        shown = (tuple(faces), selected, dimmed, size, places, discarded, shared)
        if shown == self._shown:
            return
        self._shown = shown
        if self.display != bool(places):
            self.display = bool(places)
        if not places:
            return  # the places stay mounted, hidden, for the next deal
        views = list(self.query_children(HandCard))
        for i, view in enumerate(views[:places]):
            if i < len(faces):
                self._set(view, faces[i], selected, dimmed, size)
                view.mark = _mark(faces[i], discarded, shared)
            else:
                view.blank = True
                view.size_name = size
        for view in views[places:]:
            view.remove()
        extra = [
            HandCard(
                card,
                size_name=size,
                selected=card is not None and card.id in selected,
                dimmed=card is not None and card.id in dimmed,
                follow_app=True,
            )
            for card in faces[len(views) : places]
        ]
        for view, card in zip(extra, faces[len(views) : places]):
            view.set_reactive(HandCard.mark, _mark(card, discarded, shared))
        for _extra in range(len(views) + len(extra), places):
            extra.append(self._place(size))
        if extra:
            self.mount_all(extra)

    @staticmethod
    def _place(size: SizeName) -> HandCard:
        """A place kept for a card not dealt yet."""
        place = HandCard(None, size_name=size, follow_app=True)
        place.set_reactive(HandCard.blank, True)
        return place

    @staticmethod
    def _set(
        view: HandCard,
        card: Card | None,
        selected: frozenset[int],
        dimmed: frozenset[int],
        size: SizeName,
    ) -> None:
        view.card = card
        view.blank = False
        view.selected = card is not None and card.id in selected
        view.dimmed = card is not None and card.id in dimmed
        view.size_name = size

    @property
    def cards(self) -> list[Card]:
        if not self.display:
            return []  # the places kept between games may still hold the last game's cards
        views = self.query_children(HandCard)
        return [v.card for v in views if v.card is not None and not v.blank]
