"""A worker's SSH limits and login registry under ``--workers N``: kept by the rooms process
(:mod:`.hub`), so they count the connections of every worker.

The worker also holds its share of them: the addresses of the sessions the hub counted for it,
its own auth failures, every jail the hub told it of, its own nickname guesses and the
addresses that proved a nickname here, every nickname lock, its pending logins. They are sent again
each time it connects (``restore``), so a restarted hub counts what is still there; and while the
hub is away nobody is let in unchecked: logins are refused with a "try again in a moment"
(``rooms_away``), the jail it knows still holds, and connections and pending logins are counted
against this worker's own limits.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..clock import LOOP_CLOCK
from ..config import Settings
from ..ssh.admission import PendingLogins
from ..ssh.guessing import NameGuard
from ..ssh.limits import AuthJail, Clock, ConnectLimiter
from ..ssh.login_limits import SessionLimits
from ..ssh.registration import Registrations
from ..ssh.state import DisconnectReason, Replaceable, SessionRegistry
from . import answers
from .link import BadAnswer, HubDown, HubLink

#: How often a worker tells the hub how far its pending logins got (those that changed).
PROGRESS_EVERY = 0.2
#: Why a login is refused while the rooms process cannot be reached (a new one that still waits
#: for the workers' ``restore`` says ``restoring``): both are told "try again in a few seconds".
AWAY = "rooms_away"


class RemoteLimits:
    """The SSH server's :class:`~seotda_tui.ssh.login_limits.SessionLimits`, kept by the hub,
    held here too (see the module doc)."""

    def __init__(self, link: HubLink, settings: Settings, clock: Clock = LOOP_CLOCK) -> None:
        self.link = link
        self.settings = settings
        self._admitted: Counter[str] = Counter()  # addresses the hub counted for this worker
        self._jail = AuthJail(settings.auth_failures, settings.auth_jail_seconds, clock)
        self._connects = ConnectLimiter(settings.connect_rate, settings.connect_burst, clock)
        self._pending: RemotePending | None = None
        self._names = RemoteNameGuard(link, settings.name_failures, settings.name_lock_seconds)
        self._registrations = RemoteRegistrations(link, settings.registrations_per_ip)
        link.on_jail = lambda ip, seconds: self._jail.restore({}, {ip: seconds})
        link.on_name_lock = self._names.lock
        link.when_connected(self._restore)

    def connect_allowed(self, ip: str) -> bool:
        allowed = self.link.ask_or(None, answers.CONNECT_ALLOWED, ip)
        return self._connects.allow(ip) if allowed is None else allowed

    def admit(self, ip: str) -> str | None:
        try:
            refusal = self.link.ask(answers.ADMIT, ip)
        except HubDown:
            return AWAY
        if refusal is None:
            self._admitted[ip] += 1
        return refusal

    def release(self, ip: str) -> None:
        if self._admitted[ip] <= 0:
            return
        self._admitted[ip] -= 1
        if self._admitted[ip] <= 0:
            del self._admitted[ip]
        self.link.notify("release", ip)

    def auth_failed(self, ip: str) -> bool:
        here = self._jail.failure(ip)
        return self.link.ask_or(False, answers.AUTH_FAILED, ip) or here

    def jail_remaining(self, ip: str) -> float:
        return max(self.link.ask_or(0.0, answers.JAIL_REMAINING, ip), self._jail.remaining(ip))

    def name_guard(self) -> NameGuard:
        return self._names

    def registrations(self) -> Registrations:
        return self._registrations

    def browser_link(self, nickname: str) -> str | None:
        """Made at the hub, which checks every worker's web logins (none while it is away)."""
        return self.link.ask_or(None, answers.LINK_ISSUE, nickname)

    def redeem_browser_link(self, nickname: str, token: str) -> bool:
        return self.link.ask_or(False, answers.LINK_REDEEM, nickname, token)

    def pending_logins(
        self, evicted: Callable[[Any, str], None], progress: Callable[[Any], int]
    ) -> RemotePending:
        self._pending = RemotePending(self.link, evicted, self.settings, progress)
        return self._pending

    def _restore(self) -> None:
        """Tell the hub (just connected: maybe a new one) what this worker holds."""
        failures, jailed = self._jail.held()
        held: dict[str, object] = {
            "admitted": list(self._admitted.elements()),
            "failures": failures,
            "jailed": jailed,
            "names": list(self._names.held()),
            "registrations": self._registrations.held(),
            "pending": self._pending.handover() if self._pending is not None else [],
        }
        known = self.link.ask_or(None, answers.RESTORE, held)
        if known is not None:  # every jail and lock the hub knows, from before this worker
            self._jail.restore({}, known["jailed"])
            self._names.restore({}, known["locks"], {})


class RemoteNameGuard(NameGuard):
    """Wrong passphrases per nickname (:class:`~seotda_tui.ssh.guessing.NameGuard`), counted at
    the hub with every worker's: a guesser gains nothing from landing on another worker, and the
    owner's address gets through a lock wherever it lands. What this worker saw (and every lock
    the hub pushes) is kept here too: sent to a restarted hub, and the answer while it is away.
    """

    def __init__(self, link: HubLink, failures: int, seconds: float) -> None:
        super().__init__(failures, seconds)
        self.link = link

    def locked(self, nickname: str, ip: str) -> float:
        left = self.link.ask_or(None, answers.NAME_LOCKED, nickname, ip)
        return super().locked(nickname, ip) if left is None else left

    def failure(self, nickname: str) -> bool:
        here = super().failure(nickname)
        locked = self.link.ask_or(None, answers.NAME_FAILED, nickname)
        return here if locked is None else locked

    def success(self, nickname: str, ip: str) -> None:
        super().success(nickname, ip)
        self.link.notify("name_success", nickname, ip)


class RemoteRegistrations(Registrations):
    """New nicknames per address (:class:`~seotda_tui.ssh.registration.Registrations`), counted
    at the hub with every worker's. Each is logged here, where it was registered, and counted
    here too: sent to a restarted hub, and the answer while it is away."""

    def __init__(self, link: HubLink, per_hour: int) -> None:
        super().__init__(per_hour)
        self.link = link

    def allowed(self, ip: str) -> bool:
        allowed = self.link.ask_or(None, answers.REGISTRATION_ALLOWED, ip)
        return super().allowed(ip) if allowed is None else allowed

    def registered(self, nickname: str, ip: str, credential: str) -> None:
        super().registered(nickname, ip, credential)
        self.link.notify("registered", ip)


class RemotePending:
    """This worker's pending logins, counted at the hub with every other worker's: the
    per-address and total caps hold across workers, and a newcomer from a quieter address may
    evict the busiest address's oldest pending login wherever it waits (see
    :class:`~seotda_tui.ssh.admission.PendingLogins`). The hub knows each by a token.

    The hub evicts the one that got least far first (``progress(conn)``, as one process does):
    each change is told to it, checked every :data:`PROGRESS_EVERY` seconds while any is pending
    (a hook at each step would be spread over the SSH server's callbacks).

    While the hub is away they are counted here, against the same caps (this worker's alone).
    """

    def __init__(
        self,
        link: HubLink,
        evicted: Callable[[Any, str], None],
        settings: Settings,
        progress: Callable[[Any], int],
    ) -> None:
        self.link = link
        self._evicted = evicted
        self._progress = progress
        self._tokens: dict[Any, int] = {}
        self._conns: dict[int, Any] = {}
        self._ips: dict[int, str] = {}
        self._told: dict[int, int] = {}  # token -> the progress the hub was told
        self._ids = itertools.count(1)
        self._caps = settings.max_pending_logins_per_ip, settings.max_pending_logins
        self._away: PendingLogins[Any] = PendingLogins(*self._caps, progress)  # hub away
        self._ticking: asyncio.TimerHandle | None = None
        link.on_evict = self._evict

    def admit(self, ip: str, conn: Any) -> tuple[str | None, Any]:
        token = next(self._ids)
        try:
            reason, victim = self.link.ask(answers.PENDING_ADMIT, ip, token)
        except HubDown as exc:
            if isinstance(exc, BadAnswer):  # (the hub may hold it: it is counted here instead)
                self.link.notify("pending_discard", token)
            reason, evicted = self._away.admit(ip, conn)
        else:
            evicted = self._conns.get(victim) if victim is not None else None
        if reason is not None:
            return str(reason), None
        self._tokens[conn], self._conns[token], self._ips[token] = token, conn, ip
        if evicted is not None:
            self._forget(evicted)
        if self._ticking is None:
            self._ticking = asyncio.get_running_loop().call_later(PROGRESS_EVERY, self._tick)
        return None, evicted

    def _tick(self) -> None:
        """Tell the hub how far each pending login got, where that changed."""
        self._ticking = None
        for token, conn in list(self._conns.items()):
            level = self._progress(conn)
            if level != self._told.get(token, 0):
                self._told[token] = level
                self.link.notify("pending_progress", token, level)
        if self._conns:
            self._ticking = asyncio.get_running_loop().call_later(PROGRESS_EVERY, self._tick)

    def discard(self, conn: Any) -> None:
        token = self._forget(conn)
        if token is not None:
            self.link.notify("pending_discard", token)

    def handover(self) -> list[list[Any]]:
        """[address, token, progress] of each, for the hub, which counts them from now on
        (those counted here while it was away too)."""
        self._away = PendingLogins(*self._caps, self._progress)
        return [
            [self._ips[token], token, self._told.get(token, 0)] for token in self._tokens.values()
        ]

    def __contains__(self, conn: object) -> bool:
        return conn in self._tokens

    def __len__(self) -> int:
        """This worker's (the hub counts every worker's)."""
        return len(self._tokens)

    def _forget(self, conn: Any) -> int | None:
        self._away.discard(conn)
        token = self._tokens.pop(conn, None)
        if token is not None:
            del self._conns[token]
            del self._ips[token]
            self._told.pop(token, None)
        return token

    def _evict(self, token: int, by: str) -> None:
        """The hub chose one of ours for a newcomer (at another worker, or as it was told ours)."""
        conn = self._conns.get(token)
        if conn is not None:
            self._forget(conn)
            self._evicted(conn, by)


class ClusterRegistry(SessionRegistry):
    """Who is logged in, across workers: a login here tells the hub, which tells the worker
    that held the nickname before to end its session (replace-on-relogin)."""

    def __init__(self, link: HubLink) -> None:
        super().__init__()
        self.link = link
        self._mine: dict[str, Replaceable] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        link.on_kick = self._kick
        link.when_back(self._hub_back)

    async def claim(self, nickname: str, session: Replaceable) -> None:
        self._mine[nickname] = session
        self.link.notify("claim", nickname)
        await super().claim(nickname, session)

    def release(self, nickname: str, session: Replaceable) -> None:
        if self._mine.get(nickname) is session:
            del self._mine[nickname]
            self.link.notify("unclaim", nickname)
        super().release(nickname, session)

    def _kick(self, nickname: str) -> None:
        session = self._mine.pop(nickname, None)
        if session is None:
            return
        super().release(nickname, session)
        task = asyncio.get_running_loop().create_task(session.kick(DisconnectReason.REPLACED))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _hub_back(self) -> None:
        for nickname in list(self._mine):
            self.link.notify("claim", nickname)


def _implements(limits: RemoteLimits) -> SessionLimits:
    return limits  # mypy proves here that the workers' limits are all that SessionLimits says
