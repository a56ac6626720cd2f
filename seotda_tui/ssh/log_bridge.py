"""asyncssh's own log, into ours: its refusals as ``refused`` events (counted per connection,
see ``PlayerConnection._refused``), its warnings as ``seotda.ssh``.

asyncssh refuses some requests itself (no callback of ours runs) and says so only in its debug
log, which also carries what clients send (environment variables): the bridge keeps the
refusals, attributed to the connection's user and address, and drops the rest.
"""

from __future__ import annotations

import logging
import re
import weakref
from typing import Any, Protocol

from ..logs import log_event

log = logging.getLogger("seotda.server")  # the refusals were always the server's lines


class Attributable(Protocol):
    """A connection as the bridge names it in a log line."""

    @property
    def username(self) -> str: ...

    @property
    def peer_ip(self) -> str: ...

    def request_refused(self, reason: str, **fields: Any) -> None:
        """Count (and maybe log) a refused request of this connection."""


# Connections by asyncssh's log context ("conn=12"), so its log lines can be attributed.
_BY_CONTEXT: weakref.WeakValueDictionary[str, Attributable] = weakref.WeakValueDictionary()
_CONTEXT_RE = re.compile(r"^\[(conn=\d+)")
# asyncssh refuses these itself (we never get a callback), and says so in its debug log.
_ASYNCSSH_REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Received unknown channel request: (?P<what>.+)$"), "channel_request"),
    (re.compile(r"Open failed for channel type (?P<what>\S+):"), "channel_type"),
    (re.compile(r"Received unknown global request: (?P<what>.+)$"), "global_request"),
    (re.compile(r"X11 forwarding request denied"), "x11_forwarding"),
    (re.compile(r"Agent forwarding request denied"), "agent_forwarding"),
)
# Refused by our own callbacks (and logged there), or routine for OpenSSH and PuTTY clients
# (never counted towards max_refused_requests: PuTTY sends a winadj request with every few
# window adjusts of a busy screen, so a player would be cut off).
_NOT_REPORTED = {
    "session",
    "direct-tcpip",
    "direct-streamlocal@openssh.com",
    "tun@openssh.com",
    "no-more-sessions@openssh.com",
    "keepalive@openssh.com",
    "hostkeys-00@openssh.com",
    "winadj@putty.projects.tartarus.org",
    "simple@putty.projects.tartarus.org",
}


class _AsyncsshBridge(logging.Handler):
    """Handler on the ``asyncssh`` logger: its refusals become ``refused`` events, its
    warnings and errors go on to ``seotda.ssh``, and the rest (debug chatter that would
    include environment variables) is dropped."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.levelno >= logging.WARNING:
                logging.getLogger("seotda.ssh").log(
                    record.levelno, "%s", text, exc_info=record.exc_info
                )
                return
            for pattern, reason in _ASYNCSSH_REFUSALS:
                match = pattern.search(text)
                if match is None:
                    continue
                what = match.groupdict().get("what")
                if what in _NOT_REPORTED:
                    return
                ctx = _CONTEXT_RE.match(text)
                conn = _BY_CONTEXT.get(ctx.group(1)) if ctx else None
                fields: dict[str, Any] = {"what": what[:64]} if what else {}
                if conn is not None:  # throttled per connection, which it may close
                    conn.request_refused(reason, **fields)
                else:
                    log_event(log, "refused", reason=reason, **fields)
                return
        except Exception:
            self.handleError(record)


_bridge = _AsyncsshBridge()


def install_asyncssh_bridge() -> None:
    """Route asyncssh's logger through :class:`_AsyncsshBridge` (idempotent)."""
    ssh_log = logging.getLogger("asyncssh")
    if _bridge not in ssh_log.handlers:
        ssh_log.addHandler(_bridge)
    ssh_log.setLevel(logging.DEBUG)  # its refusals are debug lines; the bridge filters
    ssh_log.propagate = False


def attribute_log_context(logger: logging.LoggerAdapter[Any], conn: Attributable) -> None:
    """asyncssh's lines logged through ``logger`` (a connection's, which puts its context,
    "[conn=12]", before each) are about ``conn`` (while it lives). The context is read the way
    the lines get it, through the adapter's public ``process``, not its private ``_context``."""
    prefix, _kwargs = logger.process("", {})
    match = _CONTEXT_RE.match(prefix)
    if match is not None:
        _BY_CONTEXT[match.group(1)] = conn
