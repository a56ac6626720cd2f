"""The asyncssh server: one Textual app per SSH session, all in one event loop.

Auth decisions live in :mod:`seotda_tui.ssh.auth`, the per-channel life in
:mod:`seotda_tui.ssh.session`, rate limits in :mod:`seotda_tui.ssh.limits`, and the connection
and login limits it applies (this process's own or, with workers, the shared ones: one
interface) in :mod:`seotda_tui.ssh.login_limits`; this module wires them to asyncssh, keeps
the registry of who is connected and starts/stops the listener.

What a connection goes through (settings from :class:`~seotda_tui.config.Settings`):

1. TCP accept (``connection_made``): an address in the auth-failure jail, or over
   its connection rate (``connect_rate``/``connect_burst``), is disconnected at
   once, before any key exchange. Otherwise it is a *pending login*
   (:class:`~seotda_tui.ssh.admission.PendingLogins`): at most ``max_pending_logins_per_ip``
   from one address, ``max_pending_logins`` in all (a newcomer from a quieter address
   evicts the one that got least far, see :meth:`_PlayerConnection.progress`). Pending logins
   never count against ``max_sessions``.
2. The key exchange must reach our answer within ``handshake_grace`` seconds (the client
   then holds our host key: on a first connection its user is asked whether to trust it,
   which may take longer), the whole login within ``login_grace``. Wrong passwords and (in
   keys mode) unlisted keys count towards the jail, wrong passphrases also towards their
   nickname's lock (``name_failures``, :mod:`.guessing`). A connection lost before login is
   logged (``refused reason=handshake_failed``: stage, client version, error).
3. Authenticated (``auth_completed``): a login that may not play (its name can't be used,
   too many new names from its address, the server or its address full) is never counted:
   its session channel only prints the Korean refusal and closes, within
   ``refused_login_grace``, at most ``max_refused_logins`` at once. Every other login counts
   against ``max_sessions`` and ``max_sessions_per_ip`` and must open its channel within
   ``login_grace`` (plink on a terminal asks its user to press Return first, after every
   login).
4. One session channel per connection, interactive with a PTY; everything else
   (exec, subsystems, forwarding of any kind, X11, agent, unknown channel types and
   requests) is refused: the first of each kind on a connection logged, repeats counted in
   one line, and at ``max_refused_requests`` the connection is closed.
5. The session: input capped at ``input_rate`` bytes/s, idle timeout, keepalives.
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

from .. import metrics, tuning
from ..clock import Cancellable, Clock, LoopClock
from ..config import Settings
from ..i18n import N_, Language, load_all
from ..logs import log_event, log_listen_scope
from ..sanitize import clean_text
from .admission import PendingAdmission, RefusalLog, RefusedSession
from .auth import AuthPolicy, KeylessLogin, Proof, Verdict
from .bans import MSG_BANNED_ADDRESS, MSG_BANNED_KEY, BanList, BanStore
from .hostkey import fingerprint, load_or_create_host_key
from .log_bridge import attribute_log_context, install_asyncssh_bridge
from .login_limits import LocalLimits, SessionLimits
from .session import REFUSED, GameSession
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

_AUTH_FAIL_DELAY = 0.3  # seconds; slows down password guessing
_MAX_PASSWORD_FAILURES = 6  # per connection, then it is dropped

# Printed on the session channel after login. The SSH disconnect reason is English only:
# OpenSSH octal-escapes non-ASCII in its "Received disconnect" line.
MSG_SERVER_FULL = N_("서버가 가득 찼어요. 잠시 후 다시 접속해 주세요.")
MSG_IP_FULL = N_("이 주소에서 이미 {n}명이 접속해 있어요. 한 주소당 {n}명까지 들어올 수 있어요.")
MSG_SHUTTING_DOWN = N_("서버 점검으로 잠시 후 종료돼요.")
#: ``--workers N``: the rooms process, which counts every login, is restarting (a second or so).
MSG_TRY_AGAIN = N_("서버가 잠시 바빠요. 몇 초 뒤에 다시 접속해 주세요.")
DISCONNECT_REASONS = {
    "rate_limited": "Too many connection attempts, slow down",
    "jailed": "Too many failed logins, try again later",
    "shutting_down": "Server is shutting down",
    "logins_ip_full": "Too many logins in progress from your address, try again",
    "logins_full": "Too many logins in progress, try again later",
    "evicted": "Too many logins in progress from your address, try again",
    "handshake_timeout": "Key exchange or login not started in time",
    "session_timeout": "No session opened in time",
    "banned": "Not allowed to log in",
    "refusals_full": "Login refused (too many refused logins at once, try again later)",
    "refused_timeout": "Login refused",
    "refused_requests": "Too many refused requests",
    "name_locked": "Nickname locked after too many wrong passphrases, try again later",
}
_DISCONNECT_CODES = {
    "rate_limited": asyncssh.DISC_TOO_MANY_CONNECTIONS,
    "logins_ip_full": asyncssh.DISC_TOO_MANY_CONNECTIONS,
    "logins_full": asyncssh.DISC_TOO_MANY_CONNECTIONS,
    "evicted": asyncssh.DISC_TOO_MANY_CONNECTIONS,
    "shutting_down": asyncssh.DISC_BY_APPLICATION,
    "handshake_timeout": asyncssh.DISC_CONNECTION_LOST,
    "session_timeout": asyncssh.DISC_BY_APPLICATION,
    "refusals_full": asyncssh.DISC_TOO_MANY_CONNECTIONS,
    "refused_timeout": asyncssh.DISC_BY_APPLICATION,
    "refused_requests": asyncssh.DISC_BY_APPLICATION,
    "name_locked": asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
}


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
class ServerState:
    """Shared by every connection of one listener."""

    policy: AuthPolicy
    app_factory: AppFactory
    limits: SessionLimits
    settings: Settings = field(default_factory=Settings)
    clock: Clock = field(default_factory=LoopClock)
    registry: SessionRegistry = field(default_factory=SessionRegistry)
    sessions: set[GameSession] = field(default_factory=set)
    connections: set[asyncssh.SSHServerConnection] = field(default_factory=set)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    admitted: int = 0  # this listener's players (``limits`` counts them against max_sessions)
    refusing: int = 0  # authenticated connections being told why they may not play
    shutting_down: bool = False
    bans: BanList | None = None  # None: no bans at all (tests that build a state by hand)
    pending: PendingAdmission[_PlayerConnection] = field(init=False)
    refusals: RefusalLog = field(init=False)
    _refusal_ticker: asyncio.TimerHandle | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.pending = self.limits.pending_logins(
            self._evicted_elsewhere, _PlayerConnection.progress
        )
        self.refusals = RefusalLog(log, self.clock)

    def _evicted_elsewhere(self, conn: _PlayerConnection, by: str) -> None:
        """A pending login of ours made room for one at another worker (``by``: its address)."""
        self.refused(conn.peer_ip, "evicted", by=by)
        conn.evict()

    def check_new_connection(self, ip: str) -> str | None:
        """The reason a new connection from ``ip`` is refused before any key exchange, or None.

        The rate bucket is only spent by connections that get this far: a jailed address
        doesn't use up tokens.
        """
        if self.shutting_down:
            return "shutting_down"
        if self.jail_remaining(ip) > 0:
            return "jailed"
        if not self.limits.connect_allowed(ip):
            return "rate_limited"
        return None

    def jail_remaining(self, ip: str) -> float:
        return self.limits.jail_remaining(ip)

    def check_login(
        self, ip: str, username: str, key_fp: str | None, proof: Proof | None
    ) -> tuple[str, str] | None:
        """(reason, message in the server's language) if an authenticated connection from ``ip``
        may not play: its name can't be used (look-alike, invalid, held by another credential,
        one new name too many from its address), or the server or its address is full.

        The name comes first: a login that will never get an identity is not a player and
        never takes a place. ``limits`` decides, and counts it when it may (with workers, the
        rooms process)."""
        admission = self.policy.admit(username, key_fp, ip, proof)
        if admission.identity is None:
            return admission.code or "refused", admission.refusal or self.policy.say(REFUSED)
        reason = self.limits.admit(ip)
        if reason == "server_full":
            return reason, self.policy.say(MSG_SERVER_FULL)
        if reason == "ip_full":
            return reason, self.policy.say(MSG_IP_FULL, n=self.settings.max_sessions_per_ip)
        if reason is not None:  # the workers' limits cannot be counted now: never unchecked
            return reason, self.policy.say(MSG_TRY_AGAIN)
        return None

    def refused(self, ip: str, reason: str, **fields: Any) -> None:
        """Log a refusal, summarised per address and reason (see RefusalLog), and count it
        (every one: a refused login that opened no session in time by why it was refused)."""
        self.refusals.refused(ip, reason, **fields)
        metrics.login_refused(str(fields.get("why", reason)))
        if self._refusal_ticker is None:
            self._schedule_refusal_tick()

    def _schedule_refusal_tick(self) -> None:
        loop = asyncio.get_running_loop()
        self._refusal_ticker = loop.call_later(self.refusals.interval, self._refusal_tick)

    def _refusal_tick(self) -> None:
        self._refusal_ticker = None
        self.refusals.tick()
        if len(self.refusals):
            self._schedule_refusal_tick()

    def flush_refusals(self) -> None:
        if self._refusal_ticker is not None:
            self._refusal_ticker.cancel()
            self._refusal_ticker = None
        self.refusals.flush()

    def auth_failed(self, ip: str, user: str, method: str) -> bool:
        """Count a failed login; True if the address has just been jailed."""
        log_event(log, "auth_failed", ip=ip, user=user, method=method)
        metrics.login("failed")
        if self.limits.auth_failed(ip):
            log_event(
                log,
                "jailed",
                level=logging.WARNING,
                ip=ip,
                failures=self.settings.auth_failures,
                seconds=self.settings.auth_jail_seconds,
            )
            return True
        return False


# -- one TCP connection --------------------------------------------------------------------


class _PlayerConnection(asyncssh.SSHServer):
    """asyncssh callbacks for one TCP connection: limits, auth, then one session channel."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._conn: asyncssh.SSHServerConnection | None = None
        self.peer_ip = ""
        self.username = ""
        self.client_version = ""
        # Fingerprint of the key that proved itself, reset whenever another
        # method is tried: a failed signature must not leave its key behind.
        self._key_fp: str | None = None
        self._failures = 0
        self._keyless: KeylessLogin | None = None  # this connection's kbdint dialogue
        self._proof: Proof | None = None  # the passphrase it proved, if any
        self._counted = False
        self._refusing = False  # counted in state.refusing, not as a player
        self._requests_refused = 0  # forwardings, exec, unknown requests (see _refused)
        self._refusals_logged: set[str] = set()  # their kinds, each logged once
        self._refusal: tuple[str, str] | None = None  # (reason, Korean message) after login
        self._deadline: Cancellable | None = None  # handshake / session-open grace (on the clock)
        self._session: GameSession | None = None
        self._stage = "version"  # how far the login got: version, kex, auth, then done
        self._hung_up = False  # we disconnected it ourselves (and logged why)

    # -- connection ------------------------------------------------------------------

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        peer = conn.get_extra_info("peername")
        self.peer_ip = str(peer[0]) if peer else ""
        state = self._state
        state.connections.add(conn)
        context = getattr(conn.logger, "_context", "")
        if context:
            attribute_log_context(context, self)
        reason = state.check_new_connection(self.peer_ip)
        evicted: _PlayerConnection | None = None
        if reason is None:
            reason, evicted = state.pending.admit(self.peer_ip, self)
        if reason is not None:
            state.refused(self.peer_ip, reason)
            # No key exchange at all. (The version string must go out first, which
            # asyncssh does right after this callback.)
            asyncio.get_running_loop().call_soon(self._disconnect, reason)
            return
        if evicted is not None:
            state.refused(evicted.peer_ip, "evicted", by=self.peer_ip)
            evicted.evict()
        self._set_deadline(state.settings.handshake_grace, "handshake_timeout")

    def _set_deadline(self, seconds: float, reason: str) -> None:
        """Hang up with ``reason`` unless the next step comes within ``seconds`` (0 = never)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if seconds > 0:
            passed = functools.partial(self._deadline_passed, reason)
            self._deadline = self._state.clock.call_later(seconds, passed)

    def _deadline_passed(self, reason: str) -> None:
        self._deadline = None
        if reason == "handshake_timeout" and self._awaits_host_key_answer():
            return  # login_grace (asyncssh's login timeout) bounds the rest
        fields = {"user": self.username} if self.username else {}
        if self._refusal is not None:
            fields["why"] = self._refusal[0]  # (a refused login that opened no session)
        self._state.refused(self.peer_ip, reason, **fields)
        self._disconnect(reason)

    def _awaits_host_key_answer(self) -> bool:
        """Whether the key exchange got as far as our answer (our new keys are sent, the
        client's not yet): a real SSH client, which on a first connection now asks its user
        whether to trust our host key. Reading that question and typing "yes" takes longer
        than ``handshake_grace``; a silent socket, or one that sent only a version line, never
        gets this far. (asyncssh sets ``send_cipher`` when it sends its new keys.)"""
        conn = self._conn
        return conn is not None and conn.get_extra_info("send_cipher") is not None

    def evict(self) -> None:
        """Hang up on this pending login: a newcomer from a quieter address needs its place."""
        self._disconnect("evicted")

    def _disconnect(self, reason: str) -> None:
        self._hung_up = True
        if self._conn is not None:
            code = _DISCONNECT_CODES.get(reason, asyncssh.DISC_HOST_NOT_ALLOWED_TO_CONNECT)
            self._conn.disconnect(code, DISCONNECT_REASONS[reason])

    def progress(self) -> int:
        """How far this pending login got, for eviction (:class:`PendingLogins`): 0 nothing
        yet, 1 sent its version (key exchange under way), 2 has our answer to the key exchange
        (its user may be reading the host-key question) or is logging in (typing a passphrase)."""
        if self._stage == "auth" or self._awaits_host_key_answer():
            return 2
        conn = self._conn
        return 1 if conn is not None and conn.get_extra_info("client_version") else 0

    def auth_completed(self) -> None:
        """Logged in: from now on it counts against max_sessions, unless it is refused.

        A refused login (its name can't be used, or the server or its address is full)
        never counts as a player: it gets ``refused_login_grace`` to open the session that
        shows why, and at most ``max_refused_logins`` are held at once (past that it is hung
        up on at once), so a flood of them costs next to nothing and locks nobody out."""
        state = self._state
        settings = state.settings
        self._stage = "done"
        state.pending.discard(self)
        self._refusal = state.check_login(self.peer_ip, self.username, self._key_fp, self._proof)
        if self._refusal is not None:
            full = state.refusing >= settings.max_refused_logins
            if full or settings.refused_login_grace <= 0:
                state.refused(self.peer_ip, self._refusal[0], user=self.username, said=False)
                self._disconnect("refusals_full" if full else "refused_timeout")
                return
            self._refusing = True
            state.refusing += 1
            self._set_deadline(settings.refused_login_grace, "refused_timeout")
            return
        self._counted = True
        state.admitted += 1
        # login_grace, not handshake_grace: plink waits for Return after every login
        self._set_deadline(settings.login_grace, "session_timeout")

    def connection_lost(self, exc: Exception | None) -> None:
        state = self._state
        self._set_deadline(0, "")
        if exc is not None and self._stage != "done" and not self._hung_up:
            self._handshake_failed(exc)
        state.pending.discard(self)
        if self._requests_refused > len(self._refusals_logged):
            log_event(
                log,
                "refused_requests",
                ip=self.peer_ip,
                user=self.username,
                count=self._requests_refused,
                unlogged=self._requests_refused - len(self._refusals_logged),
            )
        if self._conn is not None:
            state.connections.discard(self._conn)
        if self._refusing:
            self._refusing = False
            state.refusing -= 1
        if self._counted:
            self._counted = False
            state.admitted -= 1
            state.limits.release(self.peer_ip)

    def _handshake_failed(self, exc: Exception) -> None:
        """One line for a connection lost before login: who, with what client, where, why.

        A key exchange the library gives up on (or a client that hangs up) would otherwise
        leave no trace. Throttled per address like every refusal."""
        self._read_client_version()
        if self._stage == "version" and self.client_version:
            self._stage = "kex"
        reason = getattr(exc, "reason", "") or str(exc) or type(exc).__name__
        fields: dict[str, Any] = {
            "stage": self._stage,
            "client": self.client_version or "?",
            "error": clean_text(f"{type(exc).__name__}: {reason}", 160),
        }
        if self.username:
            fields["user"] = self.username
        self._state.refused(self.peer_ip, "handshake_failed", **fields)

    def _read_client_version(self) -> None:
        if self._conn is not None and not self.client_version:
            version = str(self._conn.get_extra_info("client_version") or "")
            self.client_version = clean_text(version, 128)

    # -- auth ----------------------------------------------------------------------------

    def begin_auth(self, username: str) -> bool:
        self.username = username
        self._key_fp = None
        self._stage = "auth"
        self._read_client_version()
        if self in self._state.pending:
            self._set_deadline(0, "")  # key exchange done; login_grace bounds the rest
        bans = self._state.bans
        network = bans.address_ban(self.peer_ip) if bans is not None else None
        if network is not None:
            self._banned(self._state.policy.say(MSG_BANNED_ADDRESS), "banned_address", ban=network)
        return True  # always ask, so a client that has a key offers it

    def _banned(self, message: str, reason: str, **fields: Any) -> None:
        """Tell a banned client why (an auth banner), log it (summarised per address and
        reason, as every refusal), and hang up."""
        self._state.refused(self.peer_ip, reason, user=self.username, **fields)
        if self._conn is not None:
            self._conn.send_auth_banner(message + "\n")
        self._disconnect("banned")

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        policy = self._state.policy
        self._key_fp = None
        bans = self._state.bans
        fp = key.get_fingerprint("sha256")
        if bans is not None and bans.key_banned(fp):
            self._banned(self._state.policy.say(MSG_BANNED_KEY), "banned_key", key=fp)
            return False
        if not policy.key_allowed(key, self.peer_ip):
            self._failed("publickey")
            return False
        if not policy.key_acceptable(username, key, self.peer_ip):
            # Held by another key or a passphrase: not an attack, the next key may fit
            # (or keyboard-interactive, with the passphrase).
            return False
        self._key_fp = fp
        return True

    def kbdint_auth_supported(self) -> bool:
        return self._state.policy.keyless_allowed

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> Any:
        self._key_fp = None
        self._keyless = self._state.policy.keyless_login(username, self.peer_ip)
        first = self._keyless.start()
        if self._keyless.refusal is not None and self._conn is not None:
            # Said, then hung up: asked again, a client would only be told again.
            self._state.refused(self.peer_ip, "name_locked", user=username)
            self._conn.send_auth_banner(self._keyless.refusal + "\n")
            self._disconnect("name_locked")
        return first

    async def validate_kbdint_response(self, username: str, responses: Any) -> Any:
        self._key_fp = None
        if self._keyless is None:
            return False
        verdict = await self._keyless.answer([str(r) for r in responses])
        return await self._keyless_result(verdict, "keyboard-interactive")

    def password_auth_supported(self) -> bool:
        return self._state.policy.keyless_allowed

    async def validate_password(self, username: str, password: str) -> bool:
        self._key_fp = None
        verdict = await self._state.policy.password_login(username, password, self.peer_ip)
        return bool(await self._keyless_result(verdict, "password"))

    async def _keyless_result(self, verdict: Verdict, method: str) -> Any:
        """Apply a keyless verdict: keep the proof, or count, slow down, explain and maybe
        drop; returns what asyncssh expects (True, False, or the next challenge)."""
        if verdict.accepted:
            self._proof = verdict.proof
            return True
        if verdict.failed:
            self._failures += 1
            if self._failed(method):
                return False
            await asyncio.sleep(_AUTH_FAIL_DELAY)
        if verdict.banner and self._conn is not None:
            self._conn.send_auth_banner(verdict.banner + "\n")
        if verdict.retry is not None and self._failures < _MAX_PASSWORD_FAILURES:
            return verdict.retry
        if (verdict.hang_up or self._failures >= _MAX_PASSWORD_FAILURES) and self._conn is not None:
            reason = "password_guessing" if verdict.failed else "keyless_auth"
            metrics.login_refused(reason)
            log_event(
                log,
                "refused",
                reason=reason,
                ip=self.peer_ip,
                user=self.username,
                failures=self._failures,
            )
            self._conn.disconnect(
                asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                "Too many wrong passwords" if verdict.failed else "Login failed",
            )
        return False

    def _failed(self, method: str) -> bool:
        """Count a failure towards the jail; hang up (True) if the address is now jailed,
        by this failure or by another connection's meanwhile."""
        jailed = self._state.auth_failed(self.peer_ip, self.username, method)
        if jailed or self._state.jail_remaining(self.peer_ip) > 0:
            self._disconnect("jailed")
            return True
        return False

    # -- channels --------------------------------------------------------------------------

    def session_requested(self) -> asyncssh.SSHServerSession[bytes] | bool:
        assert self._conn is not None
        if self._refusal is not None:
            reason, message = self._refusal
            self._state.refused(self.peer_ip, reason, user=self.username)
            # Said, then hung up; the refused_login_grace deadline stays, in case the client
            # never closes the channel.
            return RefusedSession(message, on_closed=self._conn.close)
        self._set_deadline(0, "")
        if self._state.shutting_down:
            self._refused("shutting_down")
            return False
        if self._session is not None and not self._session.ended:
            self._refused("second_session")
            return False
        self._session = GameSession(
            self._state,
            self.username or str(self._conn.get_extra_info("username") or ""),
            self._key_fp,
            self.peer_ip,
            client_version=self.client_version,
            proof=self._proof,
            on_refused=self._refused,
        )
        return self._session

    def _refused(self, reason: str, **fields: Any) -> None:
        """A request refused (forwarding, exec, an unknown request, a second session): the
        first of each kind on a connection is logged in full, repeats are counted in one line
        when it closes, and at ``max_refused_requests`` the connection is closed: a client that
        keeps asking for what is refused costs neither log nor a place."""
        self._requests_refused += 1
        count = self._requests_refused
        if reason not in self._refusals_logged:
            self._refusals_logged.add(reason)  # (a dozen kinds at most)
            log_event(log, "refused", reason=reason, ip=self.peer_ip, user=self.username, **fields)
        if count == self._state.settings.max_refused_requests and not self._hung_up:
            log_event(
                log,
                "refused",
                level=logging.WARNING,
                reason="refused_requests",
                ip=self.peer_ip,
                user=self.username,
                count=count,
            )
            self._disconnect("refused_requests")

    request_refused = _refused  # for the asyncssh log bridge (requests asyncssh refuses itself)

    # Forwarding of any kind is refused.
    def connection_requested(self, dest_host: str, dest_port: int, *args: Any) -> bool:
        self._refused("port_forwarding", to=f"{dest_host}:{dest_port}"[:80])
        return False

    def server_requested(self, listen_host: str, listen_port: int, *args: Any) -> bool:
        self._refused("remote_forwarding", listen=f"{listen_host}:{listen_port}"[:80])
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        self._refused("unix_forwarding")
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        self._refused("unix_remote_forwarding")
        return False

    def tun_requested(self, *args: Any) -> bool:
        self._refused("tun")
        return False

    def tap_requested(self, *args: Any) -> bool:
        self._refused("tap")
        return False


# -- the listener ------------------------------------------------------------------------------


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
            lambda: _PlayerConnection(state),
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
