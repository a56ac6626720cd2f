"""A worker's SSH limits and login registry under ``--workers N``: kept by the rooms process
(:mod:`.hub`), so they count the connections of every worker."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from ..ssh.state import DisconnectReason, Replaceable, SessionRegistry
from .link import HubLink, as_text


class RemoteLimits:
    """The SSH server's :class:`~seotda_tui.ssh.server.SharedLimits`, kept by the hub.

    While the hub is down (a second or so, while it restarts) logins are let in uncounted and
    nobody is jailed: refusing everyone meanwhile would be worse. Their release later is a no-op
    at the hub, which never counted them.
    """

    def __init__(self, link: HubLink) -> None:
        self.link = link

    def connect_allowed(self, ip: str) -> bool:
        return bool(self.link.call_or(True, "connect_allowed", ip))

    def admit(self, ip: str) -> str | None:
        return as_text(self.link.call_or(None, "admit", ip))

    def release(self, ip: str) -> None:
        self.link.notify("release", ip)

    def auth_failed(self, ip: str) -> bool:
        return bool(self.link.call_or(False, "auth_failed", ip))

    def jail_remaining(self, ip: str) -> float:
        return float(self.link.call_or(0.0, "jail_remaining", ip))

    def pending_logins(self, evicted: Callable[[Any, str], None]) -> RemotePending:
        return RemotePending(self.link, evicted)


class RemotePending:
    """This worker's pending logins, counted at the hub with every other worker's: the
    per-address and total caps hold across workers, and a newcomer from a quieter address may
    evict the busiest address's oldest pending login wherever it waits (see
    :class:`~seotda_tui.ssh.admission.PendingLogins`). The hub knows each by a token.

    While the hub is down they are let in uncounted, as :class:`RemoteLimits` does.
    """

    def __init__(self, link: HubLink, evicted: Callable[[Any, str], None]) -> None:
        self.link = link
        self._evicted = evicted
        self._tokens: dict[Any, int] = {}
        self._conns: dict[int, Any] = {}
        self._ids = itertools.count(1)
        link.on_evict = self._evict

    def admit(self, ip: str, conn: Any) -> tuple[str | None, Any]:
        token = next(self._ids)
        answer = self.link.call_or(None, "pending_admit", ip, token)
        reason, victim = answer if isinstance(answer, list) and len(answer) == 2 else (None, None)
        if reason is not None:
            return str(reason), None
        self._tokens[conn], self._conns[token] = token, conn
        evicted = self._conns.get(victim) if isinstance(victim, int) else None
        if evicted is not None:
            self._forget(evicted)
        return None, evicted

    def discard(self, conn: Any) -> None:
        token = self._forget(conn)
        if token is not None:
            self.link.notify("pending_discard", token)

    def __contains__(self, conn: object) -> bool:
        return conn in self._tokens

    def __len__(self) -> int:
        """This worker's (the hub counts every worker's)."""
        return len(self._tokens)

    def _forget(self, conn: Any) -> int | None:
        token = self._tokens.pop(conn, None)
        if token is not None:
            del self._conns[token]
        return token

    def _evict(self, token: int, by: str) -> None:
        """The hub chose one of ours for a newcomer at another worker."""
        conn = self._conns.get(token)
        if conn is not None:
            self._forget(conn)
            self._evicted(conn, by)


class ClusterRegistry(SessionRegistry):
    """Who is logged in, across workers: a login here tells the hub, which tells the worker
    that held the nickname before to end its session (replace-on-relogin)."""

    def __init__(self, link: HubLink) -> None:
        super().__init__()
        self.link = link
        self._mine: dict[str, Replaceable] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        link.on_kick = self._kick
        link.when_back(self._hub_back)

    async def claim(self, nickname: str, session: Replaceable) -> None:
        self._mine[nickname] = session
        self.link.notify("claim", nickname)
        await super().claim(nickname, session)

    def release(self, nickname: str, session: Replaceable) -> None:
        if self._mine.get(nickname) is session:
            del self._mine[nickname]
            self.link.notify("unclaim", nickname)
        super().release(nickname, session)

    def _kick(self, nickname: str) -> None:
        session = self._mine.pop(nickname, None)
        if session is None:
            return
        super().release(nickname, session)
        task = asyncio.get_running_loop().create_task(session.kick(DisconnectReason.REPLACED))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _hub_back(self) -> None:
        for nickname in list(self._mine):
            self.link.notify("claim", nickname)
