"""§8.3 view: what one viewer may see, built from the one true state.

Other players' cards are ``{"hidden": true}`` placeholders (never an id: ids fix month and kind);
showdown cards are public; a discarded third card is only ever in its owner's view.

A view shares no mutable object with the state or with another view (`_fresh` copies the parts
taken from the state), so a server can hand it to screens as is instead of deep-copying it.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, cast

from . import modes, proof
from .cards import DECK
from .hands import HandRank, best_two, evaluate
from .options import Options
from .pots import build_pots, uncalled_excess
from .state import GameState
from .types import CardDict, HiddenCard, LegalAction, MyHand, Pending, PotDict, SeatView, View

_CARD = [c.to_dict() for c in DECK]
_T = TypeVar("_T")


class ViewSource(Protocol):
    """What a view is built from (``Game`` provides it; naming it here keeps views off game.py)."""

    @property
    def state(self) -> GameState: ...

    @property
    def options(self) -> Options: ...

    def pending(self) -> Pending: ...

    def legal_actions(self, player_id: str) -> list[LegalAction]: ...

    def pot_total(self) -> int: ...


def _fresh(value: _T) -> _T:
    """A copy of JSON-shaped state (dicts, lists, tuples, scalars), cheaper than ``deepcopy``."""
    if isinstance(value, dict):
        return cast(_T, {k: _fresh(v) for k, v in value.items()})
    if isinstance(value, list):
        return cast(_T, [_fresh(v) for v in value])
    if isinstance(value, tuple):
        return cast(_T, tuple(_fresh(v) for v in value))
    return value


def build_view(game: ViewSource, viewer: str | None) -> View:
    st, opts, hand = game.state, game.options, game.state.hand
    pending = game.pending()
    seats: list[SeatView] = []
    revealed = {r["player"]: r for r in hand.showdown} if hand and hand.showdown else {}
    for s in st.seats:
        rp = hand.players.get(s.id) if hand else None
        entry: SeatView = {
            "id": s.id,
            "seat": s.seat,
            "stack": s.stack,
            "status": s.status,
            "away": s.away,
            "connected": s.connected,
            "rebuys": s.rebuys,
            "dealer": hand is not None and s.seat == hand.dealer_seat,
            "inHand": rp is not None,
        }
        if rp is not None:
            own = s.id == viewer
            entry["folded"] = rp.folded
            entry["allIn"] = rp.all_in
            entry["bet"] = rp.committed_round
            entry["committed"] = rp.committed_total
            entry["lastAction"] = (
                {"type": rp.last_action, "amount": rp.last_amount} if rp.last_action else None
            )
            entry["cardCount"] = len(rp.hand)
            seen = modes.shown_to(opts, hand, rp, viewer) if hand else []
            cards: list[CardDict | HiddenCard] = [
                _CARD[i].copy() if face else {"hidden": True} for i, face in zip(rp.hand, seen)
            ]
            entry["cards"] = cards
            entry["chosen"] = rp.chosen is not None
            if own and rp.chosen is not None:
                entry["chosenIds"] = list(rp.chosen)
                entry["discardedId"] = rp.discarded
            shown = revealed.get(s.id)
            entry["revealed"] = _fresh(shown["cards"]) if shown else None
            if shown and "unchosen" in shown:  # 후회의 섯다 (issue 36)
                entry["unchosen"] = _fresh(shown["unchosen"])
        seats.append(entry)
    view: View = {
        "viewer": viewer,
        "phase": st.phase,
        "handsPlayed": st.hands_played,
        "baseUnit": st.base_unit,
        "pending": pending,
        "seats": seats,
        "legalActions": game.legal_actions(viewer) if viewer is not None else [],
        "rebuyPending": list(st.rebuy_pending),
        "result": _fresh(st.result),
        "joining": list(st.joining),
    }
    if hand is not None:  # keys in this order: the JSON shape is part of the contract
        view["handNo"] = hand.hand_no
        view["handPhase"] = hand.phase
        view["street"] = hand.street
        view["rematchNo"] = hand.rematch_no
        view["rematchReason"] = (
            hand.rematch_reason if (hand.rematch_no or hand.rematch_pots) else None
        )
        view["dealer"] = st.seats[hand.dealer_seat].id
        view["actor"] = hand.actor
        view["currentBet"] = hand.current_bet
        view["pot"] = game.pot_total()
        view["pots"] = _pots(game)
        view["showdown"] = _fresh(hand.showdown)
        view["results"] = _fresh(hand.results) if hand.phase == "handEnd" else []
        view["rejoin"] = (
            {"players": list(hand.rejoin_pending), "cost": hand.rejoin_cost}
            if hand.phase == "rejoin"
            else None
        )
        view["myHand"] = _my_hand(game, viewer) if opts.hints else None
        if hand.phase == "gusaChoice":  # issue 36 (absent otherwise: default views unchanged)
            view["gusaChoice"] = {"players": list(hand.gusa_pending)}
        if hand.ttaeng is not None and hand.ttaeng["payments"] is not None:
            view["ttaeng"] = _fresh(hand.ttaeng)
        if opts.card_mode == "shared":  # issue 36 한장공유: the shared card, shown to all
            view["sharedCard"] = None if hand.shared is None else _CARD[hand.shared].copy()
        if st.deal_secret is not None:  # issue 36: the commitment; the seed once it is over
            seed, salt = proof.deal_seed(st.deal_secret, hand.hand_no, hand.rematch_no)
            over = hand.phase == "handEnd"
            view["deal"] = {
                "commitment": proof.commitment(seed, salt),
                "seed": seed if over else None,
                "salt": salt if over else None,
            }
    return view


def _pots(game: ViewSource) -> list[PotDict]:
    """The carried pots, then this deal's bets: one pot unless a live player is all in.

    With an all-in, the pots split at the all-in totals only (an open player can still match any
    level) after setting aside a bet nobody has matched yet: that goes back to its owner unless
    called (§5.4), so it is its own entry, eligible only for its owner, not a side pot.
    """
    hand = game.state.hand
    assert hand is not None
    pots = [p.to_dict() for p in hand.carried_pots + hand.rematch_pots]
    players = hand.players
    live = [p for p in hand.participants if not players[p].folded]
    contrib = {p: rp.committed_total for p, rp in players.items() if rp.committed_total}
    if not contrib:
        return pots
    all_in = [p for p in live if players[p].all_in]
    if not all_in:  # one pot: skip the level split
        pots.append({"amount": sum(contrib.values()), "eligible": live, "main": not pots})
        return pots
    excess = uncalled_excess(contrib)
    called = dict(contrib)
    if excess:
        called[excess[0]] -= excess[1]
    new = [p.to_dict() for p in build_pots(called, live, all_in)]
    if new and not pots:
        new[0]["main"] = True
    if excess:
        new.append({"amount": excess[1], "eligible": [excess[0]], "main": False})
    return pots + new


def _my_hand(game: ViewSource, viewer: str | None) -> MyHand | None:
    """§9 hint: the own hand's name and strength; with three cards, the recommended pair."""
    hand = game.state.hand
    if viewer is None or hand is None or viewer not in hand.players:
        return None
    rp = hand.players[viewer]
    known = modes.known_own(game.options, hand, rp)  # 인디언: not the own first card
    if len(known) < 2:
        return None
    cards = [DECK[i] for i in (rp.chosen or known)]
    if len(cards) >= 3:  # 3장 섯다, 후회의 섯다's four
        a, b = best_two(cards, game.options)
        mine = _hint(evaluate(a, b, game.options))
        mine["recommended"] = [a.id, b.id]
        return mine
    return _hint(evaluate(cards[0], cards[1], game.options))


def _hint(rank: HandRank) -> MyHand:
    """``rank.to_dict()``, typed as the view's hint (which may add the recommended pair)."""
    return {
        "value": rank.value,
        "name": rank.name,
        "special": rank.special,
        "hint": rank.hint,
        "strength": rank.strength,
    }
