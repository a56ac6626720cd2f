"""§5.6–5.7 and §6.6: busts, rebuys, eliminations, leaving, and the end of the game."""

from __future__ import annotations

from .core import LAST_STANDING_HAND_CAP, Event, GameCore
from .hands import HandRank
from .pots import split_evenly
from .result import build_result
from .state import Hand, Seat
from .types import Refusal


class BetweenHands(GameCore):
    def _note_best_hand(self, pid: str, rank: HandRank, hand_no: int) -> None:
        best = self.state.best_hand
        if best is None or rank.value > best["value"]:
            self.state.best_hand = {
                "playerId": pid,
                "name": rank.name,
                "handNo": hand_no,
                "value": rank.value,
            }

    def _finish_hand(self, hand: Hand) -> list[Event]:
        st, opts = self.state, self.options
        st.hands_played += 1
        biggest = st.biggest_pot
        if biggest is None or hand.paid_total > biggest["amount"]:
            st.biggest_pot = {
                "handNo": hand.hand_no,
                "amount": hand.paid_total,
                "winners": list(hand.main_winners),
            }
        if opts.dealer_rule == "winner" and hand.main_winners:
            st.dealer_seat = self._seats[hand.main_winners[0]].seat
        else:
            st.dealer_seat = (hand.dealer_seat + 1) % len(st.seats)
        events: list[Event] = []
        busted: list[Seat] = []
        for seat in st.seats:
            if seat.stack == 0 and seat.status in ("playing", "left"):
                if seat.status == "playing":
                    seat.status = "busted"
                    busted.append(seat)
                    events.append({"type": "busted", "player": seat.id})
                else:
                    events += self._eliminate([seat])
        if opts.end_condition == "hands" and st.hands_played >= opts.hand_limit:
            return events + self._eliminate(busted) + self._finish("hands")
        if opts.end_condition == "lastStanding" and st.hands_played >= LAST_STANDING_HAND_CAP:
            return events + self._eliminate(busted) + self._finish("handCap")
        askable = [s for s in busted if self._rebuys_left(s) > 0]
        events += self._eliminate([s for s in busted if s not in askable])
        if askable:
            st.phase = "rebuy"
            st.rebuy_pending = [s.id for s in askable]
            return events + [{"type": "rebuyOpen", "players": list(st.rebuy_pending)}]
        return events + self._next_hand()

    def _rebuys_left(self, seat: Seat) -> int:
        if self.options.rebuy == "off":
            return 0
        if self.options.rebuy == "unlimited":
            return 1
        return max(0, self.options.rebuy_limit - seat.rebuys)

    def _rebuy_refusal(self, seat: Seat, accept: bool) -> Refusal | None:
        if self.state.phase != "rebuy" or seat.id not in self.state.rebuy_pending:
            return Refusal("notRebuying", "지금은 리바이를 정할 때가 아니에요")
        if accept and self._rebuys_left(seat) <= 0:
            return Refusal("noRebuysLeft", "리바이 횟수를 다 썼어요")
        return None

    def _rebuy(self, seat: Seat, accept: bool) -> list[Event]:
        st = self.state
        st.rebuy_pending.remove(seat.id)
        events: list[Event] = []
        if accept:
            seat.stack = self.options.starting_chips
            seat.rebuys += 1
            seat.status = "playing"
            events.append(
                {"type": "rebuy", "player": seat.id, "accept": True, "amount": seat.stack}
            )
        else:
            events.append({"type": "rebuy", "player": seat.id, "accept": False, "amount": 0})
            events += self._eliminate([seat])
        if st.rebuy_pending:
            return events
        st.phase = "playing"
        return events + self._next_hand()

    def _eliminate(self, seats: list[Seat]) -> list[Event]:
        if not seats:
            return []
        hand_no = self.state.hand.hand_no if self.state.hand else self.state.hands_played
        for seat in seats:
            seat.status = "eliminated"
            seat.eliminated_at_hand = hand_no
        self.state.elimination_seq.append([s.id for s in seats])
        return [{"type": "eliminated", "player": s.id} for s in seats]

    def _with_chips(self) -> list[Seat]:
        return [s for s in self.state.seats if s.status in ("playing", "left") and s.stack > 0]

    def _next_hand(self) -> list[Event]:
        if self.options.end_condition == "lastStanding" and len(self._with_chips()) <= 1:
            return self._finish("lastStanding")
        ended = self._check_connected_end()
        if ended:
            return ended
        return self._start_hand()

    def _check_connected_end(self) -> list[Event]:
        """§6.6: at most one connected player who still has chips ends the game at once."""
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return []
        count = 0
        for seat in st.seats:
            if seat.status == "left" or not seat.connected:
                continue
            in_hand = (
                hand is not None and seat.id in hand.players and not hand.players[seat.id].folded
            )
            if seat.stack > 0 or in_hand or seat.id in st.rebuy_pending:
                count += 1
        if count > 1:
            return []
        return self._void_hand() + self._finish("disconnected")

    def _void_hand(self) -> list[Event]:
        """An unfinished hand when the game ends early: bets go back, kept pots are split."""
        hand = self.state.hand
        if hand is None or hand.phase == "handEnd" and not hand.rematch_pots:
            return []
        events: list[Event] = []
        for pid, rp in hand.players.items():
            if rp.committed_total:
                self._seats[pid].stack += rp.committed_total
                events.append({"type": "return", "player": pid, "amount": rp.committed_total})
                rp.committed_total = rp.committed_round = 0
        for pot in hand.carried_pots + hand.rematch_pots:
            for pid, share in split_evenly(pot.amount, self._from_dealer(pot.eligible)).items():
                self._seats[pid].stack += share
                events.append({"type": "return", "player": pid, "amount": share})
        hand.carried_pots, hand.rematch_pots = [], []
        hand.phase = "handEnd"
        hand.actor = None
        return events

    def _leave(self, seat: Seat) -> list[Event]:
        """§5.7: a player who leaves folds now and auto-dies in every later hand. An eliminated
        player who leaves stays eliminated, at the hand they went out in (§6.6 ranks by it)."""
        st, hand = self.state, self.state.hand
        seat.connected = False
        events: list[Event] = [{"type": "leave", "player": seat.id}]
        if seat.status == "eliminated":
            return events + self._check_connected_end()
        seat.status = "left"
        if st.phase == "rebuy" and seat.id in st.rebuy_pending:
            st.rebuy_pending.remove(seat.id)
            events += self._eliminate([seat])
            if not st.rebuy_pending:
                st.phase = "playing"
                return events + self._next_hand()
            return events + self._check_connected_end()
        if hand is not None and st.phase == "playing":
            rp = hand.players.get(seat.id)
            if hand.phase == "rejoin" and seat.id in hand.rejoin_pending:
                return events + self._rejoin(hand, seat, False)
            if hand.phase == "handEnd":
                if all(p in hand.ready for p in self._ready_expected()):
                    events += self._ready(hand, [])
                return events + self._check_connected_end()
            if rp is not None and not rp.folded and hand.phase in ("betting", "choose"):
                rp.folded = True
                rp.last_action = "die"
                events.append({"type": "fold", "player": seat.id, "auto": True})
                if len(self._live(hand)) == 1:
                    return events + self._win_by_fold(hand) + self._check_connected_end()
                if hand.phase == "betting" and hand.actor == seat.id:
                    events += self._advance(hand, after=seat.id)
                elif hand.phase == "choose" and not any(
                    self._must_choose(hand, p) for p in hand.participants
                ):
                    events += self._start_round(hand, 1)
        return events + self._check_connected_end()

    def _finish(self, reason: str) -> list[Event]:
        st = self.state
        st.phase = "finished"
        st.rebuy_pending = []
        st.joining = []  # (nobody sits down in a finished game)
        st.end_reason = reason
        if st.hand is not None:
            st.hand.actor = None
        st.result = build_result(self, reason)
        return [{"type": "gameEnd", "reason": reason, "summary": st.result["summary"]}]
