"""Shared screen plumbing: the too-small notice, and safe delivery of manager pushes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.await_complete import AwaitComplete
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ... import tuning
from ...i18n import N_, _
from ...tuning.paint_now import paint_now

if TYPE_CHECKING:
    from ...rooms import RoomService, RoomSummary, RoomUpdate
    from .host import ScreenHost

TOO_SMALL = N_("창을 키워 주세요\n(80×24 이상이어야 해요)")


class Pushed(Message):
    """A manager push, re-posted onto this screen's own task (see ``BaseScreen.deliver``)."""

    def __init__(self, payload: RoomUpdate | list[RoomSummary]) -> None:
        super().__init__()
        self.payload = payload


class DismissOnce:
    """Textual's ``dismiss`` pops whatever screen is on top: a second one (a doubled Enter on
    a menu, its selection posted twice) closed the screen below, or emptied the stack and
    ended the session. Only the screen on top dismisses; a later call does nothing."""

    def dismiss(self, result: Any = None) -> AwaitComplete:
        screen = cast(Screen[Any], self)
        if not screen.is_current:
            return AwaitComplete()  # (already done: nothing to wait for)
        return cast(AwaitComplete, super().dismiss(result))  # type: ignore[misc]


class BaseScreen(DismissOnce, Screen[Any]):
    """Every screen shows only the too-small notice below 80×24 (the app toggles a class)."""

    #: Actions (names) whose keys, typed while the screen still composes, act once it is
    #: mounted instead of being lost: moves within the screen, never a bet or a choice made
    #: before the player saw what it acts on.
    EARLY_ACTIONS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._early: list[tuple[str, tuple[object, ...]]] = []
        tuning.screen_created(self)  # e.g. the narrowed compositor (seotda_tui/tuning/)

    def compose(self) -> Iterable[Widget]:
        yield Static(_(TOO_SMALL), classes="too-small")
        with Vertical(classes="body"):
            yield from self.compose_body()

    def compose_body(self) -> Iterable[Widget]:
        return []

    @property
    def hidden_by_size(self) -> bool:
        """Below 80×24 only the too-small notice shows (the app's ``-too-small`` class)."""
        return self.app.has_class("-too-small")

    @property
    def live(self) -> bool:
        """On the app's screen stack while the app runs. False once the app is ending (e.g.
        the client's EOF) or the screen was closed: its widgets are being removed then, and
        a handler that still arrives (its mount, a push, a timer) must leave them alone."""
        return self.is_attached and self in self.app.screen_stack

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No key acts on a screen the player cannot see: a bet made behind the too-small
        notice would be played (and journaled) without the player seeing it. Nor on one
        still composing (a key in the same packet as the one that opened it, or typed while
        a big screen composes on a busy server) or on its way out: its widgets are not all
        there. A key of :attr:`EARLY_ACTIONS` that comes while the screen composes waits
        and acts once it is mounted (``?`` then → at once opens the rules tab)."""
        if not self.is_mounted and self.live and action in self.EARLY_ACTIONS:
            if not self._early:
                self.call_after_refresh(self._run_early)
            self._early.append((action, parameters))
            return False
        return self.is_mounted and self.live and not self.hidden_by_size

    def _run_early(self) -> None:
        """One waiting key's action, the next after the screen has drawn it (a tab switched to
        is laid out before a scroll key scrolls it)."""
        if not self._early:
            return
        action, parameters = self._early.pop(0)
        if self.is_mounted and self.live and not self.hidden_by_size:
            getattr(self, f"action_{action}")(*parameters)
        if self._early:
            self.call_after_refresh(self._run_early)

    def card_style_changed(self) -> None:
        """The session's ``card_style`` changed (its cards already follow): redraw what
        depends on it."""

    def language_changed(self) -> None:
        """The session's language changed (``L``): every text this screen shows is redone in
        it (texts already in the hand log or chat stay as they were written)."""
        if not self.is_mounted:  # still composing: redo it once its widgets are all there
            self.call_later(self.language_changed)
            return
        if not self.live:
            return
        for notice in self.query(".too-small").results(Static):
            notice.update(_(TOO_SMALL))
        self.relabel()
        for widget in self.query("*"):  # widgets whose data did not change draw anew too
            widget.refresh()

    def relabel(self) -> None:
        """Redo this screen's own texts in the current language (each screen knows its own)."""

    def notice(self, text: str) -> bool:
        """Show a short notice (a mode switched) on this screen's own message line; False
        when it has none and the app shows a toast, which covers the top right corner (at
        the table a seat's name and chips: issue 32 item 17)."""
        return False

    @property
    def seotda(self) -> ScreenHost:
        return self.app  # type: ignore[return-value]

    @property
    def manager(self) -> RoomService:
        return self.seotda.manager

    @property
    def nickname(self) -> str:
        return self.seotda.nickname

    def deliver(self, payload: RoomUpdate | list[RoomSummary]) -> None:
        """Manager callback: may run on another session's task, so only queue a message."""
        self.post_message(Pushed(payload).set_sender(self))

    def paint_now(self, only: Iterable[Widget] | None = None) -> None:
        """Send what a handler just changed in this same callback, as one frame, while the
        ``paint_now`` override is on (``seotda_tui/tuning/paint_now.py``); otherwise Textual
        paints it a few event-loop turns later. ``only``: the widgets it changed, if it knows
        that nothing else did."""
        if tuning.enabled("paint_now"):
            paint_now(self, only)
