"""Passphrase guessing against one nickname, from any number of addresses.

The auth jail (:class:`~.limits.AuthJail`) counts failures per address, so an attacker with
many addresses could guess at one nickname as fast as the hash line allows. :class:`NameGuard`
counts wrong passphrases per nickname too: ``name_failures`` of them within
``name_lock_seconds`` lock the name's keyless logins for ``name_lock_seconds`` (refused before
any hashing, with the time it opens again).

A lock must not hand the attacker the owner's name: an address that logged in as that name
(its passphrase right) since the server started is let through a lock (it still has its own
address jail), and a key-held name asks no passphrase at all. What is remembered is bounded:
a few addresses per name, and the tables are cleared past a hard cap (failing open).
"""

from __future__ import annotations

from ..clock import LOOP_CLOCK
from .limits import AuthJail, Clock, address_key

_ADDRESSES_PER_NAME = 4  # the last few addresses each name logged in from
_HARD_CAP = 100_000


class NameGuard:
    """Wrong passphrases per nickname, and the addresses each nickname logged in from."""

    def __init__(self, failures: int, seconds: float, clock: Clock = LOOP_CLOCK) -> None:
        self.failures = failures
        self.seconds = seconds
        # The jail's table keyed by name (prefixed: a nickname never reads as an address).
        self._jail = AuthJail(failures, seconds, clock)
        self._known: dict[str, list[str]] = {}

    def locked(self, nickname: str, ip: str) -> float:
        """Seconds until ``nickname`` opens for a keyless login from ``ip`` (0.0: now)."""
        if address_key(ip) in self._known.get(nickname, ()):
            return 0.0
        return self._jail.remaining(_key(nickname))

    def failure(self, nickname: str) -> bool:
        """A wrong passphrase for ``nickname``; True if it has just locked the name."""
        return self._jail.failure(_key(nickname))

    def success(self, nickname: str, ip: str) -> None:
        """``ip`` proved ``nickname``: it gets through the name's locks from now on."""
        if len(self._known) >= _HARD_CAP:
            self._known.clear()
        known = self._known.setdefault(nickname, [])
        key = address_key(ip)
        if key in known:
            known.remove(key)
        known.append(key)
        del known[:-_ADDRESSES_PER_NAME]

    def lock(self, nickname: str, seconds: float) -> None:
        """Lock ``nickname`` for ``seconds``: with ``--workers N``, a lock the rooms process
        made, held by each worker too."""
        self._jail.restore({}, {_key(nickname): seconds})

    def held(self) -> tuple[dict[str, list[float]], dict[str, float], dict[str, list[str]]]:
        """What it remembers (failures, locks, each name's addresses), for a restarted rooms
        process of ``--workers N`` (:meth:`restore`)."""
        failures, locks = self._jail.held()
        return failures, locks, {name: list(keys) for name, keys in self._known.items()}

    def restore(
        self,
        failures: dict[str, list[float]],
        locks: dict[str, float],
        known: dict[str, list[str]],
    ) -> None:
        """Add what :meth:`held` gave (several workers' add up)."""
        self._jail.restore(failures, locks)
        for name, keys in known.items():
            for key in keys:
                self.success(name, key)


def _key(nickname: str) -> str:
    return "name:" + nickname
