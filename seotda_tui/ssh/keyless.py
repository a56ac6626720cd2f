"""One connection's keyboard-interactive dialogue (:class:`KeylessLogin`): the rounds of
prompts a keyless login answers, and what each answer leads to.

The decisions (is the passphrase right, may this name be registered) are :mod:`.auth`'s
:class:`~.auth.AuthPolicy`; this module only asks and re-asks. The connection
(:mod:`.connection`) starts one per keyboard-interactive login.
"""

from __future__ import annotations

from ..i18n import N_
from .auth import MSG_TOO_SHORT, AuthPolicy, Challenge, Verdict, key_only
from .passphrase import MAX_LENGTH, MIN_LENGTH

KBDINT_ROUNDS = 3  # answers per keyboard-interactive attempt, then it fails

SERVER_PASSWORD_PROMPT = N_("서버 비밀번호 (password): ")
# The English in brackets is for clients that drop every non-ASCII byte from a prompt
# (dropbear's dbclient shows only "  : " otherwise).
PASSPHRASE_PROMPT = N_("닉네임 비밀번호 (passphrase): ")
NEW_PASSPHRASE_PROMPT = N_("새 닉네임 비밀번호 (new passphrase): ")
CONFIRM_PROMPT = N_("새 닉네임 비밀번호 확인 (한 번 더, again): ")

# What a keyboard-interactive round says goes in front of its first prompt, not in the
# "name"/"instructions" fields: OpenSSH prints those through its logger, which
# octal-escapes every non-ASCII byte ("\354\204\257..."), but prompts verbatim.
MSG_FIRST_USE = N_(
    "'{name}' 닉네임을 처음 쓰시네요. 이 닉네임을 지킬 비밀번호를 정해 주세요 "
    "({min}자 이상, 두 번 입력).\n다음부터 키 없이 이 닉네임으로 접속할 때 이 비밀번호를 물어봐요."
)
MSG_ENTER = N_("'{name}' 닉네임은 비밀번호로 지켜지고 있어요. 비밀번호를 입력해 주세요.")
MSG_WRONG = N_("비밀번호가 틀렸어요. 다시 입력해 주세요 (남은 기회 {left}번).")
MSG_WRONG_SERVER = N_("서버 비밀번호가 틀렸어요. 다시 입력해 주세요 (남은 기회 {left}번).")
MSG_MISMATCH = N_("두 번 입력한 비밀번호가 달라요. 다시 정해 주세요.")
MSG_TOO_LONG = N_("비밀번호가 너무 길어요. {max}자 이하로 정해 주세요.")
MSG_GAVE_UP = N_(
    "'{name}' 닉네임의 비밀번호가 {n}번 틀려서 접속을 끊어요. 비밀번호를 잊었다면 "
    "서버 관리자에게 닉네임 해제를 부탁하거나 다른 닉네임을 써 주세요."
)
MSG_NOT_SET = N_("'{name}' 닉네임의 비밀번호를 정하지 못했어요. 다시 접속해 주세요.")


class KeylessLogin:
    """One connection's keyboard-interactive dialogue: set or give the nickname's passphrase.

    In ``--password`` mode the shared password is asked in the same round. A name
    that can't be used (invalid, look-alike, key-only) asks no passphrase: auth then
    grants no identity, and the session prints why.
    """

    def __init__(self, policy: AuthPolicy, username: str, peer_ip: str = "") -> None:
        self._policy = policy
        self._peer_ip = peer_ip
        self._state = policy.name_state(username)
        self._rounds = 0
        self._server_prompt = policy.password is not None
        state = self._state
        self._mode = (
            "none"
            if state.nickname is None or state.refusal or key_only(state.holder)
            else ("verify" if state.holder is not None else "create")
        )
        if self._mode == "create" and not policy.registrations.allowed(peer_ip):
            self._mode = "none"  # no passphrase to set: the session says why
        #: Why no passphrase is asked at all (shown as a banner): the name is locked.
        self.refusal: str | None = None
        if self._mode == "verify" and state.nickname is not None:
            self.refusal = policy.name_locked(state.nickname, peer_ip)

    def _challenge(self, message: str) -> Challenge:
        """One round: the prompts this mode needs, the first one led by ``message``."""
        say = self._policy.say_one
        texts = [say(SERVER_PASSWORD_PROMPT)] if self._server_prompt else []
        if self._mode == "verify":
            texts.append(say(PASSPHRASE_PROMPT))
        elif self._mode == "create":
            texts += [say(NEW_PASSPHRASE_PROMPT), say(CONFIRM_PROMPT)]
        if message and texts:
            texts[0] = f"{message}\n{texts[0]}"
        return ("", "", "", [(text, False) for text in texts])

    def _intro(self) -> str:
        name = self._state.nickname
        if self._mode == "verify":
            return self._policy.say(MSG_ENTER, name=name)
        if self._mode == "create":
            return self._policy.say(MSG_FIRST_USE, name=name, min=MIN_LENGTH)
        return ""

    def start(self) -> Challenge | bool:
        """The first round (True: nothing to ask, in without a credential; False: refused,
        see :attr:`refusal`)."""
        if self.refusal is not None:
            return False
        if self._mode == "none" and not self._server_prompt:
            return True
        return self._challenge(self._intro())

    def _again(self, message: str, failed: bool) -> Verdict:
        left = KBDINT_ROUNDS - self._rounds
        if left <= 0:
            name = self._state.nickname or "?"
            if failed:
                banner = self._policy.say(MSG_GAVE_UP, name=name, n=KBDINT_ROUNDS)
            else:
                banner = self._policy.say(MSG_NOT_SET, name=name)
            return Verdict(failed=failed, banner=banner, hang_up=True)
        text = self._policy.say(message, left=left, min=MIN_LENGTH, max=MAX_LENGTH)
        return Verdict(failed=failed, retry=self._challenge(text))

    async def answer(self, responses: list[str]) -> Verdict:
        """Judge one round's answers."""
        self._rounds += 1
        expected = len(self._challenge("")[3])
        if len(responses) != expected:
            return Verdict(failed=True, hang_up=True)
        if self._server_prompt and not self._policy.check_password(responses.pop(0)):
            return self._again(MSG_WRONG_SERVER, failed=True)
        nickname = self._state.nickname
        if self._mode == "none" or nickname is None:
            return Verdict(accepted=True)
        if self._mode == "verify":
            verdict = await self._policy.verify_passphrase(nickname, responses[0], self._peer_ip)
            if verdict.failed and not verdict.hang_up:
                return self._again(MSG_WRONG, failed=True)
            return verdict
        new, again = responses
        if new != again:
            return self._again(MSG_MISMATCH, failed=False)
        if len(new) < MIN_LENGTH:
            return self._again(MSG_TOO_SHORT, failed=False)
        if len(new) > MAX_LENGTH:
            return self._again(MSG_TOO_LONG, failed=False)
        return await self._policy.register_passphrase(nickname, new, self._peer_ip)
