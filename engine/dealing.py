"""The deal hook of ``Game.new``: tests and the pilot harness choose cards without touching state.

Every match is shuffled by the game's seeded RNG, whatever the hook does (so the RNG draws, and
every later shuffle, are the same as without it). Just before each deal the game asks the hook,
if it has one, in what order to hand out the cards left in the deck: a :class:`DealRequest` says
who receives how many cards now and what they already hold; the answer must be a reordering of
``request.deck`` (anything else raises ``ValueError``). A hook is pure: the same requests give
the same answers, so ``Game.replay`` with the same hook rebuilds the same game.

The journal keeps a game's seed, never a hook: the room manager refuses a hook together with a
journal, and a production game is dealt by the seed alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DealRequest:
    """One deal about to happen: ``count`` rounds of one card to each of ``receivers`` in turn."""

    hand_no: int
    rematch_no: int
    receivers: tuple[str, ...]  # in deal order (from the dealer, clockwise; folded players out)
    count: int
    held: Mapping[str, tuple[int, ...]]  # each receiver's cards dealt so far in this match
    deck: tuple[int, ...]  # the cards left, in the order the seeded shuffle put them


class DealHook(Protocol):
    def __call__(self, request: DealRequest) -> Sequence[int]:
        """The deck to deal from: ``request.deck`` reordered (the first cards go out first)."""
        ...


def ordered(request: DealRequest, hook: DealHook) -> list[int]:
    """The hook's order for ``request``, checked to be the same cards as the deck."""
    order = [int(c) for c in hook(request)]
    if sorted(order) != sorted(request.deck):
        raise ValueError("a deal hook must return the deck's own cards, reordered")
    return order


MatchKey = tuple[int, int]  # (hand_no, rematch_no)


class StackedDeck:
    """A :class:`DealHook` that deals chosen players chosen cards in chosen matches.

    ``rig({"a": [4, 12]}, hand=3)`` gives ``a`` the cards 4 then 12 in hand 3 (its first match);
    ``hand=None`` means the next match to be dealt. Players not named get the cards left, in the
    seeded shuffle's order; matches without a plan are dealt exactly as the seed deals them.
    """

    def __init__(self) -> None:
        self._plans: dict[MatchKey | None, dict[str, list[int]]] = {}

    def rig(
        self, cards: Mapping[str, Sequence[int]], *, hand: int | None = None, rematch: int = 0
    ) -> None:
        plan = {pid: [int(c) for c in ids] for pid, ids in cards.items()}
        wanted = [c for ids in plan.values() for c in ids]
        if len(set(wanted)) != len(wanted):
            raise ValueError("a card is rigged twice")
        if any(not 0 <= c < 20 for c in wanted):
            raise ValueError("card ids are 0–19")
        self._plans[None if hand is None else (hand, rematch)] = plan

    def _plan(self, request: DealRequest) -> dict[str, list[int]] | None:
        key = (request.hand_no, request.rematch_no)
        fresh = not any(request.held.values())  # the match's first deal
        if key not in self._plans and None in self._plans and fresh:
            self._plans[key] = self._plans.pop(None)  # "the next match" is this one
        return self._plans.get(key)

    def __call__(self, request: DealRequest) -> list[int]:
        plan = self._plan(request)
        if not plan:
            return list(request.deck)
        wanted = {c for ids in plan.values() for c in ids}
        pool = [c for c in request.deck if c not in wanted]
        order: list[int] = []
        for r in range(request.count):
            for pid in request.receivers:
                have = len(request.held.get(pid, ())) + r
                ids = plan.get(pid, [])
                if have >= len(ids):
                    order.append(pool.pop(0))
                elif ids[have] in request.deck:
                    order.append(ids[have])
                else:
                    raise ValueError(f"card {ids[have]} rigged for {pid} was already dealt")
        return order + [c for c in request.deck if c not in order]
