"""What the chat's and the shared limits' ops answer, checked on arrival like every decode.

The room API's answers are derived from its Protocol (:mod:`.calls`); these ops are the chat's
(:class:`~seotda_tui.rooms.chat.ChatService`) and the SSH limits'
(:class:`~seotda_tui.ssh.login_limits.SessionLimits`), served by the hub's own handlers. Each
:class:`Answer` names its op and its answer's type once: the worker asks through
:meth:`~.link.HubLink.ask`, which checks the answer against the type (:mod:`.shape`) and gives
it as that type, so nothing reads an unchecked value with ``int()`` or ``float()`` (a malformed
answer is logged and counts as a hub it cannot use: whoever asked has its answer for that).
"""

from __future__ import annotations

from typing import Generic, TypedDict, TypeVar, cast

from .protocol import ProtocolError
from .shape import ShapeError, check

T = TypeVar("T")


class Answer(Generic[T]):
    """One op and the type of its answer (``T``, written again as ``hint`` for the check: a
    union such as ``str | None`` is not a class mypy lets pass as ``type[T]``)."""

    __slots__ = ("hint", "op")

    def __init__(self, op: str, hint: object) -> None:
        self.op = op
        self.hint = hint

    def decode(self, data: object) -> T:
        """``data`` as ``T`` once it fits; else a :class:`ProtocolError` saying where."""
        try:
            check(self.hint, data)
        except ShapeError as exc:
            raise ProtocolError(f"malformed answer to {self.op}: {exc}") from None
        return cast(T, data)

    def __repr__(self) -> str:
        return f"Answer({self.op!r})"


class Restored(TypedDict):
    """The hub's answer to ``restore``: every jail and nickname lock it knows, seconds left."""

    jailed: dict[str, float]
    locks: dict[str, float]


# the chat (ChatService)
CHAT_POST: Answer[str | None] = Answer("chat_post", str | None)  # a refusal, or None: sent
CHAT_QUICK: Answer[str | None] = Answer("chat_quick", str | None)
CHAT_HISTORY: Answer[list[object]] = Answer("chat_history", list[object])  # (each line: WireChat)
CHAT_SUBSCRIBERS: Answer[int] = Answer("chat_subscribers", int)
# the shared limits (SessionLimits and its parts)
CONNECT_ALLOWED: Answer[bool] = Answer("connect_allowed", bool)
ADMIT: Answer[str | None] = Answer("admit", str | None)  # a refusal, or None: counted
AUTH_FAILED: Answer[bool] = Answer("auth_failed", bool)  # True: jailed now
JAIL_REMAINING: Answer[float] = Answer("jail_remaining", float)
LINK_ISSUE: Answer[str | None] = Answer("link_issue", str | None)
LINK_REDEEM: Answer[bool] = Answer("link_redeem", bool)
RESTORE: Answer[Restored] = Answer("restore", Restored)
NAME_LOCKED: Answer[float] = Answer("name_locked", float)  # seconds left, 0: not locked
NAME_FAILED: Answer[bool] = Answer("name_failed", bool)  # True: locked now
REGISTRATION_ALLOWED: Answer[bool] = Answer("registration_allowed", bool)
#: [a refusal, None] or [None, a token of the asker's to hang up on, or None]
PENDING_ADMIT: Answer[tuple[str | None, int | None]] = Answer(
    "pending_admit", tuple[str | None, int | None]
)

#: Every answer here, by op (tests check the hub serves each).
ANSWERS: dict[str, Answer[object]] = {
    a.op: cast("Answer[object]", a)
    for a in (
        CHAT_POST,
        CHAT_QUICK,
        CHAT_HISTORY,
        CHAT_SUBSCRIBERS,
        CONNECT_ALLOWED,
        ADMIT,
        AUTH_FAILED,
        JAIL_REMAINING,
        LINK_ISSUE,
        LINK_REDEEM,
        RESTORE,
        NAME_LOCKED,
        NAME_FAILED,
        REGISTRATION_ALLOWED,
        PENDING_ADMIT,
    )
}
