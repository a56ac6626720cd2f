"""One-time browser links: how a nickname held by an SSH key alone gets into the browser.

A browser has no SSH key, so such a name is refused there (seotda_tui/web/session.py), unless
its owner, logged in over SSH with that key, asks for a link in the lobby: a random token
(``?link=TOKEN`` on the web page) that lets that one nickname log in from a browser once,
within :data:`LINK_SECONDS`. The token is the credential: random (``secrets``), never stored on
disk, spent by its first use, and replaced by a newer one for the same name. Kept in memory by
whoever checks web logins: the one process, or with ``--workers N`` the rooms process (the
browser may land on another worker than the SSH session that made the link). A restart (of the
server, or of the rooms process) forgets them: the owner makes another, as after expiry.
"""

from __future__ import annotations

import secrets

from ..clock import LOOP_CLOCK, Clock

#: How long a link lets its nickname in (seconds).
LINK_SECONDS = 600.0
#: Links kept at most (one per nickname; past this the oldest go first).
MAX_LINKS = 10_000
#: A token's random bytes (URL-safe text about 4/3 as long).
TOKEN_BYTES = 24


class BrowserLinks:
    """The live links: token -> (nickname, expiry), and each nickname's newest token."""

    def __init__(self, clock: Clock = LOOP_CLOCK, seconds: float = LINK_SECONDS) -> None:
        self.clock = clock
        self.seconds = seconds
        self._links: dict[str, tuple[str, float]] = {}
        self._by_name: dict[str, str] = {}

    def issue(self, nickname: str) -> str:
        """A new token for ``nickname`` (its earlier one, if any, no longer works)."""
        self._prune()
        old = self._by_name.pop(nickname, None)
        if old is not None:
            self._links.pop(old, None)
        while len(self._links) >= MAX_LINKS:
            oldest = next(iter(self._links))
            self._by_name.pop(self._links.pop(oldest)[0], None)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self._links[token] = (nickname, self.clock.time() + self.seconds)
        self._by_name[nickname] = token
        return token

    def redeem(self, nickname: str, token: str) -> bool:
        """Whether ``token`` is a live link for ``nickname``; it is spent either way if it was
        that nickname's (a wrong name leaves another's link alone)."""
        found = self._links.get(token)
        if found is None or found[0] != nickname:
            return False
        del self._links[token]
        if self._by_name.get(nickname) == token:
            del self._by_name[nickname]
        return self.clock.time() < found[1]

    def __len__(self) -> int:
        return len(self._links)

    def _prune(self) -> None:
        now = self.clock.time()
        for token, (nickname, until) in list(self._links.items()):
            if until <= now:
                del self._links[token]
                if self._by_name.get(nickname) == token:
                    del self._by_name[nickname]


def link_base(
    web_port: int, web_host: str | None, host: str, origins: tuple[str, ...], local: str
) -> str | None:
    """Where the browser page is, as the link names it: the first configured web origin (the
    public address behind a reverse proxy, ``web_allowed_origins``), else
    ``http://HOST:web_port/`` with the web listener's host, or, when that listens everywhere,
    the address this SSH connection reached (``local``). None: browser play is off."""
    if not web_port:
        return None
    if origins:
        return origins[0].rstrip("/") + "/"
    name = web_host if web_host is not None else host
    if name in ("", "0.0.0.0", "::", "*"):
        name = local.split("%", 1)[0] or "localhost"
    if ":" in name:  # an IPv6 address
        name = f"[{name}]"
    return f"http://{name}:{web_port}/"
