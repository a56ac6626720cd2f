"""Shared state and seat helpers of the game, used by the flow, rematch and between-hand parts.

``Game`` (engine/game.py) is assembled from ``HandFlow`` (§5.1–5.4, §6.3–6.5), ``Rematch`` (§5.5)
and ``BetweenHands`` (§5.6–5.7, §6.6); each is a mixin over this core so every rule lives in one
short module, while the state stays one object.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from .dealing import DealHook
from .options import Options
from .rng import Rng
from .state import GameState, Hand, Seat
from .types import Action as Action
from .types import Event as Event

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
    """The state, the RNG and the helpers every part of the game flow needs."""

    #: ``Game.new``'s deal hook. A class default, set on the instance only when given: a game
    #: restored in place from ``to_dict`` (rooms/pause.py) keeps the hook it was made with.
    _deal_hook: DealHook | None = None

    def __init__(self, options: Options, state: GameState) -> None:
        self.options = options
        self.state = state
        self._rng = Rng(state.rng)
        self._seats = {s.id: s for s in state.seats}
        self.last_events: list[Event] = []  # what Game.new's first hand emitted

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

    # The parts call each other through these (implemented in flow, rematch, between_hands).
    @abstractmethod
    def _start_hand(self) -> list[Event]: ...

    @abstractmethod
    def _begin_match(self, hand: Hand) -> list[Event]: ...

    @abstractmethod
    def _enter_hand_end(self, hand: Hand) -> list[Event]: ...

    @abstractmethod
    def _ready(self, hand: Hand, pids: list[str]) -> list[Event]: ...

    @abstractmethod
    def _advance(self, hand: Hand, after: str) -> list[Event]: ...

    @abstractmethod
    def _start_round(self, hand: Hand, street: int) -> list[Event]: ...

    @abstractmethod
    def _win_by_fold(self, hand: Hand) -> list[Event]: ...

    @abstractmethod
    def _open_rejoin(self, hand: Hand) -> list[Event]: ...

    @abstractmethod
    def _rejoin(self, hand: Hand, seat: Seat, accept: bool) -> list[Event]: ...

    @abstractmethod
    def _finish_hand(self, hand: Hand) -> list[Event]: ...

    @abstractmethod
    def _note_best_hand(self, pid: str, rank: Any, hand_no: int) -> None: ...

    @abstractmethod
    def _check_connected_end(self) -> list[Event]: ...
