"""§5.5 재경기: rejoining a 구사 rematch and dealing the rematch over the kept pots."""

from __future__ import annotations

from .core import GameCore
from .flow import begin_match
from .state import Hand, RoundPlayer, Seat
from .types import Event, Refusal


def open_rejoin(g: GameCore, hand: Hand) -> list[Event]:
    """After a hand kept pots for a rematch: ask who folded whether to buy back in (구사 with
    a ``rejoinCost``), else deal the rematch now."""
    gusa = hand.rematch_reason in ("gusa", "mungGusa")
    cost_rule = g.options.rejoin_cost
    eligible = {p for pot in hand.rematch_pots for p in pot.eligible}
    candidates = [
        p
        for p in hand.participants
        if hand.players[p].folded
        and p not in eligible
        and g.seats[p].status == "playing"
        and g.seats[p].stack > 0
    ]
    if not gusa or cost_rule == "none" or not candidates:
        return _start_rematch(g, hand)
    total = sum(p.amount for p in hand.rematch_pots)
    hand.rejoin_cost = total // 2 if cost_rule == "half" else total
    hand.rejoin_pending = candidates
    hand.rejoined = []
    hand.phase = "rejoin"
    return [{"type": "rejoinOpen", "players": list(candidates), "cost": hand.rejoin_cost}]


def rejoin_refusal(hand: Hand, seat: Seat, accept: bool) -> Refusal | None:
    if hand.phase != "rejoin" or seat.id not in hand.rejoin_pending:
        return Refusal("notRejoining", "지금은 재참가를 정할 때가 아니에요")
    if accept and seat.stack < hand.rejoin_cost:
        return Refusal("shortForRejoin", "칩이 모자라 재참가할 수 없어요")
    return None


def rejoin(g: GameCore, hand: Hand, seat: Seat, accept: bool) -> list[Event]:
    hand.rejoin_pending.remove(seat.id)
    events: list[Event] = []
    if accept:
        seat.stack -= hand.rejoin_cost
        main = next((p for p in hand.rematch_pots if p.main), hand.rematch_pots[0])
        main.add({seat.id: hand.rejoin_cost})
        hand.rejoined.append(seat.id)
        for pot in hand.rematch_pots:
            pot.eligible = g.from_dealer([*pot.eligible, seat.id])
    events.append(
        {
            "type": "rejoin",
            "player": seat.id,
            "accept": accept,
            "amount": hand.rejoin_cost if accept else 0,
        }
    )
    if hand.rejoin_pending:
        return events
    return events + _start_rematch(g, hand)


def _start_rematch(g: GameCore, hand: Hand) -> list[Event]:
    ids = {p for pot in hand.rematch_pots for p in pot.eligible}
    dealer = g.state.seats[hand.dealer_seat]
    if dealer.id not in ids:
        dealer = next(s for s in g.clockwise(hand.dealer_seat + 1) if s.id in ids)
    hand.dealer_seat = dealer.seat
    hand.rematch_no += 1
    hand.rematches += 1
    g.state.total_rematches += 1
    hand.participants = [s.id for s in g.clockwise(dealer.seat) if s.id in ids]
    hand.carried_pots, hand.rematch_pots = hand.rematch_pots, []
    # issue 36: who died in the match just played still owes a 땡값 the rematch may bring
    hand.died += [p for p, rp in hand.players.items() if rp.folded and p not in hand.died]
    hand.gusa_pending, hand.gusa_waived = [], []
    hand.players = {}
    hand.showdown = None
    hand.results = []
    hand.rejoin_pending, hand.rejoin_cost, hand.rejoined = [], 0, []
    events: list[Event] = [
        {
            "type": "rematchStart",
            "rematchNo": hand.rematch_no,
            "reason": hand.rematch_reason,
            "dealer": dealer.id,
            "players": list(hand.participants),
        }
    ]
    for pid in hand.participants:
        seat = g.seats[pid]
        rp = RoundPlayer(pid, all_in=seat.stack == 0)
        if seat.status == "left":
            rp.folded, rp.last_action = True, "die"
        hand.players[pid] = rp
    return events + begin_match(g, hand)
