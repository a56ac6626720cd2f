"""§5.1–5.4 and §6.3–6.5: one (re)match from the school to the payouts.

School, deal, betting rounds (the amounts come from ``betting``), the three-card choose phase,
the showdown judged pot by pot, and the hand-end wait. What follows the hand's end (a rematch,
the next hand, the game's end) is ``between_hands``'s: nothing here calls upwards.
"""

from __future__ import annotations

from . import betting, modes, proof
from .cards import DECK
from .core import MAX_REMATCHES, GameCore, live, must_choose
from .dealing import DealRequest, ordered
from .hands import HandRank, evaluate
from .pots import Pot, build_pots, split_evenly, uncalled_excess
from .showdown import gusa_fired, resolve_ranks
from .state import Hand, RoundPlayer, Seat
from .types import BetKind, Event, OutcomeDict, PotResult, Refusal, ShownHand, TtaengPayment


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
        return events + _settle_uncontested(g, hand)
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
        return _settle_uncontested(g, hand)
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
    return events + _showdown(g, hand)


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


def _cards_of(hand: Hand, rp: RoundPlayer) -> list[int]:
    """The two cards ``rp`` plays: the chosen two, or the hand (with 한장공유's shared card)."""
    own = rp.chosen if rp.chosen is not None else rp.hand
    return own + ([hand.shared] if hand.shared is not None else [])


def _showdown(g: GameCore, hand: Hand) -> list[Event]:
    """§6.3/§6.5: reveal, judge every pot among its eligible players, pay or keep for a rematch.

    With ``gusaChoice`` (issue 36) the judgement waits, once the hands are shown, for every
    구사 holder whose check is met to say whether it fires (:func:`gusa_choice`)."""
    players = live(hand)
    ranks = _ranks(g, hand, players)
    reveal: list[ShownHand] = []
    for pid in players:
        rank = ranks[pid]
        cards = [DECK[i].to_dict() for i in _cards_of(hand, hand.players[pid])]
        shown: ShownHand = {
            "player": pid,
            "cards": cards,
            "name": rank.name,
            "value": rank.value,
            "special": rank.special,
        }
        if g.options.card_mode == "regret":  # issue 36: the cards not played are shown too
            rp = hand.players[pid]
            shown["unchosen"] = [DECK[i].to_dict() for i in rp.hand if i not in (rp.chosen or [])]
        reveal.append(shown)
        g.note_best_hand(pid, rank, hand.hand_no)
    hand.showdown = reveal
    hand.phase = "showdown"
    events: list[Event] = [{"type": "showdown", "hands": reveal}]
    if g.options.effective_gusa_choice:
        hand.carried_pots = _collect_pots(hand, players)  # (judged when the holders answer)
        asked = g.from_dealer(
            holder
            for pot in hand.carried_pots
            for holder in gusa_fired(_contenders(ranks, pot, players), g.options)
        )
        if asked:
            hand.phase = "gusaChoice"
            hand.gusa_pending, hand.gusa_waived = list(asked), []
            return events + [{"type": "gusaChoiceOpen", "players": list(asked)}]
    return events + _judge(g, hand, ranks, players)


def _ranks(g: GameCore, hand: Hand, players: list[str]) -> dict[str, HandRank]:
    ranks: dict[str, HandRank] = {}
    for pid in players:
        a, b = (DECK[i] for i in _cards_of(hand, hand.players[pid]))
        ranks[pid] = evaluate(a, b, g.options)
    return ranks


def _contenders(ranks: dict[str, HandRank], pot: Pot, players: list[str]) -> dict[str, HandRank]:
    """The showdown hands a pot is judged among: its eligible players still in."""
    return {p: ranks[p] for p in ([p for p in pot.eligible if p in ranks] or players)}


def gusa_choice_refusal(hand: Hand, pid: str) -> Refusal | None:
    """Issue 36: only a 구사 holder the showdown waits for may answer, once."""
    if hand.phase != "gusaChoice" or pid not in hand.gusa_pending:
        return Refusal("notGusaChoosing", "지금은 구사 재경기를 정할 때가 아니에요")
    return None


def gusa_choice(g: GameCore, hand: Hand, pid: str, accept: bool) -> list[Event]:
    """Issue 36 구사 선택권: ``pid`` says whether their 구사 fires (a declined one is judged as
    if its check were not met); once every holder has answered, the pots are judged."""
    hand.gusa_pending.remove(pid)
    if not accept:
        hand.gusa_waived.append(pid)
    events: list[Event] = [{"type": "gusaChoice", "player": pid, "accept": accept}]
    if hand.gusa_pending:
        return events
    players = live(hand)
    return events + _judge(g, hand, _ranks(g, hand, players), players)


def _judge(g: GameCore, hand: Hand, ranks: dict[str, HandRank], players: list[str]) -> list[Event]:
    """§6.3/§6.5: judge every pot among its eligible players, pay or keep for a rematch."""
    hand.phase = "showdown"
    events: list[Event] = []
    pots = _collect_pots(hand, players)
    reasons: list[str] = []
    refunds = g.options.effective_gusa_outcome == "refund"
    waived = hand.gusa_waived
    for pot in sorted(pots, key=lambda p: (p.main, len(p.eligible))):
        contenders = _contenders(ranks, pot, players)
        if len(contenders) == 1:
            events += _award(g, hand, pot, list(contenders), "normal")
            continue
        outcome = resolve_ranks(contenders, g.options, waived)
        if outcome.type == "rematch" and outcome.reason != "tie" and refunds:
            events += _refund(g, hand, pot, outcome.to_dict())
        elif outcome.type == "rematch" and hand.rematch_no >= MAX_REMATCHES:
            events += _award(g, hand, pot, list(outcome.participants), "rematchCap")
        elif outcome.type == "rematch":
            kept_for = g.from_dealer(outcome.participants)
            keep = Pot(pot.amount, kept_for, pot.main, dict(pot.shares))
            hand.rematch_pots.append(keep)
            reasons.append(outcome.reason)
            hand.results.append(_pot_result(pot.amount, outcome.to_dict()))
            events.append({"type": "pot", "amount": pot.amount, "outcome": outcome.to_dict()})
        else:
            events += _award(g, hand, pot, list(outcome.winners), outcome.reason)
            if pot.main and outcome.type == "win" and outcome.reason == "normal":
                _owe_ttaeng(g, hand, outcome.winners[0], ranks[outcome.winners[0]])
    if hand.rematch_pots:
        main = next((p for p in hand.rematch_pots if p.main), hand.rematch_pots[0])
        reason = reasons[hand.rematch_pots.index(main)]
        hand.rematch_reason = reason
        participants = g.from_dealer({p for pot in hand.rematch_pots for p in pot.eligible})
        events.append(
            {
                "type": "rematch",
                "rematchNo": hand.rematch_no + 1,
                "reason": reason,
                "participants": participants,
            }
        )
    return events + enter_hand_end(g, hand)


def _owe_ttaeng(g: GameCore, hand: Hand, winner: str, rank: HandRank) -> None:
    """Issue 36 땡값: the main pot won at a showdown by a 땡 or 광땡 (judged plainly: not by
    땡잡이/암행어사, not split) makes everyone who died in the hand owe the winner one school
    for 일땡~구땡, two for 장땡 and 광땡 (``double``: twice that). Paid when the hand ends."""
    if g.options.ttaeng_value == "off" or rank.value < 901:
        return
    schools = 1 if rank.value <= 909 else 2
    if g.options.ttaeng_value == "double":
        schools *= 2
    each = schools * g.state.base_unit
    hand.ttaeng = {"winner": winner, "name": rank.name, "each": each, "payments": None}


def _pay_ttaeng(g: GameCore, hand: Hand) -> list[Event]:
    """The 땡값 owed, once the hand is over: who died in any (re)match of it and was not at its
    last showdown pays, from the dealer, at most what they hold (issue 36, docs/rules.md §6.5)."""
    due = hand.ttaeng
    if due is None or due["payments"] is not None:
        return []
    winner = due["winner"]
    folded = {p for p, rp in hand.players.items() if rp.folded}
    still_in = {p for p, rp in hand.players.items() if not rp.folded}
    payers = g.from_dealer((set(hand.died) | folded) - still_in - {winner})
    events: list[Event] = []
    payments: list[TtaengPayment] = []
    for pid in payers:
        amount = min(due["each"], g.seats[pid].stack)
        if amount <= 0:
            continue
        g.seats[pid].stack -= amount
        g.seats[winner].stack += amount
        payments.append({"player": pid, "amount": amount})
        events.append(
            {
                "type": "ttaengValue",
                "player": pid,
                "winner": winner,
                "amount": amount,
                "name": due["name"],
            }
        )
    due["payments"] = payments
    return events


def _collect_pots(hand: Hand, players: list[str]) -> list[Pot]:
    new = build_pots({p: rp.committed_total for p, rp in hand.players.items()}, players)
    if not hand.carried_pots and new:
        new[0].main = True
    for rp in hand.players.values():
        rp.committed_total = 0
        rp.committed_round = 0
    pots = hand.carried_pots + new
    hand.carried_pots = []
    return pots


def _award(g: GameCore, hand: Hand, pot: Pot, winners: list[str], reason: str) -> list[Event]:
    order = g.from_dealer(winners)
    shares = split_evenly(pot.amount, order)
    for pid, share in shares.items():
        g.seats[pid].stack += share
    hand.paid_total += pot.amount
    if pot.main:
        hand.main_winners = order
    kind = "win" if len(order) == 1 else "split"
    # issue 32: what each winner gained, less what they put into this pot (school included)
    net = {pid: share - pot.shares.get(pid, 0) for pid, share in shares.items()}
    hand.results.append(
        {"amount": pot.amount, "type": kind, "winners": order, "reason": reason, "net": net}
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


def _refund(g: GameCore, hand: Hand, pot: Pot, outcome: OutcomeDict) -> list[Event]:
    """사구 파토 (``gusaOutcome=refund``): instead of a rematch, every player — folded ones
    too — takes back exactly what they put into this pot this hand, school included."""
    outcome = {**outcome, "type": "refund", "participants": []}
    hand.results.append(_pot_result(pot.amount, outcome))
    events: list[Event] = [{"type": "pot", "amount": pot.amount, "outcome": outcome}]
    for pid in g.from_dealer(pot.shares):
        g.seats[pid].stack += pot.shares[pid]
        events.append({"type": "return", "player": pid, "amount": pot.shares[pid]})
    return events


def _pot_result(amount: int, outcome: OutcomeDict) -> PotResult:
    """A pot kept for a rematch or refunded, as the hand's results list it."""
    return {
        "amount": amount,
        "type": outcome["type"],
        "winners": outcome["winners"],
        "reason": outcome["reason"],
        "participants": outcome["participants"],
    }


def win_by_fold(g: GameCore, hand: Hand) -> list[Event]:
    """§5.1.8: the last player standing takes every pot; no card is shown."""
    (winner,) = live(hand)
    pots = _collect_pots(hand, [winner])
    merged = Pot(0, [winner], True)
    for pot in pots:
        pot.main = False
        merged.add(pot.shares)
    merged.amount = sum(p.amount for p in pots)  # (a pot journaled without shares counts)
    hand.actor = None
    events = _award(g, hand, merged, [winner], "fold")
    hand.showdown = None
    return events + enter_hand_end(g, hand)


def _settle_uncontested(g: GameCore, hand: Hand) -> list[Event]:
    events: list[Event] = []
    for pot in _collect_pots(hand, []):
        if pot.eligible:
            events += _award(g, hand, pot, pot.eligible, "uncontested")
    return events + enter_hand_end(g, hand)


def enter_hand_end(g: GameCore, hand: Hand) -> list[Event]:
    """The (re)match is over: with no pot kept for a rematch the hand is, and its 땡값 is paid."""
    events = [] if hand.rematch_pots else _pay_ttaeng(g, hand)
    if g.state.deal_secret is not None:  # issue 36: the match is over: its seed is revealed
        seed, salt = proof.deal_seed(g.state.deal_secret, hand.hand_no, hand.rematch_no)
        events.append(
            {
                "type": "dealReveal",
                "handNo": hand.hand_no,
                "rematchNo": hand.rematch_no,
                "seed": seed,
                "salt": salt,
            }
        )
    hand.phase = "handEnd"
    hand.actor = None
    hand.ready = []
    return events + [
        {"type": "handEnd", "handNo": hand.hand_no, "rematch": bool(hand.rematch_pots)}
    ]
