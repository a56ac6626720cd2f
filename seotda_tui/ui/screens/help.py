"""The help screen (``?`` or F1): the 족보 table drawn with cards, the rules, and the keys.

The own current hand's row is highlighted; only the specials the room enables are listed. The
cards follow the session's card style (ASCII / big text) like every other card on screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from engine import DECK, Options

from ...i18n import N_, _
from ..widgets.card import CardView
from ..widgets.texts import hand_name
from .base import BaseScreen
from .help_text import KEYS_TEXT, VIRTUAL_NOTE, jokbo_rows, row_matches, rules_text


class HelpCard(CardView, can_focus=False):
    """A card in the 족보 table: never takes focus, so the keys scroll and switch tabs."""


#: The 족보 sections (msgids of help_text's rows).
_SECTIONS = (N_("광땡"), N_("땡"), N_("중간 족보"), N_("끗"))

#: The tabs in order, for ←/→.
PANES = ("help-jokbo", "help-rules-pane", "help-keys-pane")


class HelpScreen(BaseScreen):
    """The footer's keys act from the moment help opens, whatever has the focus: they are
    priority bindings of the screen, so neither the focused scroller (which takes ←/→ for
    sideways scrolling) nor the tab bar (which takes ↑/↓ once Tab moves there) swallows them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,ㅂ", "close", "닫기", show=False),
        Binding("left,shift+tab", "tab(-1)", show=False, priority=True),
        Binding("right,tab", "tab(1)", show=False, priority=True),
        *(
            Binding(key, f"scroll('{key}')", show=False, priority=True)
            for key in ("up", "down", "pageup", "pagedown", "home", "end")
        ),
    ]

    def __init__(
        self, options: Options, hand_name: str | None = None, tab: str = "help-jokbo"
    ) -> None:
        super().__init__()
        self.options = options
        self.hand_name = hand_name
        self.tab = tab  # the pane to open on (the table's i key opens the rules)

    def compose_body(self) -> Iterable[Widget]:
        title = _("도움말 · 족보와 규칙")
        if self.hand_name:
            title += " · " + _("지금 내 패: {name}").format(name=hand_name(self.hand_name))
        yield Static(Text(title), id="help-title")
        jokbo, rules, keys = _("족보"), _("규칙"), _("키")
        with TabbedContent(jokbo, rules, keys, id="help-tabs", initial=self.tab):
            with TabPane(jokbo, id="help-jokbo"), VerticalScroll(id="jokbo"):
                yield from self._jokbo()
            with TabPane(rules, id="help-rules-pane"), VerticalScroll(id="rules-scroll"):
                yield Static(Text(rules_text(self.options)), id="help-rules")
            with TabPane(keys, id="help-keys-pane"), VerticalScroll():
                yield Static(Text(_(KEYS_TEXT)), id="help-keytext")
        yield Static(
            Text(_("←/→ 탭 · ↑/↓ 스크롤 · Esc/q/? 닫기 · 칩은 모두 가상 칩이에요")), id="help-keys"
        )

    def _jokbo(self) -> Iterable[Widget]:
        section = ""
        for row in jokbo_rows(self.options):
            if row.section != section:
                section = row.section
                yield Static(Text(f"■ {_(section)}"), classes="jokbo-head")
            mine = row_matches(row, self.hand_name)
            with Horizontal(classes="jokbo-row -mine" if mine else "jokbo-row"):
                name = Text(("▶ " if mine else "  ") + row.name, style="bold")
                yield Static(name, classes="jokbo-name")
                for card in row.cards:
                    yield HelpCard(DECK[card], size_name="compact", follow_app=True)
                yield Static(Text(row.note), classes="jokbo-note")
        yield Static(Text(_(VIRTUAL_NOTE)), id="help-note")

    def relabel(self) -> None:
        """The language changed: the whole help again, on the tab it shows."""
        self.tab = self.query_one(TabbedContent).active or self.tab
        self.refresh(recompose=True)
        self.call_after_refresh(self.on_mount)

    def on_mount(self) -> None:
        opening = "#rules-scroll" if self.tab == "help-rules-pane" else "#jokbo"
        self.query_one(opening, VerticalScroll).focus()  # (focus also picks the tab)

    def action_tab(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = PANES[(PANES.index(tabs.active) + step) % len(PANES)]

    def action_scroll(self, key: str) -> None:
        """Scroll the shown tab's text (one line, one page, or to either end)."""
        pane = self.query_one(TabbedContent).active_pane
        if pane is None:
            return
        scroller = pane.query_one(VerticalScroll)
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
