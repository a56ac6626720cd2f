"""The action bar (eight betting buttons that never move, §9) and the phase prompt line.

Neither takes focus: the keys are the hotkeys shown on them, and mouse clicks work too. Labels
and enabled states are only repainted when they change, so a view push repaints nothing here
unless the legal actions changed.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from engine.types import LegalAction

from .textlines import TextLines
from .texts import BET_ORDER, bet_label, bet_label_forms, first_fit


class ActionBar(TextLines):
    """다이 체크 삥 콜 따당 쿼터 하프 풀: two rows of four places that never move (§9); legal
    actions stand out, the others are dimmed, amounts are the engine's exact chips.

    One widget drawing eight places rather than eight ``Button``s: the amounts and the enabled
    set change on almost every bet, and toggling a button's ``disabled`` re-applies the
    stylesheet to it, for every seat of the table. Here a change repaints only the places that
    changed. The keys are the hotkeys on the labels; a click on an enabled place posts
    :class:`Chosen`.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"action-bar--on", "action-bar--off"}
    DEFAULT_CSS = """
    ActionBar { height: 2; width: 1fr; }
    ActionBar > .action-bar--on { background: $panel; text-style: bold; }
    ActionBar > .action-bar--off { background: $panel; color: $text-disabled; }
    """
    COLUMNS = 4
    GAP = 1

    class Chosen(Message):
        def __init__(self, kind: str) -> None:
            super().__init__()
            self.kind = kind

    #: ``(label, enabled)`` per action of :data:`BET_ORDER` (made per widget: in its
    #: session's language).
    places: reactive[tuple[tuple[str, bool], ...]] = reactive(
        lambda: tuple((bet_label(kind), False) for kind in BET_ORDER), repaint=False
    )

    def set_legal(self, legal: list[LegalAction]) -> None:
        by_kind: dict[str, LegalAction] = {a["type"]: a for a in legal}
        places = []
        for kind in BET_ORDER:
            action = by_kind.get(kind)
            if action is None:
                places.append((bet_label(kind), False))
            else:
                label = bet_label(kind, action.get("amount"), bool(action.get("allIn")))
                places.append((label, True))
        self.places = tuple(places)

    def place(self, kind: str) -> tuple[str, bool]:
        """The label on ``kind``'s place and whether it is enabled."""
        return self.places[BET_ORDER.index(kind)]

    def region_of(self, index: int) -> Region:
        """Where place ``index`` is drawn, in the widget's content coordinates."""
        width = max(0, (self.content_size.width - self.GAP * (self.COLUMNS - 1)) // self.COLUMNS)
        row, column = divmod(index, self.COLUMNS)
        return Region(column * (width + self.GAP), row, width, 1)

    def watch_places(
        self, old: tuple[tuple[str, bool], ...], new: tuple[tuple[str, bool], ...]
    ) -> None:
        self.refresh_changed(self._rows(old), self._rows(new))

    def lines_key(self) -> Hashable:
        return (
            self.places,
            self.content_size.width,
            self.get_component_rich_style("action-bar--on"),
            self.get_component_rich_style("action-bar--off"),
        )

    def text_lines(self) -> list[Text]:
        return self._rows(self.places)

    def shown_label(self, index: int, places: tuple[tuple[str, bool], ...] | None = None) -> str:
        """Place ``index``'s label as drawn: shortened on purpose when its place is narrow.

        Every label is shortened as far as the one that needs it most, so the bar reads one
        way (issue 32 item 17: ``6 쿼터 +320 올인`` stood beside ``8 풀 (+320) 올인``)."""
        places = places or self.places
        cells = self.region_of(index).width - 1
        level = max(self._form_needed(i, places) for i in range(len(places)))
        forms = bet_label_forms(places[index][0])
        return first_fit(cells, *forms[min(level, len(forms) - 1) :])

    def _form_needed(self, index: int, places: tuple[tuple[str, bool], ...]) -> int:
        """How far (in :func:`bet_label_forms`) place ``index``'s label must be shortened."""
        cells = self.region_of(index).width - 1
        forms = bet_label_forms(places[index][0])
        return next((n for n, form in enumerate(forms) if cell_len(form) <= cells), 0)

    def _rows(self, places: tuple[tuple[str, bool], ...]) -> list[Text]:
        """Labels left-aligned in their places, so a new amount changes only its own digits."""
        on = self.get_component_rich_style("action-bar--on")
        off = self.get_component_rich_style("action-bar--off")
        lines = []
        for row in range(0, len(places), self.COLUMNS):
            line = Text(no_wrap=True, overflow="crop")
            for index in range(row, min(row + self.COLUMNS, len(places))):
                enabled = places[index][1]
                label = self.shown_label(index, places)
                width = self.region_of(index).width
                if index > row:
                    line.append(" " * self.GAP)
                # exactly the place's width: a long amount is cut, never pushes its neighbours
                line.append(set_cell_size(f" {label}", width), on if enabled else off)
            lines.append(line)
        return lines

    def on_click(self, event: events.Click) -> None:
        event.stop()
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for index, kind in enumerate(BET_ORDER):
            if self.region_of(index).contains(offset.x, offset.y) and self.places[index][1]:
                self.post_message(self.Chosen(kind))


class PromptBar(Widget):
    """The current phase's keys on one line (start, choose, rejoin, rebuy, ready, leave, …).

    ``set_prompts`` takes ``(action, label, enabled)`` triples. One widget of fixed size rather
    than a row of auto-width buttons: prompts change at every phase, and a button appearing or
    changing width lays the whole screen out. A click on a label posts :class:`Chosen`; the
    screen runs ``action`` exactly as if its hotkey had been typed.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"prompt-bar--on", "prompt-bar--off"}
    DEFAULT_CSS = """
    PromptBar { height: 1; width: 1fr; }
    PromptBar > .prompt-bar--on { text-style: bold; background: $primary-muted; }
    PromptBar > .prompt-bar--off { text-style: dim; }
    """
    SLOTS = 6
    GAP = 2

    class Chosen(Message):
        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    prompts: reactive[tuple[tuple[str, str, bool], ...]] = reactive(())

    def set_prompts(self, prompts: list[tuple[str, str, bool]]) -> None:
        self.prompts = tuple(prompts[: self.SLOTS])

    def _width_of(self, prompts: tuple[tuple[str, str, bool], ...], gap: int = GAP) -> int:
        cells = sum(cell_len(label) + 2 for _, label, _ in prompts)
        return cells + gap * max(len(prompts) - 1, 0)

    def shown(self) -> tuple[tuple[tuple[str, str, bool], ...], int]:
        """The prompts that fit the bar, and the gap between them: all, else (a long message
        beside it took room) all a cell apart, else the first ones that fit and always the
        last, leaving, whose key must stay readable."""
        prompts, width = self.prompts, self.size.width
        if width <= 0 or self._width_of(prompts) <= width:
            return prompts, self.GAP
        kept = prompts[-1:]
        for prompt in prompts[:-1]:
            if self._width_of((*kept[:-1], prompt, *kept[-1:]), 1) > width:
                break
            kept = (*kept[:-1], prompt, *kept[-1:])
        return kept, 1

    def spans(self) -> list[tuple[int, int, str, bool]]:
        """``(start, end, action, enabled)`` of each label shown, in cells."""
        out, x = [], 0
        prompts, gap = self.shown()
        for action, label, enabled in prompts:
            width = cell_len(label) + 2
            out.append((x, x + width, action, enabled))
            x += width + gap
        return out

    @property
    def needed(self) -> int:
        """Cells all the labels take; the rest of the row may go to a message beside them."""
        return self._width_of(self.prompts)

    @property
    def needed_last(self) -> int:
        """Cells the last label (leaving) takes: what a long message leaves the bar."""
        return self._width_of(self.prompts[-1:])

    def render(self) -> Text:
        on = self.get_component_rich_style("prompt-bar--on")
        off = self.get_component_rich_style("prompt-bar--off")
        text = Text(no_wrap=True, overflow="ellipsis")
        prompts, gap = self.shown()
        for i, (_, label, enabled) in enumerate(prompts):
            if i:
                text.append(" " * gap)
            text.append(f" {label} ", on if enabled else off)
        return text

    def on_click(self, event: events.Click) -> None:
        event.stop()
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for start, end, action, enabled in self.spans():
            if start <= offset.x < end and enabled:
                self.post_message(self.Chosen(action))
