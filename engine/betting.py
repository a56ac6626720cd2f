"""§5.4 한국식 판돈 베팅: the one place that decides whether a bet is legal, and its exact chips.

``check`` returns the chips or the refusal; ``Game.check_bet`` (which adds whose turn it is) and
``legal_actions`` ask it. The game applies the chips ``check`` returned and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from .types import BetKind, LegalAction, Refusal

BET_KINDS: tuple[BetKind, ...] = get_args(BetKind)
BET_ACTIONS: tuple[str, ...] = BET_KINDS  # (as plain names, for callers keyed by str)
RAISES: frozenset[str] = frozenset({"ddadang", "quarter", "half", "full"})

#: Korean names used in messages and on buttons.
ACTION_NAMES: dict[str, str] = {
    "die": "다이",
    "check": "체크",
    "ping": "삥",
    "call": "콜",
    "ddadang": "따당",
    "quarter": "쿼터",
    "half": "하프",
    "full": "풀",
}


@dataclass(frozen=True, slots=True)
class BetContext:
    """What one player's betting choice depends on, read off the hand."""

    stack: int
    committed_round: int
    current_bet: int
    opened: bool
    acted: bool  # checked, called, pinged or raised already this round
    pot: int  # everything in the middle: carried pots + every contribution so far
    base_unit: int
    max_raise: str

    @property
    def to_call(self) -> int:
        return max(0, self.current_bet - self.committed_round)


def _raise_target(kind: str, ctx: BetContext) -> int:
    to_call = ctx.to_call
    if kind == "ddadang":
        amount = 2 * to_call
    elif kind == "quarter":
        amount = to_call + (ctx.pot + to_call) // 4
    elif kind == "half":
        amount = to_call + (ctx.pot + to_call) // 2
    else:  # full
        amount = to_call + (ctx.pot + to_call)
    if amount - to_call < ctx.base_unit:
        amount = to_call + ctx.base_unit
    return amount


def check(kind: str, ctx: BetContext) -> tuple[int, Refusal | None]:
    """``(chips, None)`` when ``kind`` is legal now (chips capped at the stack: all-in),
    else ``(0, refusal)``. Every betting rule of §5.4 is decided here and only here."""
    if kind == "die":
        return 0, None
    if kind == "check":
        return (
            (0, Refusal("alreadyOpened", "누가 이미 걸어서 체크할 수 없어요"))
            if ctx.opened
            else (0, None)
        )
    if kind == "ping":
        if ctx.opened:
            return 0, Refusal("alreadyOpened", "누가 이미 걸어서 삥을 할 수 없어요")
        if ctx.acted:
            return 0, Refusal("roundCapped", "이번 라운드에는 더 올릴 수 없어요(콜 또는 다이)")
        if ctx.stack <= 0:
            return 0, Refusal("noChips", "칩이 없어 걸 수 없어요")
        return min(ctx.base_unit, ctx.stack), None
    to_call = ctx.current_bet - ctx.committed_round
    if kind == "call":
        if to_call <= 0:
            return 0, Refusal("nothingToCall", "맞출 금액이 없어요(체크 또는 삥)")
        return min(to_call, ctx.stack), None
    if kind in RAISES:
        if kind == "full" and ctx.max_raise != "full":
            return 0, Refusal("fullNotAllowed", "이 방에서는 풀을 할 수 없어요(하프까지)")
        if kind == "ddadang" and to_call <= 0:
            return 0, Refusal("nothingToDouble", "앞사람이 건 금액이 없어 따당을 할 수 없어요")
        if ctx.acted:
            return 0, Refusal("roundCapped", "이번 라운드에는 더 올릴 수 없어요(콜 또는 다이)")
        if ctx.stack <= to_call:
            return 0, Refusal("shortForRaise", "칩이 모자라 올릴 수 없어요(콜 또는 다이)")
        return min(_raise_target(kind, ctx), ctx.stack), None
    return 0, Refusal("unknownBet", "알 수 없는 베팅이에요")


def legal_actions(ctx: BetContext) -> list[LegalAction]:
    """Every legal betting action with the exact chips it costs, in the action bar's order."""
    actions: list[LegalAction] = []
    for kind in BET_KINDS:
        amount, reason = check(kind, ctx)
        if reason is not None:
            continue
        actions.append(
            {"type": kind, "amount": amount, "allIn": amount > 0 and amount >= ctx.stack}
        )
    return actions
