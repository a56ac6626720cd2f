"""Rate limits and the auth-failure jail, on an injectable clock (no sleeping in tests).

* :class:`TokenBucket` — ``rate`` tokens per second, at most ``burst`` saved up.
* :class:`ConnectLimiter` — one bucket per client address: new connections per second.
* :class:`AuthJail` — too many failed logins from one address → refused for a while.
* :class:`InputLimiter` — bytes per second a session may type; the excess is dropped.

Addresses are grouped by :func:`address_key`: an IPv4 address is itself, an IPv6 address counts
as its /64 (one home or one VPS usually owns a whole /64, so per-address limits would be
trivial to dodge otherwise).

All of this runs on the event loop thread; nothing here is thread-safe, nor needs to be.
"""

from __future__ import annotations

from collections import Counter, deque

# (a shared leaf now: the rooms' limits count addresses the same way)
from ..addresses import address_key as address_key
from ..clock import LOOP_CLOCK
from ..clock import Clock as Clock

# Per-address tables are swept of stale entries once they grow past this many,
# and cleared outright past the hard cap (failing open beats running out of memory).
_SWEEP_AT = 1024
_HARD_CAP = 100_000

_PASTE_END = b"\x1b[201~"


class TokenBucket:
    """The classic token bucket: starts full, refills continuously at ``rate`` per second."""

    __slots__ = ("_clock", "_stamp", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: float, clock: Clock = LOOP_CLOCK) -> None:
        self.rate = float(rate)
        self.burst = float(burst)
        self._clock = clock
        self._tokens = self.burst
        self._stamp = clock.time()

    def _refill(self) -> float:
        now = self._clock.time()
        if now > self._stamp:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        return self._tokens

    @property
    def tokens(self) -> float:
        return self._refill()

    def take(self, n: float = 1.0) -> bool:
        """Spend ``n`` tokens if there are that many; otherwise spend nothing."""
        if self._refill() >= n:
            self._tokens -= n
            return True
        return False


class ConnectLimiter:
    """New connections per address: ``rate`` per second with bursts of ``burst`` (rate 0 = off)."""

    def __init__(self, rate: float, burst: int, clock: Clock = LOOP_CLOCK) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def allow(self, ip: str) -> bool:
        if self.rate <= 0:
            return True
        key = address_key(ip)
        bucket = self._buckets.get(key)
        if bucket is None:
            self._sweep()
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self._clock)
        return bucket.take()

    def _sweep(self) -> None:
        if len(self._buckets) < _SWEEP_AT:
            return
        # A full bucket remembers nothing a fresh one wouldn't.
        self._buckets = {k: b for k, b in self._buckets.items() if b.tokens < b.burst}
        if len(self._buckets) >= _HARD_CAP:
            self._buckets.clear()

    def __len__(self) -> int:
        return len(self._buckets)


class AuthJail:
    """``max_failures`` failed logins within ``seconds`` → the address is refused for ``seconds``.

    ``seconds = 0`` turns the jail off. A failure while jailed does not extend the sentence.
    """

    def __init__(self, max_failures: int, seconds: float, clock: Clock = LOOP_CLOCK) -> None:
        self.max_failures = max_failures
        self.seconds = seconds
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._until: dict[str, float] = {}

    def remaining(self, ip: str) -> float:
        """Seconds of jail left for ``ip`` (0.0 when it may connect)."""
        key = address_key(ip)
        until = self._until.get(key)
        if until is None:
            return 0.0
        left = until - self._clock.time()
        if left <= 0:
            del self._until[key]
            return 0.0
        return left

    def failure(self, ip: str) -> bool:
        """Record one failed login; True if it just sent ``ip`` to jail."""
        if self.seconds <= 0 or self.remaining(ip) > 0:
            return False
        key = address_key(ip)
        now = self._clock.time()
        times = self._failures.get(key)
        if times is None:
            self._sweep(now)
            times = self._failures[key] = deque()
        while times and times[0] <= now - self.seconds:
            times.popleft()
        times.append(now)
        if len(times) < self.max_failures:
            return False
        del self._failures[key]
        self._until[key] = now + self.seconds
        return True

    def _sweep(self, now: float) -> None:
        if len(self._failures) >= _SWEEP_AT:
            horizon = now - self.seconds
            self._failures = {k: d for k, d in self._failures.items() if d and d[-1] > horizon}
        if len(self._until) >= _SWEEP_AT:
            self._until = {k: t for k, t in self._until.items() if t > now}
        if len(self._failures) >= _HARD_CAP:
            self._failures.clear()
        if len(self._until) >= _HARD_CAP:
            self._until.clear()

    def held(self) -> tuple[dict[str, list[float]], dict[str, float]]:
        """Each address's counted failures (their ages in seconds) and jail seconds left: what a
        restarted rooms process of ``--workers N`` is told again (:meth:`restore`)."""
        now = self._clock.time()
        failures = {
            key: [now - t for t in times if t > now - self.seconds]
            for key, times in self._failures.items()
        }
        jailed = {key: until - now for key, until in self._until.items() if until > now}
        return {key: ages for key, ages in failures.items() if ages}, jailed

    def restore(self, failures: dict[str, list[float]], jailed: dict[str, float]) -> None:
        """Add what :meth:`held` gave (several workers' failures add up; a jail keeps its
        latest end). Jails nobody by itself: the next failure counts as usual."""
        now = self._clock.time()
        for key, ages in failures.items():
            times = [now - age for age in ages if 0 <= age < self.seconds]
            if times:
                merged = sorted([*self._failures.get(address_key(key), ()), *times])
                self._failures[address_key(key)] = deque(merged)
        for key, left in jailed.items():
            if left > 0:
                until = now + min(left, self.seconds)
                self._until[address_key(key)] = max(self._until.get(address_key(key), 0.0), until)
        self._sweep(now)

    def failures(self, ip: str) -> int:
        """Failures currently counted against ``ip`` (for tests and logs)."""
        times = self._failures.get(address_key(ip))
        return len(times) if times else 0


class InputLimiter:
    """Caps what one session may type: ``rate`` bytes/s, bursts of ``burst`` bytes.

    Each chunk the client sent (one SSH data message: usually one key, one mouse report,
    or a piece of a paste) is delivered whole or dropped whole, so escape sequences are
    not cut in half into stray characters. Dropped input is never queued: a huge paste
    costs the server almost nothing. One exception: the end-of-bracketed-paste marker is
    passed on even from dropped data, otherwise the terminal parser would stay in paste
    mode and swallow every later key.
    """

    def __init__(self, rate: float, burst: int, clock: Clock = LOOP_CLOCK) -> None:
        self._bucket = TokenBucket(rate, burst, clock)
        self._tail = b""  # end of the last dropped chunk, for a marker split across chunks
        self.dropped = 0

    def admit(self, data: bytes) -> bytes:
        """``data`` if the budget allows it, else b"" (or just a paste-end marker)."""
        if self._bucket.take(len(data)):
            tail, self._tail = self._tail, b""
            if tail:  # a marker may have started in the dropped chunk before this one
                joined = tail + data
                start = joined.find(_PASTE_END)
                if 0 <= start < len(tail):
                    return joined[start:]
            return data
        self.dropped += len(data)
        window = self._tail + data
        self._tail = window[-(len(_PASTE_END) - 1) :]
        if _PASTE_END in window:
            self._tail = b""
            return _PASTE_END
        return b""


class SessionCounts:
    """Logins counted against ``max_sessions`` and ``max_sessions_per_ip``: one process's own
    (``LocalLimits``) and the hub's for every worker (``GlobalLimits``) count alike."""

    max_sessions: int
    max_sessions_per_ip: int
    admitted: int  # logins counted
    per_address: Counter[str]  # by address_key

    def admit(self, ip: str) -> str | None:
        """Why a login from ``ip`` may not play (``server_full``, ``ip_full``), else it is
        counted."""
        key = address_key(ip)
        if self.admitted >= self.max_sessions:
            return "server_full"
        if self.per_address[key] >= self.max_sessions_per_ip:
            return "ip_full"
        self.count(ip)
        return None

    def count(self, ip: str) -> None:
        """Counted, never refused (a session a worker already holds, told to a restarted hub)."""
        self.admitted += 1
        self.per_address[address_key(ip)] += 1

    def release(self, ip: str) -> None:
        key = address_key(ip)
        if self.per_address[key] <= 0:
            return
        self.admitted -= 1
        self.per_address[key] -= 1
        if self.per_address[key] <= 0:
            del self.per_address[key]
