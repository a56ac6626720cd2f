"""Who a connection is, and whether it may play.

The SSH user name is the nickname. There are no accounts: a nickname is
bound to the first public key that uses it ("trust on first use"), and then
only that key may use it again. SSH authentication itself can't carry a
message, so a nickname problem is *not* an auth failure: the connection is let
in and the session prints the Korean reason before closing (see
:meth:`AuthPolicy.admit`).

Modes:

* open (default): any key is accepted; keyless clients get in with no prompt
  (keyboard-interactive with zero prompts, or any password);
* ``--password``: keyless clients must give the shared password; a key that
  is not yet bound to the nickname must type it once inside the session;
* ``--authorized-keys``: only listed keys; keyless clients need the password
  if one is set, otherwise they are refused.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from .sanitize import clean_text, validate_nickname
from .store import NicknameStore


@dataclass(frozen=True)
class Identity:
    """A logged-in player, as the rest of the app sees them."""

    nickname: str
    key_fingerprint: str | None
    peer_ip: str


@dataclass(frozen=True)
class Admission:
    """The verdict on a connection that passed SSH auth."""

    identity: Identity | None
    refusal: str | None = None
    needs_password: bool = False
    code: str | None = None  # why refused, for the log: "bad_nickname" | "key_mismatch"


class AuthPolicy:
    """All auth decisions, kept apart from asyncssh so they can be read (and tested) alone."""

    def __init__(
        self,
        store: NicknameStore,
        password: str | None = None,
        authorized_keys: Path | None = None,
    ) -> None:
        self.store = store
        self.password = password or None
        self.authorized: asyncssh.SSHAuthorizedKeys | None = (
            asyncssh.read_authorized_keys(str(authorized_keys)) if authorized_keys else None
        )

    @property
    def keyless_allowed(self) -> bool:
        """Keyless logins need the password when an allowlist is in force."""
        return self.authorized is None or self.password is not None

    def key_allowed(self, key: asyncssh.SSHKey, peer_ip: str) -> bool:
        """The allowlist check alone (always True without ``--authorized-keys``)."""
        return self.authorized is None or self.authorized.validate(key, "", peer_ip) is not None

    def key_acceptable(self, username: str, key: asyncssh.SSHKey, peer_ip: str) -> bool:
        """Public-key stage: allowlisted, and not bound to some other key.

        Rejecting a mismatching key here (rather than later) lets the client
        go on and offer its next key, which may be the right one.
        """
        if not self.key_allowed(key, peer_ip):
            return False
        try:
            nickname = validate_nickname(username)
        except ValueError:
            return True  # let it in: the session will say what is wrong with the name
        owner = self.store.key_for(nickname)
        return owner is None or owner == key.get_fingerprint("sha256")

    def check_password(self, candidate: str) -> bool:
        """Constant-time comparison with the shared password (open mode accepts anything)."""
        if self.password is None:
            return self.authorized is None
        return hmac.compare_digest(candidate.encode(), self.password.encode())

    def admit(self, username: str, key_fingerprint: str | None, peer_ip: str) -> Admission:
        """Decide whether an authenticated connection may play, and under which identity."""
        try:
            nickname = validate_nickname(username)
        except ValueError as exc:
            shown = clean_text(username, 24) or "?"
            return Admission(
                None, f"'{shown}' 은(는) 쓸 수 없는 닉네임이에요. {exc}", code="bad_nickname"
            )
        owner = self.store.key_for(nickname)
        if owner is not None and owner != key_fingerprint:
            # A mismatching key was already turned down at the key stage, so
            # here "another key" and "no key" look the same: one message.
            return Admission(
                None,
                f"'{nickname}' 닉네임은 등록된 SSH 키로만 접속할 수 있어요. "
                "처음 이 닉네임으로 접속할 때 쓴 키로 접속하거나 다른 닉네임을 써 주세요.",
                code="key_mismatch",
            )
        identity = Identity(nickname, key_fingerprint, peer_ip)
        needs_password = (
            key_fingerprint is not None
            and owner is None
            and self.password is not None
            and self.authorized is None
        )
        return Admission(identity, None, needs_password)

    def bind(self, identity: Identity) -> str | None:
        """Record a key's claim on its nickname; return a refusal if another key just won it."""
        if identity.key_fingerprint is None:
            return None
        owner = self.store.bind(identity.nickname, identity.key_fingerprint)
        if owner != identity.key_fingerprint:
            return f"'{identity.nickname}' 닉네임은 방금 다른 SSH 키로 등록됐어요. 다른 닉네임을 써 주세요."
        return None
