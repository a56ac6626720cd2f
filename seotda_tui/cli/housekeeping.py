"""What a serving process does beside its connections: the journal pruned and unused nicknames
freed, at start-up and hourly, in the process that keeps the rooms (the only one, or the rooms
process of ``--workers N``); and, with ``metrics_port``, the metrics listener and each process's
memory sampled (:mod:`seotda_tui.metrics`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from .. import clock
from ..config import Settings
from ..logs import log_event
from ..ssh.store import DB_NAME, NicknameStore
from .admin import forget_nickname, seated_games
from .data import journal_path

if TYPE_CHECKING:
    from ..metrics import Exporter

log = logging.getLogger("seotda")


#: How often the running server drops games finished more than ``journal_keep_days`` ago.
JOURNAL_PRUNE_SECONDS = 3600.0


@contextlib.asynccontextmanager
async def journal_pruning(
    settings: Settings, every: float = JOURNAL_PRUNE_SECONDS
) -> AsyncIterator[None]:
    """Prune the journal now (before anyone connects: a first big prune blocks nobody), then
    every ``every`` seconds until the server stops.

    Its own connection to the journal file, because the room manager's is out of reach here;
    both are only used from the event loop's thread, so their transactions never overlap.
    """
    if settings.journal_keep_days <= 0:
        yield
        return
    from seotda_tui.rooms.journal import Journal
    from seotda_tui.rooms.recording import prune_journal

    journal = Journal(journal_path(settings))
    prune_journal(journal, settings.journal_keep_days)

    try:
        async with clock.every(
            every, lambda: prune_journal(journal, settings.journal_keep_days), "journal-prune"
        ):
            yield
    finally:
        journal.close()


#: Names freed per sweep at most (the rest wait for the next hour): each opens the journal and
#: the records on the event loop's thread, ~4 ms a name (50: a 0.2 s pause at most, hourly).
EXPIRE_PER_SWEEP = 50


def expire_nicknames(settings: Settings) -> list[str]:
    """Free the names nobody used after the day they were registered, ``nickname_expiry_days``
    on (:meth:`NicknameStore.expired`), as ``--release-nickname`` does: their records and hand
    history go too, and one still seated in a running game waits. Each is logged."""
    if settings.nickname_expiry_days <= 0 or not (settings.data_dir / DB_NAME).exists():
        return []
    days = settings.nickname_expiry_days
    freed: list[str] = []
    try:
        store = NicknameStore(settings.data_dir)
        try:
            for nickname in store.expired(days, EXPIRE_PER_SWEEP):
                if seated_games(settings, nickname) or not store.release_expired(nickname, days):
                    continue
                games, results = forget_nickname(settings, nickname)
                log_event(
                    log, "name_expired", user=nickname, days=days, games=games, results=results
                )
                freed.append(nickname)
        finally:
            store.close()
    except sqlite3.Error as exc:  # housekeeping: the next sweep tries again
        log_event(log, "name_expiry_failed", level=logging.WARNING, error=str(exc))
    return freed


@contextlib.asynccontextmanager
async def nickname_expiry(
    settings: Settings, every: float = JOURNAL_PRUNE_SECONDS
) -> AsyncIterator[None]:
    """:func:`expire_nicknames` now and every ``every`` seconds until the server stops (in the
    process that keeps the rooms: the only one, or the rooms process of ``--workers N``)."""
    if settings.nickname_expiry_days <= 0:
        yield
        return
    expire_nicknames(settings)

    async def hourly() -> None:
        while True:
            await asyncio.sleep(every)
            expire_nicknames(settings)

    task = asyncio.create_task(hourly(), name="nickname-expiry")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def metrics_exporter(settings: Settings) -> Exporter | None:
    """One process's metrics listener (unhealthy until its SSH listener is up), if asked for."""
    if not settings.metrics_port:
        return None
    from ..metrics import Exporter

    return Exporter(settings.metrics_host, settings.metrics_port)


def memory_sampling(
    settings: Settings, process: str
) -> contextlib.AbstractAsyncContextManager[None]:
    """The process's resident memory for the metrics (only when they are served)."""
    if not settings.metrics_port:
        return contextlib.nullcontext()
    from ..metrics import memory_sampling as sampling

    return sampling(process)
