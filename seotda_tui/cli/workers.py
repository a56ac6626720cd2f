"""``--workers N``: this process is the parent (:class:`~seotda_tui.cluster.supervisor.Supervisor`,
which starts the others), the rooms process (:func:`run_hub`: the one room manager, chat, global
limits and housekeeping) or a worker (:func:`run_worker`: SSH sessions and their apps, the rooms at
the rooms process), as the parent said in the environment. :mod:`seotda_tui.cluster` is imported
only here, and only when called: one process never loads it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from ..config import Settings
from ..logs import log_event
from ..ssh.hostkey import HostKeyError
from ..ssh.server import ServerConfig
from .data import (
    DataFileError,
    build_manager,
    journal_path,
    open_records,
    opened,
    records_path,
    unopenable_message,
)
from .housekeeping import journal_pruning, memory_sampling, nickname_expiry
from .process import disarm_watchdog, serve_until_signal, tune_garbage_collector, until_signal

log = logging.getLogger("seotda")


def cluster_main(
    argv: list[str], settings: Settings, env: Mapping[str, str], real_stderr: TextIO
) -> int:
    """``--workers N``: this process is the parent, the rooms process or a worker
    (:mod:`seotda_tui.cluster`), as the parent said in the environment."""
    from ..cluster.supervisor import ROLE, Supervisor

    role = env.get(ROLE)
    try:
        if role == "hub":
            return run_hub(settings, env)
        if role == "worker":
            return run_worker(settings, env)
        from ..ssh.hostkey import load_or_create_host_key

        load_or_create_host_key(settings.hostkey_dir)  # once, before the workers read it
        return Supervisor(argv, settings, env).run()
    except DataFileError as exc:
        print(unopenable_message(exc.path, exc.cause), file=real_stderr)
        return 1
    except HostKeyError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="hostkey", error=str(exc))
        return 1
    except (OSError, ValueError) as exc:  # port in use, no hub, ...
        log_event(log, "startup_failed", level=logging.ERROR, reason="error", error=str(exc))
        return 1
    finally:
        disarm_watchdog()


def run_hub(settings: Settings, env: Mapping[str, str]) -> int:
    """The rooms process: the manager, the chat, the global limits and the journal pruning."""

    from ..cluster.hub import GlobalLimits, Hub
    from ..cluster.supervisor import RESTARTED, SOCKET, exit_with_parent
    from ..rooms.chat import ChatHub
    from ..ssh.admission import PendingLogins
    from ..ssh.guessing import NameGuard
    from ..ssh.limits import AuthJail, ConnectLimiter
    from ..ssh.registration import Registrations

    manager = build_manager(settings)
    progress: dict[object, int] = {}  # how far each worker's pending login got, as it reported
    limits = GlobalLimits(
        settings.max_sessions,
        settings.max_sessions_per_ip,
        AuthJail(settings.auth_failures, settings.auth_jail_seconds, manager.clock),
        ConnectLimiter(settings.connect_rate, settings.connect_burst, manager.clock),
        PendingLogins(
            settings.max_pending_logins_per_ip,
            settings.max_pending_logins,
            lambda key: progress.get(key, 0),
        ),
        names=NameGuard(settings.name_failures, settings.name_lock_seconds, manager.clock),
        registrations=Registrations(settings.registrations_per_ip, manager.clock),
        progress=progress,
    )
    # (a restarted one waits for every worker to say what it holds before admitting logins)
    restarted_with = settings.workers if RESTARTED in env else 0
    hub = Hub(manager, ChatHub(clock=manager.clock), limits, restarted_with=restarted_with)

    async def serve_hub() -> None:
        orphaned = asyncio.create_task(exit_with_parent(workdir=Path(env[SOCKET]).parent))
        async with (
            journal_pruning(settings),
            nickname_expiry(settings),
            memory_sampling(settings, "rooms"),
        ):
            manager.subscribe_lobby(lambda _rooms: None)()  # in the loop: arms resumed rooms
            await hub.listen(Path(env[SOCKET]))
            await until_signal()
            await hub.close()
        orphaned.cancel()

    try:
        asyncio.run(serve_hub())
    finally:
        manager.close()
    return 0


def run_worker(settings: Settings, env: Mapping[str, str]) -> int:
    """A worker: SSH sessions and their apps on the inherited socket (and browser sessions on
    the inherited web one, with ``web_port``), rooms at the hub."""
    from ..cluster.link import HubLink
    from ..cluster.remote import RemoteChat, RemoteRoomManager
    from ..cluster.supervisor import (
        SOCKET,
        WORKER,
        exit_with_parent,
        inherited_listener,
        inherited_web_listener,
        own_port,
    )
    from ..cluster.worker_limits import ClusterRegistry, RemoteLimits
    from ..rooms.history import GameHistory
    from ..rooms.journal import Journal
    from ..ui.app import make_app_factory

    link = HubLink(Path(env[SOCKET]), int(env.get(WORKER, "0")))
    records = opened(records_path(settings), lambda: open_records(settings))
    journal = opened(journal_path(settings), lambda: Journal(journal_path(settings)))
    manager = RemoteRoomManager(link, settings.room_defaults, records, GameHistory(journal))
    factory = make_app_factory(manager, motd=settings.motd, chat=RemoteChat(link, manager.clock))
    port = own_port(env)
    config = ServerConfig(
        app_factory=factory,
        settings=settings,
        sock=inherited_listener(env),
        also_listen=("127.0.0.1", port) if port is not None else None,
        limits=RemoteLimits(link, settings),
        registry=ClusterRegistry(link),
    )

    def cleanup() -> None:
        link.close()
        records.close()
        journal.close()

    async def serve_worker() -> None:
        orphaned = asyncio.create_task(exit_with_parent())
        await link.start()
        async with memory_sampling(settings, f"worker{env.get(WORKER, '0')}"):
            await serve_until_signal(config, cleanup, web_sock=inherited_web_listener(env))
        orphaned.cancel()

    tune_garbage_collector(settings.stock_textual)
    asyncio.run(serve_worker())
    return 0
