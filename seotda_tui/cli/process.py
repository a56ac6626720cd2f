"""What every serving process of ``seotda-server`` shares, whatever its role: the shutdown budget
(a signal, then the process gone within :data:`SHUTDOWN_SECONDS`, a watchdog thread ending it if
the event loop is too busy to), waiting for the signal, and the garbage collector's tuning, made
once at start-up."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import inspect
import logging
import os
import signal
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..logs import log_event
from ..ssh.server import ServerConfig, ServerHandle, start_server

if TYPE_CHECKING:
    from ..metrics import Exporter
    from ..web.server import WebServer

log = logging.getLogger("seotda")


Cleanup = Callable[[], Awaitable[None] | None]


#: The promise: SIGTERM → process gone within this many seconds, whatever the load.
SHUTDOWN_SECONDS = 10.0


# Kept back from the budget for what comes after the shutdown proper (the journal pruner
# stopping, asyncio.run's own teardown, the process exit, a loop busy when the signal came).
_EXIT_MARGIN = 1.0


# Kept back from the server's close for the cleanup (the room manager's close).
_CLEANUP_SLICE = 0.5


# When the watchdog ends the process if the polite shutdown has not (seconds after the signal).
_WATCHDOG_AT = SHUTDOWN_SECONDS - 0.5


_watchdog: threading.Timer | None = None


def arm_watchdog(seconds: float) -> None:
    """Exit (0, as for a finished shutdown) in ``seconds`` whatever the event loop is doing.

    A thread, because the case it is for is a loop too busy to keep its own deadlines: e.g.
    hundreds of apps ending at once on a slow shared CPU, each a queue of callbacks that the
    shutdown coroutine waits behind. Whatever is cut short then is no worse than a crash,
    which the journal and the store survive (SQLite transactions).
    """
    global _watchdog

    def overrun() -> None:
        log_event(log, "shutdown_overrun", level=logging.WARNING, seconds=SHUTDOWN_SECONDS)
        for handler in logging.getLogger().handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        os._exit(0)

    _watchdog = threading.Timer(seconds, overrun)
    _watchdog.daemon = True
    _watchdog.start()


def disarm_watchdog() -> None:
    global _watchdog
    if _watchdog is not None:
        _watchdog.cancel()
        _watchdog = None


def health_of(exporter: Exporter) -> Callable[[ServerHandle], None]:
    """``/healthz`` follows the server from just before its "listening" line (set after
    :func:`start_server` returned, a check in between got 503 from a server that said it
    listened: a third of the checks made the moment the line came out)."""

    def follow(handle: ServerHandle) -> None:
        exporter.healthy = handle.accepting

    return follow


async def start_web_listener(
    handle: ServerHandle, sock: socket.socket | None = None
) -> WebServer | None:
    """With ``web_port``: the browser's listener on the SSH listener's state (``sock``: a
    worker's inherited one). aiohttp is imported only then."""
    settings = handle.state.settings
    if not settings.web_port and sock is None:
        return None
    from ..web.server import start_web

    return await start_web(handle.state, sock)


async def serve_until_signal(
    config: ServerConfig,
    cleanup: Cleanup | None,
    exporter: Exporter | None = None,
    web_sock: socket.socket | None = None,
) -> None:
    if exporter is not None:  # (the rooms are in this process: up while it runs)
        config = dataclasses.replace(config, on_listening=health_of(exporter))
    handle = await start_server(config)
    try:
        web = await start_web_listener(handle, web_sock)
    except BaseException:
        await handle.close(timeout=1.0)
        raise
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[float] = loop.create_future()

    def on_signal() -> None:  # the budget starts when the signal arrives
        if not stop.done():
            stop.set_result(loop.time())

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    try:
        await stop
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        # One budget for every step below, counted from the signal.
        since = stop.result() if stop.done() and not stop.cancelled() else loop.time()
        arm_watchdog(max(0.0, since + _WATCHDOG_AT - loop.time()))
        deadline = since + SHUTDOWN_SECONDS - _EXIT_MARGIN
        log_event(log, "signal", action="shutdown")
        if web is not None:  # its sessions are the SSH listener's: closed with them
            await web.stop_accepting()
        await handle.close(timeout=max(0.0, deadline - _CLEANUP_SLICE - loop.time()))
        if web is not None:
            await web.close()
        if cleanup is not None:
            try:
                result = cleanup()
                if inspect.isawaitable(result):
                    await asyncio.wait_for(result, max(0.0, deadline - loop.time()))
            except Exception:
                log_event(log, "cleanup_error", level=logging.ERROR, exc_info=True)


async def until_signal() -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


#: Many Textual apps hold millions of objects; with CPython's default thresholds (700, 10, 10)
#: full collections ran every few seconds and froze the loop for every player for up to 1.9 s
#: (BENCHMARKS.md). A large last threshold makes full collections rare; the first two bound
#: the young generations (≤ 100 k objects), so a collection pauses everyone for ≤ ~0.17 s
#: (``(50_000, 20, …)`` let them reach 1 M objects and 0.6 s pauses, for the same total cost,
#: though with ~15–25 % less memory: shorter-lived cycles died young; BENCHMARKS.md).
#: This is the server process's own setting, made once at start-up, never per session.
#: What these thresholds leave to a full collection must not be garbage: a closed screen's
#: widgets are, in cycles Textual leaves, unless tuning's ``unlinked_nodes`` unlinks them
#: (help opened and closed 800 times by four sessions grew a server 322 MB → 3 GB; issue 30).
GC_THRESHOLDS = (10_000, 10, 1000)


#: Where ``unlinked_nodes`` cannot apply (a Textual release changed what it unlinks): a full
#: collection becomes due every ten generation-1 passes, and CPython runs it only once the old
#: generation has grown by a quarter since the last one. Closed screens are then freed at the
#: cost of those pauses (their length at 50–300 sessions: BENCHMARKS.md).
FALLBACK_GC_THRESHOLDS = (10_000, 10, 10)


def tune_garbage_collector(stock: bool = False) -> None:
    """Raise the thresholds, and move what start-up made (modules, classes, the parsed
    configuration — ~0.5 M objects that live as long as the process) out of the collected
    generations, so a full collection walks only the sessions' objects. ``stock``: the
    ``stock_textual`` setting (the tuning is installed here, first, to know which applies)."""
    from .. import tuning

    tuning.install(stock=stock)
    unlinked = tuning.enabled("unlinked_nodes")
    gc.set_threshold(*(GC_THRESHOLDS if unlinked else FALLBACK_GC_THRESHOLDS))
    gc.collect()
    gc.freeze()
