"""§5.5 재경기: rejoining a 구사 rematch and dealing the rematch over the kept pots."""

from __future__ import annotations

from .core import Event, GameCore
from .state import Hand, RoundPlayer, Seat
from .types import Refusal


class Rematch(GameCore):
    def _open_rejoin(self, hand: Hand) -> list[Event]:
        gusa = hand.rematch_reason in ("gusa", "mungGusa")
        cost_rule = self.options.rejoin_cost
        eligible = {p for pot in hand.rematch_pots for p in pot.eligible}
        candidates = [
            p
            for p in hand.participants
            if hand.players[p].folded
            and p not in eligible
            and self._seats[p].status == "playing"
            and self._seats[p].stack > 0
        ]
        if not gusa or cost_rule == "none" or not candidates:
            return self._start_rematch(hand)
        total = sum(p.amount for p in hand.rematch_pots)
        hand.rejoin_cost = total // 2 if cost_rule == "half" else total
        hand.rejoin_pending = candidates
        hand.rejoined = []
        hand.phase = "rejoin"
        return [{"type": "rejoinOpen", "players": list(candidates), "cost": hand.rejoin_cost}]

    @staticmethod
    def _rejoin_refusal(hand: Hand, seat: Seat, accept: bool) -> Refusal | None:
        if hand.phase != "rejoin" or seat.id not in hand.rejoin_pending:
            return Refusal("notRejoining", "지금은 재참가를 정할 때가 아니에요")
        if accept and seat.stack < hand.rejoin_cost:
            return Refusal("shortForRejoin", "칩이 모자라 재참가할 수 없어요")
        return None

    def _rejoin(self, hand: Hand, seat: Seat, accept: bool) -> list[Event]:
        hand.rejoin_pending.remove(seat.id)
        events: list[Event] = []
        if accept:
            seat.stack -= hand.rejoin_cost
            main = next((p for p in hand.rematch_pots if p.main), hand.rematch_pots[0])
            main.add({seat.id: hand.rejoin_cost})
            hand.rejoined.append(seat.id)
            for pot in hand.rematch_pots:
                pot.eligible = self._from_dealer([*pot.eligible, seat.id])
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
        return events + self._start_rematch(hand)

    def _start_rematch(self, hand: Hand) -> list[Event]:
        ids = {p for pot in hand.rematch_pots for p in pot.eligible}
        dealer = self.state.seats[hand.dealer_seat]
        if dealer.id not in ids:
            dealer = next(s for s in self._clockwise(hand.dealer_seat + 1) if s.id in ids)
        hand.dealer_seat = dealer.seat
        hand.rematch_no += 1
        hand.rematches += 1
        self.state.total_rematches += 1
        hand.participants = [s.id for s in self._clockwise(dealer.seat) if s.id in ids]
        hand.carried_pots, hand.rematch_pots = hand.rematch_pots, []
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
            seat = self._seats[pid]
            rp = RoundPlayer(pid, all_in=seat.stack == 0)
            if seat.status == "left":
                rp.folded, rp.last_action = True, "die"
            hand.players[pid] = rp
        return events + self._begin_match(hand)
