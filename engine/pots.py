"""§5.4/§6.5 판돈: side pots by all-in level, uncalled excess, and even splits."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .types import PotDict


@dataclass(slots=True)
class Pot:
    """``eligible`` is in seat order; ``main`` marks the pot whose winner becomes the next 선.

    ``shares``: what each player (folded ones too) put into this pot, summing to ``amount`` —
    what a 사구 파토 (``gusaOutcome=refund``) gives back. Not in the view (bets are shown
    already); a pot journaled before it existed loads with none.
    """

    amount: int
    eligible: list[str] = field(default_factory=list)
    main: bool = False
    shares: dict[str, int] = field(default_factory=dict)

    def add(self, shares: Mapping[str, int]) -> None:
        """Put more chips in: the amount and each player's share."""
        for pid, chips in shares.items():
            if chips:
                self.shares[pid] = self.shares.get(pid, 0) + chips
                self.amount += chips

    def to_dict(self) -> PotDict:
        return {"amount": self.amount, "eligible": list(self.eligible), "main": self.main}


def build_pots(
    contrib: Mapping[str, int], live: Sequence[str], all_in: Collection[str] | None = None
) -> list[Pot]:
    """Split contributions into pots by the levels of the capped live players' totals.

    ``live`` are the players still in the hand (not folded), in seat order; folded chips stay in
    the pots they reached. ``all_in``: the live players who can put in no more. While a round is
    open only their totals are levels (§5.4: a side pot is made by an all-in for less); the
    other live players may still match any level, so they are eligible for every pot. None (at
    the showdown): every live total is final and a level. Chips above the highest level go to
    a pot of the uncapped live players, or (none left) to the last pot.
    """
    capped = set(live) if all_in is None else set(all_in) & set(live)
    uncapped = [p for p in live if p not in capped]
    levels = sorted({contrib.get(p, 0) for p in capped if contrib.get(p, 0) > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        layer = {p: min(c, level) - min(c, previous) for p, c in contrib.items()}
        eligible = [p for p in live if p not in capped or contrib.get(p, 0) >= level]
        if not (pots and pots[-1].eligible == eligible):
            pots.append(Pot(0, eligible))
        pots[-1].add(layer)
        previous = level
    rest = {p: max(0, c - previous) for p, c in contrib.items()}
    if any(rest.values()):
        if uncapped and not (pots and pots[-1].eligible == uncapped):
            pots.append(Pot(0, uncapped))
        elif not pots:
            pots.append(Pot(0, list(live)))
        pots[-1].add(rest)
    return pots


def uncalled_excess(contrib: Mapping[str, int]) -> tuple[str, int] | None:
    """The single top contributor's chips that nobody matched, if any (§5.4)."""
    if not contrib:
        return None
    ordered = sorted(contrib.values(), reverse=True)
    top = ordered[0]
    second = ordered[1] if len(ordered) > 1 else 0
    if top <= second:
        return None
    player = next(p for p, c in contrib.items() if c == top)
    return player, top - second


def split_evenly(amount: int, winners_from_dealer: Iterable[str]) -> dict[str, int]:
    """Equal shares; odd chips one each from the winner nearest the dealer clockwise (§6.3)."""
    order = list(winners_from_dealer)
    share, odd = divmod(amount, len(order))
    return {p: share + (1 if i < odd else 0) for i, p in enumerate(order)}
