"""The SSH listener: start-up, the algorithms offered, and shutdown.

One Textual app per SSH session, all in one event loop. A keystroke's way in:
:func:`start_server` listens with one :class:`~.connection.PlayerConnection` per TCP
connection (admission, login: the steps are told there), which asks the listener's
:class:`~.server_state.ServerState` (the checks every connection shares) and opens one
:class:`~.session.GameSession` per session channel; its ``data_received`` hands the bytes to
:meth:`~.player.PlayerSession.received` (what an SSH and a browser session share), which caps
them at ``input_rate`` and feeds them to the app's driver
(:class:`seotda_tui.ui.driver.ChannelLink`), which parses them into Textual's key events. Auth decisions live in :mod:`.auth`, rate limits in :mod:`.limits`,
and the connection and login limits (this process's own or, with workers, the shared ones: one
interface) in :mod:`.login_limits`; this module starts/stops the listener.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import asyncssh

from .. import tuning
from ..clock import Clock, LoopClock
from ..config import Settings
from ..i18n import N_, Language, load_all
from ..logs import log_event, log_listen_scope
from .auth import AuthPolicy
from .bans import BanList, BanStore
from .connection import PlayerConnection
from .hostkey import fingerprint, load_or_create_host_key
from .log_bridge import install_asyncssh_bridge
from .login_limits import LocalLimits, SessionLimits
from .server_state import ServerState
from .session import GameSession
from .state import AppFactory, DisconnectReason, SessionRegistry
from .store import NicknameStore

log = logging.getLogger("seotda.server")


# Our key exchange preference starts with the one dropbear's dbclient guesses: it sends its
# first kex packet before seeing ours, and asyncssh judges that guess differently from
# RFC 4253 and OpenSSH (BENCHMARKS.md "SSH clients"), so a server whose first choice differs
# from the client's disconnects it mid-kex. Clients still pick from the whole list, in their order.
KEX_ALGS = "^curve25519-sha256"
# AES only: GCM, and CTR with an encrypt-then-MAC. asyncssh builds chacha20-poly1305 in Python
# from three OpenSSL cipher objects per packet (and sends an empty MSG_IGNORE before every
# packet, so each screen update is two), where AES is one OpenSSL call: a frame's encryption
# costs half as much CPU, here and in the bench's clients (BENCHMARKS.md "Ciphers"). Every
# SSH client offers AES-CTR (RFC 4344); OpenSSH, plink and dbclient pick from this list in their
# own order (tests/test_ssh_clients.py). It also leaves out the cipher through which Terrapin
# (CVE-2023-48795) works in practice against a client without strict key exchange.
ENCRYPTION_ALGS = [
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
    "aes128-ctr",
    "aes192-ctr",
    "aes256-ctr",
]
# Only with --compression: dropbear's dbclient asks for it unprompted, OpenSSH with -C.
COMPRESSION_ALGS = ["none", "zlib@openssh.com"]

# Toasted in every app at a shutdown.
MSG_SHUTTING_DOWN = N_("서버 점검으로 잠시 후 종료돼요.")


@dataclass(kw_only=True)
class ServerConfig:
    """Everything start_server needs: the app factory, the settings, and a clock.

    ``settings`` comes from :func:`seotda_tui.config.load_settings` (its auth fields are
    consistent there: a password only in password/keys mode, a key list only in keys mode).
    ``clock`` (:mod:`seotda_tui.clock`, the rooms' kind) is the one time source: it drives the
    connection rate limiter, the auth jail and the input limiter, and it is what waits (the
    handshake and login graces, each session's idle timer). The running loop's, a fake in tests.

    ``limits``: the connection and login limits (:mod:`.login_limits`); unset, this process's
    own (:class:`~.login_limits.LocalLimits` from ``settings`` on ``clock``). A worker of
    ``--workers N`` gives the global ones, ``sock`` (the listening socket its parent made and
    every worker accepts on, instead of binding ``host:port``) and ``registry`` (who is logged
    in, across workers); ``also_listen`` is a second address of its own (tests use it to choose
    a worker). All unset: one process, as always.

    ``on_listening`` is called with the running server just before its ``listening`` line:
    what must hold once that line is out (``/healthz`` answering 200) is set there, not after
    :func:`start_server` returns, which left a moment in which the line said it listened and
    ``/healthz`` still said 503.
    """

    app_factory: AppFactory
    settings: Settings = field(default_factory=Settings)
    clock: Clock = field(default_factory=LoopClock)
    sock: socket.socket | None = None
    also_listen: tuple[str, int] | None = None
    limits: SessionLimits | None = None
    registry: SessionRegistry | None = None
    on_listening: Callable[[ServerHandle], None] | None = None


@dataclass(eq=False)
class ServerHandle:
    """A running server: its port and host-key fingerprint, and how to stop it."""

    port: int
    fingerprint: str
    state: ServerState
    _acceptor: asyncssh.SSHAcceptor
    _store: NicknameStore
    _ban_store: BanStore
    _closing: asyncio.Future[None] | None = None
    _also: asyncssh.SSHAcceptor | None = None  # ServerConfig.also_listen

    def nicknames(self) -> list[str]:
        """Nicknames with a live session right now."""
        return self.state.registry.nicknames()

    def accepting(self) -> bool:
        """Whether it still takes new players (False from the start of a shutdown on)."""
        return not self.state.shutting_down and self._closing is None

    async def close(self, timeout: float = 8.0) -> None:
        """Shut down within ``timeout`` seconds: one budget that every step draws on.

        Stop accepting; tell every player in-app (``shutdown_notice`` seconds to read it, at
        most half the budget); end the apps (each prints its goodbye) until only a short tail
        of the budget is left, when apps still running lose their channel; in that tail,
        clients take their last output before the connections are dropped.
        """
        if self._closing is not None:
            await asyncio.shield(self._closing)
            return
        loop = asyncio.get_running_loop()
        self._closing = loop.create_future()
        try:
            await self._close(loop, loop.time() + timeout)
        finally:
            self._closing.set_result(None)

    async def _close(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        state = self.state
        state.shutting_down = True
        self._acceptor.close()
        if self._also is not None:
            self._also.close()
        sessions = list(state.sessions)
        log_event(log, "shutdown", sessions=len(sessions), connections=len(state.connections))
        began = loop.time()
        steps: dict[str, Any] = {}

        def left() -> float:
            return max(0.0, deadline - loop.time())

        notice = min(state.settings.shutdown_notice, left() / 2)
        if sessions and notice > 0:
            for session in sessions:
                session.notify(session.say(MSG_SHUTTING_DOWN), timeout=notice + 5)
            # From the start: painting hundreds of toasts takes seconds of its own.
            await asyncio.sleep(max(0.0, began + notice - loop.time()))
        steps["notice"] = round(loop.time() - began, 2)
        tail = min(_SHUTDOWN_TAIL, left() / 4)
        sessions = list(state.sessions)
        if sessions:
            await _kick_all(sessions, loop, deadline - tail)
            steps["apps_ended"] = round(loop.time() - began, 2)
            steps["cut_off"] = sum(not s.finished for s in sessions)
            # Flush: give clients a moment to read the goodbye and close their channel.
            flush_until = loop.time() + min(tail / 2, left())
            while any(not s.channel_closed for s in sessions) and loop.time() < flush_until:
                await asyncio.sleep(0.02)
        conns = list(state.connections)
        for conn in conns:
            conn.close()
        if conns:
            await asyncio.wait(
                [asyncio.ensure_future(c.wait_closed()) for c in conns], timeout=left()
            )
        if state.tasks:
            await asyncio.wait(list(state.tasks), timeout=left())
        listener = asyncio.ensure_future(self._acceptor.wait_closed())
        await asyncio.wait([listener], timeout=left())
        if not listener.done():
            listener.cancel()
            steps["listener_open"] = True
        self._store.close()
        self._ban_store.close()
        state.flush_refusals()
        log_event(log, "stopped", seconds=round(loop.time() - began, 2), **steps)


# The last part of the shutdown budget, for goodbyes to reach clients and sockets to close.
_SHUTDOWN_TAIL = 1.0


async def _kick_all(
    sessions: list[GameSession], loop: asyncio.AbstractEventLoop, until: float
) -> None:
    """End every session's app by ``until``; those not done by then lose their channel.

    All at once: ending 100 apps took 1.15 s so, 1.5 s sixteen at a time (BENCHMARKS.md).
    """
    timeout = max(0.0, until - loop.time())
    await asyncio.gather(
        *(s.kick(DisconnectReason.SERVER_SHUTDOWN, timeout=timeout) for s in sessions),
        return_exceptions=True,
    )


async def start_server(config: ServerConfig) -> ServerHandle:
    """Load/create the host key, open the store and listen; returns once accepting."""
    settings = config.settings
    tuning.install(stock=settings.stock_textual)
    host_key = load_or_create_host_key(settings.hostkey_dir)
    install_asyncssh_bridge()
    store = NicknameStore(settings.data_dir)
    ban_store: BanStore | None = None
    try:
        ban_store = BanStore(settings.data_dir)
        bans = BanList(ban_store, settings.banned_keys, settings.banned_addresses)
        policy = AuthPolicy(store, settings.password, settings.authorized_keys)
        load_all()
        policy.language = Language(settings.default_language)
        limits = config.limits if config.limits is not None else LocalLimits(settings, config.clock)
        policy.guard = limits.name_guard()
        policy.registrations = limits.registrations()
        state = ServerState(
            policy=policy,
            app_factory=config.app_factory,
            limits=limits,
            settings=settings,
            clock=config.clock,
            bans=bans,
        )
        if config.registry is not None:
            state.registry = config.registry
        policy.live_names = state.registry.nicknames
        where: dict[str, Any] = (
            {"sock": config.sock}
            if config.sock is not None
            else {"host": settings.host, "port": settings.port}
        )
        listen = functools.partial(
            asyncssh.create_server,
            lambda: PlayerConnection(state),
            server_host_keys=[host_key],
            kex_algs=KEX_ALGS,
            encryption_algs=ENCRYPTION_ALGS,
            compression_algs=COMPRESSION_ALGS if settings.compression else ["none"],
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            login_timeout=settings.login_grace,
            keepalive_interval=settings.keepalive_interval,
            keepalive_count_max=settings.keepalive_count_max,
        )
        acceptor = await listen(**where)
        also = None
        if config.also_listen is not None:
            also = await listen(host=config.also_listen[0], port=config.also_listen[1])
    except BaseException:
        store.close()
        if ban_store is not None:
            ban_store.close()
        raise
    handle = ServerHandle(
        acceptor.get_port(), fingerprint(host_key), state, acceptor, store, ban_store, _also=also
    )
    if config.on_listening is not None:
        config.on_listening(handle)
    mode = settings.auth_mode if settings.password or settings.authorized_keys else "open"
    log_event(
        log,
        "listening",
        addr=f"{settings.host}:{handle.port}",
        auth=mode,
        fingerprint=handle.fingerprint,
        max_sessions=settings.max_sessions,
    )
    if config.sock is None:  # a worker's socket is its parent's, which says this once
        log_listen_scope(settings.host, handle.port, acceptor.get_addresses())
    if also is not None and config.also_listen is not None:
        addr = f"{config.also_listen[0]}:{also.get_port()}"
        log_event(log, "worker_port", addr=addr, pid=os.getpid())
    return handle
