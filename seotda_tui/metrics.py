"""The server's Prometheus metrics (``metrics_port``) and its ``/healthz`` answer.

Every layer counts here, so this is a leaf that imports no layer: the SSH layer its sessions
and logins, the rooms their states, the players' actions and the journal's writes, the UI the
time from a player's key to the frame that shows what it did. Counting is always on (a few
microseconds an action, BENCHMARKS.md "Metrics"); only the HTTP listener is optional.

With ``--workers N`` the sessions live in the workers and the rooms in the rooms process: each
of them writes its numbers to files in a folder private to that server (prometheus_client's
multiprocess mode, chosen by :data:`MULTIPROC_DIR` in their environment, which the parent sets
before it starts any of them), and the parent's listener serves their sum.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

from . import clock
from .logs import log_event

log = logging.getLogger("seotda.metrics")

#: prometheus_client's switch to its multiprocess mode, read when it is first imported.
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"

SESSIONS = Gauge(
    "seotda_sessions",
    "SSH game sessions open now (a player's app running).",
    multiprocess_mode="livesum",
)
ROOMS = Gauge(
    "seotda_rooms",
    "Rooms open now, by state (a paused room waits for its journal to be writable again).",
    ["state"],
    multiprocess_mode="livesum",
)
ACTIONS = Counter(
    "seotda_actions",
    "Players' game actions (bets, card choices, ready...), by kind and whether the game took it.",
    ["kind", "outcome"],
)
ACTION_LATENCY = Histogram(
    "seotda_action_latency_seconds",
    "From a player's key to the first frame written to their terminal after the room's"
    " answer to it (seconds).",
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)
LOGINS = Counter(
    "seotda_logins",
    "Logins by outcome: accepted (a game session), refused (see seotda_login_refusals_total),"
    " failed (a wrong password, passphrase or key: each try).",
    ["outcome"],
)
LOGIN_REFUSALS = Counter(
    "seotda_login_refusals",
    "Connections and logins refused, by reason (the log's refused reason=...).",
    ["reason"],
)
JOURNAL_WRITE = Histogram(
    "seotda_journal_write_seconds",
    "One journal transaction, committed to disk (synchronous=FULL), in seconds.",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
)
MEMORY = Gauge(
    "seotda_process_resident_memory_bytes",
    "Resident memory of each server process (main; with --workers: rooms, worker0...).",
    ["process"],
    multiprocess_mode="liveall",
)

for _outcome in ("accepted", "refused", "failed"):  # each from 0, so rate() has a start
    LOGINS.labels(outcome=_outcome)

#: How often each process samples its own resident memory.
MEMORY_SAMPLE_SECONDS = 5.0


# -- what the layers count ---------------------------------------------------------------------


def action(kind: str, applied: bool) -> None:
    ACTIONS.labels(kind=kind, outcome="applied" if applied else "refused").inc()


def login(outcome: str) -> None:
    LOGINS.labels(outcome=outcome).inc()


def login_refused(reason: str) -> None:
    LOGINS.labels(outcome="refused").inc()
    LOGIN_REFUSALS.labels(reason=reason).inc()


def rooms(by_state: Mapping[str, int]) -> None:
    """Every state the caller knows, zeros included (a graph then has no gaps)."""
    for state, count in by_state.items():
        ROOMS.labels(state=state).set(count)


@contextlib.contextmanager
def journal_write() -> Iterator[None]:
    started = time.monotonic()
    try:
        yield
    finally:
        JOURNAL_WRITE.observe(time.monotonic() - started)


class ActionLatency:
    """One session's key → screen timing: the driver says when input arrives (:meth:`key`) and
    when a frame is written (:meth:`written`); the table says when it sends an action
    (:meth:`sent`, the last key's time is where it starts) and when the room's answer is being
    drawn (:meth:`drawn`): the next frame written is the one that shows it."""

    __slots__ = ("_key", "_sent", "due")

    def __init__(self) -> None:
        self._key: float | None = None
        self._sent: float | None = None
        self.due = False  # a drawn answer waits for its frame to be written

    def key(self) -> None:
        self._key = time.monotonic()

    def sent(self) -> None:
        self._sent = self._key if self._key is not None else time.monotonic()
        self.due = False

    def refused(self) -> None:
        """The room refused the action: there is no answer to wait for."""
        self._sent = None
        self.due = False

    def drawn(self) -> None:
        if self._sent is not None:
            self.due = True

    def written(self) -> None:
        if self.due and self._sent is not None:
            ACTION_LATENCY.observe(time.monotonic() - self._sent)
        self._sent = None
        self.due = False


# -- resident memory -----------------------------------------------------------------------------


def resident_bytes() -> int | None:
    """This process's resident set size (Linux ``/proc``), None elsewhere."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextlib.asynccontextmanager
async def memory_sampling(
    process: str, every: float = MEMORY_SAMPLE_SECONDS
) -> AsyncIterator[None]:
    """Keep ``seotda_process_resident_memory_bytes{process=...}`` current while the block runs
    (each process its own: in multiprocess mode no process can read another's)."""
    gauge = MEMORY.labels(process=process)

    def sample() -> None:
        rss = resident_bytes()
        if rss is not None:
            gauge.set(rss)

    async with clock.every(every, sample, "memory-sampling", first=True):
        yield


# -- what is served ------------------------------------------------------------------------------


class _Up(Collector):
    """``seotda_workers_up`` and ``seotda_rooms_process_up``, asked of their owner at each scrape."""

    def __init__(self, workers_up: Callable[[], int], rooms_up: Callable[[], bool]) -> None:
        self.workers_up, self.rooms_up = workers_up, rooms_up

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "seotda_workers_up",
            "Processes running SSH sessions (1 without --workers).",
            value=self.workers_up(),
        )
        yield GaugeMetricFamily(
            "seotda_rooms_process_up",
            "1 while the process that keeps the rooms is running and listening.",
            value=int(self.rooms_up()),
        )


class _Process(Collector):
    """The default registry (this process's metrics and the library's process_* ones) and
    :class:`_Up`, without registering anything in the process-wide registry."""

    def __init__(self, up: _Up) -> None:
        self.up = up

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()
        yield from self.up.collect()


def single_registry(healthy: Callable[[], bool]) -> CollectorRegistry:
    """What one process serves: its own metrics (the rooms are in it)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Process(_Up(lambda: int(healthy()), healthy)))
    return registry


def cluster_registry(
    path: Path, workers_up: Callable[[], int], rooms_up: Callable[[], bool]
) -> CollectorRegistry:
    """What the parent of ``--workers N`` serves: every child's files in ``path`` summed (a
    gauge of sessions summed over the live workers), who is up, and the parent's own process."""
    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=str(path))  # type: ignore[no-untyped-call]
    registry.register(_Up(workers_up, rooms_up))
    ProcessCollector(registry=registry)
    return registry


def fresh_multiprocess_dir(path: Path) -> Path:
    """``path``, empty (a dead server's files would be summed with the new one's)."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(mode=0o700, parents=True)
    return path


def process_gone(pid: int, path: Path) -> None:
    """A child that ended: its live gauges (sessions, rooms, memory) stop counting; its
    counters and histograms stay in the sums, so they never go backwards."""
    with contextlib.suppress(OSError):
        mark_process_dead(pid, str(path))  # type: ignore[no-untyped-call]


class Exporter:
    """``GET /metrics`` (Prometheus text) and ``GET /healthz`` (200 ``ok`` while ``healthy()``,
    else 503) on ``host:port``, served from a thread of its own: a scrape never waits for the
    event loop (which may be busy painting hundreds of screens) and never makes it wait."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry | None = None) -> None:
        """``registry``: what ``/metrics`` serves (by default this one process's)."""
        #: What ``/healthz`` asks: False until the owner says how to tell (its listener is up).
        self.healthy: Callable[[], bool] = lambda: False
        self.registry = registry if registry is not None else single_registry(self.is_healthy)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server_class = type("_Server", (ThreadingHTTPServer,), {"address_family": family})
        self._server: ThreadingHTTPServer = server_class((host, port), _handler(self))
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics", daemon=True
        )
        self._thread.start()
        log_event(log, "metrics_listening", addr=f"{host}:{self.port}")

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def is_healthy(self) -> bool:
        try:
            return bool(self.healthy())
        except Exception:  # (a child being reaped as it is asked about)
            return False

    def answer(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a GET of ``path``."""
        if path == "/metrics":
            return 200, CONTENT_TYPE_LATEST, generate_latest(self.registry)
        if path == "/healthz":
            if self.is_healthy():
                return 200, "text/plain", b"ok\n"
            return 503, "text/plain", b"unavailable\n"
        return 404, "text/plain", b"not found: /metrics or /healthz\n"


def _handler(exporter: Exporter) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10  # seconds for a client to send its request
        server_version = "seotda-metrics"

        def do_GET(self) -> None:
            try:
                status, kind, body = exporter.answer(self.path.split("?", 1)[0])
            except Exception:
                log_event(log, "metrics_error", level=logging.ERROR, exc_info=True)
                status, kind, body = 500, "text/plain", b"error\n"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_HEAD = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a scrape every 15 s is not news."""

    return Handler
