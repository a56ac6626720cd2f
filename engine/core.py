"""What every rule works on: the state, its RNG, the seat index and the helpers they all need.

``Game`` (engine/game.py) holds one ``GameCore``; the rules are plain functions over it, one
module per part of the spec, each calling only the modules below it (no stubs, no cycle):
``flow`` (§5.1–5.4, §6.3–6.5: one match) ← ``rematch`` (§5.5) ← ``between_hands`` (§5.6–5.7,
§6.6: the hand's end, busts, leaving, the game's end) ← ``game`` (legality and entry points).
"""

from __future__ import annotations

from collections.abc import Iterable

from .dealing import DealHook
from .hands import HandRank
from .options import Options
from .rng import Rng
from .state import GameState, Hand, Seat
from .types import Event

#: §8.5 deadlines in seconds.
AWAY_SECONDS = 5
CHOOSE_EXTRA_SECONDS = 10
REJOIN_SECONDS = 15
HAND_END_SECONDS = 4
REBUY_SECONDS = 15  # at least: the room's turn time when that is longer
#: §6.6 lastStanding hard cap, §5.5 rematch cap.
LAST_STANDING_HAND_CAP = 300
MAX_REMATCHES = 3


class GameCore:
    """One game's state with its RNG (whose state ``Game.to_dict`` writes back), the seats by
    id, and ``Game.new``'s deal hook (tests and the harness only: never journaled)."""

    __slots__ = ("options", "state", "rng", "seats", "deal_hook")

    def __init__(
        self, options: Options, state: GameState, deal_hook: DealHook | None = None
    ) -> None:
        self.options = options
        self.state = state
        self.rng = Rng(state.rng)
        self.seats = {s.id: s for s in state.seats}
        self.deal_hook = deal_hook

    def hand(self) -> Hand:
        """The hand being played (callers have checked there is one)."""
        hand = self.state.hand
        assert hand is not None
        return hand

    def pot_total(self) -> int:
        hand = self.state.hand
        if hand is None:
            return 0
        carried = sum(p.amount for p in hand.carried_pots) + sum(
            p.amount for p in hand.rematch_pots
        )
        return carried + sum(rp.committed_total for rp in hand.players.values())

    def chips_in_play(self) -> int:
        """Stacks + pots + bets: always starting chips × players + rebuys (§10)."""
        return sum(s.stack for s in self.state.seats) + self.pot_total()

    def clockwise(self, start_seat: int) -> list[Seat]:
        seats = self.state.seats
        n = len(seats)
        return [seats[(start_seat + i) % n] for i in range(n)]

    def from_dealer(self, ids: Iterable[str]) -> list[str]:
        wanted = set(ids)
        dealer = self.state.hand.dealer_seat if self.state.hand else self.state.dealer_seat
        return [s.id for s in self.clockwise(dealer) if s.id in wanted]

    def ready_expected(self) -> list[str]:
        return [s.id for s in self.state.seats if s.status == "playing"]

    def note_best_hand(self, pid: str, rank: HandRank, hand_no: int) -> None:
        """The game's best showdown hand so far (the result's stats, §8.6)."""
        best = self.state.best_hand
        if best is None or rank.value > best["value"]:
            self.state.best_hand = {
                "playerId": pid,
                "name": rank.name,
                "handNo": hand_no,
                "value": rank.value,
            }


def touch(seat: Seat) -> list[Event]:
    """A direct action clears the timeout count and the away mark (§5.7)."""
    seat.timeouts_in_row = 0
    if seat.away:
        seat.away = False
        return [{"type": "away", "player": seat.id, "away": False}]
    return []


def count_timeout(seat: Seat) -> list[Event]:
    seat.timeouts_in_row += 1
    if seat.timeouts_in_row >= 2 and not seat.away:
        seat.away = True
        return [{"type": "away", "player": seat.id, "away": True}]
    return []


def must_choose(hand: Hand, pid: str) -> bool:
    rp = hand.players.get(pid)
    return rp is not None and not rp.folded and rp.chosen is None


def live(hand: Hand) -> list[str]:
    """The (re)match's players who have not folded, from the dealer."""
    return [p for p in hand.participants if not hand.players[p].folded]
