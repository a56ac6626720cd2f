"""The single process (the default, no ``--workers``): the one room manager, chat and set of
limits, and every player's SSH session and Textual app, in one event loop."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import TextIO

from ..config import Settings
from ..dbcheck import DataFileProblem
from ..logs import log_event
from ..ssh.hostkey import HostKeyError
from ..ssh.server import ServerConfig
from ..ssh.state import AppFactory
from .data import DataFileError, build_manager, unopenable_message
from .housekeeping import journal_pruning, memory_sampling, metrics_exporter, nickname_expiry
from .process import (
    Cleanup,
    disarm_watchdog,
    serve_until_signal,
    tune_garbage_collector,
)

log = logging.getLogger("seotda")


def build_app_factory(settings: Settings) -> tuple[AppFactory, Cleanup]:
    """The real game: one RoomManager shared by every player's SeotdaApp.

    The manager gets ``reconnect_grace`` and ``room_defaults``, the apps the ``motd``
    (and they register the idle-exempt hook themselves, see ``app.make_app_factory``).
    Returns the factory and the manager's ``close``, run after the last session ended at
    shutdown.
    """
    from seotda_tui.ui.app import make_app_factory

    manager = build_manager(settings)
    factory = make_app_factory(manager, motd=settings.motd)
    return factory, manager.close


async def serve(config: ServerConfig, cleanup: Cleanup | None = None) -> None:
    """Run until SIGINT/SIGTERM, then shut down politely (within ``SHUTDOWN_SECONDS``).

    Meanwhile the game journal is pruned and unused nicknames expire, at start-up and hourly
    (see :func:`journal_pruning`, :func:`nickname_expiry`), and with ``metrics_port`` the
    metrics and ``/healthz`` are served (:mod:`seotda_tui.metrics`).
    """
    settings = config.settings
    exporter = metrics_exporter(settings)
    try:
        async with (
            journal_pruning(settings),
            nickname_expiry(settings),
            memory_sampling(settings, "main"),
        ):
            await serve_until_signal(config, cleanup, exporter)
    finally:
        if exporter is not None:
            exporter.close()


def run_single(settings: Settings, real_stderr: TextIO) -> int:
    """The single process: the game built, the GC tuned, served until a signal; the exit code
    (1 or 2 with one line said when it cannot start)."""
    try:
        factory, cleanup = build_app_factory(settings)
    except ImportError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="app_missing", error=str(exc))
        return 2
    except DataFileError as exc:  # e.g. a full disk or a read-only data dir
        print(unopenable_message(exc.path, exc.cause), file=real_stderr)
        return 1
    config = ServerConfig(app_factory=factory, settings=settings)
    tune_garbage_collector(settings.stock_textual)
    try:
        asyncio.run(serve(config, cleanup))
    except HostKeyError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="hostkey", error=str(exc))
        return 1
    except (sqlite3.Error, DataFileProblem) as exc:  # the nickname store could not be opened
        from seotda_tui.ssh.store import DB_NAME

        print(unopenable_message(settings.data_dir / DB_NAME, exc), file=real_stderr)
        return 1
    except (OSError, ValueError) as exc:  # port in use, unreadable --authorized-keys, ...
        log_event(log, "startup_failed", level=logging.ERROR, reason="error", error=str(exc))
        return 1
    finally:
        disarm_watchdog()  # only now: it also covers asyncio.run's own teardown
    return 0
