"""§6.3–6.5: a (re)match's end: the showdown judged pot by pot, 구사 and its choice, 땡값,
payouts and refunds, a win by everyone else dying, and the hand-end wait.

Split from ``flow`` (which deals and runs the betting up to here) so that each stays a size a
reader takes in at once; nothing here calls back into ``flow``.
"""

from __future__ import annotations

from . import proof
from .cards import DECK
from .core import MAX_REMATCHES, GameCore, live
from .hands import HandRank, evaluate
from .pots import Pot, build_pots, split_evenly
from .showdown import gusa_fired, resolve_ranks
from .state import Hand, RoundPlayer
from .types import Event, OutcomeDict, PotResult, Refusal, ShownHand, TtaengPayment


def _cards_of(hand: Hand, rp: RoundPlayer) -> list[int]:
    """The two cards ``rp`` plays: the chosen two, or the hand (with 한장공유's shared card)."""
    own = rp.chosen if rp.chosen is not None else rp.hand
    return own + ([hand.shared] if hand.shared is not None else [])


def showdown(g: GameCore, hand: Hand) -> list[Event]:
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


def settle_uncontested(g: GameCore, hand: Hand) -> list[Event]:
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
