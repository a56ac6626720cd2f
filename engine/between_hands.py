"""§5.1.9 and §5.6–5.7, §6.6: the hand's end, busts, rebuys, eliminations, leaving, and the end
of the game: what follows a match (``flow``) or a rematch (``rematch``), which call nothing here."""

from __future__ import annotations

from .core import LAST_STANDING_HAND_CAP, GameCore, live, must_choose
from .flow import advance, after_choice, next_drawer, pick_shared, start_hand
from .pots import split_evenly
from .rematch import open_rejoin, rejoin
from .result import build_result
from .settlement import gusa_choice, win_by_fold
from .state import Hand, Seat
from .types import Event, Refusal


def ready(g: GameCore, hand: Hand, pids: list[str]) -> list[Event]:
    """§5.1.9: ``pids`` confirmed the hand's result; once everyone has, the rematch or the
    next hand."""
    hand.ready.extend(pids)
    events: list[Event] = [{"type": "ready", "player": p} for p in pids]
    if any(p not in hand.ready for p in g.ready_expected()):
        return events
    if hand.rematch_pots:
        return events + open_rejoin(g, hand)
    return events + _finish_hand(g, hand)


def _finish_hand(g: GameCore, hand: Hand) -> list[Event]:
    st, opts = g.state, g.options
    st.hands_played += 1
    biggest = st.biggest_pot
    if biggest is None or hand.paid_total > biggest["amount"]:
        st.biggest_pot = {
            "handNo": hand.hand_no,
            "amount": hand.paid_total,
            "winners": list(hand.main_winners),
        }
    if opts.dealer_rule == "winner" and hand.main_winners:
        st.dealer_seat = g.seats[hand.main_winners[0]].seat
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
                events += _eliminate(g, [seat])
    if opts.end_condition == "hands" and st.hands_played >= opts.hand_limit:
        return events + _eliminate(g, busted) + _finish(g, "hands")
    if opts.end_condition == "lastStanding" and st.hands_played >= LAST_STANDING_HAND_CAP:
        return events + _eliminate(g, busted) + _finish(g, "handCap")
    askable = [s for s in busted if _rebuys_left(g, s) > 0]
    events += _eliminate(g, [s for s in busted if s not in askable])
    if askable:
        st.phase = "rebuy"
        st.rebuy_pending = [s.id for s in askable]
        return events + [{"type": "rebuyOpen", "players": list(st.rebuy_pending)}]
    return events + _next_hand(g)


def _rebuys_left(g: GameCore, seat: Seat) -> int:
    if g.options.rebuy == "off":
        return 0
    if g.options.rebuy == "unlimited":
        return 1
    return max(0, g.options.rebuy_limit - seat.rebuys)


def rebuy_refusal(g: GameCore, seat: Seat, accept: bool) -> Refusal | None:
    if g.state.phase != "rebuy" or seat.id not in g.state.rebuy_pending:
        return Refusal("notRebuying", "지금은 리바이를 정할 때가 아니에요")
    if accept and _rebuys_left(g, seat) <= 0:
        return Refusal("noRebuysLeft", "리바이 횟수를 다 썼어요")
    return None


def rebuy(g: GameCore, seat: Seat, accept: bool) -> list[Event]:
    st = g.state
    st.rebuy_pending.remove(seat.id)
    events: list[Event] = []
    if accept:
        seat.stack = g.options.starting_chips
        seat.rebuys += 1
        seat.status = "playing"
        events.append({"type": "rebuy", "player": seat.id, "accept": True, "amount": seat.stack})
    else:
        events.append({"type": "rebuy", "player": seat.id, "accept": False, "amount": 0})
        events += _eliminate(g, [seat])
    if st.rebuy_pending:
        return events
    st.phase = "playing"
    return events + _next_hand(g)


def _eliminate(g: GameCore, seats: list[Seat]) -> list[Event]:
    if not seats:
        return []
    hand_no = g.state.hand.hand_no if g.state.hand else g.state.hands_played
    for seat in seats:
        seat.status = "eliminated"
        seat.eliminated_at_hand = hand_no
    g.state.elimination_seq.append([s.id for s in seats])
    return [{"type": "eliminated", "player": s.id} for s in seats]


def _with_chips(g: GameCore) -> list[Seat]:
    return [s for s in g.state.seats if s.status in ("playing", "left") and s.stack > 0]


def _next_hand(g: GameCore) -> list[Event]:
    if g.options.end_condition == "lastStanding" and len(_with_chips(g)) <= 1:
        return _finish(g, "lastStanding")
    ended = check_connected_end(g)
    if ended:
        return ended
    return start_hand(g)


def check_connected_end(g: GameCore) -> list[Event]:
    """§6.6: at most one connected player who still has chips ends the game at once."""
    st, hand = g.state, g.state.hand
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
    return _void_hand(g) + _finish(g, "disconnected")


def _void_hand(g: GameCore) -> list[Event]:
    """An unfinished hand when the game ends early: bets go back, kept pots are split."""
    hand = g.state.hand
    if hand is None or hand.phase == "handEnd" and not hand.rematch_pots:
        return []
    events: list[Event] = []
    for pid, rp in hand.players.items():
        if rp.committed_total:
            g.seats[pid].stack += rp.committed_total
            events.append({"type": "return", "player": pid, "amount": rp.committed_total})
            rp.committed_total = rp.committed_round = 0
    for pot in hand.carried_pots + hand.rematch_pots:
        for pid, share in split_evenly(pot.amount, g.from_dealer(pot.eligible)).items():
            g.seats[pid].stack += share
            events.append({"type": "return", "player": pid, "amount": share})
    hand.carried_pots, hand.rematch_pots = [], []
    hand.phase = "handEnd"
    hand.actor = None
    return events


#: The phases in which a player who leaves folds at once (issue 36 adds the variants' own).
_FOLD_PHASES = ("betting", "choose", "pickShared", "draw")


def leave(g: GameCore, seat: Seat) -> list[Event]:
    """§5.7: a player who leaves folds now and auto-dies in every later hand. An eliminated
    player who leaves stays eliminated, at the hand they went out in (§6.6 ranks by it)."""
    st, hand = g.state, g.state.hand
    seat.connected = False
    events: list[Event] = [{"type": "leave", "player": seat.id}]
    if seat.status == "eliminated":
        return events + check_connected_end(g)
    seat.status = "left"
    if st.phase == "rebuy" and seat.id in st.rebuy_pending:
        st.rebuy_pending.remove(seat.id)
        events += _eliminate(g, [seat])
        if not st.rebuy_pending:
            st.phase = "playing"
            return events + _next_hand(g)
        return events + check_connected_end(g)
    if hand is not None and st.phase == "playing":
        rp = hand.players.get(seat.id)
        if hand.phase == "rejoin" and seat.id in hand.rejoin_pending:
            return events + rejoin(g, hand, seat, False)
        if hand.phase == "gusaChoice" and seat.id in hand.gusa_pending:
            # issue 36: leaving answers as a timeout does: the 구사 fires
            return events + gusa_choice(g, hand, seat.id, True) + check_connected_end(g)
        if hand.phase == "handEnd":
            if all(p in hand.ready for p in g.ready_expected()):
                events += ready(g, hand, [])
            return events + check_connected_end(g)
        if rp is not None and not rp.folded and hand.phase in _FOLD_PHASES:
            rp.folded = True
            rp.last_action = "die"
            events.append({"type": "fold", "player": seat.id, "auto": True})
            if len(live(hand)) == 1:
                return events + win_by_fold(g, hand) + check_connected_end(g)
            if hand.phase == "pickShared" and hand.actor == seat.id:  # issue 36: picked for them
                events += pick_shared(g, hand, hand.deck[0], auto=True)
            elif hand.phase == "draw" and hand.actor == seat.id:  # issue 36: the next draws
                events += next_drawer(g, hand)
            elif hand.phase == "betting" and hand.actor == seat.id:
                events += advance(g, hand, after=seat.id)
            elif hand.phase == "choose" and not any(
                must_choose(hand, p) for p in hand.participants
            ):
                events += after_choice(g, hand)
    return events + check_connected_end(g)


def _finish(g: GameCore, reason: str) -> list[Event]:
    st = g.state
    st.phase = "finished"
    st.rebuy_pending = []
    st.joining = []  # (nobody sits down in a finished game)
    st.end_reason = reason
    if st.hand is not None:
        st.hand.actor = None
    st.result = build_result(g, reason)
    return [{"type": "gameEnd", "reason": reason, "summary": st.result["summary"]}]
