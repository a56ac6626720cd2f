"""§4–§8 the game as one pure state machine: ``Game.new``, ``act``, ``timeout``, ``view``.

Entry points: ``act`` for a player's own decision (typed: ``bet``, ``choose``, ``rejoin``,
``gusa_choice``, ``rebuy``, ``ready``, each a thin wrapper over it); ``leave``/``disconnect``/``reconnect`` for
what the room manager reports about a seat; ``join`` for a spectator who sits down at the next
hand; ``timeout`` when a deadline passes; ``apply`` dispatches an action dict of any kind by its
type (the journal's form). ``act`` and ``apply`` share one shape check (``_parse``: a client's
``Action`` becomes a typed ``CheckedAction``) and one path to the rules. Legality has one
source per kind: a ``check_*`` returns the refusal or ``None``; the entry point refuses through it and
``legal_actions`` is built from it (pokerkit's verify/can/apply triad). Every entry point checks
first and mutates after, so an ``IllegalAction`` leaves the state exactly as it was. Time belongs
to the caller: ``pending()`` says whom the game waits for and for how many seconds.

Over 500 lines on purpose: ``Game`` is the engine's one public surface, and every entry point,
its ``check_*`` and its typed wrapper stay on it so one place decides legality; the rules
themselves are plain functions in the modules it calls (betting, flow, between_hands, rematch).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import get_args

from . import betting, between_hands, flow, proof, rematch, settlement
from .cards import DECK
from .core import (
    AWAY_SECONDS,
    CHOOSE_EXTRA_SECONDS,
    HAND_END_SECONDS,
    LAST_STANDING_HAND_CAP,
    REBUY_SECONDS,
    REJOIN_SECONDS,
    GameCore,
    count_timeout,
    must_choose,
    touch,
)
from .dealing import DealHook
from .errors import IllegalAction
from .hands import best_two
from .options import Options
from .rng import Rng
from .state import GameState, SavedGame, Seat, state_from_plain, state_to_plain
from .types import (
    Action,
    BetKind,
    CheckedAction,
    Event,
    GameResult,
    LegalAction,
    Pending,
    PlainKind,
    Refusal,
    SeatStatus,
    SystemKind,
    View,
)
from .views import build_view

_PAYLOAD: dict[str, tuple[str, ...]] = {
    **{kind: () for kind in betting.BET_ACTIONS},
    "choose": ("cardIds",),
    "pickShared": ("cardId",),
    "draw": (),
    "rejoin": ("accept",),
    "gusaChoice": ("accept",),
    "rebuy": ("accept",),
    "ready": (),
    "leave": (),
    "disconnect": (),
    "reconnect": (),
    "join": (),
}
SYSTEM_KINDS: frozenset[str] = frozenset(get_args(SystemKind))
_BETS: dict[str, BetKind] = {kind: kind for kind in betting.BET_KINDS}
_PLAIN: dict[str, PlainKind] = {kind: kind for kind in get_args(PlainKind)}


def _parse(action: object) -> CheckedAction:
    """Shape check of a client's action: a mapping with a known ``type`` and exactly its
    payload, well typed; the one check ``act`` and ``apply`` share."""
    if not isinstance(action, Mapping):
        raise IllegalAction("행동 형식이 올바르지 않아요", "malformed")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _PAYLOAD:
        raise IllegalAction("알 수 없는 행동이에요", "unknownAction")
    wanted = _PAYLOAD[kind]
    extra = set(action) - {"type", *wanted}
    if extra:
        raise IllegalAction("필요 없는 값이 함께 왔어요", "extraField")
    for key in wanted:
        if key not in action:
            if kind == "choose":
                raise IllegalAction("카드 두 장을 골라 주세요", "needCards")
            if kind == "pickShared":
                raise IllegalAction("카드를 골라 주세요", "needCard")
            raise IllegalAction("받기/안 받기를 정해 주세요", "needAnswer")
    if kind == "rejoin" or kind == "rebuy" or kind == "gusaChoice":
        accept = action["accept"]
        if not isinstance(accept, bool):
            raise IllegalAction("받기/안 받기를 정해 주세요", "needAnswer")
        if kind == "rejoin":
            return {"type": "rejoin", "accept": accept}
        if kind == "gusaChoice":
            return {"type": "gusaChoice", "accept": accept}
        return {"type": "rebuy", "accept": accept}
    if kind == "choose":
        ids = action["cardIds"]
        if (
            not isinstance(ids, (list, tuple))
            or len(ids) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
        ):
            raise IllegalAction("카드 두 장을 골라 주세요", "needCards")
        if ids[0] == ids[1]:
            raise IllegalAction("같은 카드를 두 번 고를 수 없어요", "sameCard")
        return {"type": "choose", "cardIds": [int(i) for i in ids]}
    if kind == "pickShared":  # issue 36 한장공유
        card = action["cardId"]
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 20:
            raise IllegalAction("카드를 골라 주세요", "needCard")
        return {"type": "pickShared", "cardId": card}
    if kind in _BETS:
        return {"type": _BETS[kind]}
    return {"type": _PLAIN[kind]}


def _refuse(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise IllegalAction.of(refusal)


class Game:
    """One room's game. Build with ``Game.new``; never share the object with a client.

    The public face over one :class:`GameCore` (the state and its RNG): the queries, the one
    legality check per kind, and the entry points, which check and then call the rules'
    functions (``flow``, ``rematch``, ``between_hands``).
    """

    def __init__(self, options: Options, state: GameState) -> None:
        self._core = GameCore(options, state)
        self.last_events: list[Event] = []  # what Game.new's first hand emitted

    @property
    def options(self) -> Options:
        return self._core.options

    @property
    def state(self) -> GameState:
        """The full, server-only state (§8.1): for tests and the journal, never for a client."""
        return self._core.state

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(
        cls,
        options: Options,
        player_ids: Sequence[str],
        seed: int | str,
        *,
        deal: DealHook | None = None,
        stacks: Mapping[str, int] | None = None,
    ) -> Game:
        """§4: seat shuffle, starting chips, first dealer, first hand started.

        For tests and the pilot harness (never journaled; the room manager passes neither):
        ``deal`` orders the deck before each deal (:mod:`engine.dealing`: the seeded shuffle and
        its RNG draws stay as they are); ``stacks`` gives named players other starting chips than
        ``options.starting_chips`` (a scenario's short stack), before the first school is paid.
        """
        if not isinstance(options, Options):
            raise TypeError("options must be engine.Options")
        ids = list(player_ids)
        if any(not isinstance(p, str) or not p for p in ids) or len(set(ids)) != len(ids):
            raise ValueError("player ids must be distinct non-empty strings")
        options.check_players(len(ids))
        chips = dict(stacks or {})
        if set(chips) - set(ids) or any(
            not isinstance(c, int) or isinstance(c, bool) or c <= 0 for c in chips.values()
        ):
            raise ValueError("stacks must give players of this game a positive number of chips")
        rng = Rng.from_seed(seed)
        rng.shuffle(ids)
        seats = [Seat(pid, i, chips.get(pid, options.starting_chips)) for i, pid in enumerate(ids)]
        dealer = rng.below(len(seats))
        state = GameState(
            dict(options.to_dict()), rng.state, seats, options.base_unit, dealer_seat=dealer
        )
        if options.verifiable_deals:  # issue 36: the deal seeds' secret, from the room's seed
            state.deal_secret = proof.game_secret(seed)
        game = cls(options, state)
        game._core.deal_hook = deal
        game.last_events = flow.start_hand(game._core)
        return game

    @classmethod
    def replay(
        cls,
        options: Options,
        player_ids: Sequence[str],
        seed: int | str,
        log: Iterable[tuple[str | None, Action]],
        *,
        deal: DealHook | None = None,
        stacks: Mapping[str, int] | None = None,
    ) -> Game:
        """Rebuild a game from its seed and its log (``None`` as the player = a timeout); a game
        made with ``deal``/``stacks`` replays with the same ones."""
        game = cls.new(options, player_ids, seed, deal=deal, stacks=stacks)
        for _ in cls.replay_steps(game, log):
            pass
        return game

    @staticmethod
    def replay_steps(game: Game, log: Iterable[tuple[str | None, Action]]) -> Iterator[list[Event]]:
        """Apply ``log`` to ``game`` one entry at a time, yielding each entry's events: the one
        replay loop, which :meth:`replay` runs through and a hand-history viewer stops at."""
        for player_id, action in log:
            yield game.timeout() if player_id is None else game.apply(player_id, action)

    def to_dict(self) -> dict[str, object]:
        """The whole state as JSON-ready dicts (the journal's and the pause's snapshot; typed
        inside the engine as :class:`~engine.state.SavedGame`, opaque to callers, who only
        store it and give it back to :meth:`from_dict`)."""
        self.state.rng = self._core.rng.state
        return dict(state_to_plain(self.state))

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Game:
        """A game from :meth:`to_dict`'s snapshot (the journal's or the pause store's, which
        wrote it: its shape is trusted as :class:`~engine.state.SavedGame`; its options are
        checked again by ``Options.from_dict``)."""
        plain: SavedGame = json.loads(json.dumps(data))  # a private deep copy
        state = state_from_plain(plain)
        return cls(Options.from_dict(state.options), state)

    def state_hash(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    # ----------------------------------------------------------------- queries
    @property
    def finished(self) -> bool:
        return self.state.phase == "finished"

    @property
    def players(self) -> list[str]:
        """Player ids in seat order (clockwise)."""
        return [s.id for s in self.state.seats]

    @property
    def hands_played(self) -> int:
        return self.state.hands_played

    @property
    def joining(self) -> list[str]:
        """Who sits down when the next hand starts (``join``, issue 32), in the order they asked."""
        return list(self.state.joining)

    def seat_status(self, player_id: str) -> SeatStatus:
        """§5.6–5.7: playing, busted (asked to rebuy), eliminated, or left the room."""
        return self._core.seats[player_id].status

    def stack(self, player_id: str) -> int:
        """The chips in front of ``player_id`` now (what every view's seat shows as ``stack``)."""
        return self._core.seats[player_id].stack

    def is_connected(self, player_id: str) -> bool:
        """False once the room manager reported the seat disconnected (or left)."""
        return self._core.seats[player_id].connected

    def pot_total(self) -> int:
        """Everything in the middle: carried and kept pots and this match's bets."""
        return self._core.pot_total()

    def chips_in_play(self) -> int:
        """Stacks + pots + bets: always starting chips × players + rebuys (§10)."""
        return self._core.chips_in_play()

    def decision_key(self) -> tuple[object, ...]:
        """Names the decision the game waits for: a caller's deadline stays armed while the key
        stays the same (a simultaneous phase keeps one deadline as players answer)."""
        hand = self.state.hand
        return (
            self.pending()["phase"],
            self.state.hands_played,
            hand.hand_no if hand else None,
            hand.rematch_no if hand else None,
            hand.street if hand else None,
            hand.phase if hand else None,
        )

    def result(self) -> GameResult | None:
        """§6.6/§8.6: the ranking, summary and stats once the game is finished, else ``None``."""
        return self.state.result

    def pending(self) -> Pending:
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return {"phase": "finished", "players": [], "seconds": None}
        if st.phase == "rebuy":
            # the room's turn time when longer: 15 s lost rebuys in 60 s rooms (issue 32)
            seconds = max(REBUY_SECONDS, self.options.turn_seconds)
            return {"phase": "rebuy", "players": list(st.rebuy_pending), "seconds": seconds}
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            away = self._core.seats[hand.actor].away
            seconds = AWAY_SECONDS if away else self.options.turn_seconds
            return {"phase": "betting", "players": [hand.actor], "seconds": seconds}
        if hand.phase == "pickShared":
            assert hand.actor is not None
            away = self._core.seats[hand.actor].away
            seconds = AWAY_SECONDS if away else self.options.turn_seconds
            return {"phase": "pickShared", "players": [hand.actor], "seconds": seconds}
        if hand.phase == "draw":  # issue 36 후회의 섯다
            assert hand.actor is not None
            away = self._core.seats[hand.actor].away
            seconds = AWAY_SECONDS if away else self.options.turn_seconds
            return {"phase": "draw", "players": [hand.actor], "seconds": seconds}
        if hand.phase == "choose":
            waiting = [p for p in hand.participants if must_choose(hand, p)]
            seconds = self.options.turn_seconds + CHOOSE_EXTRA_SECONDS
            return {"phase": "choose", "players": waiting, "seconds": seconds}
        if hand.phase == "gusaChoice":
            seconds = self.options.turn_seconds
            return {"phase": "gusaChoice", "players": list(hand.gusa_pending), "seconds": seconds}
        if hand.phase == "rejoin":
            return {
                "phase": "rejoin",
                "players": list(hand.rejoin_pending),
                "seconds": REJOIN_SECONDS,
            }
        waiting = [p for p in self._core.ready_expected() if p not in hand.ready]
        return {"phase": "handEnd", "players": waiting, "seconds": HAND_END_SECONDS}

    def legal_actions(self, player_id: str) -> list[LegalAction]:
        """What ``player_id`` may do now, with the exact chips each action costs: every action
        whose ``check_*`` passes (a choice lists no card ids: any two of the own cards)."""
        actions: list[LegalAction] = []
        # Only the kinds the current phase answers are asked (every other kind's check refuses
        # by phase): a view asks this for every viewer, so the other checks are not run for
        # nothing. tests/test_engine_legality.py holds the listing to every kind's check.
        core = self._core
        phase = core.state.phase if core.state.phase != "playing" else core.hand().phase
        if phase == "betting" and self._turn_refusal(player_id) is None:
            actions += betting.legal_actions(flow.bet_context(core, core.hand(), player_id))
        elif phase == "choose" and self.check_choose(player_id) is None:
            actions.append({"type": "choose", "amount": 0})
        elif phase == "pickShared" and self.check_pick_shared(player_id) is None:
            actions.append({"type": "pickShared", "amount": 0})
        elif phase == "draw" and self.check_draw(player_id) is None:
            actions.append({"type": "draw", "amount": 0})
        elif phase == "gusaChoice":
            for accept in (True, False):
                if self.check_gusa_choice(player_id, accept) is None:
                    actions.append({"type": "gusaChoice", "accept": accept, "amount": 0})
        elif phase == "rejoin":
            for accept in (True, False):
                if self.check_rejoin(player_id, accept) is None:
                    cost = core.hand().rejoin_cost if accept else 0
                    actions.append({"type": "rejoin", "accept": accept, "amount": cost})
        elif phase == "rebuy":
            for accept in (True, False):
                if self.check_rebuy(player_id, accept) is None:
                    actions.append({"type": "rebuy", "accept": accept, "amount": 0})
        elif phase == "handEnd" and self.check_ready(player_id) is None:
            actions.append({"type": "ready", "amount": 0})
        return actions

    def view(self, viewer: str | None) -> View:
        return build_view(self, viewer)

    # ----------------------------------------------------------------- legality (one per kind)
    def _seat_refusal(self, player_id: object) -> Refusal | None:
        """Who may do anything at all: a seated player of a running game who has not left."""
        if not isinstance(player_id, str) or player_id not in self._core.seats:
            return Refusal("notParticipant", "이 게임의 참가자가 아니에요")
        if self.state.phase == "finished":
            return Refusal("gameOver", "게임이 이미 끝났어요")
        if self._core.seats[player_id].status == "left":
            return Refusal("leftRoom", "방을 나간 뒤에는 행동할 수 없어요")
        return None

    def _hand_refusal(self, player_id: str) -> Refusal | None:
        """The seat check, then: a hand is being played (not the between-hands rebuy wait)."""
        refusal = self._seat_refusal(player_id)
        if refusal is None and (self.state.phase != "playing" or self.state.hand is None):
            return Refusal("rebuyWait", "지금은 리바이를 기다리는 중이에요")
        return refusal

    def _turn_refusal(self, player_id: str) -> Refusal | None:
        """Whether it is ``player_id``'s betting turn (what every bet kind needs first)."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        hand = self._core.hand()
        if hand.phase != "betting":
            return Refusal("notBetting", "지금은 베팅할 때가 아니에요")
        if hand.actor != player_id:
            return Refusal("notYourTurn", "지금은 내 차례가 아니에요")
        return None

    def _bet_chips(self, player_id: str, kind: str) -> tuple[int, Refusal | None]:
        refusal = self._turn_refusal(player_id)
        if refusal is not None:
            return 0, refusal
        return betting.check(kind, flow.bet_context(self._core, self._core.hand(), player_id))

    def check_bet(self, player_id: str, kind: str) -> Refusal | None:
        """§5.4: a betting action (die, check, ping, call, raises); chips come from ``betting``."""
        return self._bet_chips(player_id, kind)[1]

    def check_choose(self, player_id: str, card_ids: Sequence[int] | None = None) -> Refusal | None:
        """§5.2: picking two of three cards; with ``card_ids`` also that both are the player's."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        ids = None if card_ids is None else list(card_ids)
        return flow.choose_refusal(self._core.hand(), player_id, ids)

    def check_pick_shared(self, player_id: str, card_id: int | None = None) -> Refusal | None:
        """Issue 36 한장공유: the 선 picking the shared card (with ``card_id``: any of the 20)."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        return flow.pick_refusal(self._core.hand(), player_id, card_id)

    def check_draw(self, player_id: str) -> Refusal | None:
        """Issue 36 후회의 섯다: taking one face-down card, in turn."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        return flow.draw_refusal(self._core.hand(), player_id)

    def check_rejoin(self, player_id: str, accept: bool) -> Refusal | None:
        """§5.5: answering the 구사 rejoin offer (accepting needs the cost in chips)."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        return rematch.rejoin_refusal(self._core.hand(), self._core.seats[player_id], accept)

    def check_gusa_choice(self, player_id: str, accept: bool) -> Refusal | None:
        """Issue 36 구사 선택권: a 구사 holder the showdown waits for says whether it fires
        (either answer is open to them)."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        return settlement.gusa_choice_refusal(self._core.hand(), player_id)

    def check_rebuy(self, player_id: str, accept: bool) -> Refusal | None:
        """§5.6: answering the rebuy offer after a bust."""
        return self._seat_refusal(player_id) or between_hands.rebuy_refusal(
            self._core, self._core.seats[player_id], accept
        )

    def check_ready(self, player_id: str) -> Refusal | None:
        """§5.1.9: confirming the hand's result to go on."""
        refusal = self._hand_refusal(player_id)
        if refusal is not None:
            return refusal
        hand = self._core.hand()
        if hand.phase != "handEnd":
            return Refusal("notHandEnd", "지금은 준비할 때가 아니에요")
        if player_id in hand.ready or player_id not in self._core.ready_expected():
            return Refusal("alreadyReady", "이미 준비했어요")
        return None

    def check_leave(self, player_id: str) -> Refusal | None:
        if player_id in self.state.joining:  # a queued player gives up the seat to come
            return None
        return self._seat_refusal(player_id)

    def check_join(self, player_id: str) -> Refusal | None:
        """Issue 32: may ``player_id`` (not seated) take a seat when the next hand starts?

        The room's ``midJoin`` option must allow it, a seat must be free (every seat the game
        ever had stays its player's: the rankings keep them), and a next hand must be coming
        (not after the last of ``handLimit``). The seat comes with the starting chips, so the
        school of that hand is always affordable (``baseUnit`` is at most a fifth of them)."""
        st = self.state
        if not isinstance(player_id, str) or not player_id:
            return Refusal("notParticipant", "이 게임의 참가자가 아니에요")
        if st.phase == "finished":
            return Refusal("gameOver", "게임이 이미 끝났어요")
        if not self.options.mid_join:
            return Refusal("midJoinOff", "이 방은 게임 중에 참가할 수 없어요")
        if player_id in self._core.seats:
            return Refusal("alreadySeated", "이미 이 게임에 자리가 있어요")
        if player_id in st.joining:
            return Refusal("alreadyJoining", "이미 다음 판에 앉기로 했어요")
        if len(st.seats) + len(st.joining) >= self.options.max_players:
            return Refusal("tableFull", "자리가 없어요")
        next_hand = st.hands_played + (1 if st.phase == "rebuy" else 2)
        last = (
            self.options.hand_limit
            if self.options.end_condition == "hands"
            else LAST_STANDING_HAND_CAP
        )
        if next_hand > last:
            return Refusal("noHandsLeft", "남은 판이 없어 참가할 수 없어요")
        return None

    def check_disconnect(self, player_id: str) -> Refusal | None:
        refusal = self._seat_refusal(player_id)
        if refusal is None and not self._core.seats[player_id].connected:
            return Refusal("alreadyDisconnected", "이미 연결이 끊겨 있어요")
        return refusal

    def check_reconnect(self, player_id: str) -> Refusal | None:
        refusal = self._seat_refusal(player_id)
        if refusal is None and self._core.seats[player_id].connected:
            return Refusal("alreadyConnected", "이미 연결되어 있어요")
        return refusal

    # ----------------------------------------------------------------- player actions
    def act(self, player_id: str, action: Action) -> list[Event]:
        """One player's own decision; ``IllegalAction`` (Korean reason, code) changes nothing."""
        parsed = _parse(action)
        if parsed["type"] in SYSTEM_KINDS:
            raise IllegalAction("그 행동은 직접 할 수 없어요", "systemOnly")
        return self._act(player_id, parsed)

    def apply(self, player_id: str, action: Action) -> list[Event]:
        """An action dict of every kind, dispatched by its type: a player decision to ``act``, a
        system event to ``leave``/``disconnect``/``reconnect``/``join`` (the journal replays
        through this)."""
        parsed = _parse(action)
        kind = parsed["type"]
        if kind == "leave":
            return self.leave(player_id)
        if kind == "disconnect":
            return self.disconnect(player_id)
        if kind == "reconnect":
            return self.reconnect(player_id)
        if kind == "join":
            return self.join(player_id)
        return self._act(player_id, parsed)

    def bet(self, player_id: str, kind: BetKind) -> list[Event]:
        """§5.4: die, check, ping, call or a raise (``act`` with ``{"type": kind}``)."""
        return self.act(player_id, {"type": kind})

    def choose(self, player_id: str, card_ids: Sequence[int]) -> list[Event]:
        """§5.2: keep two of the three cards (``act`` with a ``choose``)."""
        return self.act(player_id, {"type": "choose", "cardIds": list(card_ids)})

    def pick_shared(self, player_id: str, card_id: int) -> list[Event]:
        """Issue 36 한장공유: the 선 picks the shared card (``act`` with a ``pickShared``)."""
        return self.act(player_id, {"type": "pickShared", "cardId": card_id})

    def draw(self, player_id: str) -> list[Event]:
        """Issue 36 후회의 섯다: take a face-down card (``act`` with a ``draw``)."""
        return self.act(player_id, {"type": "draw"})

    def rejoin(self, player_id: str, accept: bool) -> list[Event]:
        """§5.5: answer the 구사 rejoin offer (``act`` with a ``rejoin``)."""
        return self.act(player_id, {"type": "rejoin", "accept": accept})

    def gusa_choice(self, player_id: str, accept: bool) -> list[Event]:
        """Issue 36: say whether the own 구사 fires (``act`` with a ``gusaChoice``)."""
        return self.act(player_id, {"type": "gusaChoice", "accept": accept})

    def rebuy(self, player_id: str, accept: bool) -> list[Event]:
        """§5.6: answer the rebuy offer after a bust (``act`` with a ``rebuy``)."""
        return self.act(player_id, {"type": "rebuy", "accept": accept})

    def ready(self, player_id: str) -> list[Event]:
        """§5.1.9: confirm the hand's result (``act`` with a ``ready``)."""
        return self.act(player_id, {"type": "ready"})

    def _act(self, player_id: str, action: CheckedAction) -> list[Event]:
        """A well-formed action that is not a system event: checked by its kind's ``check_*``,
        then applied by the rules."""
        core = self._core
        if action["type"] == "gusaChoice":
            accept = action["accept"]
            _refuse(self.check_gusa_choice(player_id, accept))
            seat = core.seats[player_id]
            return touch(seat) + settlement.gusa_choice(core, core.hand(), player_id, accept)
        if action["type"] == "rebuy" or action["type"] == "rejoin":
            accept = action["accept"]
            if action["type"] == "rebuy":
                _refuse(self.check_rebuy(player_id, accept))
                seat = core.seats[player_id]
                return touch(seat) + between_hands.rebuy(core, seat, accept)
            _refuse(self.check_rejoin(player_id, accept))
            seat = core.seats[player_id]
            return touch(seat) + rematch.rejoin(core, core.hand(), seat, accept)
        if action["type"] == "choose":
            ids = action["cardIds"]
            _refuse(self.check_choose(player_id, ids))
            seat = core.seats[player_id]
            return touch(seat) + flow.choose(core, core.hand(), player_id, ids)
        if action["type"] == "pickShared":
            card = action["cardId"]
            _refuse(self.check_pick_shared(player_id, card))
            seat = core.seats[player_id]
            return touch(seat) + flow.pick_shared(core, core.hand(), card)
        if action["type"] == "draw":
            _refuse(self.check_draw(player_id))
            seat = core.seats[player_id]
            return touch(seat) + flow.draw(core, core.hand(), player_id)
        if action["type"] == "ready":
            _refuse(self.check_ready(player_id))
            seat = core.seats[player_id]
            return touch(seat) + between_hands.ready(core, core.hand(), [player_id])
        kind = _BETS[action["type"]]  # (act refused the system kinds; apply dispatched them)
        amount, refusal = self._bet_chips(player_id, kind)
        _refuse(refusal)
        return touch(core.seats[player_id]) + flow.bet(core, core.hand(), player_id, kind, amount)

    # ----------------------------------------------------------------- system events
    def leave(self, player_id: str) -> list[Event]:
        """§5.7: the player left the room: folds now, auto-dies in later hands. A player queued
        for the next hand (issue 32) just leaves the queue."""
        _refuse(self.check_leave(player_id))
        if player_id in self.state.joining:
            self.state.joining.remove(player_id)
            return [{"type": "joinCancel", "player": player_id}]
        return between_hands.leave(self._core, self._core.seats[player_id])

    def join(self, player_id: str) -> list[Event]:
        """Issue 32: queue ``player_id`` for a seat when the next hand starts (see ``check_join``)."""
        _refuse(self.check_join(player_id))
        self.state.joining.append(player_id)
        return [{"type": "joinQueued", "player": player_id}]

    def disconnect(self, player_id: str) -> list[Event]:
        """The seat's reconnect grace ran out; with one connected player left the game ends."""
        _refuse(self.check_disconnect(player_id))
        self._core.seats[player_id].connected = False
        return [
            {"type": "disconnect", "player": player_id},
            *between_hands.check_connected_end(self._core),
        ]

    def reconnect(self, player_id: str) -> list[Event]:
        _refuse(self.check_reconnect(player_id))
        self._core.seats[player_id].connected = True
        return [{"type": "reconnect", "player": player_id}]

    def timeout(self) -> list[Event]:
        """§8.5: the automatic action for everyone the game is waiting for."""
        core = self._core
        st, hand = core.state, core.state.hand
        if st.phase == "finished":
            return []
        events: list[Event] = []
        if st.phase == "rebuy":
            for pid in list(st.rebuy_pending):
                events.append({"type": "timeout", "player": pid, "action": "rebuy"})
                events += between_hands.rebuy(core, core.seats[pid], False)
            return events
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            pid = hand.actor
            kind: BetKind = "die" if hand.opened else "check"
            events.append({"type": "timeout", "player": pid, "action": kind})
            events += count_timeout(core.seats[pid])
            return events + flow.bet(core, hand, pid, kind, 0)
        if hand.phase == "pickShared":  # issue 36: the shuffled deck's top card is shared
            assert hand.actor is not None
            events.append({"type": "timeout", "player": hand.actor, "action": "pickShared"})
            events += count_timeout(core.seats[hand.actor])
            return events + flow.pick_shared(core, hand, hand.deck[0], auto=True)
        if hand.phase == "draw":  # issue 36 후회의 섯다: the card is taken for them
            assert hand.actor is not None
            pid = hand.actor
            events.append({"type": "timeout", "player": pid, "action": "draw"})
            events += count_timeout(core.seats[pid])
            return events + flow.draw(core, hand, pid)
        if hand.phase == "choose":
            for pid in [p for p in hand.participants if must_choose(hand, p)]:
                cards = [DECK[i] for i in hand.players[pid].hand]
                a, b = best_two(cards, core.options)
                events.append({"type": "timeout", "player": pid, "action": "choose"})
                events += count_timeout(core.seats[pid])
                events += flow.choose(core, hand, pid, [a.id, b.id])
            return events
        if hand.phase == "gusaChoice":  # issue 36: a holder who does not answer: it fires
            for pid in list(hand.gusa_pending):
                events.append({"type": "timeout", "player": pid, "action": "gusaChoice"})
                events += settlement.gusa_choice(core, hand, pid, True)
            return events
        if hand.phase == "rejoin":
            for pid in list(hand.rejoin_pending):
                events.append({"type": "timeout", "player": pid, "action": "rejoin"})
                events += rematch.rejoin(core, hand, core.seats[pid], False)
            return events
        waiting = [p for p in core.ready_expected() if p not in hand.ready]
        return between_hands.ready(core, hand, waiting)
