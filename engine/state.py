"""§8.1 상태: the full, server-only game state as plain dataclasses that round-trip through dicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pots import Pot
from .types import (
    BestHandRecord,
    BiggestPot,
    GamePhase,
    GameResult,
    HandPhase,
    PotResult,
    SeatStatus,
    ShownHand,
)


@dataclass(slots=True)
class Seat:
    id: str
    seat: int
    stack: int
    rebuys: int = 0
    status: SeatStatus = "playing"
    away: bool = False
    timeouts_in_row: int = 0
    eliminated_at_hand: int | None = None
    stack_at_hand_start: int = 0
    connected: bool = True


@dataclass(slots=True)
class RoundPlayer:
    """One player in the current (re)match; cards are ids, never sent to other viewers."""

    id: str
    hand: list[int] = field(default_factory=list)
    chosen: list[int] | None = None
    discarded: int | None = None
    folded: bool = False
    all_in: bool = False
    committed_total: int = 0  # this (re)match's contributions (school included)
    committed_round: int = 0
    acted: bool = False
    raised: bool = False
    last_action: str | None = None
    last_amount: int = 0


@dataclass(slots=True)
class Hand:
    hand_no: int
    dealer_seat: int
    rematch_no: int = 0
    rematch_reason: str | None = None
    phase: HandPhase = "dealing"
    deck: list[int] = field(default_factory=list)
    players: dict[str, RoundPlayer] = field(default_factory=dict)
    participants: list[str] = field(default_factory=list)  # from the dealer, clockwise
    street: int = 0
    actor: str | None = None
    current_bet: int = 0
    opened: bool = False
    carried_pots: list[Pot] = field(default_factory=list)  # pots waiting for this rematch
    rematch_pots: list[Pot] = field(default_factory=list)  # pots the next rematch will judge
    rejoin_pending: list[str] = field(default_factory=list)
    rejoin_cost: int = 0
    rejoined: list[str] = field(default_factory=list)
    ready: list[str] = field(default_factory=list)
    showdown: list[ShownHand] | None = None
    results: list[PotResult] = field(default_factory=list)  # per judged pot
    main_winners: list[str] = field(default_factory=list)
    paid_total: int = 0  # chips paid out over the whole hand (for the biggest-pot stat)
    rematches: int = 0  # rematches played in this hand


@dataclass(slots=True)
class GameState:
    options: dict[str, Any]
    rng: int
    seats: list[Seat]
    base_unit: int
    hand: Hand | None = None
    hands_played: int = 0
    phase: GamePhase = "playing"
    rebuy_pending: list[str] = field(default_factory=list)
    elimination_seq: list[list[str]] = field(default_factory=list)
    dealer_seat: int = 0
    total_rematches: int = 0
    best_hand: BestHandRecord | None = None
    biggest_pot: BiggestPot | None = None
    end_reason: str | None = None
    result: GameResult | None = None
    #: issue 32: who asked to sit down mid-game, in order; seated when the next hand starts
    joining: list[str] = field(default_factory=list)


_SCALARS = (int, str, float, bool, type(None))


def to_plain(obj: Any) -> Any:
    """Dataclasses → dicts (field order kept), recursively; JSON-serialisable."""
    if isinstance(obj, _SCALARS):
        return obj
    if isinstance(obj, dict):
        return {k: to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [v if isinstance(v, _SCALARS) else to_plain(v) for v in obj]
    return {name: to_plain(getattr(obj, name)) for name in obj.__dataclass_fields__}


def hand_from_plain(d: dict[str, Any]) -> Hand:
    data = dict(d)
    data["players"] = {k: RoundPlayer(**v) for k, v in d["players"].items()}
    data["carried_pots"] = [Pot(**p) for p in d["carried_pots"]]
    data["rematch_pots"] = [Pot(**p) for p in d["rematch_pots"]]
    return Hand(**data)


def state_from_plain(d: dict[str, Any]) -> GameState:
    data = dict(d)
    data["seats"] = [Seat(**s) for s in d["seats"]]
    data["hand"] = hand_from_plain(d["hand"]) if d["hand"] is not None else None
    return GameState(**data)
