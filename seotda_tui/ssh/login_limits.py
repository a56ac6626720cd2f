"""The limits a listener applies to connections and logins, behind one interface.

:class:`SessionLimits` is what the server (:mod:`.server`) asks: may this address connect, is it
jailed, count an auth failure, count a login against ``max_sessions``/``max_sessions_per_ip``
(and give its place back), and the per-nickname guard, the new-name limit and the pending-login
table. One process keeps them itself (:class:`LocalLimits`); a worker of ``--workers N`` asks the
rooms process, which counts every worker's connections (``cluster.worker_limits.RemoteLimits``).
The server never asks which one it has.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from ..clock import LOOP_CLOCK
from ..config import Settings
from .admission import PendingAdmission, PendingLogins
from .browser_links import BrowserLinks
from .guessing import NameGuard
from .limits import AuthJail, Clock, ConnectLimiter, SessionCounts
from .registration import Registrations


class SessionLimits(Protocol):
    """Connection and login limits, one process's own or the workers' shared ones."""

    def connect_allowed(self, ip: str) -> bool:
        """Spend one of ``ip``'s connection tokens (``connect_rate``/``connect_burst``)."""
        ...

    def admit(self, ip: str) -> str | None:
        """Count a login from ``ip``, or say why not: ``server_full``, ``ip_full``, or another
        reason when it cannot be counted now (refused with "try again in a few seconds")."""
        ...

    def release(self, ip: str) -> None:
        """A login :meth:`admit` counted has ended: its place is free again."""
        ...

    def auth_failed(self, ip: str) -> bool:
        """Count a failed login; True if the address has just been jailed."""
        ...

    def jail_remaining(self, ip: str) -> float:
        """Seconds ``ip`` stays jailed (0: not jailed)."""
        ...

    def name_guard(self) -> NameGuard:
        """Wrong passphrases per nickname."""
        ...

    def registrations(self) -> Registrations:
        """New nicknames per address."""
        ...

    def pending_logins(
        self, evicted: Callable[[Any, str], None], progress: Callable[[Any], int]
    ) -> PendingAdmission[Any]:
        """The pending-login table. With workers, ``evicted(conn, by)`` is called for one of
        this worker's that the rooms process chose to make room for a newcomer elsewhere, which
        takes the one that got least far (``progress(conn)``) first, as one process does."""
        ...

    def browser_link(self, nickname: str) -> str | None:
        """A one-time browser link's token for ``nickname`` (:mod:`.browser_links`), kept where
        web logins are checked; None when it cannot be made now (the rooms process away)."""
        ...

    def redeem_browser_link(self, nickname: str, token: str) -> bool:
        """Whether ``token`` lets ``nickname`` into a browser now (it is spent)."""
        ...


class LocalLimits(SessionCounts):
    """One process's own limits (no ``--workers``), from the settings, on ``clock``."""

    def __init__(self, settings: Settings, clock: Clock = LOOP_CLOCK) -> None:
        s = self.settings = settings
        self.connects = ConnectLimiter(s.connect_rate, s.connect_burst, clock)
        self.jail = AuthJail(s.auth_failures, s.auth_jail_seconds, clock)
        self.names = NameGuard(s.name_failures, s.name_lock_seconds, clock)
        self.new_names = Registrations(s.registrations_per_ip, clock)
        self.links = BrowserLinks(clock)
        self.max_sessions, self.max_sessions_per_ip = s.max_sessions, s.max_sessions_per_ip
        self.admitted = 0
        self.per_address = Counter()

    def connect_allowed(self, ip: str) -> bool:
        return self.connects.allow(ip)

    def auth_failed(self, ip: str) -> bool:
        return self.jail.failure(ip)

    def jail_remaining(self, ip: str) -> float:
        return self.jail.remaining(ip)

    def name_guard(self) -> NameGuard:
        return self.names

    def registrations(self) -> Registrations:
        return self.new_names

    def browser_link(self, nickname: str) -> str | None:
        return self.links.issue(nickname)

    def redeem_browser_link(self, nickname: str, token: str) -> bool:
        return self.links.redeem(nickname, token)

    def pending_logins(
        self, evicted: Callable[[Any, str], None], progress: Callable[[Any], int]
    ) -> PendingLogins[Any]:
        # (``evicted`` is for another worker's newcomer: here admit() names the one evicted)
        s = self.settings
        return PendingLogins(s.max_pending_logins_per_ip, s.max_pending_logins, progress)


def _implements(limits: LocalLimits) -> SessionLimits:
    return limits  # mypy proves here that LocalLimits is all that SessionLimits says
