"""The engine's public shapes: what a caller sends, and the JSON it gets back (events, views,
pending decisions, legal actions, refusals, the hand's pot results and the game's result).

Typed so a caller and the type checker see the same keys the screens and the journal rely on;
the shapes themselves are the spec's (§8) and must not change. Imports nothing of the engine.
Over 500 lines on purpose: it is declarations only (no logic), the whole wire format in one
place, so a shape and the shapes it nests (an event's seats, a view's results) are read together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple, NotRequired, TypedDict

BetKind = Literal["die", "check", "ping", "call", "ddadang", "quarter", "half", "full"]
#: What a player decides (``Game.act``); ``legal_actions`` lists only these.
PlayerKind = Literal[
    BetKind, "choose", "pickShared", "draw", "rejoin", "rebuy", "gusaChoice", "ready"
]
#: What the room manager reports about a seat (``Game.leave``/``disconnect``/``reconnect``), and
#: a spectator's request for a seat at the next hand (``Game.join``, issue 32).
SystemKind = Literal["leave", "disconnect", "reconnect", "join"]
ActionKind = Literal[PlayerKind, SystemKind]


# ----------------------------------------------------------------------------- actions
class BetAction(TypedDict):
    """§5.4: die, check, ping, call or a raise; the chips are the game's to work out."""

    type: BetKind


class ChooseAction(TypedDict):
    """§5.2: the two cards kept of three."""

    type: Literal["choose"]
    cardIds: list[int]


class PickSharedAction(TypedDict):
    """Issue 36 한장공유: the dealer picks the shared card (an id 0–19) before the deal."""

    type: Literal["pickShared"]
    cardId: int


class AnswerAction(TypedDict):
    """§5.5/§5.6: the answer to the rejoin or the rebuy offer; issue 36's 구사 선택권
    (``gusaChoice``: ``accept`` = the 구사 fires, a rematch or 사구 파토)."""

    type: Literal["rejoin", "rebuy", "gusaChoice"]
    accept: bool


PlainKind = Literal["ready", "draw", SystemKind]  # (draw: 후회의 섯다, issue 36)


class PlainAction(TypedDict):
    """An action with nothing but its kind: ready (§5.1.9), or what the room reports."""

    type: PlainKind


#: An action as a client sends it (and the journal keeps it): hostile until ``Game.apply`` has
#: checked its shape, so its values are ``object``.
Action = Mapping[str, object]
#: A well-formed action: what ``Game.apply`` has checked an :data:`Action` to be (and what the
#: typed ``Game.bet``/``choose``/``rejoin``/``rebuy``/``ready`` send).
CheckedAction = BetAction | ChooseAction | PickSharedAction | AnswerAction | PlainAction

GamePhase = Literal["playing", "rebuy", "finished"]
HandPhase = Literal[
    "dealing",
    "pickShared",
    "draw",
    "betting",
    "choose",
    "gusaChoice",
    "rejoin",
    "showdown",
    "handEnd",
]
PendingPhase = Literal[
    "finished",
    "rebuy",
    "pickShared",
    "draw",
    "betting",
    "choose",
    "gusaChoice",
    "rejoin",
    "handEnd",
]
SeatStatus = Literal["playing", "busted", "eliminated", "left"]

RefusalCode = Literal[
    # the action's shape
    "malformed",
    "unknownAction",
    "extraField",
    "needCards",
    "needAnswer",
    "sameCard",
    "needCard",
    # who may act at all
    "notParticipant",
    "gameOver",
    "leftRoom",
    "systemOnly",
    "alreadyDisconnected",
    "alreadyConnected",
    # joining a running game at the next hand (issue 32)
    "midJoinOff",
    "alreadySeated",
    "alreadyJoining",
    "tableFull",
    "noHandsLeft",
    # betting (§5.4)
    "rebuyWait",
    "notBetting",
    "notYourTurn",
    "alreadyOpened",
    "roundCapped",
    "noChips",
    "nothingToCall",
    "fullNotAllowed",
    "nothingToDouble",
    "shortForRaise",
    "unknownBet",
    # choose (§5.2), rejoin (§5.5), rebuy (§5.6), ready (§5.1.9)
    "notChoosing",
    "notPicking",
    "notDrawing",
    "notInHand",
    "alreadyChosen",
    "notYourCard",
    "notRejoining",
    "shortForRejoin",
    "notGusaChoosing",
    "notRebuying",
    "noRebuysLeft",
    "notHandEnd",
    "alreadyReady",
]


class Refusal(NamedTuple):
    """Why an action is not legal now: a stable code for programs, the Korean text for people."""

    code: RefusalCode
    message: str


class Pending(TypedDict):
    """Whom the game waits for, and for how many seconds (``None``: nobody, the game is over)."""

    phase: PendingPhase
    players: list[str]
    seconds: int | None


class LegalAction(TypedDict):
    """One action ``legal_actions`` offers, with the exact chips it costs."""

    type: PlayerKind
    amount: int
    allIn: NotRequired[bool]  # betting actions
    accept: NotRequired[bool]  # rejoin, rebuy and gusaChoice answers


# ----------------------------------------------------------------------------- plain parts
class CardDict(TypedDict):
    id: int
    month: int
    kind: str


class HiddenCard(TypedDict):
    hidden: Literal[True]


class PotDict(TypedDict):
    amount: int
    eligible: list[str]
    main: bool


class OutcomeDict(TypedDict):
    type: str
    winners: list[str]
    reason: str
    participants: list[str]


class PotResult(TypedDict):
    """One pot the showdown judged (§6.3/§6.5; the view's ``results`` at the hand's end): won
    or split (``net``: each winner's gain, less what they put in, issue 32), kept for a rematch
    or refunded (``participants``: who plays the rematch; none for a refund)."""

    amount: int
    type: str  # "win", "split", "rematch" or "refund"
    winners: list[str]
    reason: str
    participants: NotRequired[list[str]]
    net: NotRequired[dict[str, int]]


SpecialKind = Literal["ttaengjabi", "amhaeng", "gusa", "mungGusa"]
Strength = Literal["높음", "중간", "낮음"]


class HandRankDict(TypedDict):
    """A two-card hand's value, name and special power (§6.1–6.2) with its §9 hint."""

    value: int
    name: str
    special: SpecialKind | None
    hint: str
    strength: Strength


class MyHand(HandRankDict):
    """§9 hint of the viewer's own hand; with three cards, the pair the hint recommends."""

    recommended: NotRequired[list[int]]


# ----------------------------------------------------------------------------- the result (§8.6)
class BestHand(TypedDict):
    playerId: str
    name: str
    handNo: int


class BestHandRecord(BestHand):
    """The best showdown hand so far, as the state keeps it (``value`` compares them)."""

    value: int


class BiggestPot(TypedDict):
    handNo: int
    amount: int
    winners: list[str]


class RankingRow(TypedDict):
    playerId: str
    rank: int  # shared ranks: 1, 1, 3
    score: int
    finalChips: int
    rebuys: int
    eliminatedAtHand: int | None


class GameStats(TypedDict):
    handsPlayed: int
    rematches: int
    bestHand: BestHand | None
    biggestPot: BiggestPot


class GameResult(TypedDict):
    """§6.6/§8.6: the final ranking, the Korean summary line, why the game ended, the stats."""

    ranking: list[RankingRow]
    summary: str
    reason: str  # "hands", "handCap", "lastStanding" or "disconnected"
    stats: GameStats


class ShownHand(TypedDict):
    """One showdown hand (§6.3), public to every viewer."""

    player: str
    cards: list[CardDict]
    name: str
    value: int
    special: str | None
    unchosen: NotRequired[list[CardDict]]  # 후회의 섯다 (issue 36): the cards not played


class LastAction(TypedDict):
    type: str
    amount: int


class RejoinView(TypedDict):
    players: list[str]
    cost: int


class DealProofView(TypedDict):
    """Issue 36 verifiable deals: the (re)match's commitment, and once it is over its seed
    and salt (docs/rules.md §8.4; engine/proof.py redoes the deck from them)."""

    commitment: str
    seed: str | None
    salt: str | None


class GusaChoiceView(TypedDict):
    """Issue 36: the 구사 holders still deciding whether their 구사 fires."""

    players: list[str]


class TtaengPayment(TypedDict):
    player: str
    amount: int


class TtaengRecord(TypedDict):
    """Issue 36 땡값: the hand's winner by a 땡 or 광땡, its name, what each player who died
    owes (``each``), and once paid (the hand has a winner, no rematch left) who paid what:
    at most what they held, so a payment may be short of ``each``; nobody is listed for 0."""

    winner: str
    name: str
    each: int
    payments: list[TtaengPayment] | None


# ----------------------------------------------------------------------------- views (§8.3)
class SeatView(TypedDict):
    id: str
    seat: int
    stack: int
    status: SeatStatus
    away: bool
    connected: bool
    rebuys: int
    dealer: bool
    inHand: bool
    # only while the seat plays in the current (re)match
    folded: NotRequired[bool]
    allIn: NotRequired[bool]
    bet: NotRequired[int]
    committed: NotRequired[int]
    lastAction: NotRequired[LastAction | None]
    cardCount: NotRequired[int]
    cards: NotRequired[list[CardDict | HiddenCard]]
    chosen: NotRequired[bool]
    chosenIds: NotRequired[list[int]]  # own seat only
    discardedId: NotRequired[int | None]  # own seat only
    revealed: NotRequired[list[CardDict] | None]
    unchosen: NotRequired[list[CardDict]]  # 후회의 섯다: shown with the showdown


class View(TypedDict):
    viewer: str | None
    phase: GamePhase
    handsPlayed: int
    baseUnit: int
    pending: Pending
    seats: list[SeatView]
    legalActions: list[LegalAction]
    rebuyPending: list[str]
    result: GameResult | None
    joining: list[str]  # who sits down when the next hand starts (issue 32)
    # only while a hand exists
    handNo: NotRequired[int]
    handPhase: NotRequired[HandPhase]
    street: NotRequired[int]
    rematchNo: NotRequired[int]
    rematchReason: NotRequired[str | None]
    dealer: NotRequired[str]
    actor: NotRequired[str | None]
    currentBet: NotRequired[int]
    pot: NotRequired[int]
    pots: NotRequired[list[PotDict]]
    showdown: NotRequired[list[ShownHand] | None]
    results: NotRequired[list[PotResult]]
    rejoin: NotRequired[RejoinView | None]
    myHand: NotRequired[MyHand | None]
    # issue 36, only while they apply (a default game's views stay as they were)
    gusaChoice: NotRequired[GusaChoiceView]
    ttaeng: NotRequired[TtaengRecord]
    deal: NotRequired[DealProofView]  # with verifiableDeals only
    sharedCard: NotRequired[CardDict | None]  # cardMode=shared: the shared card, once picked


# ----------------------------------------------------------------------------- events
class SchoolUpEvent(TypedDict):
    type: Literal["schoolUp"]
    baseUnit: int


class HandStartEvent(TypedDict):
    type: Literal["handStart"]
    handNo: int
    dealer: str
    baseUnit: int
    players: list[str]


class SchoolEvent(TypedDict):
    type: Literal["school"]
    player: str
    amount: int
    allIn: bool


class FoldEvent(TypedDict):
    type: Literal["fold"]
    player: str
    auto: NotRequired[bool]  # the engine folded a player who left


class DealtEvent(TypedDict):
    type: Literal["dealt"]
    to: str
    count: int


class RoundEvent(TypedDict):
    type: Literal["round"]
    street: int


class BetEvent(TypedDict):
    type: Literal["bet"]
    player: str
    action: BetKind
    amount: int
    allIn: bool


class ReturnEvent(TypedDict):
    type: Literal["return"]
    player: str
    amount: int


class PlayerEvent(TypedDict):
    """Events that only name a player."""

    type: Literal[
        "chosen",
        "ready",
        "busted",
        "eliminated",
        "leave",
        "disconnect",
        "reconnect",
        "joinQueued",  # issue 32: a seat at the next hand
        "joinCancel",  # the queued player left before it
    ]
    player: str


class SeatedEvent(TypedDict):
    """A queued player sits down as a hand starts (issue 32), with the starting chips."""

    type: Literal["seated"]
    player: str
    seat: int
    stack: int


class ShowdownEvent(TypedDict):
    type: Literal["showdown"]
    hands: list[ShownHand]


class PotEvent(TypedDict):
    type: Literal["pot"]
    amount: int
    outcome: OutcomeDict


class RematchEvent(TypedDict):
    type: Literal["rematch"]
    rematchNo: int
    reason: str
    participants: list[str]


class PayoutEvent(TypedDict):
    type: Literal["payout"]
    player: str
    amount: int  # the share of the pot paid out (gross)
    reason: str
    main: bool
    #: the share less what this player put into that pot (school included): the gain (issue 32)
    net: int


class HandEndEvent(TypedDict):
    type: Literal["handEnd"]
    handNo: int
    rematch: bool


class RejoinOpenEvent(TypedDict):
    type: Literal["rejoinOpen"]
    players: list[str]
    cost: int


class AnswerEvent(TypedDict):
    """A rejoin or rebuy answer and the chips it moved."""

    type: Literal["rejoin", "rebuy"]
    player: str
    accept: bool
    amount: int


class DealCommitEvent(TypedDict):
    """Issue 36: before a (re)match's first card, the SHA-256 commitment to its deal seed."""

    type: Literal["dealCommit"]
    handNo: int
    rematchNo: int
    commitment: str


class DealRevealEvent(TypedDict):
    """Issue 36: the (re)match is over: its deal seed and salt (the deck follows from them)."""

    type: Literal["dealReveal"]
    handNo: int
    rematchNo: int
    seed: str
    salt: str


class SharedPickOpenEvent(TypedDict):
    """Issue 36 한장공유: the (re)match waits for ``player`` (its 선) to pick the shared card."""

    type: Literal["sharedPickOpen"]
    player: str


class SharedCardEvent(TypedDict):
    """The shared card, picked by ``player`` (``auto``: by the timeout or on leaving)."""

    type: Literal["sharedCard"]
    player: str
    card: CardDict
    auto: bool


class GusaChoiceOpenEvent(TypedDict):
    """Issue 36: the showdown waits for these 구사 holders to say whether their 구사 fires."""

    type: Literal["gusaChoiceOpen"]
    players: list[str]


class GusaChoiceEvent(TypedDict):
    """A holder's answer (``accept``: the 구사 fires; a timeout or leaving answers it)."""

    type: Literal["gusaChoice"]
    player: str
    accept: bool


class TtaengEvent(TypedDict):
    """Issue 36 땡값: ``player``, who died in the hand, paid ``winner`` (won by ``name``)."""

    type: Literal["ttaengValue"]
    player: str
    winner: str
    amount: int
    name: str


class RematchStartEvent(TypedDict):
    type: Literal["rematchStart"]
    rematchNo: int
    reason: str | None
    dealer: str
    players: list[str]


class RebuyOpenEvent(TypedDict):
    type: Literal["rebuyOpen"]
    players: list[str]


class GameEndEvent(TypedDict):
    type: Literal["gameEnd"]
    reason: str
    summary: str


class AwayEvent(TypedDict):
    type: Literal["away"]
    player: str
    away: bool


class TimeoutEvent(TypedDict):
    type: Literal["timeout"]
    player: str
    action: str


Event = (
    SchoolUpEvent
    | HandStartEvent
    | SchoolEvent
    | FoldEvent
    | DealtEvent
    | RoundEvent
    | BetEvent
    | ReturnEvent
    | PlayerEvent
    | SeatedEvent
    | ShowdownEvent
    | PotEvent
    | RematchEvent
    | PayoutEvent
    | HandEndEvent
    | RejoinOpenEvent
    | AnswerEvent
    | SharedPickOpenEvent
    | SharedCardEvent
    | GusaChoiceOpenEvent
    | GusaChoiceEvent
    | TtaengEvent
    | DealCommitEvent
    | DealRevealEvent
    | RematchStartEvent
    | RebuyOpenEvent
    | GameEndEvent
    | AwayEvent
    | TimeoutEvent
)
