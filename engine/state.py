"""§8.1 상태: the full, server-only game state as plain dataclasses that round-trip through dicts.

The dict form (``Game.to_dict``: the journal's and the pause's snapshot) is typed by the
``Saved*`` TypedDicts below: snake_case keys in field order, as the old reflective writer made
them, so snapshots are byte for byte what they were. A key whose field has a default may be
missing from a snapshot written before the field existed: the loader then takes the default.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

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
    TtaengRecord,
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
    #: issue 36: who folded in this hand's earlier (re)matches (the 땡값's payers with the
    #: current match's folders), the 구사 holders still to decide (``gusaChoice``) and those who
    #: declined, and the 땡값 owed or paid
    died: list[str] = field(default_factory=list)
    gusa_pending: list[str] = field(default_factory=list)
    gusa_waived: list[str] = field(default_factory=list)
    ttaeng: TtaengRecord | None = None
    #: issue 36 한장공유 (``cardMode=shared``): the card every hand of the match shares, once
    #: its 선 has picked it (``None`` before, and in every other mode)
    shared: int | None = None


@dataclass(slots=True)
class GameState:
    #: ``Options.to_dict()`` as the game was saved with (a snapshot older than an option lacks
    #: it); only ``Game.from_dict`` reads it, through ``Options.from_dict``, which checks it.
    options: dict[str, object]
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
    #: issue 36 (``verifiableDeals``): every deal seed comes from it (engine/proof.py); never sent
    deal_secret: str | None = None


# ----------------------------------------------------------------------------- the saved form
class SavedSeat(TypedDict):
    id: str
    seat: int
    stack: int
    rebuys: NotRequired[int]
    status: NotRequired[SeatStatus]
    away: NotRequired[bool]
    timeouts_in_row: NotRequired[int]
    eliminated_at_hand: NotRequired[int | None]
    stack_at_hand_start: NotRequired[int]
    connected: NotRequired[bool]


class SavedRoundPlayer(TypedDict):
    id: str
    hand: NotRequired[list[int]]
    chosen: NotRequired[list[int] | None]
    discarded: NotRequired[int | None]
    folded: NotRequired[bool]
    all_in: NotRequired[bool]
    committed_total: NotRequired[int]
    committed_round: NotRequired[int]
    acted: NotRequired[bool]
    raised: NotRequired[bool]
    last_action: NotRequired[str | None]
    last_amount: NotRequired[int]


class SavedPot(TypedDict):
    """A :class:`~engine.pots.Pot` (``shares`` too, unlike the view's ``PotDict``)."""

    amount: int
    eligible: NotRequired[list[str]]
    main: NotRequired[bool]
    shares: NotRequired[dict[str, int]]


class _HandScalars(TypedDict):
    """A hand's fields but its players and pots (which the saved form holds as dicts)."""

    hand_no: int
    dealer_seat: int
    rematch_no: NotRequired[int]
    rematch_reason: NotRequired[str | None]
    phase: NotRequired[HandPhase]
    deck: NotRequired[list[int]]
    participants: NotRequired[list[str]]
    street: NotRequired[int]
    actor: NotRequired[str | None]
    current_bet: NotRequired[int]
    opened: NotRequired[bool]
    rejoin_pending: NotRequired[list[str]]
    rejoin_cost: NotRequired[int]
    rejoined: NotRequired[list[str]]
    ready: NotRequired[list[str]]
    showdown: NotRequired[list[ShownHand] | None]
    results: NotRequired[list[PotResult]]
    main_winners: NotRequired[list[str]]
    paid_total: NotRequired[int]
    rematches: NotRequired[int]
    died: NotRequired[list[str]]
    gusa_pending: NotRequired[list[str]]
    gusa_waived: NotRequired[list[str]]
    ttaeng: NotRequired[TtaengRecord | None]
    shared: NotRequired[int | None]


class SavedHand(_HandScalars):
    """A :class:`Hand`; its keys are written in the dataclass's field order."""

    players: dict[str, SavedRoundPlayer]
    carried_pots: list[SavedPot]
    rematch_pots: list[SavedPot]


class _HandFields(_HandScalars):
    """:class:`Hand`'s constructor arguments, as :func:`hand_from_plain` builds them."""

    players: dict[str, RoundPlayer]
    carried_pots: list[Pot]
    rematch_pots: list[Pot]


class _GameScalars(TypedDict):
    options: dict[str, object]
    rng: int
    base_unit: int
    hands_played: NotRequired[int]
    phase: NotRequired[GamePhase]
    rebuy_pending: NotRequired[list[str]]
    elimination_seq: NotRequired[list[list[str]]]
    dealer_seat: NotRequired[int]
    total_rematches: NotRequired[int]
    best_hand: NotRequired[BestHandRecord | None]
    biggest_pot: NotRequired[BiggestPot | None]
    end_reason: NotRequired[str | None]
    result: NotRequired[GameResult | None]
    joining: NotRequired[list[str]]
    deal_secret: NotRequired[str | None]


class SavedGame(_GameScalars):
    """A :class:`GameState`: what ``Game.to_dict`` gives and ``Game.from_dict`` takes."""

    seats: list[SavedSeat]
    hand: SavedHand | None


class _GameFields(_GameScalars):
    seats: list[Seat]
    hand: Hand | None


# ----------------------------------------------------------------------------- writing
# Each writer lists its dataclass's fields in order (the snapshot's key order); tests check the
# TypedDicts and writers against the dataclasses. Nested lists and dicts are copied, so a
# snapshot never shares anything with the live state.
def seat_to_plain(s: Seat) -> SavedSeat:
    return {
        "id": s.id,
        "seat": s.seat,
        "stack": s.stack,
        "rebuys": s.rebuys,
        "status": s.status,
        "away": s.away,
        "timeouts_in_row": s.timeouts_in_row,
        "eliminated_at_hand": s.eliminated_at_hand,
        "stack_at_hand_start": s.stack_at_hand_start,
        "connected": s.connected,
    }


def round_player_to_plain(p: RoundPlayer) -> SavedRoundPlayer:
    return {
        "id": p.id,
        "hand": list(p.hand),
        "chosen": None if p.chosen is None else list(p.chosen),
        "discarded": p.discarded,
        "folded": p.folded,
        "all_in": p.all_in,
        "committed_total": p.committed_total,
        "committed_round": p.committed_round,
        "acted": p.acted,
        "raised": p.raised,
        "last_action": p.last_action,
        "last_amount": p.last_amount,
    }


def pot_to_plain(p: Pot) -> SavedPot:
    return {
        "amount": p.amount,
        "eligible": list(p.eligible),
        "main": p.main,
        "shares": dict(p.shares),
    }


def hand_to_plain(h: Hand) -> SavedHand:
    return {
        "hand_no": h.hand_no,
        "dealer_seat": h.dealer_seat,
        "rematch_no": h.rematch_no,
        "rematch_reason": h.rematch_reason,
        "phase": h.phase,
        "deck": list(h.deck),
        "players": {pid: round_player_to_plain(p) for pid, p in h.players.items()},
        "participants": list(h.participants),
        "street": h.street,
        "actor": h.actor,
        "current_bet": h.current_bet,
        "opened": h.opened,
        "carried_pots": [pot_to_plain(p) for p in h.carried_pots],
        "rematch_pots": [pot_to_plain(p) for p in h.rematch_pots],
        "rejoin_pending": list(h.rejoin_pending),
        "rejoin_cost": h.rejoin_cost,
        "rejoined": list(h.rejoined),
        "ready": list(h.ready),
        "showdown": deepcopy(h.showdown),
        "results": deepcopy(h.results),
        "main_winners": list(h.main_winners),
        "paid_total": h.paid_total,
        "rematches": h.rematches,
        "died": list(h.died),
        "gusa_pending": list(h.gusa_pending),
        "gusa_waived": list(h.gusa_waived),
        "ttaeng": deepcopy(h.ttaeng),
        "shared": h.shared,
    }


def state_to_plain(st: GameState) -> SavedGame:
    return {
        "options": dict(st.options),
        "rng": st.rng,
        "seats": [seat_to_plain(s) for s in st.seats],
        "base_unit": st.base_unit,
        "hand": None if st.hand is None else hand_to_plain(st.hand),
        "hands_played": st.hands_played,
        "phase": st.phase,
        "rebuy_pending": list(st.rebuy_pending),
        "elimination_seq": [list(ids) for ids in st.elimination_seq],
        "dealer_seat": st.dealer_seat,
        "total_rematches": st.total_rematches,
        "best_hand": deepcopy(st.best_hand),
        "biggest_pot": deepcopy(st.biggest_pot),
        "end_reason": st.end_reason,
        "result": deepcopy(st.result),
        "joining": list(st.joining),
        "deal_secret": st.deal_secret,
    }


# ----------------------------------------------------------------------------- reading
def hand_from_plain(d: SavedHand) -> Hand:
    fields: _HandFields = {
        **d,
        "players": {k: RoundPlayer(**v) for k, v in d["players"].items()},
        "carried_pots": [Pot(**p) for p in d["carried_pots"]],
        "rematch_pots": [Pot(**p) for p in d["rematch_pots"]],
    }
    return Hand(**fields)


def state_from_plain(d: SavedGame) -> GameState:
    fields: _GameFields = {
        **d,
        "seats": [Seat(**s) for s in d["seats"]],
        "hand": hand_from_plain(d["hand"]) if d["hand"] is not None else None,
    }
    return GameState(**fields)
