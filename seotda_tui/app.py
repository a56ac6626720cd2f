"""One Textual app per SSH session; every app shares the one :class:`RoomManager`.

Why the shape: many apps run in one event loop, so nothing here is process-global (no signals,
stdout or environment). Manager callbacks may run on another session's task, so they only post a
message (with this app as sender); the handling runs on this app's own task. A failure inside one
app stays inside it: the manager guards every callback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from textual import events
from textual.app import App

from .rooms import RoomManager

log = logging.getLogger(__name__)

MIN_WIDTH, MIN_HEIGHT = 80, 24
WIDE_WIDTH = 110


class HasNickname(Protocol):
    nickname: str


class SeotdaApp(App[None]):
    """The lobby → room → table flow for one player (``identity.nickname``)."""

    CSS_PATH = "app.tcss"
    TITLE = "섯다"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, manager: RoomManager, identity: HasNickname, motd: str = "", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.manager = manager
        self.identity = identity
        self.nickname: str = identity.nickname
        self.motd = motd  # the operator's lobby notice (server setting ``motd``)
        self._connected = False

    def on_mount(self) -> None:
        from .screens.lobby import LobbyScreen
        from .screens.table import TableScreen

        self._apply_size(self.size.width, self.size.height)
        room_id = self.manager.session_connected(self.nickname)
        self._connected = True
        self.push_screen(LobbyScreen())
        if room_id is not None:  # back into the seat this nickname still holds
            self.push_screen(TableScreen(room_id))

    def on_unmount(self) -> None:
        if self._connected:
            self._connected = False
            self.manager.session_disconnected(self.nickname)

    def on_resize(self, event: events.Resize) -> None:
        self._apply_size(event.size.width, event.size.height)

    def _apply_size(self, width: int, height: int) -> None:
        """Below 80×24 every screen shows only "창을 키워 주세요" (see app.tcss)."""
        self.set_class(width < MIN_WIDTH or height < MIN_HEIGHT, "-too-small")
        self.set_class(width >= WIDE_WIDTH, "-wide")


def make_app_factory(
    manager: RoomManager, motd: str = ""
) -> Callable[[HasNickname, Any], SeotdaApp]:
    """The ``app_factory(identity, session_context)`` the SSH server calls once per session.

    A player who is in a room (seated or watching) is exempt from the server's idle
    timeout: at a table the engine's own turn timer deals with inactivity.
    """

    def factory(identity: HasNickname, session_context: Any = None) -> SeotdaApp:
        nickname = identity.nickname
        if session_context is not None and hasattr(session_context, "idle_exempt"):
            session_context.idle_exempt = lambda: manager.room_of(nickname) is not None
        return SeotdaApp(manager=manager, identity=identity, motd=motd)

    return factory
