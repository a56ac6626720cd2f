"""§5.1–5.4 and §6.3–6.5: one (re)match from the school to the payouts.

School, deal, betting rounds (the amounts come from ``betting``), the three-card choose phase,
the showdown judged pot by pot, and the hand-end wait.
"""

from __future__ import annotations

from . import betting
from .cards import DECK
from .core import MAX_REMATCHES, Event, GameCore
from .dealing import DealRequest, ordered
from .hands import HandRank, evaluate
from .pots import Pot, build_pots, split_evenly, uncalled_excess
from .showdown import resolve_ranks
from .state import Hand, RoundPlayer, Seat
from .types import BetKind, OutcomeDict, Refusal, ShownHand


class HandFlow(GameCore):
    def _start_hand(self) -> list[Event]:
        st, opts = self.state, self.options
        events: list[Event] = []
        hand_no = st.hands_played + 1
        every = opts.school_up_every
        if every and hand_no > 1 and (hand_no - 1) % every == 0:
            raised = opts.raised_school(st.base_unit)
            if raised != st.base_unit:
                st.base_unit = raised
                events.append({"type": "schoolUp", "baseUnit": raised})
        events += self._seat_joiners()
        entrants = [s for s in st.seats if s.status in ("playing", "left") and s.stack > 0]
        ids = {s.id for s in entrants}
        seated = [s for s in self._clockwise(st.dealer_seat) if s.id in ids]
        dealer = next((s for s in seated if s.status == "playing"), seated[0])
        st.dealer_seat = dealer.seat
        for s in st.seats:
            s.stack_at_hand_start = s.stack
        hand = Hand(hand_no=hand_no, dealer_seat=dealer.seat)
        hand.participants = [s.id for s in self._clockwise(dealer.seat) if s.id in ids]
        st.hand = hand
        events.append(
            {
                "type": "handStart",
                "handNo": hand_no,
                "dealer": dealer.id,
                "baseUnit": st.base_unit,
                "players": list(hand.participants),
            }
        )
        for pid in hand.participants:
            seat = self._seats[pid]
            rp = RoundPlayer(pid)
            hand.players[pid] = rp
            school = min(st.base_unit, seat.stack)
            seat.stack -= school
            rp.committed_total = school
            rp.all_in = seat.stack == 0
            events.append({"type": "school", "player": pid, "amount": school, "allIn": rp.all_in})
            if seat.status == "left":
                rp.folded = True
                rp.last_action = "die"
                events.append({"type": "fold", "player": pid, "auto": True})
        return events + self._begin_match(hand)

    def _seat_joiners(self) -> list[Event]:
        """Issue 32: players queued mid-game sit down now, in the order they asked, on new
        seats after the last (clockwise), with the starting chips; the school follows."""
        st = self.state
        events: list[Event] = []
        for pid in st.joining:
            seat = Seat(pid, len(st.seats), self.options.starting_chips)
            st.seats.append(seat)
            self._seats[pid] = seat
            events.append({"type": "seated", "player": pid, "seat": seat.seat, "stack": seat.stack})
        st.joining = []
        return events

    def _begin_match(self, hand: Hand) -> list[Event]:
        """Shuffle, deal the first cards and open the first betting round (§5.1/§5.2)."""
        deck = list(range(20))
        self._rng.shuffle(deck)
        hand.deck = deck
        first = (
            1 if self.options.card_mode == "two" and self.options.deal_mode == "twoRounds" else 2
        )
        events = self._deal(hand, first)
        live = self._live(hand)
        if not live:  # every rematch player has left the room: nobody contests the pots
            return events + self._settle_uncontested(hand)
        if len(live) == 1:
            return events + self._win_by_fold(hand)
        return events + self._start_round(hand, 0)

    def _deal(self, hand: Hand, count: int) -> list[Event]:
        live = self._live(hand)
        if self._deal_hook is not None:
            held = {pid: tuple(hand.players[pid].hand) for pid in live}
            request = DealRequest(
                hand.hand_no, hand.rematch_no, tuple(live), count, held, tuple(hand.deck)
            )
            hand.deck = ordered(request, self._deal_hook)
        for _ in range(count):
            for pid in live:
                hand.players[pid].hand.append(hand.deck.pop(0))
        return [{"type": "dealt", "to": pid, "count": count} for pid in live]

    def _start_round(self, hand: Hand, street: int) -> list[Event]:
        hand.phase = "betting"
        hand.street = street
        hand.current_bet = 0
        hand.opened = False
        for rp in hand.players.values():
            rp.committed_round = 0
            rp.acted = False
            rp.raised = False
            if not rp.folded:
                rp.last_action = None
                rp.last_amount = 0
        actionable = [p for p in hand.participants if self._can_act(hand.players[p])]
        events: list[Event] = [{"type": "round", "street": street}]
        if len(actionable) < 2:
            hand.actor = None
            return events + self._end_round(hand)
        hand.actor = actionable[0]
        return events

    @staticmethod
    def _can_act(rp: RoundPlayer) -> bool:
        return not rp.folded and not rp.all_in

    def _needs_action(self, hand: Hand, rp: RoundPlayer) -> bool:
        return self._can_act(rp) and (not rp.acted or rp.committed_round < hand.current_bet)

    def _bet_ctx(self, hand: Hand, pid: str) -> betting.BetContext:
        rp = hand.players[pid]
        return betting.BetContext(
            stack=self._seats[pid].stack,
            committed_round=rp.committed_round,
            current_bet=hand.current_bet,
            opened=hand.opened,
            acted=rp.acted,
            pot=self.pot_total(),
            base_unit=self.state.base_unit,
            max_raise=self.options.max_raise,
        )

    def _bet(self, hand: Hand, pid: str, kind: BetKind, amount: int) -> list[Event]:
        rp, seat = hand.players[pid], self._seats[pid]
        rp.last_action, rp.last_amount = kind, amount
        if kind == "die":
            rp.folded = True
            events: list[Event] = [{"type": "fold", "player": pid}]
        else:
            seat.stack -= amount
            rp.committed_round += amount
            rp.committed_total += amount
            rp.acted = True
            rp.raised = kind in betting.RAISES
            rp.all_in = seat.stack == 0
            if kind != "check":
                hand.opened = True
            hand.current_bet = max(hand.current_bet, rp.committed_round)
            events = [
                {"type": "bet", "player": pid, "action": kind, "amount": amount, "allIn": rp.all_in}
            ]
        return events + self._advance(hand, after=pid)

    def _advance(self, hand: Hand, after: str) -> list[Event]:
        """After a bet or a fold: the hand ends, the round ends, or the next player acts."""
        live = self._live(hand)
        if len(live) == 1:
            return self._win_by_fold(hand)
        if hand.phase != "betting":
            return []
        order = hand.participants
        start = order.index(after) + 1
        for i in range(len(order)):
            pid = order[(start + i) % len(order)]
            if self._needs_action(hand, hand.players[pid]):
                hand.actor = pid
                return []
        hand.actor = None
        return self._end_round(hand)

    def _end_round(self, hand: Hand) -> list[Event]:
        events: list[Event] = []
        excess = uncalled_excess({p: rp.committed_total for p, rp in hand.players.items()})
        if excess:
            pid, amount = excess
            rp = hand.players[pid]
            rp.committed_total -= amount
            rp.committed_round = max(0, rp.committed_round - amount)
            self._seats[pid].stack += amount
            rp.all_in = False if self._seats[pid].stack > 0 else rp.all_in
            events.append({"type": "return", "player": pid, "amount": amount})
        opts = self.options
        if hand.street == 0 and opts.card_mode == "three":
            events += self._deal(hand, 1)
            hand.phase = "choose"
            hand.actor = None
            return events
        if hand.street == 0 and opts.deal_mode == "twoRounds":
            events += self._deal(hand, 1)
            return events + self._start_round(hand, 1)
        return events + self._showdown(hand)

    @staticmethod
    def _choose_refusal(hand: Hand, pid: str, ids: list[int] | None) -> Refusal | None:
        """§5.2: who may pick two cards now; with ``ids``, also whether they are the player's."""
        if hand.phase != "choose":
            return Refusal("notChoosing", "지금은 카드를 고를 때가 아니에요")
        rp = hand.players.get(pid)
        if rp is None or rp.folded:
            return Refusal("notInHand", "이번 판에 참가하고 있지 않아요")
        if rp.chosen is not None:
            return Refusal("alreadyChosen", "이미 카드를 골랐어요")
        if ids is not None and any(i not in rp.hand for i in ids):
            return Refusal("notYourCard", "내 손패에 없는 카드예요")
        return None

    def _choose(self, hand: Hand, pid: str, ids: list[int]) -> list[Event]:
        rp = hand.players[pid]
        rp.chosen = list(ids)
        rp.discarded = next(c for c in rp.hand if c not in ids)
        events: list[Event] = [{"type": "chosen", "player": pid}]
        if any(self._must_choose(hand, p) for p in hand.participants):
            return events
        return events + self._start_round(hand, 1)

    def _cards_of(self, rp: RoundPlayer) -> list[int]:
        return rp.chosen if rp.chosen is not None else rp.hand

    def _showdown(self, hand: Hand) -> list[Event]:
        """§6.3/§6.5: reveal, judge every pot among its eligible players, pay or keep for a rematch."""
        live = self._live(hand)
        ranks: dict[str, HandRank] = {}
        reveal: list[ShownHand] = []
        for pid in live:
            a, b = (DECK[i] for i in self._cards_of(hand.players[pid]))
            rank = evaluate(a, b, self.options)
            ranks[pid] = rank
            reveal.append(
                {
                    "player": pid,
                    "cards": [a.to_dict(), b.to_dict()],
                    "name": rank.name,
                    "value": rank.value,
                    "special": rank.special,
                }
            )
            self._note_best_hand(pid, rank, hand.hand_no)
        hand.showdown = reveal
        hand.phase = "showdown"
        events: list[Event] = [{"type": "showdown", "hands": reveal}]
        pots = self._collect_pots(hand, live)
        reasons: list[str] = []
        for pot in sorted(pots, key=lambda p: (p.main, len(p.eligible))):
            contenders = [p for p in pot.eligible if p in ranks] or live
            if len(contenders) == 1:
                events += self._award(hand, pot, contenders, "normal")
                continue
            outcome = resolve_ranks({p: ranks[p] for p in contenders}, self.options)
            if outcome.type == "rematch" and outcome.reason != "tie" and self._gusa_refunds:
                events += self._refund(hand, pot, outcome.to_dict())
            elif outcome.type == "rematch" and hand.rematch_no >= MAX_REMATCHES:
                events += self._award(hand, pot, list(outcome.participants), "rematchCap")
            elif outcome.type == "rematch":
                kept_for = self._from_dealer(outcome.participants)
                keep = Pot(pot.amount, kept_for, pot.main, dict(pot.shares))
                hand.rematch_pots.append(keep)
                reasons.append(outcome.reason)
                hand.results.append({"amount": pot.amount, **outcome.to_dict()})
                events.append({"type": "pot", "amount": pot.amount, "outcome": outcome.to_dict()})
            else:
                events += self._award(hand, pot, list(outcome.winners), outcome.reason)
        if hand.rematch_pots:
            main = next((p for p in hand.rematch_pots if p.main), hand.rematch_pots[0])
            reason = reasons[hand.rematch_pots.index(main)]
            hand.rematch_reason = reason
            participants = self._from_dealer({p for pot in hand.rematch_pots for p in pot.eligible})
            events.append(
                {
                    "type": "rematch",
                    "rematchNo": hand.rematch_no + 1,
                    "reason": reason,
                    "participants": participants,
                }
            )
        return events + self._enter_hand_end(hand)

    def _collect_pots(self, hand: Hand, live: list[str]) -> list[Pot]:
        new = build_pots({p: rp.committed_total for p, rp in hand.players.items()}, live)
        if not hand.carried_pots and new:
            new[0].main = True
        for rp in hand.players.values():
            rp.committed_total = 0
            rp.committed_round = 0
        pots = hand.carried_pots + new
        hand.carried_pots = []
        return pots

    def _award(self, hand: Hand, pot: Pot, winners: list[str], reason: str) -> list[Event]:
        ordered = self._from_dealer(winners)
        shares = split_evenly(pot.amount, ordered)
        for pid, share in shares.items():
            self._seats[pid].stack += share
        hand.paid_total += pot.amount
        if pot.main:
            hand.main_winners = ordered
        kind = "win" if len(ordered) == 1 else "split"
        # issue 32: what each winner gained, less what they put into this pot (school included)
        net = {pid: share - pot.shares.get(pid, 0) for pid, share in shares.items()}
        hand.results.append(
            {"amount": pot.amount, "type": kind, "winners": ordered, "reason": reason, "net": net}
        )
        return [
            {
                "type": "payout",
                "player": pid,
                "amount": share,
                "reason": reason,
                "main": pot.main,
                "net": net[pid],
            }
            for pid, share in shares.items()
        ]

    @property
    def _gusa_refunds(self) -> bool:
        return self.options.effective_gusa_outcome == "refund"

    def _refund(self, hand: Hand, pot: Pot, outcome: OutcomeDict) -> list[Event]:
        """사구 파토 (``gusaOutcome=refund``): instead of a rematch, every player — folded ones
        too — takes back exactly what they put into this pot this hand, school included."""
        outcome = {**outcome, "type": "refund", "participants": []}
        hand.results.append({"amount": pot.amount, **outcome})
        events: list[Event] = [{"type": "pot", "amount": pot.amount, "outcome": outcome}]
        for pid in self._from_dealer(pot.shares):
            self._seats[pid].stack += pot.shares[pid]
            events.append({"type": "return", "player": pid, "amount": pot.shares[pid]})
        return events

    def _win_by_fold(self, hand: Hand) -> list[Event]:
        """§5.1.8: the last player standing takes every pot; no card is shown."""
        (winner,) = self._live(hand)
        pots = self._collect_pots(hand, [winner])
        merged = Pot(0, [winner], True)
        for pot in pots:
            pot.main = False
            merged.add(pot.shares)
        merged.amount = sum(p.amount for p in pots)  # (a pot journaled without shares counts)
        hand.actor = None
        events = self._award(hand, merged, [winner], "fold")
        hand.showdown = None
        return events + self._enter_hand_end(hand)

    def _settle_uncontested(self, hand: Hand) -> list[Event]:
        events: list[Event] = []
        for pot in self._collect_pots(hand, []):
            if pot.eligible:
                events += self._award(hand, pot, pot.eligible, "uncontested")
        return events + self._enter_hand_end(hand)

    def _enter_hand_end(self, hand: Hand) -> list[Event]:
        hand.phase = "handEnd"
        hand.actor = None
        hand.ready = []
        return [{"type": "handEnd", "handNo": hand.hand_no, "rematch": bool(hand.rematch_pots)}]

    def _ready(self, hand: Hand, pids: list[str]) -> list[Event]:
        hand.ready.extend(pids)
        events: list[Event] = [{"type": "ready", "player": p} for p in pids]
        if any(p not in hand.ready for p in self._ready_expected()):
            return events
        if hand.rematch_pots:
            return events + self._open_rejoin(hand)
        return events + self._finish_hand(hand)
