"""The app as screens see it: its shared services, and where a screen may ask to go.

Screens never import each other (nor the app): to move, a screen asks the app through this
interface, and the app (:class:`~seotda_tui.ui.app.SeotdaApp`) owns navigation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from textual.screen import Screen

from engine import Options
from engine.types import GameResult

from ...clock import Clock
from ...metrics import ActionLatency
from ...rooms import RoomService, RoomSummary
from ...rooms.chat import ChatService


class ScreenHost(Protocol):
    """What a screen may use of its session's app, besides Textual's own ``App``."""

    manager: RoomService
    chat: ChatService
    nickname: str
    motd: str
    #: A one-time browser link for this nickname, as (status, url): ``ok``, ``off`` (no web
    #: page on this server) or ``away``; None when this login did not prove an SSH key.
    browser_link: Callable[[], tuple[str, str]] | None
    hands_dealt: int
    #: This session's key → screen timing (the table's actions; :mod:`seotda_tui.metrics`).
    action_latency: ActionLatency

    @property
    def clock(self) -> Clock:
        """The rooms' clock (``manager.clock``): countdowns count to its moments."""
        ...

    def open_table(self, room_id: str) -> None:
        """The table of ``room_id`` replaces the current screen."""
        ...

    def open_lobby(self, table: Screen[Any]) -> None:
        """Back from ``table`` to the lobby (also from under a modal still open over it)."""
        ...

    def create_room(self, then: Callable[[str | None], None]) -> None:
        """The room form; ``then`` gets the new room's id, or None if none was made."""
        ...

    def edit_rules(self, room: RoomSummary, then: Callable[[str | None], None]) -> None:
        """The room form filled with ``room``'s rules, for its host; ``then`` gets the room's id
        once the new rules are set, or None if cancelled."""
        ...

    def confirm(self, question: str, then: Callable[[bool | None], None]) -> None:
        """A yes/no question; ``then`` gets the answer."""
        ...

    def moderate(self, room: RoomSummary, then: Callable[[tuple[str, str] | None], None]) -> None:
        """The host's menu for ``room``; ``then`` gets ``(what, whom)`` or None."""
        ...

    def confirm_leave(self, seat_status: str | None, then: Callable[[bool | None], None]) -> None:
        """Ask before leaving a running game (the question depends on the own seat's status)."""
        ...

    def open_history(self) -> None:
        """The list of the own past games, over the current screen (hand history, replays)."""
        ...

    def open_help(self, options: Options, hand: str | None, tab: str) -> None:
        """The help screen for a room's ``options``, opened at ``tab``."""
        ...

    def show_result(
        self, result: GameResult, options: Options, then: Callable[[bool | None], None]
    ) -> None:
        """A finished game's result (in the results screen already open, if there is one)."""
        ...

    def new_game_started(self) -> None:
        """A results screen still open says that the live table is one key away."""
        ...

    def open_records(self) -> None:
        """The records screen (전적) of this session's nickname, over the current screen."""
        ...

    def open_seat_records(self, players: Sequence[str], bots: Sequence[str]) -> None:
        """The compact panel of each seat's record, over the table."""
        ...
