"""§5.1–5.4: one (re)match from the school to the showdown.

School, deal (and each card mode's own phases: the shared card's pick, the regret draw), betting
rounds (the amounts come from ``betting``) and the three-card choose phase. The showdown and the
payouts are ``settlement``'s; what follows the hand's end (a rematch, the next hand, the game's
end) is ``between_hands``'s: nothing here calls upwards.
"""

from __future__ import annotations

from . import betting, modes, proof
from .cards import DECK
from .core import GameCore, live, must_choose
from .dealing import DealRequest, ordered
from .pots import uncalled_excess
from .settlement import settle_uncontested, showdown, win_by_fold
from .state import Hand, RoundPlayer, Seat
from .types import BetKind, Event, Refusal


def start_hand(g: GameCore) -> list[Event]:
    st, opts = g.state, g.options
    events: list[Event] = []
    hand_no = st.hands_played + 1
    every = opts.school_up_every
    if every and hand_no > 1 and (hand_no - 1) % every == 0:
        raised = opts.raised_school(st.base_unit)
        if raised != st.base_unit:
            st.base_unit = raised
            events.append({"type": "schoolUp", "baseUnit": raised})
    events += _seat_joiners(g)
    entrants = [s for s in st.seats if s.status in ("playing", "left") and s.stack > 0]
    ids = {s.id for s in entrants}
    seated = [s for s in g.clockwise(st.dealer_seat) if s.id in ids]
    dealer = next((s for s in seated if s.status == "playing"), seated[0])
    st.dealer_seat = dealer.seat
    for s in st.seats:
        s.stack_at_hand_start = s.stack
    hand = Hand(hand_no=hand_no, dealer_seat=dealer.seat)
    hand.participants = [s.id for s in g.clockwise(dealer.seat) if s.id in ids]
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
        seat = g.seats[pid]
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
    return events + begin_match(g, hand)


def _seat_joiners(g: GameCore) -> list[Event]:
    """Issue 32: players queued mid-game sit down now, in the order they asked, on new
    seats after the last (clockwise), with the starting chips; the school follows."""
    st = g.state
    events: list[Event] = []
    for pid in st.joining:
        seat = Seat(pid, len(st.seats), g.options.starting_chips)
        st.seats.append(seat)
        g.seats[pid] = seat
        events.append({"type": "seated", "player": pid, "seat": seat.seat, "stack": seat.stack})
    st.joining = []
    return events


def begin_match(g: GameCore, hand: Hand) -> list[Event]:
    """Shuffle, deal the first cards and open the first betting round (§5.1/§5.2). With
    ``verifiableDeals`` the deck comes from the match's own deal seed, committed to first."""
    events: list[Event] = []
    secret = g.state.deal_secret
    if secret is None:
        deck = list(range(20))
        g.rng.shuffle(deck)
        hand.deck = deck
    else:
        seed, salt = proof.deal_seed(secret, hand.hand_no, hand.rematch_no)
        hand.deck = proof.deck(seed)
        events.append(
            {
                "type": "dealCommit",
                "handNo": hand.hand_no,
                "rematchNo": hand.rematch_no,
                "commitment": proof.commitment(seed, salt),
            }
        )
    if g.options.card_mode == "shared":  # issue 36 한장공유: the 선 picks the shared card first
        return events + open_pick(g, hand)
    if g.options.card_mode == "regret":  # issue 36 후회의 섯다: the players draw their cards
        return events + open_draw(g, hand)
    return events + deal_first(g, hand)


def deal_first(g: GameCore, hand: Hand) -> list[Event]:
    """The match's first cards, then its first betting round (or its end, when nobody or one
    player is left to contest it)."""
    events = _deal(g, hand, modes.first_deal(g.options))
    players = live(hand)
    if not players:  # every rematch player has left the room: nobody contests the pots
        return events + settle_uncontested(g, hand)
    if len(players) == 1:
        return events + win_by_fold(g, hand)
    return events + start_round(g, hand, 0)


def _deal(g: GameCore, hand: Hand, count: int) -> list[Event]:
    players = live(hand)
    if g.deal_hook is not None:
        held = {pid: tuple(hand.players[pid].hand) for pid in players}
        request = DealRequest(
            hand.hand_no, hand.rematch_no, tuple(players), count, held, tuple(hand.deck)
        )
        hand.deck = ordered(request, g.deal_hook)
    for _ in range(count):
        for pid in players:
            hand.players[pid].hand.append(hand.deck.pop(0))
    return [{"type": "dealt", "to": pid, "count": count} for pid in players]


def open_pick(g: GameCore, hand: Hand) -> list[Event]:
    """Issue 36 한장공유: the match waits for its 선 to pick the shared card from the 20 (the
    deck is already shuffled; the pick leaves it without that card)."""
    picker = g.state.seats[hand.dealer_seat].id
    hand.shared = None
    hand.phase = "pickShared"
    hand.actor = picker
    events: list[Event] = [{"type": "sharedPickOpen", "player": picker}]
    if g.seats[picker].status == "left":  # nobody will answer: the card is picked for them
        events += pick_shared(g, hand, hand.deck[0], auto=True)
    return events


def pick_refusal(hand: Hand, pid: str, card: int | None) -> Refusal | None:
    """Only the match's 선, while the shared card is being picked; any of the 20 cards."""
    if hand.phase != "pickShared" or hand.actor != pid:
        return Refusal("notPicking", "지금은 공유 카드를 고를 때가 아니에요")
    if card is not None and card not in hand.deck:
        return Refusal("needCard", "카드를 골라 주세요")
    return None


def pick_shared(g: GameCore, hand: Hand, card: int, *, auto: bool = False) -> list[Event]:
    """The shared card is picked: shown to all, out of the deck; the deal follows."""
    picker = hand.actor or g.state.seats[hand.dealer_seat].id
    hand.deck.remove(card)
    hand.shared = card
    hand.actor = None
    hand.phase = "dealing"
    events: list[Event] = [
        {"type": "sharedCard", "player": picker, "card": DECK[card].to_dict(), "auto": auto}
    ]
    return events + deal_first(g, hand)


def open_draw(g: GameCore, hand: Hand) -> list[Event]:
    """후회의 섯다 (issue 36): the cards lie face down; the players take them in turn."""
    players = live(hand)
    if not players:
        return settle_uncontested(g, hand)
    if len(players) == 1:
        return win_by_fold(g, hand)
    hand.phase = "draw"
    return next_drawer(g, hand)


def next_drawer(g: GameCore, hand: Hand) -> list[Event]:
    """The next to draw (round the table from the 선's right, the fewest cards first), or, once
    everyone holds their cards, the choose phase."""
    target = modes.regret_cards(len(hand.participants))
    order = [p for p in modes.draw_order(hand.participants) if not hand.players[p].folded]
    counts = {p: len(hand.players[p].hand) for p in order}
    short = [p for p in order if counts[p] < target]
    if short:
        fewest = min(counts[p] for p in short)
        hand.actor = next(p for p in short if counts[p] == fewest)
        return []
    hand.actor = None
    hand.phase = "choose"
    return []


def draw_refusal(hand: Hand, pid: str) -> Refusal | None:
    """Only the player whose turn it is to take a card."""
    if hand.phase != "draw" or hand.actor != pid:
        return Refusal("notDrawing", "지금은 카드를 가져갈 차례가 아니에요")
    return None


def draw(g: GameCore, hand: Hand, pid: str) -> list[Event]:
    """``pid`` takes one face-down card (the deal hook may choose which, as for a deal)."""
    if g.deal_hook is not None:
        held = {pid: tuple(hand.players[pid].hand)}
        request = DealRequest(hand.hand_no, hand.rematch_no, (pid,), 1, held, tuple(hand.deck))
        hand.deck = ordered(request, g.deal_hook)
    hand.players[pid].hand.append(hand.deck.pop(0))
    return [{"type": "dealt", "to": pid, "count": 1}, *next_drawer(g, hand)]


def start_round(g: GameCore, hand: Hand, street: int) -> list[Event]:
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
    actionable = [p for p in hand.participants if _can_act(hand.players[p])]
    events: list[Event] = [{"type": "round", "street": street}]
    if len(actionable) < 2:
        hand.actor = None
        return events + _end_round(g, hand)
    hand.actor = actionable[0]
    return events


def _can_act(rp: RoundPlayer) -> bool:
    return not rp.folded and not rp.all_in


def _needs_action(hand: Hand, rp: RoundPlayer) -> bool:
    return _can_act(rp) and (not rp.acted or rp.committed_round < hand.current_bet)


def bet_context(g: GameCore, hand: Hand, pid: str) -> betting.BetContext:
    """What ``betting.check`` decides ``pid``'s bet from."""
    rp = hand.players[pid]
    return betting.BetContext(
        stack=g.seats[pid].stack,
        committed_round=rp.committed_round,
        current_bet=hand.current_bet,
        opened=hand.opened,
        acted=rp.acted,
        pot=g.pot_total(),
        base_unit=g.state.base_unit,
        max_raise=g.options.max_raise,
    )


def bet(g: GameCore, hand: Hand, pid: str, kind: BetKind, amount: int) -> list[Event]:
    """Apply a bet ``betting.check`` allowed, with the chips it returned."""
    rp, seat = hand.players[pid], g.seats[pid]
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
    return events + advance(g, hand, after=pid)


def advance(g: GameCore, hand: Hand, after: str) -> list[Event]:
    """After a bet or a fold: the hand ends, the round ends, or the next player acts."""
    if len(live(hand)) == 1:
        return win_by_fold(g, hand)
    if hand.phase != "betting":
        return []
    order = hand.participants
    start = order.index(after) + 1
    for i in range(len(order)):
        pid = order[(start + i) % len(order)]
        if _needs_action(hand, hand.players[pid]):
            hand.actor = pid
            return []
    hand.actor = None
    return _end_round(g, hand)


def _end_round(g: GameCore, hand: Hand) -> list[Event]:
    events: list[Event] = []
    excess = uncalled_excess({p: rp.committed_total for p, rp in hand.players.items()})
    if excess:
        pid, amount = excess
        rp = hand.players[pid]
        rp.committed_total -= amount
        rp.committed_round = max(0, rp.committed_round - amount)
        g.seats[pid].stack += amount
        rp.all_in = False if g.seats[pid].stack > 0 else rp.all_in
        events.append({"type": "return", "player": pid, "amount": amount})
    opts = g.options
    if hand.street == 0 and opts.card_mode == "three":
        events += _deal(g, hand, 1)
        hand.phase = "choose"
        hand.actor = None
        return events
    if hand.street == 0 and modes.second_round(opts):
        events += _deal(g, hand, 1)
        return events + start_round(g, hand, 1)
    return events + showdown(g, hand)


def choose_refusal(hand: Hand, pid: str, ids: list[int] | None) -> Refusal | None:
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


def choose(g: GameCore, hand: Hand, pid: str, ids: list[int]) -> list[Event]:
    rp = hand.players[pid]
    rp.chosen = list(ids)
    rp.discarded = next(c for c in rp.hand if c not in ids)
    events: list[Event] = [{"type": "chosen", "player": pid}]
    if any(must_choose(hand, p) for p in hand.participants):
        return events
    return events + after_choice(g, hand)


def after_choice(g: GameCore, hand: Hand) -> list[Event]:
    """Everyone has chosen: the last betting round (후회의 섯다's only one, issue 36: street 0)."""
    return start_round(g, hand, 0 if g.options.card_mode == "regret" else 1)
