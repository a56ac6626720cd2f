"""§4–§8 the game as one pure state machine: ``Game.new``, ``apply``, ``timeout``, ``view``.

Every entry point verifies first and mutates after, so an ``IllegalAction`` leaves the state exactly
as it was. Time belongs to the caller: ``pending()`` says whom the game waits for and for how many
seconds, and the caller calls ``timeout()`` when that deadline passes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping, Sequence

from . import betting
from .cards import DECK
from .errors import IllegalAction
from .hands import HandRank, best_two, evaluate
from .options import Options
from .pots import Pot, build_pots, split_evenly, uncalled_excess
from .result import build_result
from .rng import Rng
from .showdown import resolve_ranks
from .state import GameState, Hand, RoundPlayer, Seat, state_from_plain, to_plain

Event = dict[str, Any]
Action = Mapping[str, Any]

#: §8.5 deadlines in seconds.
AWAY_SECONDS = 5
CHOOSE_EXTRA_SECONDS = 10
REJOIN_SECONDS = 15
HAND_END_SECONDS = 4
REBUY_SECONDS = 15
#: §6.6 lastStanding hard cap, §5.5 rematch cap.
LAST_STANDING_HAND_CAP = 300
MAX_REMATCHES = 3

_PAYLOAD: dict[str, tuple[str, ...]] = {
    **{kind: () for kind in betting.BET_ACTIONS},
    "choose": ("cardIds",),
    "rejoin": ("accept",),
    "rebuy": ("accept",),
    "ready": (),
    "leave": (),
    "disconnect": (),
    "reconnect": (),
}


def _parse(action: Any) -> tuple[str, dict[str, Any]]:
    """Shape check of a client's action: a dict with a known ``type`` and exactly its payload."""
    if not isinstance(action, Mapping):
        raise IllegalAction("행동 형식이 올바르지 않아요")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _PAYLOAD:
        raise IllegalAction("알 수 없는 행동이에요")
    wanted = _PAYLOAD[kind]
    extra = set(action) - {"type", *wanted}
    if extra:
        raise IllegalAction("필요 없는 값이 함께 왔어요")
    payload: dict[str, Any] = {}
    for key in wanted:
        if key not in action:
            if kind == "choose":
                raise IllegalAction("카드 두 장을 골라 주세요")
            raise IllegalAction("받기/안 받기를 정해 주세요")
        payload[key] = action[key]
    if kind in ("rejoin", "rebuy") and not isinstance(payload["accept"], bool):
        raise IllegalAction("받기/안 받기를 정해 주세요")
    if kind == "choose":
        ids = payload["cardIds"]
        if (
            not isinstance(ids, (list, tuple))
            or len(ids) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
        ):
            raise IllegalAction("카드 두 장을 골라 주세요")
        if ids[0] == ids[1]:
            raise IllegalAction("같은 카드를 두 번 고를 수 없어요")
        payload["cardIds"] = [int(i) for i in ids]
    return kind, payload


class Game:
    """One room's game. Build with ``Game.new``; never share the object with a client."""

    def __init__(self, options: Options, state: GameState) -> None:
        self.options = options
        self.state = state
        self._rng = Rng(state.rng)
        self._seats = {s.id: s for s in state.seats}

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(cls, options: Options, player_ids: Sequence[str], seed: int | str) -> Game:
        """§4: seat shuffle, starting chips, first dealer, first hand started."""
        if not isinstance(options, Options):
            raise TypeError("options must be engine.Options")
        ids = list(player_ids)
        if any(not isinstance(p, str) or not p for p in ids) or len(set(ids)) != len(ids):
            raise ValueError("player ids must be distinct non-empty strings")
        options.check_players(len(ids))
        rng = Rng.from_seed(seed)
        rng.shuffle(ids)
        seats = [Seat(pid, i, options.starting_chips) for i, pid in enumerate(ids)]
        dealer = rng.below(len(seats))
        state = GameState(options.to_dict(), rng.state, seats, options.base_unit, dealer_seat=dealer)
        game = cls(options, state)
        game.last_events = game._start_hand()
        return game

    @classmethod
    def replay(
        cls,
        options: Options,
        player_ids: Sequence[str],
        seed: int | str,
        log: Iterable[tuple[str | None, Action]],
    ) -> Game:
        """Rebuild a game from its seed and its log (``None`` as the player = a timeout)."""
        game = cls.new(options, player_ids, seed)
        for player_id, action in log:
            if player_id is None:
                game.timeout()
            else:
                game.apply(player_id, action)
        return game

    def to_dict(self) -> dict[str, Any]:
        self.state.rng = self._rng.state
        return to_plain(self.state)  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        plain = json.loads(json.dumps(data))  # a private deep copy
        state = state_from_plain(plain)
        return cls(Options.from_dict(state.options), state)

    def state_hash(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    # ----------------------------------------------------------------- queries
    @property
    def finished(self) -> bool:
        return self.state.phase == "finished"

    @property
    def players(self) -> list[str]:
        """Player ids in seat order (clockwise)."""
        return [s.id for s in self.state.seats]

    def result(self) -> dict[str, Any] | None:
        return self.state.result

    def pending(self) -> dict[str, Any]:
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return {"phase": "finished", "players": [], "seconds": None}
        if st.phase == "rebuy":
            return {"phase": "rebuy", "players": list(st.rebuy_pending), "seconds": REBUY_SECONDS}
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            away = self._seats[hand.actor].away
            seconds = AWAY_SECONDS if away else self.options.turn_seconds
            return {"phase": "betting", "players": [hand.actor], "seconds": seconds}
        if hand.phase == "choose":
            waiting = [p for p in hand.participants if self._must_choose(hand, p)]
            seconds = self.options.turn_seconds + CHOOSE_EXTRA_SECONDS
            return {"phase": "choose", "players": waiting, "seconds": seconds}
        if hand.phase == "rejoin":
            return {"phase": "rejoin", "players": list(hand.rejoin_pending), "seconds": REJOIN_SECONDS}
        waiting = [p for p in self._ready_expected() if p not in hand.ready]
        return {"phase": "handEnd", "players": waiting, "seconds": HAND_END_SECONDS}

    def legal_actions(self, player_id: str) -> list[dict[str, Any]]:
        """What ``player_id`` may do now, with the exact chips each action costs."""
        st, hand = self.state, self.state.hand
        if st.phase == "finished" or player_id not in self._seats:
            return []
        seat = self._seats[player_id]
        if st.phase == "rebuy":
            if player_id not in st.rebuy_pending:
                return []
            return [
                {"type": "rebuy", "accept": True, "amount": 0},
                {"type": "rebuy", "accept": False, "amount": 0},
            ]
        assert hand is not None
        if hand.phase == "betting":
            if hand.actor != player_id:
                return []
            return betting.legal_actions(self._bet_ctx(hand, player_id))  # type: ignore[return-value]
        if hand.phase == "choose":
            return [{"type": "choose", "amount": 0}] if self._must_choose(hand, player_id) else []
        if hand.phase == "rejoin":
            if player_id not in hand.rejoin_pending:
                return []
            actions: list[dict[str, Any]] = []
            if seat.stack >= hand.rejoin_cost:
                actions.append({"type": "rejoin", "accept": True, "amount": hand.rejoin_cost})
            actions.append({"type": "rejoin", "accept": False, "amount": 0})
            return actions
        if player_id in self._ready_expected() and player_id not in hand.ready:
            return [{"type": "ready", "amount": 0}]
        return []

    def view(self, viewer: str | None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, viewer)

    def pot_total(self) -> int:
        hand = self.state.hand
        if hand is None:
            return 0
        carried = sum(p.amount for p in hand.carried_pots) + sum(p.amount for p in hand.rematch_pots)
        return carried + sum(rp.committed_total for rp in hand.players.values())

    def chips_in_play(self) -> int:
        """Stacks + pots + bets: always starting chips × players + rebuys (§10)."""
        return sum(s.stack for s in self.state.seats) + self.pot_total()

    # ----------------------------------------------------------------- actions
    def apply(self, player_id: str, action: Action) -> list[Event]:
        """Apply one player's action; ``IllegalAction`` (Korean reason) changes nothing."""
        kind, payload = _parse(action)
        if not isinstance(player_id, str) or player_id not in self._seats:
            raise IllegalAction("이 게임의 참가자가 아니에요")
        if self.state.phase == "finished":
            raise IllegalAction("게임이 이미 끝났어요")
        seat = self._seats[player_id]
        if seat.status == "left":
            raise IllegalAction("방을 나간 뒤에는 행동할 수 없어요")
        if kind == "leave":
            return self._leave(seat)
        if kind == "disconnect":
            if not seat.connected:
                raise IllegalAction("이미 연결이 끊겨 있어요")
            seat.connected = False
            return [{"type": "disconnect", "player": seat.id}, *self._check_connected_end()]
        if kind == "reconnect":
            if seat.connected:
                raise IllegalAction("이미 연결되어 있어요")
            seat.connected = True
            return [{"type": "reconnect", "player": seat.id}]
        if kind == "rebuy":
            self._verify_rebuy(seat, payload["accept"])
            return self._touch(seat) + self._rebuy(seat, payload["accept"])
        hand = self.state.hand
        if self.state.phase != "playing" or hand is None:
            raise IllegalAction("지금은 리바이를 기다리는 중이에요")
        if kind in betting.BET_ACTIONS:
            if hand.phase != "betting":
                raise IllegalAction("지금은 베팅할 때가 아니에요")
            if hand.actor != player_id:
                raise IllegalAction("지금은 내 차례가 아니에요")
            amount = betting.verify(kind, self._bet_ctx(hand, player_id))
            return self._touch(seat) + self._bet(hand, player_id, kind, amount)
        if kind == "choose":
            self._verify_choose(hand, player_id, payload["cardIds"])
            return self._touch(seat) + self._choose(hand, player_id, payload["cardIds"])
        if kind == "rejoin":
            self._verify_rejoin(hand, seat, payload["accept"])
            return self._touch(seat) + self._rejoin(hand, seat, payload["accept"])
        # ready
        if hand.phase != "handEnd":
            raise IllegalAction("지금은 준비할 때가 아니에요")
        if player_id in hand.ready or player_id not in self._ready_expected():
            raise IllegalAction("이미 준비했어요")
        return self._touch(seat) + self._ready(hand, [player_id])

    def timeout(self) -> list[Event]:
        """§8.5: the automatic action for everyone the game is waiting for."""
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return []
        events: list[Event] = []
        if st.phase == "rebuy":
            for pid in list(st.rebuy_pending):
                events.append({"type": "timeout", "player": pid, "action": "rebuy"})
                events += self._rebuy(self._seats[pid], False)
            return events
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            pid = hand.actor
            kind = "die" if hand.opened else "check"
            events.append({"type": "timeout", "player": pid, "action": kind})
            events += self._count_timeout(self._seats[pid])
            return events + self._bet(hand, pid, kind, 0)
        if hand.phase == "choose":
            for pid in [p for p in hand.participants if self._must_choose(hand, p)]:
                cards = [DECK[i] for i in hand.players[pid].hand]
                a, b = best_two(cards, self.options)
                events.append({"type": "timeout", "player": pid, "action": "choose"})
                events += self._count_timeout(self._seats[pid])
                events += self._choose(hand, pid, [a.id, b.id])
            return events
        if hand.phase == "rejoin":
            for pid in list(hand.rejoin_pending):
                events.append({"type": "timeout", "player": pid, "action": "rejoin"})
                events += self._rejoin(hand, self._seats[pid], False)
            return events
        waiting = [p for p in self._ready_expected() if p not in hand.ready]
        return self._ready(hand, waiting)

    # ----------------------------------------------------------------- seats & players
    def _clockwise(self, start_seat: int) -> list[Seat]:
        seats = self.state.seats
        n = len(seats)
        return [seats[(start_seat + i) % n] for i in range(n)]

    def _from_dealer(self, ids: Iterable[str]) -> list[str]:
        wanted = set(ids)
        dealer = self.state.hand.dealer_seat if self.state.hand else self.state.dealer_seat
        return [s.id for s in self._clockwise(dealer) if s.id in wanted]

    def _touch(self, seat: Seat) -> list[Event]:
        """A direct action clears the timeout count and the away mark (§5.7)."""
        seat.timeouts_in_row = 0
        if seat.away:
            seat.away = False
            return [{"type": "away", "player": seat.id, "away": False}]
        return []

    def _count_timeout(self, seat: Seat) -> list[Event]:
        seat.timeouts_in_row += 1
        if seat.timeouts_in_row >= 2 and not seat.away:
            seat.away = True
            return [{"type": "away", "player": seat.id, "away": True}]
        return []

    def _ready_expected(self) -> list[str]:
        return [s.id for s in self.state.seats if s.status == "playing"]

    @staticmethod
    def _must_choose(hand: Hand, pid: str) -> bool:
        rp = hand.players.get(pid)
        return rp is not None and not rp.folded and rp.chosen is None

    def _live(self, hand: Hand) -> list[str]:
        return [p for p in hand.participants if not hand.players[p].folded]

    # ----------------------------------------------------------------- hand flow
    def _start_hand(self) -> list[Event]:
        st, opts = self.state, self.options
        events: list[Event] = []
        hand_no = st.hands_played + 1
        every = opts.school_up_every
        if every and hand_no > 1 and (hand_no - 1) % every == 0:
            raised = min(st.base_unit * 2, opts.starting_chips // 5)
            if raised != st.base_unit:
                st.base_unit = raised
                events.append({"type": "schoolUp", "baseUnit": raised})
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

    def _begin_match(self, hand: Hand) -> list[Event]:
        """Shuffle, deal the first cards and open the first betting round (§5.1/§5.2)."""
        deck = list(range(20))
        self._rng.shuffle(deck)
        hand.deck = deck
        first = 1 if self.options.card_mode == "two" and self.options.deal_mode == "twoRounds" else 2
        events = self._deal(hand, first)
        live = self._live(hand)
        if not live:  # every rematch player has left the room: nobody contests the pots
            return events + self._settle_uncontested(hand)
        if len(live) == 1:
            return events + self._win_by_fold(hand)
        return events + self._start_round(hand, 0)

    def _deal(self, hand: Hand, count: int) -> list[Event]:
        live = self._live(hand)
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

    def _bet(self, hand: Hand, pid: str, kind: str, amount: int) -> list[Event]:
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
            events = [{"type": "bet", "player": pid, "action": kind, "amount": amount, "allIn": rp.all_in}]
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

    def _verify_choose(self, hand: Hand, pid: str, ids: list[int]) -> None:
        if hand.phase != "choose":
            raise IllegalAction("지금은 카드를 고를 때가 아니에요")
        rp = hand.players.get(pid)
        if rp is None or rp.folded:
            raise IllegalAction("이번 판에 참가하고 있지 않아요")
        if rp.chosen is not None:
            raise IllegalAction("이미 카드를 골랐어요")
        if any(i not in rp.hand for i in ids):
            raise IllegalAction("내 손패에 없는 카드예요")

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
        reveal = []
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
            if outcome.type == "rematch" and hand.rematch_no >= MAX_REMATCHES:
                events += self._award(hand, pot, list(outcome.participants), "rematchCap")
            elif outcome.type == "rematch":
                keep = Pot(pot.amount, self._from_dealer(outcome.participants), pot.main)
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
        hand.results.append({"amount": pot.amount, "type": kind, "winners": ordered, "reason": reason})
        return [
            {"type": "payout", "player": pid, "amount": share, "reason": reason, "main": pot.main}
            for pid, share in shares.items()
        ]

    def _win_by_fold(self, hand: Hand) -> list[Event]:
        """§5.1.8: the last player standing takes every pot; no card is shown."""
        (winner,) = self._live(hand)
        pots = self._collect_pots(hand, [winner])
        total = sum(p.amount for p in pots)
        for pot in pots:
            pot.main = False
        hand.actor = None
        events = self._award(hand, Pot(total, [winner], True), [winner], "fold")
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

    # ----------------------------------------------------------------- rematch (§5.5)
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

    def _verify_rejoin(self, hand: Hand, seat: Seat, accept: bool) -> None:
        if hand.phase != "rejoin" or seat.id not in hand.rejoin_pending:
            raise IllegalAction("지금은 재참가를 정할 때가 아니에요")
        if accept and seat.stack < hand.rejoin_cost:
            raise IllegalAction("칩이 모자라 재참가할 수 없어요")

    def _rejoin(self, hand: Hand, seat: Seat, accept: bool) -> list[Event]:
        hand.rejoin_pending.remove(seat.id)
        events: list[Event] = []
        if accept:
            seat.stack -= hand.rejoin_cost
            main = next((p for p in hand.rematch_pots if p.main), hand.rematch_pots[0])
            main.amount += hand.rejoin_cost
            hand.rejoined.append(seat.id)
            for pot in hand.rematch_pots:
                pot.eligible = self._from_dealer([*pot.eligible, seat.id])
        events.append(
            {"type": "rejoin", "player": seat.id, "accept": accept, "amount": hand.rejoin_cost if accept else 0}
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

    # ----------------------------------------------------------------- between hands (§5.6, §6.6)
    def _note_best_hand(self, pid: str, rank: HandRank, hand_no: int) -> None:
        best = self.state.best_hand
        if best is None or rank.value > best["value"]:
            self.state.best_hand = {"playerId": pid, "name": rank.name, "handNo": hand_no, "value": rank.value}

    def _finish_hand(self, hand: Hand) -> list[Event]:
        st, opts = self.state, self.options
        st.hands_played += 1
        biggest = st.biggest_pot
        if biggest is None or hand.paid_total > biggest["amount"]:
            st.biggest_pot = {"handNo": hand.hand_no, "amount": hand.paid_total, "winners": list(hand.main_winners)}
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

    def _verify_rebuy(self, seat: Seat, accept: bool) -> None:
        if self.state.phase != "rebuy" or seat.id not in self.state.rebuy_pending:
            raise IllegalAction("지금은 리바이를 정할 때가 아니에요")
        if accept and self._rebuys_left(seat) <= 0:
            raise IllegalAction("리바이 횟수를 다 썼어요")

    def _rebuy(self, seat: Seat, accept: bool) -> list[Event]:
        st = self.state
        st.rebuy_pending.remove(seat.id)
        events: list[Event] = []
        if accept:
            seat.stack = self.options.starting_chips
            seat.rebuys += 1
            seat.status = "playing"
            events.append({"type": "rebuy", "player": seat.id, "accept": True, "amount": seat.stack})
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
            in_hand = hand is not None and seat.id in hand.players and not hand.players[seat.id].folded
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
        """§5.7: a player who leaves folds now and auto-dies in every later hand."""
        st, hand = self.state, self.state.hand
        seat.status = "left"
        seat.connected = False
        events: list[Event] = [{"type": "leave", "player": seat.id}]
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
        st.end_reason = reason
        if st.hand is not None:
            st.hand.actor = None
        st.result = build_result(self, reason)
        return [{"type": "gameEnd", "reason": reason, "summary": st.result["summary"]}]
