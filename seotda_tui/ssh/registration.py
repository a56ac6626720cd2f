"""New nicknames: at most ``registrations_per_ip`` an hour from one address, each one logged.

A nickname is registered by its first login (a key bound to it, or a passphrase set), and each
registered name also blocks its look-alikes: without a limit one client could squat hundreds
of names in seconds. :class:`Registrations` keeps a token bucket per address (IPv6 by /64):
``per_hour`` names at once, then one every ``3600 / per_hour`` seconds. It is checked before
anything is hashed or written (:meth:`allowed`) and spent when a name is really registered
(:meth:`registered`, which also writes ``event=registered``). Names nobody comes back to are
freed later (``nickname_expiry_days``, :meth:`~.store.NicknameStore.expire`).
"""

from __future__ import annotations

import logging

from ..clock import LOOP_CLOCK
from ..logs import log_event
from .limits import Clock, TokenBucket, address_key

log = logging.getLogger("seotda.auth")

# Like limits.py's tables: swept of full buckets past this size, cleared past the hard cap.
_SWEEP_AT = 1024
_HARD_CAP = 100_000


class Registrations:
    """New nicknames per address per hour (``per_hour`` 0: unlimited, still logged)."""

    def __init__(self, per_hour: int, clock: Clock = LOOP_CLOCK) -> None:
        self.per_hour = per_hour
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def allowed(self, ip: str) -> bool:
        """Whether ``ip`` may register a name now (spends nothing)."""
        if self.per_hour <= 0:
            return True
        bucket = self._buckets.get(address_key(ip))
        return bucket is None or bucket.tokens >= 1

    def registered(self, nickname: str, ip: str, credential: str) -> None:
        """``ip`` has just registered ``nickname`` (held by a ``key`` or a ``passphrase``)."""
        log_event(log, "registered", user=nickname, ip=ip, credential=credential)
        if self.per_hour <= 0:
            return
        key = address_key(ip)
        bucket = self._buckets.get(key)
        if bucket is None:
            self._sweep()
            bucket = self._buckets[key] = TokenBucket(
                self.per_hour / 3600, self.per_hour, self._clock
            )
        bucket.take()

    def held(self) -> dict[str, float]:
        """Names each address has spent from its bucket (not yet refilled): with ``--workers
        N``, what a worker tells a restarted rooms process (:meth:`restore`)."""
        return {key: b.burst - b.tokens for key, b in self._buckets.items() if b.tokens < b.burst}

    def restore(self, spent: dict[str, float]) -> None:
        """Spend what :meth:`held` gave (several workers' add up), logging nothing: the names
        were logged where they were registered."""
        if self.per_hour <= 0:
            return
        for ip, n in spent.items():
            key = address_key(ip)
            bucket = self._buckets.get(key)
            if bucket is None:
                self._sweep()
                bucket = self._buckets[key] = TokenBucket(
                    self.per_hour / 3600, self.per_hour, self._clock
                )
            bucket.take(min(float(n), bucket.tokens))

    def _sweep(self) -> None:
        if len(self._buckets) < _SWEEP_AT:
            return
        self._buckets = {k: b for k, b in self._buckets.items() if b.tokens < b.burst}
        if len(self._buckets) >= _HARD_CAP:
            self._buckets.clear()
