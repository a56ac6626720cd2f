"""Server bans: SSH key fingerprints and addresses (IPs or CIDR blocks) that may not log in.

Two sources, both checked at every login: the fixed ``banned_keys``/``banned_addresses``
settings, and the ``bans`` table in the data dir's SQLite file (``seotda.sqlite3``, next to the
nicknames), which the admin edits with ``seotda-server --ban-key/--ban-address/--unban`` while
the server runs. The table is read on each check (a handful of rows, WAL mode), so a ban added
from another process applies to the next login at once; sessions already playing go on.

The address is checked when auth begins (after the key exchange, so the client can be told
why in an auth banner), the key when it is offered (public-key auth).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..addresses import address_network, key_fingerprint
from ..i18n import N_
from .store import connect_data_db

KEY, ADDRESS = "key", "address"

#: What a banned client reads (an auth banner: OpenSSH prints it before the disconnect).
MSG_BANNED_KEY = N_("이 SSH 키는 이 서버에서 접속이 막혀 있어요. 서버 관리자에게 문의해 주세요.")
MSG_BANNED_ADDRESS = N_("이 주소에서는 이 서버에 접속할 수 없어요. 서버 관리자에게 문의해 주세요.")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bans (
    kind    TEXT NOT NULL CHECK (kind IN ('key', 'address')),
    value   TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (kind, value)
);
"""


@dataclass(frozen=True)
class Ban:
    """One ban: its kind (``key`` or ``address``), its normal form, and where it comes from."""

    kind: str
    value: str
    source: str  # "config" or "database"


def parse_ban(text: str) -> Ban:
    """A fingerprint (``SHA256:…``) or an address/CIDR, as typed after ``--unban``."""
    if text.strip().upper().startswith("SHA256:"):
        return Ban(KEY, key_fingerprint(text), "database")
    return Ban(ADDRESS, address_network(text), "database")


class BanStore:
    """The ``bans`` table of ``<data_dir>/seotda.sqlite3``."""

    def __init__(self, data_dir: Path) -> None:
        self.path, self._db = connect_data_db(data_dir)
        self._db.executescript(_SCHEMA)

    def add(self, ban: Ban) -> bool:
        """Store ``ban``; False if it was there already."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO bans VALUES (?, ?, ?)", (ban.kind, ban.value, time.time())
        )
        return cursor.rowcount == 1

    def remove(self, ban: Ban) -> bool:
        """Delete ``ban``; False if there was no such ban."""
        cursor = self._db.execute(
            "DELETE FROM bans WHERE kind = ? AND value = ?", (ban.kind, ban.value)
        )
        return cursor.rowcount == 1

    def all(self) -> list[Ban]:
        rows = self._db.execute("SELECT kind, value FROM bans ORDER BY kind, created").fetchall()
        return [Ban(kind, value, "database") for kind, value in rows]

    def has_key(self, fingerprint: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM bans WHERE kind = 'key' AND value = ?", (fingerprint,)
        ).fetchone()
        return row is not None

    def addresses(self) -> list[str]:
        rows = self._db.execute("SELECT value FROM bans WHERE kind = 'address'").fetchall()
        return [value for (value,) in rows]

    def close(self) -> None:
        self._db.close()


def _contains(networks: Iterable[str], ip: str) -> str | None:
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:203.0.113.5 is 203.0.113.5
    for text in networks:
        network = ipaddress.ip_network(text, strict=False)
        if address.version == network.version and address in network:
            return text
    return None


class BanList:
    """What the server asks at login: the settings' bans plus the store's, read per check."""

    def __init__(
        self, store: BanStore, keys: Iterable[str] = (), addresses: Iterable[str] = ()
    ) -> None:
        self.store = store
        self._keys = frozenset(keys)
        self._addresses = tuple(addresses)

    def address_ban(self, ip: str) -> str | None:
        """The banned network that holds ``ip``, or None."""
        return _contains(self._addresses, ip) or _contains(self.store.addresses(), ip)

    def key_banned(self, fingerprint: str) -> bool:
        return fingerprint in self._keys or self.store.has_key(fingerprint)

    def config_bans(self) -> list[Ban]:
        return [Ban(KEY, k, "config") for k in sorted(self._keys)] + [
            Ban(ADDRESS, a, "config") for a in self._addresses
        ]
