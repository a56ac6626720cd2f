"""The help screen (``?`` or F1): the 족보 table drawn with cards, the rules, and the keys.

The own current hand's row is highlighted; only the specials the room enables are listed. The
cards follow the session's card style (ASCII / big text) like every other card on screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from engine import DECK, Options

from ...i18n import N_, _
from ..jokbo import JokboRow, jokbo_rows, row_matches
from ..keys import KEYS, Intent, KeyHint, bind
from ..widgets.card import CardView
from ..widgets.texts import hand_name
from .base import BaseScreen
from .help_text import VIRTUAL_NOTE, keys_table, rules_text


class HelpCard(CardView, can_focus=False):
    """A card in the 족보 table: never takes focus, so the keys scroll and switch tabs."""


#: The 족보 sections (msgids of help_text's rows).
_SECTIONS = (N_("광땡"), N_("땡"), N_("중간 족보"), N_("끗"))

#: The tabs in order, for ←/→, and their labels (msgids).
PANES = ("help-jokbo", "help-rules-pane", "help-keys-pane")
TAB_LABELS = (N_("족보"), N_("규칙"), N_("키"))
#: The name column's text width (``.jokbo-name`` in app.tcss: 14 wide, 1 of it padding).
NAME_CELLS = 13
FOOTER = KeyHint(
    N_("{tab} 탭 · {scroll} 스크롤 · {close} 닫기 · 칩은 모두 가상 칩이에요"),
    tab=("left", "right"),
    scroll=("up", "down"),
    close=("cancel", "leave", "help"),  # (? is the app's: it closes help too)
)
#: The keys that scroll the open tab (each one's action names its key).
SCROLLS: tuple[Intent, ...] = ("up", "down", "page_up", "page_down", "home", "end")


class HelpScreen(BaseScreen):
    """The footer's keys act from the moment help opens, whatever has the focus: they are
    priority bindings of the screen, so neither the focused scroller (which takes ←/→ for
    sideways scrolling) nor the tab bar (which takes ↑/↓ once Tab moves there) swallows them."""

    EARLY_ACTIONS = frozenset({"tab", "scroll", "close"})
    #: Nothing takes the focus: the keys are the screen's, and a focused tab's text would pick
    #: its tab again when the focus lands (after a key typed while help composed moved on).
    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("cancel", "leave"), "close", "닫기"),
        bind(("left", "previous_field"), "tab(-1)", priority=True),
        bind(("right", "next_field"), "tab(1)", priority=True),
        *(bind(intent, f"scroll('{KEYS[intent][0]}')", priority=True) for intent in SCROLLS),
    ]

    def __init__(
        self, options: Options, hand_name: str | None = None, tab: str = "help-jokbo"
    ) -> None:
        super().__init__()
        self.options = options
        self.hand_name = hand_name
        self.tab = tab  # the pane that shows (the table's i key opens on the rules)

    def _title(self) -> Text:
        title = _("도움말 · 족보와 규칙")
        if self.hand_name:
            title += " · " + _("지금 내 패: {name}").format(name=hand_name(self.hand_name))
        return Text(title)

    def compose_body(self) -> Iterable[Widget]:
        yield Static(self._title(), id="help-title")
        jokbo, rules, keys = (_(label) for label in TAB_LABELS)
        # (no ``initial``: the tab bar's mount would insist on that tab even after the session's
        # end took the tabs away while help composed; on_mount picks it)
        with TabbedContent(jokbo, rules, keys, id="help-tabs"):
            with TabPane(jokbo, id="help-jokbo"), VerticalScroll(id="jokbo"):
                yield from self._jokbo()
            with TabPane(rules, id="help-rules-pane"), VerticalScroll(id="rules-scroll"):
                yield Static(Text(rules_text(self.options)), id="help-rules")
            with TabPane(keys, id="help-keys-pane"), VerticalScroll():
                yield Static(keys_table(), id="help-keytext")
        yield Static(Text(FOOTER.text()), id="help-keys")

    def _jokbo(self) -> Iterable[Widget]:
        section = ""
        for row in jokbo_rows(self.options):
            if row.section != section:
                section = row.section
                yield Static(Text(f"■ {_(section)}"), classes="jokbo-head")
            mine = row_matches(row, self.hand_name)
            with Horizontal(classes="jokbo-row -mine" if mine else "jokbo-row"):
                yield Static(Text("▶" if mine else ""), classes="jokbo-mark")
                yield Static(self._row_name(row), classes="jokbo-name")
                for card in row.cards:
                    yield HelpCard(DECK[card], size_name="compact", follow_app=True)
                yield Static(Text(row.note), classes="jokbo-note")
        yield Static(Text(_(VIRTUAL_NOTE)), id="help-note")

    @staticmethod
    def _row_name(row: JokboRow) -> Text:
        """The name in a column of its own beside the ▶ mark's, so a name that wraps
        ("38 Gwang-ttaeng") goes on under itself, not under the mark. A name too long for
        its column breaks before its gloss first: "Gabo" / "(9 kkeut)", not "Gabo (9" / "kkeut)"."""
        name = row.name
        if cell_len(name) > NAME_CELLS:
            name = name.replace(" (", "\n(")
        return Text(name, style="bold")

    def relabel(self) -> None:
        """The language changed: every text again, in place. (Not a recompose: keys and the
        session's end may come while one runs, and find half of the widgets.)"""
        self.query_one("#help-title", Static).update(self._title())
        tabs = self.query_one(TabbedContent)
        for pane, label in zip(PANES, TAB_LABELS, strict=True):
            tabs.get_tab(pane).label = _(label)
        rows = jokbo_rows(self.options)
        sections = dict.fromkeys(row.section for row in rows)
        for head, section in zip(self.query(".jokbo-head").results(Static), sections, strict=True):
            head.update(Text(f"■ {_(section)}"))
        for box, row in zip(self.query(".jokbo-row"), rows, strict=True):
            box.query_one(".jokbo-name", Static).update(self._row_name(row))
            box.query_one(".jokbo-note", Static).update(Text(row.note))
        self.query_one("#help-note", Static).update(Text(_(VIRTUAL_NOTE)))
        self.query_one("#help-rules", Static).update(Text(rules_text(self.options)))
        self.query_one("#help-keytext", Static).update(keys_table())
        self.query_one("#help-keys", Static).update(Text(FOOTER.text()))

    def on_mount(self) -> None:
        if self.live:  # (not on its way out: its tabs may be gone)
            self.query_one(TabbedContent).active = self.tab

    def _scroller(self) -> VerticalScroll:
        """The text of the tab that shows."""
        return self.query_one(f"#{self.tab}", TabPane).query_one(VerticalScroll)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """A tab picked with the mouse is the one that shows, for the keys and a relabel."""
        if event.pane.id in PANES:
            self.tab = event.pane.id

    def action_tab(self, step: int) -> None:
        """(Keys act once help is mounted: ``BaseScreen.check_action``.)"""
        self.tab = PANES[(PANES.index(self.tab) + step) % len(PANES)]
        self.query_one(TabbedContent).active = self.tab

    def action_scroll(self, key: str) -> None:
        """Scroll the shown tab's text (one line, one page, or to either end)."""
        scroller = self._scroller()
        moves = {
            "up": scroller.scroll_up,
            "down": scroller.scroll_down,
            "pageup": scroller.scroll_page_up,
            "pagedown": scroller.scroll_page_down,
            "home": scroller.scroll_home,
            "end": scroller.scroll_end,
        }
        moves[key](animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
