"""§6.3 쇼다운 판정: who wins a pot, who splits it, or who plays a rematch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

from .cards import Card
from .hands import HandRank, evaluate, threshold
from .options import Options

OutcomeType = Literal["win", "split", "rematch"]
Reason = Literal["normal", "ttaengjabi", "amhaeng", "gusa", "mungGusa", "tie"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """Winners and rematch participants are sorted by id, so the mapping's order cannot leak in."""

    type: OutcomeType
    winners: tuple[str, ...]
    reason: Reason
    participants: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
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
    ranks: dict[str, HandRank] = {p: evaluate(a, b, options) for p, (a, b) in hands.items()}
    return resolve_ranks(ranks, options)


def resolve_ranks(ranks: Mapping[str, HandRank], options: Options) -> Outcome:
    """``resolve`` on already evaluated hands (the game evaluates each hand once)."""
    players = sorted(ranks)
    vmax = max(r.value for r in ranks.values())
    reason: Reason = "normal"
    ttaengjabi = [p for p in players if ranks[p].special == "ttaengjabi"]
    amhaeng = [p for p in players if ranks[p].special == "amhaeng"]
    if ttaengjabi and 901 <= vmax <= 909:
        winners, reason = ttaengjabi, "ttaengjabi"
    elif amhaeng and vmax in (980, 990):
        winners, reason = amhaeng, "amhaeng"
    else:
        winners = [p for p in players if ranks[p].value == vmax]

    rematch_reason: Reason | None = None
    for holder in players:
        limit = threshold(ranks[holder], options)
        if limit is None or holder in winners:
            continue
        others_best = max(ranks[q].value for q in players if q != holder)
        if others_best <= limit:
            special = ranks[holder].special
            if rematch_reason is None or special == "mungGusa":
                rematch_reason = "mungGusa" if special == "mungGusa" else "gusa"
    if rematch_reason is not None:
        return Outcome("rematch", (), rematch_reason, tuple(players))

    if len(winners) == 1:
        return Outcome("win", tuple(winners), reason)
    if options.tie_rule == "rematch":
        return Outcome("rematch", (), "tie", tuple(winners))
    return Outcome("split", tuple(winners), reason)
