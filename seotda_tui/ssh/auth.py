"""Who a connection is, and whether it may play.

The SSH user name is the nickname. There are no accounts, but a nickname can't
be stolen: it is held by one credential, the first that used it, and only that
credential gets it (its live session, its held seat) again:

* a player with an SSH key: the key ("trust on first use");
* a keyless player: a passphrase they choose on first use (keyboard-interactive:
  the server explains and asks twice), asked for on every later keyless login.

A new name (one nothing holds yet) that looks like a registered or connected one, or
like a room bot's (``봇l(신중)``), is refused (same UTS #39 skeleton,
:mod:`seotda_tui.ssh.skeleton`). SSH auth can't carry a long message, so a name that
can't be used at all (invalid, look-alike, or held by a key the client didn't offer)
is let through auth without any credential and its session channel prints the Korean
reason before closing (:meth:`AuthPolicy.admit`): such a connection never gets an
identity, never counts as a player, and is held only briefly (the server's
``refused_login_grace``, at most ``max_refused_logins`` at once).

Modes:

* open (default): any key for a free or its own name; keyless clients give the
  nickname's passphrase (or set it). The plain ``password`` method (e.g.
  ``plink -pw``) carries the passphrase too, and on a free name sets it;
* ``--password``: keyless clients give the shared password and the nickname's
  passphrase in one keyboard-interactive round (the plain ``password`` method
  can't carry both and is refused with a banner); a key that is not yet bound to
  the nickname must type the shared password once inside the session;
* ``--authorized-keys``: only listed keys; keyless clients as in ``--password``
  if a password is set, otherwise refused.

The keyboard-interactive dialogue that asks for the passphrase (its prompts and rounds) is
:class:`~.keyless.KeylessLogin`; every decision it needs is made here.
"""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from ..i18n import ENGLISH, KOREAN, N_, Language, translations
from ..logs import log_event
from ..sanitize import clean_text, split_login, validate_nickname
from .guessing import NameGuard
from .limits import address_key
from .passphrase import MAX_LENGTH, MIN_LENGTH, HashBusy, Hasher
from .registration import Registrations
from .skeleton import looks_like_bot, skeleton
from .store import Holder, NicknameStore, StoreFull

log = logging.getLogger("seotda.auth")

# (The keyboard-interactive prompts and what its rounds say are in :mod:`.keyless`.)
MSG_TOO_SHORT = N_("비밀번호가 너무 짧아요. {min}자 이상으로 정해 주세요.")
MSG_TAKEN = N_("'{name}' 닉네임을 방금 다른 사람이 먼저 등록했어요. 다른 닉네임을 써 주세요.")
MSG_IN_USE = N_("'{name}' 닉네임은 지금 다른 사람이 접속해서 쓰고 있어요. 다른 닉네임을 써 주세요.")
MSG_CHANGED = N_("'{name}' 닉네임의 등록 상태가 방금 바뀌었어요. 다시 접속해 주세요.")
MSG_NAME_LOCKED = N_(
    "'{name}' 닉네임은 비밀번호가 여러 번 틀려서 잠시 잠겨 있어요. {minutes}분 뒤에 풀려요. "
    "이 닉네임으로 접속했던 곳에서는 지금도 들어올 수 있어요."
)
MSG_HASH_BUSY = N_(
    "이 주소에서 온 다른 로그인의 비밀번호를 확인하는 중이에요. 잠시 뒤에 다시 접속해 주세요."
)
MSG_TOO_MANY_NAMES = N_(
    "이 주소에서 새 닉네임을 너무 많이 만들었어요 (한 시간에 {n}개까지). "
    "이미 쓰던 닉네임으로 접속하거나 잠시 뒤에 다시 해 주세요."
)
MSG_PASSWORD_METHOD = N_(
    "이 서버는 서버 비밀번호와 닉네임 비밀번호를 함께 물어봐요. 키보드 대화형 인증"
    "(keyboard-interactive, ssh 의 기본값)으로 접속해 주세요."
)

MSG_KEY_ONLY = N_(
    "'{name}' 닉네임은 등록된 SSH 키로만 접속할 수 있어요. "
    "처음 이 닉네임으로 접속할 때 쓴 키로 접속하거나 다른 닉네임을 써 주세요."
)
MSG_STORE_FULL = N_(
    "서버의 저장 공간 문제로 지금은 새 닉네임을 등록할 수 없어요. 잠시 뒤에 다시 접속해 주세요."
)
MSG_JUST_TAKEN = N_("'{name}' 닉네임은 방금 다른 사람이 등록했어요. 다른 닉네임을 써 주세요.")
MSG_LOOKALIKE = N_(
    "'{name}' 은(는) 이미 있는 닉네임 '{other}' 과(와) 너무 비슷해요. "
    "다른 사람과 헷갈리지 않게 다른 닉네임을 골라 주세요."
)
MSG_BAD_NAME = N_("'{name}' 은(는) 쓸 수 없는 닉네임이에요. {why}")
MSG_BOT_LOOKALIKE = N_(
    "'{name}' 은(는) 봇 이름(봇1, 봇2 …)과 너무 비슷해요. "
    "사람과 봇을 헷갈리지 않게 다른 닉네임을 골라 주세요."
)

Challenge = tuple[str, str, str, list[tuple[str, bool]]]


@dataclass(frozen=True)
class Identity:
    """A logged-in player, as the rest of the app sees them."""

    nickname: str
    key_fingerprint: str | None
    peer_ip: str


@dataclass(frozen=True)
class Proof:
    """A keyless login proved ``nickname`` with the passphrase whose hash is ``passphrase``."""

    nickname: str
    passphrase: str


@dataclass(frozen=True)
class Admission:
    """The verdict on a connection that passed SSH auth."""

    identity: Identity | None
    refusal: str | None = None
    needs_password: bool = False
    code: str | None = None  # why refused, for the log


@dataclass(frozen=True)
class Verdict:
    """What one keyless auth step decided.

    ``failed``: a wrong secret, to be counted towards the jail. ``retry``: the next
    keyboard-interactive round to send. ``banner``: why it failed, to show before
    failing; ``hang_up``: then disconnect (no point trying other methods).
    """

    proof: Proof | None = None
    accepted: bool = False
    failed: bool = False
    retry: Challenge | None = None
    banner: str | None = None
    hang_up: bool = False


@dataclass(frozen=True)
class NameState:
    """A user name as auth sees it: valid or not, what holds it, why it can't be used."""

    nickname: str | None
    holder: Holder | None
    refusal: str | None = None
    code: str | None = None


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
        self.hasher = Hasher()
        #: Wrong passphrases per nickname from every address (the server sets its settings).
        self.guard = NameGuard(10, 600.0)
        #: New nicknames per address per hour, each logged (the server sets its settings).
        self.registrations = Registrations(0)
        #: The language of what auth says (before a session, the client's LANG is unknown):
        #: the server's ``default_language``.
        self.language = Language(KOREAN)
        # Nicknames with a live session (set by the server): a new name may not look like them.
        self.live_names: Callable[[], Iterable[str]] = tuple

    def say(self, template: str, *, msgids: Iterable[str] = (), **values: object) -> str:
        """What auth tells a visitor: ``template`` (a msgid) in auth's language, filled with
        ``values`` (those named in ``msgids`` are msgids too, translated alike). On a Korean
        server the English follows on the next line: before a session the client's LANG is
        unknown, and a visitor who reads no Korean must still learn why they cannot log in."""
        text = self._fill(self.language.gettext, template, values, msgids)
        if self.language.code != KOREAN:
            return text
        english = self._fill(translations(ENGLISH).gettext, template, values, msgids)
        return text if english == text else f"{text}\n{english}"

    def say_one(self, template: str, **values: object) -> str:
        """``template`` in auth's language only: for prompts (one line, glossed already)."""
        return self._fill(self.language.gettext, template, values, ())

    @staticmethod
    def _fill(
        gettext: Callable[[str], str],
        template: str,
        values: dict[str, object],
        msgids: Iterable[str],
    ) -> str:
        text = gettext(template)
        if not values:
            return text
        names = set(msgids)
        return text.format(**{k: gettext(str(v)) if k in names else v for k, v in values.items()})

    @property
    def keyless_allowed(self) -> bool:
        """Keyless logins need the password when an allowlist is in force."""
        return self.authorized is None or self.password is not None

    def key_allowed(self, key: asyncssh.SSHKey, peer_ip: str) -> bool:
        """The allowlist check alone (always True without ``--authorized-keys``)."""
        return self.authorized is None or self.authorized.validate(key, "", peer_ip) is not None

    def name_state(self, username: str) -> NameState:
        """Validate ``username`` and look it up; a free name must not look like a used one.

        Only the part before a ``+`` is the name (``철수+K7QX3`` logs in as 철수).
        """
        username, _room = split_login(username)
        try:
            nickname = validate_nickname(username)
        except ValueError as exc:
            shown = clean_text(username, 24) or "?"
            # sanitize's reasons are msgids
            refusal = self.say(MSG_BAD_NAME, msgids=("why",), name=shown, why=str(exc))
            return NameState(None, None, refusal, "bad_nickname")
        holder = self.store.holder(nickname)
        if holder is not None:
            return NameState(nickname, holder)
        if looks_like_bot(nickname):
            refusal = self.say(MSG_BOT_LOOKALIKE, name=nickname)
            return NameState(nickname, None, refusal, "bot_lookalike")
        other = self.store.lookalike(nickname)
        if other is None:
            shape = skeleton(nickname)
            other = next((n for n in self.live_names() if skeleton(n) == shape), None)
        if other == nickname:  # released by the admin while its player is still on
            return NameState(nickname, None, self.say(MSG_IN_USE, name=nickname), "in_use")
        if other is not None:
            refusal = self.say(MSG_LOOKALIKE, name=nickname, other=other)
            return NameState(nickname, None, refusal, "lookalike")
        return NameState(nickname, None)

    def key_acceptable(self, username: str, key: asyncssh.SSHKey, peer_ip: str) -> bool:
        """Public-key stage: allowlisted, and the name not held by another credential.

        Rejecting here (rather than later) lets the client go on and offer its next
        key, or fall through to keyboard-interactive for a passphrase-held name.
        """
        if not self.key_allowed(key, peer_ip):
            return False
        holder = self.name_state(username).holder
        return holder is None or holder.key_fingerprint == key.get_fingerprint("sha256")

    def check_password(self, candidate: str) -> bool:
        """Constant-time comparison with the shared password (open mode accepts anything)."""
        if self.password is None:
            return self.authorized is None
        return hmac.compare_digest(candidate.encode(), self.password.encode())

    def name_locked(self, nickname: str, peer_ip: str) -> str | None:
        """Why ``nickname`` takes no passphrase from ``peer_ip`` now (locked by guessing), or
        None."""
        left = self.guard.locked(nickname, peer_ip)
        if left <= 0:
            return None
        return self.say(MSG_NAME_LOCKED, name=nickname, minutes=max(1, math.ceil(left / 60)))

    async def password_login(self, username: str, password: str, peer_ip: str = "") -> Verdict:
        """The plain ``password`` method: the nickname's passphrase (sets it on a free name)."""
        if self.password is not None:
            if not self.check_password(password):
                return Verdict(failed=True)
            return Verdict(banner=self.say(MSG_PASSWORD_METHOD))
        state = self.name_state(username)
        if state.nickname is None or state.refusal or key_only(state.holder):
            return Verdict(accepted=True)  # no identity: the session says why
        if state.holder is None and not self.registrations.allowed(peer_ip):
            return Verdict(accepted=True)  # (likewise)
        nickname = state.nickname
        if state.holder is not None:
            return await self.verify_passphrase(nickname, password, peer_ip)
        if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
            return Verdict(banner=MSG_TOO_SHORT.format(min=MIN_LENGTH))
        return await self.register_passphrase(nickname, password, peer_ip)

    async def verify_passphrase(self, nickname: str, passphrase: str, peer_ip: str = "") -> Verdict:
        """Check a passphrase against the store as it is now (the admin may have just released
        it), unless the name is locked for ``peer_ip`` or that address has a hash in line."""
        holder = self.store.holder(nickname)
        if holder is None or holder.passphrase is None:
            return Verdict(banner=MSG_CHANGED.format(name=nickname), hang_up=True)
        locked = self.name_locked(nickname, peer_ip)
        if locked is not None:
            return Verdict(banner=locked, hang_up=True)
        try:
            right = await self.hasher.verify(passphrase, holder.passphrase, _owner(peer_ip))
        except HashBusy:
            return Verdict(failed=True, banner=self.say(MSG_HASH_BUSY), hang_up=True)
        if right:
            self.store.touch(nickname)
            self.guard.success(nickname, peer_ip)
            return Verdict(Proof(nickname, holder.passphrase), accepted=True)
        if self.guard.failure(nickname):
            log_event(log, "name_locked", level=logging.WARNING, user=nickname, ip=peer_ip)
        return Verdict(failed=True)

    async def register_passphrase(
        self, nickname: str, passphrase: str, peer_ip: str = ""
    ) -> Verdict:
        try:
            hashed = await self.hasher.hash(passphrase, _owner(peer_ip))
        except HashBusy:
            return Verdict(banner=self.say(MSG_HASH_BUSY), hang_up=True)
        try:
            registered = self.store.set_passphrase(nickname, hashed)
        except StoreFull:
            return Verdict(banner=self.say(MSG_STORE_FULL), hang_up=True)
        if not registered:
            return Verdict(banner=self.say(MSG_TAKEN, name=nickname), hang_up=True)
        self.registrations.registered(nickname, peer_ip, "passphrase")
        self.guard.success(nickname, peer_ip)
        return Verdict(Proof(nickname, hashed), accepted=True)

    def admit(
        self, username: str, key_fingerprint: str | None, peer_ip: str, proof: Proof | None = None
    ) -> Admission:
        """Decide whether an authenticated connection may play, and under which identity.

        ``key_fingerprint`` is the key the client proved, ``proof`` the passphrase it
        proved: a name is granted only to the credential that holds it (or, for a free
        name, to a key that is then bound to it, see :meth:`bind`).
        """
        state = self.name_state(username)
        nickname = state.nickname
        if nickname is None:
            return Admission(None, state.refusal, code=state.code)
        holder = state.holder
        if holder is None and state.refusal is None and not self.registrations.allowed(peer_ip):
            refusal = self.say(MSG_TOO_MANY_NAMES, n=self.registrations.per_hour)
            return Admission(None, refusal, code="registrations_full")
        if holder is None and key_fingerprint is not None and state.refusal is None:
            needs_password = self.password is not None and self.authorized is None
            return Admission(Identity(nickname, key_fingerprint, peer_ip), None, needs_password)
        if holder is not None:
            if key_fingerprint is not None and holder.key_fingerprint == key_fingerprint:
                return Admission(Identity(nickname, key_fingerprint, peer_ip))
            if (
                key_fingerprint is None
                and proof is not None
                and proof.nickname == nickname
                and proof.passphrase == holder.passphrase
            ):
                return Admission(Identity(nickname, None, peer_ip))
            if holder.key_fingerprint is not None:
                # A mismatching key was already turned down at the key stage, so
                # here "another key" and "no key" look the same: one message.
                return Admission(None, self.say(MSG_KEY_ONLY, name=nickname), code="key_mismatch")
        if state.refusal is not None:
            return Admission(None, state.refusal, code=state.code)
        return Admission(None, self.say(MSG_CHANGED, name=nickname), code="no_credential")

    def bind(self, identity: Identity) -> str | None:
        """Record a key's claim on its nickname; return a refusal if something else just won it."""
        if identity.key_fingerprint is None:
            return None
        new = self.store.holder(identity.nickname) is None
        if not self.store.bind(identity.nickname, identity.key_fingerprint):
            return self.say(MSG_JUST_TAKEN, name=identity.nickname)
        if new:
            self.registrations.registered(identity.nickname, identity.peer_ip, "key")
        return None


def key_only(holder: Holder | None) -> bool:
    """Whether a name is held by a key alone (no passphrase: no keyless login gets it)."""
    return holder is not None and holder.passphrase is None


def _owner(peer_ip: str) -> str | None:
    """Whose place in the hash line a login takes: its address (None: unknown, unlimited)."""
    return address_key(peer_ip) if peer_ip else None
