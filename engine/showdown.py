"""§6.3 쇼다운 판정: who wins a pot, who splits it, or who plays a rematch."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal, NamedTuple

from .cards import Card
from .hands import HandRank, hand_table, threshold
from .options import Options
from .types import OutcomeDict

OutcomeType = Literal["win", "split", "rematch"]
Reason = Literal["normal", "ttaengjabi", "amhaeng", "gusa", "mungGusa", "tie"]


class Outcome(NamedTuple):
    """Winners and rematch participants are sorted by id, so the mapping's order cannot leak in.

    Immutable; a NamedTuple because a showdown builds one per pot (frozen dataclasses are slower).
    """

    type: OutcomeType
    winners: tuple[str, ...]
    reason: Reason
    participants: tuple[str, ...] = ()

    def to_dict(self) -> OutcomeDict:
        return {
            "type": self.type,
            "winners": list(self.winners),
            "reason": self.reason,
            "participants": list(self.participants),
        }


def resolve(hands: Mapping[str, tuple[Card, Card]], options: Options) -> Outcome:
    """Judge one pot among its eligible showdown players (§6.3 steps 1–6)."""
    if len(hands) < 2:
        if len(hands) == 1:
            (only,) = hands
            return Outcome("win", (only,), "normal")
        raise ValueError("쇼다운에는 한 명 이상이 필요해요")
    table = hand_table(options)
    ranks: dict[str, HandRank] = {}
    for player, (a, b) in hands.items():
        rank = table[a.id * 20 + b.id]
        if rank is None:
            raise ValueError("같은 카드 두 장으로는 족보를 만들 수 없어요")
        ranks[player] = rank
    return resolve_ranks(ranks, options)


def resolve_ranks(
    ranks: Mapping[str, HandRank], options: Options, waived: Collection[str] = ()
) -> Outcome:
    """``resolve`` on already evaluated hands (the game evaluates each hand once).

    A 구사 "rematch" here is the judgement; with ``gusaOutcome=refund`` the game refunds the
    pot instead of keeping it (engine/flow.py), so the judge stays one function for both.
    ``waived``: holders who declined their 구사 (``gusaChoice``, issue 36): their check is
    skipped, as if it were not met.
    """
    players, winners, reason, fired = _judge(ranks, options)
    rematch_reason: Reason | None = None
    for holder in fired:
        if holder in waived:
            continue
        special = ranks[holder].special
        if rematch_reason is None or special == "mungGusa":
            rematch_reason = "mungGusa" if special == "mungGusa" else "gusa"
    if rematch_reason is not None:
        return Outcome("rematch", (), rematch_reason, tuple(players))

    if len(winners) == 1:
        return Outcome("win", (winners[0],), reason)
    if options.tie_rule == "rematch":
        return Outcome("rematch", (), "tie", tuple(winners))
    return Outcome("split", tuple(winners), reason)


def gusa_fired(ranks: Mapping[str, HandRank], options: Options) -> list[str]:
    """§6.3 step 4: who holds a 구사 whose check is met among these hands, sorted by id (issue
    36's ``gusaChoice`` asks each of them whether it fires)."""
    return _judge(ranks, options)[3] if len(ranks) >= 2 else []


def _judge(
    ranks: Mapping[str, HandRank], options: Options
) -> tuple[list[str], list[str], Reason, list[str]]:
    """§6.3 steps 1–4: (the players by id, the provisional winners W and why, the 구사 and
    멍구사 holders whose check is met)."""
    players = sorted(ranks)
    vmax = -1
    holders: list[str] = []  # players whose hand carries a special power
    for p in players:
        rank = ranks[p]
        if rank.value > vmax:
            vmax = rank.value
        if rank.special is not None:
            holders.append(p)
    reason: Reason = "normal"
    winners: list[str] | None = None
    if holders:
        ttaengjabi = [p for p in holders if ranks[p].special == "ttaengjabi"]
        amhaeng = [p for p in holders if ranks[p].special == "amhaeng"]
        if ttaengjabi and 901 <= vmax <= 909:
            winners, reason = ttaengjabi, "ttaengjabi"
        elif amhaeng and vmax in (980, 990):
            winners, reason = amhaeng, "amhaeng"
    if winners is None:
        winners = [p for p in players if ranks[p].value == vmax]
    fired: list[str] = []
    for holder in holders:
        limit = threshold(ranks[holder], options)
        already_wins = holder in winners and options.effective_gusa_when_winning == "win"
        if limit is None or already_wins:
            continue
        others_best = max(ranks[q].value for q in players if q != holder)
        if others_best <= limit:
            fired.append(holder)
    return players, winners, reason, fired
