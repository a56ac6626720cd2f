"""The player's own cards, drawn with the hwatu card widget (card.py) and reused in place.

Why not ``CardRow``: the table's hotkeys (Enter to confirm, Space for ready) must keep working,
so these cards never take focus; clicks still post ``CardView.Clicked`` for the 3-card choice.
"""

from __future__ import annotations

from textual.containers import HorizontalGroup

from engine import Card

from .card import CardView, SizeName


class HandCard(CardView, can_focus=False):
    """A card that reacts to the mouse but leaves the keyboard to the table."""


class HandCards(HorizontalGroup):
    """Up to three cards side by side; ``show`` only touches what changed."""

    DEFAULT_CSS = """
    HandCards { width: auto; height: auto; }
    HandCards > HandCard { margin-right: 1; }
    """

    def show(
        self,
        cards: list[Card],
        selected: frozenset[int] = frozenset(),
        dimmed: frozenset[int] = frozenset(),
        size: SizeName = "compact",
    ) -> None:
        views = list(self.query_children(HandCard))
        for view, card in zip(views, cards):
            self._set(view, card, selected, dimmed, size)
        for view in views[len(cards) :]:
            view.remove()
        extra = [
            HandCard(
                card,
                size_name=size,
                selected=card.id in selected,
                dimmed=card.id in dimmed,
                follow_app=True,
            )
            for card in cards[len(views) :]
        ]
        if extra:
            self.mount_all(extra)

    @staticmethod
    def _set(
        view: HandCard, card: Card, selected: frozenset[int], dimmed: frozenset[int], size: SizeName
    ) -> None:
        view.card = card
        view.selected = card.id in selected
        view.dimmed = card.id in dimmed
        view.size_name = size

    @property
    def cards(self) -> list[Card]:
        return [v.card for v in self.query_children(HandCard) if v.card is not None]
