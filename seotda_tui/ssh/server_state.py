"""What every connection of one listener shares: the admission checks, refusals and jail.

:class:`ServerState` is built once per listener by :func:`~.server.start_server` and given to
each :class:`~.connection.PlayerConnection` (which asks it whether a new connection or a login
may go on) and each :class:`~.session.GameSession` (as its :class:`~.state.SessionHost`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

import asyncssh

from .. import metrics
from ..clock import Cancellable, Clock, LoopClock
from ..config import Settings
from ..i18n import N_
from ..logs import log_event
from .admission import PendingAdmission, RefusalLog
from .auth import AuthPolicy, Proof
from .bans import BanList
from .login_limits import SessionLimits
from .session import REFUSED, GameSession
from .state import AppFactory, SessionRegistry

log = logging.getLogger("seotda.server")

# Printed on the session channel after login.
MSG_SERVER_FULL = N_("서버가 가득 찼어요. 잠시 후 다시 접속해 주세요.")
MSG_IP_FULL = N_("이 주소에서 이미 {n}명이 접속해 있어요. 한 주소당 {n}명까지 들어올 수 있어요.")
#: ``--workers N``: the rooms process, which counts every login, is restarting (a second or so).
MSG_TRY_AGAIN = N_("서버가 잠시 바빠요. 몇 초 뒤에 다시 접속해 주세요.")


class PendingLogin(Protocol):
    """A connection not logged in yet, as the pending-login table sees it
    (:class:`~.connection.PlayerConnection`)."""

    @property
    def peer_ip(self) -> str: ...

    def __hash__(self) -> int: ...

    def progress(self) -> int:
        """How far its login got (see :class:`~.admission.PendingLogins`)."""
        ...

    def evict(self) -> None:
        """Hang up on it: a newcomer needs its place."""
        ...


def _progress(conn: PendingLogin) -> int:
    return conn.progress()


@dataclass(eq=False)
class ServerState:
    """Shared by every connection of one listener."""

    policy: AuthPolicy
    app_factory: AppFactory
    limits: SessionLimits
    settings: Settings = field(default_factory=Settings)
    clock: Clock = field(default_factory=LoopClock)
    registry: SessionRegistry = field(default_factory=SessionRegistry)
    sessions: set[GameSession] = field(default_factory=set)
    connections: set[asyncssh.SSHServerConnection] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    admitted: int = 0  # this listener's players (``limits`` counts them against max_sessions)
    refusing: int = 0  # authenticated connections being told why they may not play
    shutting_down: bool = False
    bans: BanList | None = None  # None: no bans at all (tests that build a state by hand)
    pending: PendingAdmission[PendingLogin] = field(init=False)
    refusals: RefusalLog = field(init=False)
    _refusal_ticker: Cancellable | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.pending = self.limits.pending_logins(self._evicted_elsewhere, _progress)
        self.refusals = RefusalLog(log, self.clock)

    def _evicted_elsewhere(self, conn: PendingLogin, by: str) -> None:
        """A pending login of ours made room for one at another worker (``by``: its address)."""
        self.refused(conn.peer_ip, "evicted", by=by)
        conn.evict()

    def check_new_connection(self, ip: str) -> str | None:
        """The reason a new connection from ``ip`` is refused before any key exchange, or None.

        The rate bucket is only spent by connections that get this far: a jailed address
        doesn't use up tokens.
        """
        if self.shutting_down:
            return "shutting_down"
        if self.jail_remaining(ip) > 0:
            return "jailed"
        if not self.limits.connect_allowed(ip):
            return "rate_limited"
        return None

    def jail_remaining(self, ip: str) -> float:
        return self.limits.jail_remaining(ip)

    def browser_link(self, nickname: str) -> str | None:
        return self.limits.browser_link(nickname)

    def check_login(
        self, ip: str, username: str, key_fp: str | None, proof: Proof | None
    ) -> tuple[str, str] | None:
        """(reason, message in the server's language) if an authenticated connection from ``ip``
        may not play: its name can't be used (look-alike, invalid, held by another credential,
        one new name too many from its address), or the server or its address is full.

        The name comes first: a login that will never get an identity is not a player and
        never takes a place. ``limits`` decides, and counts it when it may (with workers, the
        rooms process)."""
        admission = self.policy.admit(username, key_fp, ip, proof)
        if admission.identity is None:
            return admission.code or "refused", admission.refusal or self.policy.say(REFUSED)
        reason = self.limits.admit(ip)
        if reason == "server_full":
            return reason, self.policy.say(MSG_SERVER_FULL)
        if reason == "ip_full":
            return reason, self.policy.say(MSG_IP_FULL, n=self.settings.max_sessions_per_ip)
        if reason is not None:  # the workers' limits cannot be counted now: never unchecked
            return reason, self.policy.say(MSG_TRY_AGAIN)
        return None

    def refused(self, ip: str, reason: str, **fields: Any) -> None:
        """Log a refusal, summarised per address and reason (see RefusalLog), and count it
        (every one: a refused login that opened no session in time by why it was refused)."""
        self.refusals.refused(ip, reason, **fields)
        metrics.login_refused(str(fields.get("why", reason)))
        if self._refusal_ticker is None:
            self._schedule_refusal_tick()

    def _schedule_refusal_tick(self) -> None:
        # (on the clock the log counts by: a test's fake clock flushes it as it moves)
        self._refusal_ticker = self.clock.call_later(self.refusals.interval, self._refusal_tick)

    def _refusal_tick(self) -> None:
        self._refusal_ticker = None
        self.refusals.tick()
        if len(self.refusals):
            self._schedule_refusal_tick()

    def flush_refusals(self) -> None:
        if self._refusal_ticker is not None:
            self._refusal_ticker.cancel()
            self._refusal_ticker = None
        self.refusals.flush()

    def auth_failed(self, ip: str, user: str, method: str) -> bool:
        """Count a failed login; True if the address has just been jailed."""
        log_event(log, "auth_failed", ip=ip, user=user, method=method)
        metrics.login("failed")
        if self.limits.auth_failed(ip):
            log_event(
                log,
                "jailed",
                level=logging.WARNING,
                ip=ip,
                failures=self.settings.auth_failures,
                seconds=self.settings.auth_jail_seconds,
            )
            return True
        return False
