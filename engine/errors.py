"""The one exception an illegal or malformed action raises; its message is shown to the player."""

from __future__ import annotations

from .types import Refusal, RefusalCode


class IllegalAction(ValueError):
    """Raised before any state changes, so the game is exactly as it was.

    ``str(exc)`` is the Korean reason (what callers show); ``code`` is the stable reason code.
    """

    def __init__(self, message: str, code: RefusalCode = "malformed") -> None:
        super().__init__(message)
        self.code: RefusalCode = code

    @classmethod
    def of(cls, refusal: Refusal) -> IllegalAction:
        return cls(refusal.message, refusal.code)

    @property
    def refusal(self) -> Refusal:
        return Refusal(self.code, str(self))
