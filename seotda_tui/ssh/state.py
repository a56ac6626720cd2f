"""What the listener (:mod:`.server`) and each channel (:mod:`.session`) share.

Both import this module and neither imports the other: the server builds one
:class:`SessionHost` per listener and hands it to every session; a session sees the server only
through it. The app factory's signature (:data:`AppFactory`, with :class:`SessionContext`) and
why a session ended (:class:`DisconnectReason`) are the contract with the app layer.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableSet
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from textual.app import App

from ..clock import Clock
from ..config import Settings
from ..i18n import Language
from ..logs import log_event
from .auth import AuthPolicy, Identity

# The loggers these lines had before they moved here (log names are part of the log format).
_server_log = logging.getLogger("seotda.server")
_session_log = logging.getLogger("seotda.session")


class DisconnectReason(StrEnum):
    """Why a session ended; handed to disconnect callbacks."""

    CLIENT_LEFT = "client_left"  # connection closed or dropped by the player's side
    REPLACED = "replaced"  # the same nickname connected again elsewhere
    APP_EXITED = "app_exited"  # the app ended itself (e.g. the player quit)
    APP_CRASHED = "app_crashed"  # an exception escaped the app
    SERVER_SHUTDOWN = "server_shutdown"
    IDLE = "idle"  # no input for idle_timeout seconds (and not idle-exempt)


DisconnectCallback = Callable[[DisconnectReason], Awaitable[None] | None]


@dataclass(eq=False)
class SessionContext:
    """What the app layer may know about its session (passed to the app factory)."""

    identity: Identity
    term_type: str
    color_system: str | None  # "truecolor" | "256" | "standard" | None
    size: tuple[int, int]  # at connect time; the app's own size tracks resizes
    env: Mapping[str, str]  # variables the client sent: untrusted
    reason: DisconnectReason | None = None
    #: The room code or name after ``+`` in the login name (``철수+K7QX3``): untrusted, cleaned.
    join_target: str | None = None
    #: The session's language: the app uses this very holder, so a switch (``L``) is seen
    #: by the session's own messages too (its goodbye, the idle warning).
    language: Language = field(default_factory=Language)
    #: Keeps the identity's choice of language (None: nothing to keep it in).
    remember_language: Callable[[str], None] | None = None
    #: A one-time browser link for this nickname (ssh/browser_links.py): what the lobby's key
    #: shows, as (status, url), status ``ok``, ``off`` (no --web-port) or ``away`` (it cannot be
    #: made now). None: this login did not prove an SSH key (a passphrase or the browser).
    browser_link: Callable[[], tuple[str, str]] | None = None
    idle_exempt: Callable[[], bool] | None = None
    """Set by the app: returns True while the player must not be dropped for idleness.

    Consulted only when the idle timer is due (``idle_timeout - idle_warning`` after
    the last input, and again at ``idle_timeout``), never per keystroke, so it may do a
    little work. True counts as activity: the idle clock restarts at that check (no
    warning, no disconnect). So a player is dropped no sooner than a full
    ``idle_timeout`` after the last check that found them exempt. Example, exempt
    while in a room (what ``app.make_app_factory`` does)::

        ctx.idle_exempt = lambda: manager.room_of(nickname) is not None

    It runs on the event loop; an exception in it counts as "exempt" (and is logged).
    """
    _callbacks: list[DisconnectCallback] = field(default_factory=list, repr=False)

    def add_disconnect_callback(self, callback: DisconnectCallback) -> None:
        """Call ``callback(reason)`` once, after this session's app has finished.

        For a replaced session it runs before the replacing app starts.
        """
        self._callbacks.append(callback)

    async def _fire(self, reason: DisconnectReason) -> None:
        self.reason = reason
        for callback in self._callbacks:
            try:
                result = callback(reason)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                _session_log.exception(
                    "연결 종료 콜백에서 오류가 났어요 (%s)", self.identity.nickname
                )


AppFactory = Callable[[Identity, SessionContext], App[Any]]


class Replaceable(Protocol):
    """What the registry needs of a session: where it comes from, and how to end it."""

    @property
    def peer_ip(self) -> str: ...

    async def kick(self, reason: DisconnectReason) -> None: ...


class SessionRegistry:
    """Live sessions by nickname, so a second login can replace the first."""

    def __init__(self) -> None:
        self._by_name: dict[str, Replaceable] = {}

    async def claim(self, nickname: str, session: Replaceable) -> None:
        """Make ``session`` the holder of ``nickname``; end (and await) any previous one."""
        previous = self._by_name.get(nickname)
        self._by_name[nickname] = session
        if previous is not None and previous is not session:
            log_event(
                _server_log, "replaced", user=nickname, ip=session.peer_ip, old_ip=previous.peer_ip
            )
            await previous.kick(DisconnectReason.REPLACED)

    def release(self, nickname: str, session: Replaceable) -> None:
        if self._by_name.get(nickname) is session:
            del self._by_name[nickname]

    def nicknames(self) -> list[str]:
        return sorted(self._by_name)


class SessionHost(Protocol):
    """What a session may use of the listener that accepted it (the server's state)."""

    @property
    def policy(self) -> AuthPolicy: ...

    @property
    def app_factory(self) -> AppFactory: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def registry(self) -> SessionRegistry: ...

    @property
    def sessions(self) -> MutableSet[Any]: ...

    @property
    def tasks(self) -> MutableSet[asyncio.Task[None]]: ...

    def auth_failed(self, ip: str, user: str, method: str) -> bool:
        """Count a failed login; True if the address has just been jailed."""
        ...

    def browser_link(self, nickname: str) -> str | None:
        """A one-time browser link's token for ``nickname`` (None: not now)."""
        ...
