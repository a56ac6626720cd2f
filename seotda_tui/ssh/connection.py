"""One TCP connection, as asyncssh calls back about it: admission, login, then one channel.

:class:`PlayerConnection` is the ``asyncssh.SSHServer`` the listener (:mod:`.server`) makes per
connection. It asks the listener's shared :class:`~.server_state.ServerState` whether to admit
the connection and the login, hands auth to :mod:`.auth`'s policy, and opens at most one
:class:`~.session.GameSession` (:meth:`PlayerConnection.session_requested`), where a keystroke
goes on to the app. It stays one class: asyncssh calls one object per connection, and its
steps share that connection's stage, deadline and counts.

What a connection goes through (settings from :class:`~seotda_tui.config.Settings`):

1. TCP accept (``connection_made``): an address in the auth-failure jail, or over
   its connection rate (``connect_rate``/``connect_burst``), is disconnected at
   once, before any key exchange. Otherwise it is a *pending login*
   (:class:`~seotda_tui.ssh.admission.PendingLogins`): at most ``max_pending_logins_per_ip``
   from one address, ``max_pending_logins`` in all (a newcomer from a quieter address
   evicts the one that got least far, see :meth:`PlayerConnection.progress`). Pending logins
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
from typing import Any

import asyncssh

from .. import metrics
from ..clock import Cancellable
from ..logs import log_event
from ..sanitize import clean_text
from .admission import RefusedSession
from .auth import Proof, Verdict
from .bans import MSG_BANNED_ADDRESS, MSG_BANNED_KEY
from .keyless import KeylessLogin
from .log_bridge import attribute_log_context
from .server_state import PendingLogin, ServerState
from .session import GameSession

log = logging.getLogger("seotda.server")

_AUTH_FAIL_DELAY = 0.3  # seconds; slows down password guessing
_MAX_PASSWORD_FAILURES = 6  # per connection, then it is dropped

# The SSH disconnect reason is English only: OpenSSH octal-escapes non-ASCII in its
# "Received disconnect" line.
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


class PlayerConnection(asyncssh.SSHServer):
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
        attribute_log_context(conn.logger, self)
        reason = state.check_new_connection(self.peer_ip)
        evicted: PendingLogin | None = None
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
        self._keyless = KeylessLogin(self._state.policy, username, self.peer_ip)
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
