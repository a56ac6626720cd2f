"""The parent process of ``--workers N``: it makes the listening socket, starts the rooms
process (the hub) and N workers, restarts whichever dies, and stops them all on SIGTERM.

Why a parent that does nothing else: it must outlive what it restarts. A hub killed -9 is
started again at once and resumes every room from the journal, as a restart after kill -9 does;
the workers reconnect to it by themselves. A dead worker took only its own sessions (the hub
holds their seats for the reconnect grace) and is replaced, so the port keeps N acceptors.

The children are this same program (``python -m seotda_tui`` with the same arguments), told
their part by :data:`ROLE` and friends in their environment. The listening socket is made
here and inherited by every worker (so ``--port 0`` works and no worker binds the port alone);
the kernel hands each new connection to one of the workers waiting on it.

With ``metrics_port`` the parent also serves the metrics of them all (each child writes its own
to a folder in the parent's work folder, :mod:`seotda_tui.metrics`) and ``/healthz``: healthy
while the port is open, the rooms process listens and at least one worker runs.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import metrics
from ..config import Settings
from ..logs import log_event, log_listen_scope

log = logging.getLogger("seotda.cluster")

ROLE = "SEOTDA_CLUSTER_ROLE"  # "hub" | "worker"
SOCKET = "SEOTDA_CLUSTER_SOCKET"  # the hub's unix socket
WORKER = "SEOTDA_CLUSTER_WORKER"  # the worker's number, 0..N-1
LISTEN_FD = "SEOTDA_CLUSTER_FD"  # the inherited listening socket's descriptor
WEB_FD = "SEOTDA_CLUSTER_WEB_FD"  # the inherited browser listener's (with web_port)
RESTARTED = "SEOTDA_CLUSTER_RESTARTED"  # set for a hub that replaces one that died
#: Test-only: each worker also listens on 127.0.0.1:<this + its number> (0: a free port,
#: logged as ``worker_port``), so a test can choose which worker a client lands on.
OWN_PORTS = "SEOTDA_CLUSTER_OWN_PORTS"

SHUTDOWN_SECONDS = 10.0
_HUB_LAST = 1.2  # seconds of the shutdown budget kept for the hub, after the workers
_POLL = 0.1
_QUICK_DEATH = 5.0  # seconds: a child that dies sooner after its start waits before a restart
#: The parent's work folder in the system's temporary folder (``TMPDIR``): its pid, then
#: mkdtemp's random part, so a later start can tell whether its owner is still running.
WORKDIR_PREFIX = "seotda-cluster-"
_OWNED = re.compile(re.escape(WORKDIR_PREFIX) + r"(\d+)-[^/]+")
#: A socket in a folder that names no owner (made before the pid was in the name) is judged
#: stale only when it refuses connections and is older than this (a hub binds, then listens);
#: an owner's folder without a socket, when it has not changed for this long.
_QUIET_AGE = 60.0


class Supervisor:
    """Starts, watches and stops the hub and the workers (see the module docstring)."""

    def __init__(self, argv: Sequence[str], settings: Settings, environ: Mapping[str, str]) -> None:
        self.argv = list(argv)
        self.settings = settings
        self.environ = dict(environ)
        remove_stale_workdirs(Path(tempfile.gettempdir()))
        self.workdir = Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-"))
        self.socket_path = self.workdir / "hub.sock"
        self.listener = listening_socket(settings.host, settings.port)
        self.listener.set_inheritable(True)
        #: ``web_port``: the browser's listening socket, made here too and inherited likewise
        #: (every worker serves the page and its players' WebSockets, :mod:`seotda_tui.web`).
        self.web_listener: socket.socket | None = None
        if settings.web_port:
            web_host = settings.web_host if settings.web_host is not None else settings.host
            self.web_listener = listening_socket(web_host, settings.web_port)
            self.web_listener.set_inheritable(True)
        self.hub: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes] | None] = [None] * settings.workers
        self.stop = threading.Event()
        self.started: dict[str, float] = {}  # when each child was (re)started
        #: The children's metrics files (prometheus_client's multiprocess mode: set in their
        #: environment before they start; a variable the operator's own shell set is not used).
        self.metrics_dir: Path | None = None
        self.environ.pop(metrics.MULTIPROC_DIR, None)
        if settings.metrics_port:
            self.metrics_dir = metrics.fresh_multiprocess_dir(self.workdir / "metrics")
            self.environ[metrics.MULTIPROC_DIR] = str(self.metrics_dir)
        self.exporter: metrics.Exporter | None = None

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def workers_up(self) -> int:
        return sum(w is not None and w.poll() is None for w in self.workers)

    def rooms_up(self) -> bool:
        """The rooms process runs and listens (a restarted one: once it listens again)."""
        hub = self.hub
        return hub is not None and hub.poll() is None and self.socket_path.exists()

    def healthy(self) -> bool:
        """``/healthz``: the port is open, the rooms process is up and a worker accepts."""
        open_ = not self.stop.is_set() and self.listener.fileno() != -1
        return open_ and self.rooms_up() and self.workers_up() > 0

    def _serve_metrics(self) -> None:
        if self.metrics_dir is None:
            return
        registry = metrics.cluster_registry(self.metrics_dir, self.workers_up, self.rooms_up)
        self.exporter = metrics.Exporter(
            self.settings.metrics_host, self.settings.metrics_port, registry
        )
        self.exporter.healthy = self.healthy

    def _gone(self, child: subprocess.Popen[bytes]) -> None:
        """A child ended: its live gauges leave the sums (its counters stay)."""
        if self.metrics_dir is not None:
            metrics.process_gone(child.pid, self.metrics_dir)

    def _spawn(
        self, role: str, extra: Mapping[str, str], fds: tuple[int, ...] = ()
    ) -> subprocess.Popen[bytes]:
        env = self.environ | {ROLE: role, SOCKET: str(self.socket_path)} | dict(extra)
        # Its own session: a Ctrl-C at the terminal reaches only this parent, which stops the
        # children in order (sessions first, then the rooms).
        return subprocess.Popen(
            [sys.executable, "-m", "seotda_tui", *self.argv],
            env=env,
            pass_fds=fds,
            start_new_session=True,
        )

    def _start_hub(self) -> bool:
        """Start the hub and wait until it listens (it resumes the journal first); False if
        it exited (or SIGTERM came) before that."""
        self.socket_path.unlink(missing_ok=True)  # a hub killed -9 leaves it behind
        self.hub = self._spawn("hub", {RESTARTED: "1"} if "hub" in self.started else {})
        self.started["hub"] = time.monotonic()
        while self.hub.poll() is None and not self.stop.is_set():
            if self.socket_path.exists():
                return True
            time.sleep(0.02)
        return False

    def _start_worker(self, index: int) -> None:
        fd = self.listener.fileno()
        extra = {WORKER: str(index), LISTEN_FD: str(fd)}
        fds: tuple[int, ...] = (fd,)
        if self.web_listener is not None:
            extra[WEB_FD] = str(self.web_listener.fileno())
            fds += (self.web_listener.fileno(),)
        own = self.environ.get(OWN_PORTS)
        if own is not None:
            extra[OWN_PORTS] = str(int(own) + index) if int(own) else "0"
        self.workers[index] = self._spawn("worker", extra, fds=fds)
        self.started[f"worker{index}"] = time.monotonic()

    def _backoff(self, name: str) -> None:
        """A child that dies right after its start (a bug, a full disk) is not restarted in a
        tight loop: a second's pause first (SIGTERM still ends the wait)."""
        if time.monotonic() - self.started.get(name, 0.0) < _QUICK_DEATH:
            self.stop.wait(1.0)

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stop.set())
        log_event(
            log,
            "cluster_listening",
            addr=f"{self.settings.host}:{self.port}",
            workers=self.settings.workers,
        )
        log_listen_scope(self.settings.host, self.port, [self.listener.getsockname()])
        if self.web_listener is not None:
            web_host, web_port = self.web_listener.getsockname()[:2]
            log_event(log, "web_listening", addr=f"{web_host}:{web_port}")
        try:
            self._serve_metrics()
            if not self._start_hub():
                if not self.stop.is_set():
                    log_event(log, "startup_failed", level=logging.ERROR, reason="rooms_process")
                    return 1
                return 0
            for index in range(len(self.workers)):
                self._start_worker(index)
            while not self.stop.wait(_POLL):
                self._watch()
        finally:
            self._shutdown()
        return 0

    def _watch(self) -> None:
        """Restart whatever died (the hub first: the workers wait for it)."""
        if self.hub is not None and self.hub.poll() is not None:
            log_event(log, "hub_died", level=logging.WARNING, code=self.hub.returncode)
            self._gone(self.hub)
            self._backoff("hub")
            if not self.stop.is_set():
                self._start_hub()
        for index, worker in enumerate(self.workers):
            if worker is not None and worker.poll() is not None:
                log_event(
                    log, "worker_died", level=logging.WARNING, worker=index, code=worker.returncode
                )
                self._gone(worker)
                self._backoff(f"worker{index}")
                if not self.stop.is_set():
                    self._start_worker(index)

    def _shutdown(self) -> None:
        """SIGTERM the workers (each says goodbye to its players), then the hub; whatever is
        still running when the budget ends is killed."""
        began = time.monotonic()
        log_event(log, "signal", action="shutdown")
        workers = [w for w in self.workers if w is not None]
        for worker in workers:
            _signal(worker, signal.SIGTERM)
        workers_until = began + SHUTDOWN_SECONDS - _HUB_LAST
        for worker in workers:
            _wait(worker, workers_until)
        if self.hub is not None:
            _signal(self.hub, signal.SIGTERM)
            _wait(self.hub, began + SHUTDOWN_SECONDS - 0.3)
        for child in [*workers, self.hub]:
            if child is not None and child.poll() is None:
                child.kill()
                child.wait()
        if self.exporter is not None:
            self.exporter.close()
        self.listener.close()
        if self.web_listener is not None:
            self.web_listener.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        log_event(log, "stopped", seconds=round(time.monotonic() - began, 2))


def listening_socket(host: str, port: int) -> socket.socket:
    """The one socket every worker accepts on: ``host`` as one process would listen on it
    ("::" and "" also take IPv4 where the system allows both on one socket)."""
    if host in ("", "::") and socket.has_dualstack_ipv6():
        return socket.create_server(
            ("::", port), family=socket.AF_INET6, backlog=1024, dualstack_ipv6=True
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host or "0.0.0.0", port), family=family, backlog=1024)


def remove_stale_workdirs(tmp: Path) -> list[Path]:
    """Remove the work folders (and their ``hub.sock``) that a parent killed -9 left in ``tmp``;
    returns them.

    Why: nothing else removes them (the parent does, when it stops). A folder is stale when
    its owner (the pid in its name) is gone and its socket accepts no connection (or it has no
    socket and has not changed for a minute); one without a pid in its name, when its socket
    refuses connections and is old. Another running server's folder is never touched, nor
    anything in a folder but what a parent puts there.
    """
    removed = []
    try:
        candidates = sorted(tmp.glob(WORKDIR_PREFIX + "*"))
    except OSError:
        return []
    for folder in candidates:
        try:
            if folder.is_symlink() or not folder.is_dir() or folder.stat().st_uid != os.getuid():
                continue
            if not _stale(folder):
                continue
            (folder / "hub.sock").unlink(missing_ok=True)
            _remove_metrics_files(folder / "metrics")
            folder.rmdir()  # (fails, and keeps it, if anything else is in it)
        except OSError:
            continue
        removed.append(folder)
        log_event(log, "stale_workdir_removed", path=str(folder))
    return removed


def _remove_metrics_files(folder: Path) -> None:
    """The children's metrics files (``*.db``, :mod:`seotda_tui.metrics`), then their folder;
    anything else in it keeps it."""
    if folder.is_symlink() or not folder.is_dir():
        return
    for path in folder.glob("*.db"):
        if path.is_file() and not path.is_symlink():
            path.unlink(missing_ok=True)
    folder.rmdir()


def _stale(folder: Path) -> bool:
    owned = _OWNED.fullmatch(folder.name)
    if owned is not None and _alive(int(owned.group(1))):
        return False
    sock = folder / "hub.sock"
    try:
        info = sock.lstat()
    except FileNotFoundError:
        # An owner's folder whose hub removed its socket (or never made one); a hub being
        # restarted has just removed it, so only a folder left alone a while.
        return owned is not None and time.time() - folder.stat().st_mtime >= _QUIET_AGE
    if owned is None and time.time() - info.st_mtime < _QUIET_AGE:
        return False
    return not _accepts(sock)


def _alive(pid: int) -> bool:
    if pid == os.getpid():  # (a pid reused: this process has made no folder yet)
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _accepts(path: Path) -> bool:
    """Whether something listens on the unix socket ``path`` (a refusal or a non-socket: no)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError as exc:
        # (a listener whose backlog is full, or one slow to answer, is alive)
        return exc.errno in (errno.EAGAIN, errno.ETIMEDOUT) or isinstance(exc, TimeoutError)
    finally:
        probe.close()
    return True


def _signal(child: subprocess.Popen[bytes], sig: int) -> None:
    if child.poll() is None:
        try:
            child.send_signal(sig)
        except ProcessLookupError:
            pass


def _wait(child: subprocess.Popen[bytes], until: float) -> None:
    try:
        child.wait(max(0.0, until - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass


def inherited_listener(environ: Mapping[str, str]) -> socket.socket:
    """The worker's end of the parent's listening socket."""
    sock = socket.socket(fileno=int(environ[LISTEN_FD]))
    sock.setblocking(False)
    return sock


def inherited_web_listener(environ: Mapping[str, str]) -> socket.socket | None:
    """The worker's end of the parent's browser listener (None: no ``web_port``)."""
    if WEB_FD not in environ:
        return None
    sock = socket.socket(fileno=int(environ[WEB_FD]))
    sock.setblocking(False)
    return sock


def own_port(environ: Mapping[str, str]) -> int | None:
    raw = environ.get(OWN_PORTS)
    return int(raw) if raw is not None else None


async def exit_with_parent(every: float = 0.5, workdir: Path | None = None) -> None:
    """A child whose parent is gone (killed -9) shuts itself down as on SIGTERM, instead of
    holding the port and the journal with nobody to stop it. The rooms process passes the
    parent's ``workdir``: it removes its socket and the folder (if nothing else is in it),
    which the parent would have removed. (Its connections to the workers stay up meanwhile.)"""
    import asyncio

    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(every)
    log_event(log, "parent_gone", level=logging.WARNING)
    if workdir is not None:
        try:
            (workdir / "hub.sock").unlink(missing_ok=True)
            workdir.rmdir()
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGTERM)
