"""Admission before login, and refusal logs that a flood cannot blow up.

* :class:`PendingLogins` — connections that have not authenticated yet. They never count
  against ``max_sessions``; they have their own bounds: so many per address, so many in all.
  When the total is reached, a newcomer from an address holding fewer pending logins than the
  busiest address evicts one of the pending logins of such an address instead of being
  refused: the one that got least far (no version line, then no key exchange, before
  someone reading the host-key question or typing a passphrase), then the busiest address's,
  then the oldest. A flood from a few addresses can only displace itself, and a flood of
  new connections from many addresses displaces its own silent sockets before anyone who is
  mid-prompt.
* :class:`RefusedSession` — what a login refused after auth sees (a name that can't be used,
  the server or its address full): the Korean reason on the session channel, then the
  connection closes.
* :class:`RefusalLog` — the first refusal of an (address, reason) is logged in full, repeats
  are counted and summarised at most once a minute (``event=refused_summary``), so one jailed
  address hammering the port costs a line a minute, not a line per connection.

Both are keyed by :func:`~seotda_tui.ssh.limits.address_key` (IPv6 by /64), run on the event loop
thread only, and keep bounded tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from itertools import count
from typing import Any, Generic, Protocol, TypeVar

import asyncssh

from ..logs import log_event
from .limits import Clock, address_key

K = TypeVar("K", bound=Hashable)

# The refusal table is swept of quiet entries past this size and dropped past the hard cap
# (like limits.py's tables: failing open beats running out of memory).
_SWEEP_AT = 1024
_HARD_CAP = 100_000


class PendingAdmission(Protocol[K]):
    """What the SSH server asks of its pending logins: this process's :class:`PendingLogins`,
    or with ``--workers N`` the rooms process's, which counts every worker's."""

    def admit(self, ip: str, conn: K) -> tuple[str | None, K | None]: ...

    def discard(self, conn: K) -> None: ...

    def __contains__(self, conn: object) -> bool: ...

    def __len__(self) -> int: ...


class PendingLogins(Generic[K]):
    """Unauthenticated connections by address, capped ``per_address`` and ``total``."""

    def __init__(
        self, per_address: int, total: int, progress: Callable[[K], int] | None = None
    ) -> None:
        self.per_address = per_address
        self.total = total
        #: How far a pending login got (higher: further); the least far is evicted first.
        self._progress = progress or _no_progress
        self._by_key: dict[str, dict[K, int]] = {}  # address -> {connection: arrival number}
        self._key_of: dict[K, str] = {}
        self._arrivals = count()

    def admit(self, ip: str, conn: K) -> tuple[str | None, K | None]:
        """Add ``conn`` from ``ip``: (refusal reason or None, the connection it evicted or None).

        ``"logins_ip_full"``: this address already has ``per_address`` logins in progress.
        ``"logins_full"``: ``total`` are in progress and no address holds more than this one.
        """
        key = address_key(ip)
        held = len(self._by_key.get(key, ()))
        if held >= self.per_address:
            return "logins_ip_full", None
        evicted: K | None = None
        if len(self._key_of) >= self.total:
            evicted = self._busiest_oldest(more_than=held)
            if evicted is None:
                return "logins_full", None
            self.discard(evicted)
        self._by_key.setdefault(key, {})[conn] = next(self._arrivals)
        self._key_of[conn] = key
        return None, evicted

    def _busiest_oldest(self, more_than: int) -> K | None:
        """Among addresses holding more than ``more_than``: the pending login that got least
        far, then the busiest address's, then the oldest (O(pending), only when full)."""
        best: tuple[tuple[int, int, int], K] | None = None
        for held in self._by_key.values():
            if len(held) <= more_than:
                continue
            for conn, arrival in held.items():  # dicts keep arrival order
                rank = (self._progress(conn), -len(held), arrival)
                if best is None or rank < best[0]:
                    best = (rank, conn)
                if rank[0] == 0:
                    break  # this address's oldest that made no progress: none ranks lower
        return best[1] if best is not None else None

    def discard(self, conn: K) -> None:
        """``conn`` authenticated or went away (no-op if it was not pending)."""
        key = self._key_of.pop(conn, None)
        if key is None:
            return
        held = self._by_key[key]
        del held[conn]
        if not held:
            del self._by_key[key]

    def held_by(self, ip: str) -> int:
        return len(self._by_key.get(address_key(ip), ()))

    def __contains__(self, conn: object) -> bool:
        return conn in self._key_of

    def __len__(self) -> int:
        return len(self._key_of)


def _no_progress(conn: object) -> int:
    return 0


@dataclass
class _Tally:
    since: float  # when the last line for this (address, reason) was written
    repeats: int = 0  # refusals since then, not yet in a line


class RefusalLog:
    """``event=refused`` for the first refusal of an (address, reason), then at most one
    ``event=refused_summary ip=… reason=… count=…`` per ``interval`` seconds while it repeats.

    :meth:`tick` (call it every so often) writes the summaries that are due and forgets
    addresses that went quiet; :meth:`flush` writes every pending count (at shutdown).
    """

    def __init__(self, logger: logging.Logger, clock: Clock, interval: float = 60.0) -> None:
        self._log = logger
        self._clock = clock
        self.interval = interval
        self._tallies: dict[tuple[str, str], _Tally] = {}
        self._sweep_at = _SWEEP_AT

    def refused(self, ip: str, reason: str, **fields: Any) -> None:
        key = (address_key(ip), reason)
        now = self._clock.time()
        tally = self._tallies.get(key)
        if tally is None:
            self._sweep()
            self._tallies[key] = _Tally(since=now)
            log_event(self._log, "refused", reason=reason, ip=ip, **fields)
            return
        tally.repeats += 1
        if now - tally.since >= self.interval:
            self._summarise(key, tally, now)

    def _summarise(self, key: tuple[str, str], tally: _Tally, now: float) -> None:
        ip, reason = key
        log_event(
            self._log,
            "refused_summary",
            ip=ip,
            reason=reason,
            count=tally.repeats,
            seconds=round(now - tally.since, 1),
        )
        tally.repeats = 0
        tally.since = now

    def tick(self) -> None:
        """Write the summaries that are due; forget (address, reason)s quiet for an interval."""
        now = self._clock.time()
        for key, tally in list(self._tallies.items()):
            if now - tally.since < self.interval:
                continue
            if tally.repeats:
                self._summarise(key, tally, now)
            else:
                del self._tallies[key]

    def flush(self) -> None:
        """Write every count not yet logged, and start afresh."""
        now = self._clock.time()
        for key, tally in self._tallies.items():
            if tally.repeats:
                self._summarise(key, tally, now)
        self._tallies.clear()

    def _sweep(self) -> None:
        if len(self._tallies) < self._sweep_at:
            return
        self.tick()
        # Next sweep once the table has doubled: a spray of new addresses costs O(1) each.
        self._sweep_at = max(_SWEEP_AT, 2 * len(self._tallies))
        if len(self._tallies) >= _HARD_CAP:
            self._sweep_at = _SWEEP_AT
            dropped = sum(t.repeats for t in self._tallies.values())
            log_event(
                self._log,
                "refused_summary_dropped",
                level=logging.WARNING,
                addresses=len(self._tallies),
                count=dropped,
            )
            self._tallies.clear()

    def __len__(self) -> int:
        return len(self._tallies)


class RefusedSession(asyncssh.SSHServerSession[bytes]):
    """A session channel that only prints why its player cannot play now, then exits 1.

    For refusals made after login (server full, address full): unlike an auth banner or a
    disconnect reason, the channel shows Korean text the same way in every client.
    ``on_closed`` runs once the channel is gone (the server hangs up the connection).
    """

    def __init__(self, message: str, on_closed: Callable[[], None]) -> None:
        self._message = message
        self._on_closed = on_closed
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._newline = "\n"

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def pty_requested(self, term_type: str, term_size: Any, term_modes: Any) -> bool:
        self._newline = "\r\n"
        return True

    def shell_requested(self) -> bool:
        return True

    def session_started(self) -> None:
        if self._chan is not None:
            text = self._message.rstrip("\n").replace("\n", self._newline)
            self._chan.write((text + self._newline).encode())
            self._chan.exit(1)

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_closed()
