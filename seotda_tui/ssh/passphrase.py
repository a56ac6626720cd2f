"""Nickname passphrases: salted scrypt hashes, computed off the event loop.

scrypt is made to be slow and memory-hungry (here ~16 MiB and tens of ms per
hash). All players share one event loop, so hashing runs in a worker thread,
and at most :data:`CONCURRENCY` at a time: a flood of guesses then waits in
line (each connection is bounded by ``login_grace`` anyway) instead of
stalling the game or exhausting memory, and one address holds at most one
place in that line (:class:`Hasher`).

A stored hash is ``scrypt$<n>$<r>$<p>$<salt hex>$<hash hex>``: the parameters
travel with it, so they can be raised later without breaking old hashes.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
from collections.abc import Iterator
from contextlib import contextmanager

MIN_LENGTH = 8
MAX_LENGTH = 256  # longer answers are refused before any hashing
CONCURRENCY = 2

#: scrypt's (n, r, p) for new hashes. The test suite's fixture (tests/conftest.py) lowers it for
#: speed; a stored hash names its own, so verifying an older or cheaper one still works.
COST: tuple[int, int, int] = (2**14, 8, 1)
_SALT_BYTES = 16
_HASH_BYTES = 32
_MAXMEM = 64 * 1024 * 1024


def _scrypt(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        passphrase.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=_HASH_BYTES
    )


def hash_passphrase(passphrase: str) -> str:
    """A new salted hash of ``passphrase`` (blocking: call through :class:`Hasher`)."""
    salt = os.urandom(_SALT_BYTES)
    n, r, p = COST
    digest = _scrypt(passphrase, salt, n, r, p)
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def verify_passphrase(passphrase: str, stored: str) -> bool:
    """True if ``passphrase`` matches ``stored`` (blocking; constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = bytes.fromhex(digest)
        actual = _scrypt(passphrase, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError:
        return False  # a damaged row never lets anyone in
    return hmac.compare_digest(actual, expected)


class HashBusy(Exception):
    """The same address already has a hash waiting or running: this one is not queued."""


class Hasher:
    """Runs hashing in threads, at most ``concurrency`` at once (one per server).

    Each hash names its ``owner`` (the client's address, :func:`~.limits.address_key`), and an
    owner gets one hash at a time (:class:`HashBusy` for a second): a flood of guesses from
    many connections of one address takes one place in the line, so honest logins from other
    addresses wait behind at most one hash per address, not behind the whole flood.
    """

    def __init__(self, concurrency: int = CONCURRENCY) -> None:
        self._slots = asyncio.Semaphore(concurrency)
        self._owners: set[str] = set()  # those with a hash waiting or running

    @contextmanager
    def _turn(self, owner: str | None) -> Iterator[None]:
        if owner is not None:
            if owner in self._owners:
                raise HashBusy(owner)
            self._owners.add(owner)
        try:
            yield
        finally:
            self._owners.discard(owner or "")

    async def hash(self, passphrase: str, owner: str | None = None) -> str:
        with self._turn(owner):
            async with self._slots:
                return await asyncio.to_thread(hash_passphrase, passphrase)

    async def verify(self, passphrase: str, stored: str, owner: str | None = None) -> bool:
        if len(passphrase) > MAX_LENGTH:
            return False
        with self._turn(owner):
            async with self._slots:
                return await asyncio.to_thread(verify_passphrase, passphrase, stored)
