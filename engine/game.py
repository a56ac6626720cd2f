"""§4–§8 the game as one pure state machine: ``Game.new``, ``apply``, ``timeout``, ``view``.

Every entry point verifies first and mutates after, so an ``IllegalAction`` leaves the state exactly
as it was. Time belongs to the caller: ``pending()`` says whom the game waits for and for how many
seconds, and the caller calls ``timeout()`` when that deadline passes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import betting
from .between_hands import BetweenHands
from .cards import DECK
from .core import (
    AWAY_SECONDS,
    CHOOSE_EXTRA_SECONDS,
    HAND_END_SECONDS,
    REBUY_SECONDS,
    REJOIN_SECONDS,
    Action,
    Event,
)
from .errors import IllegalAction
from .flow import HandFlow
from .hands import best_two
from .options import Options
from .rematch import Rematch
from .rng import Rng
from .state import GameState, Seat, state_from_plain, to_plain

_PAYLOAD: dict[str, tuple[str, ...]] = {
    **{kind: () for kind in betting.BET_ACTIONS},
    "choose": ("cardIds",),
    "rejoin": ("accept",),
    "rebuy": ("accept",),
    "ready": (),
    "leave": (),
    "disconnect": (),
    "reconnect": (),
}


def _parse(action: Any) -> tuple[str, dict[str, Any]]:
    """Shape check of a client's action: a dict with a known ``type`` and exactly its payload."""
    if not isinstance(action, Mapping):
        raise IllegalAction("행동 형식이 올바르지 않아요")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _PAYLOAD:
        raise IllegalAction("알 수 없는 행동이에요")
    wanted = _PAYLOAD[kind]
    extra = set(action) - {"type", *wanted}
    if extra:
        raise IllegalAction("필요 없는 값이 함께 왔어요")
    payload: dict[str, Any] = {}
    for key in wanted:
        if key not in action:
            if kind == "choose":
                raise IllegalAction("카드 두 장을 골라 주세요")
            raise IllegalAction("받기/안 받기를 정해 주세요")
        payload[key] = action[key]
    if kind in ("rejoin", "rebuy") and not isinstance(payload["accept"], bool):
        raise IllegalAction("받기/안 받기를 정해 주세요")
    if kind == "choose":
        ids = payload["cardIds"]
        if (
            not isinstance(ids, (list, tuple))
            or len(ids) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
        ):
            raise IllegalAction("카드 두 장을 골라 주세요")
        if ids[0] == ids[1]:
            raise IllegalAction("같은 카드를 두 번 고를 수 없어요")
        payload["cardIds"] = [int(i) for i in ids]
    return kind, payload


class Game(HandFlow, Rematch, BetweenHands):
    """One room's game. Build with ``Game.new``; never share the object with a client."""

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(cls, options: Options, player_ids: Sequence[str], seed: int | str) -> Game:
        """§4: seat shuffle, starting chips, first dealer, first hand started."""
        if not isinstance(options, Options):
            raise TypeError("options must be engine.Options")
        ids = list(player_ids)
        if any(not isinstance(p, str) or not p for p in ids) or len(set(ids)) != len(ids):
            raise ValueError("player ids must be distinct non-empty strings")
        options.check_players(len(ids))
        rng = Rng.from_seed(seed)
        rng.shuffle(ids)
        seats = [Seat(pid, i, options.starting_chips) for i, pid in enumerate(ids)]
        dealer = rng.below(len(seats))
        state = GameState(
            options.to_dict(), rng.state, seats, options.base_unit, dealer_seat=dealer
        )
        game = cls(options, state)
        game.last_events = game._start_hand()
        return game

    @classmethod
    def replay(
        cls,
        options: Options,
        player_ids: Sequence[str],
        seed: int | str,
        log: Iterable[tuple[str | None, Action]],
    ) -> Game:
        """Rebuild a game from its seed and its log (``None`` as the player = a timeout)."""
        game = cls.new(options, player_ids, seed)
        for player_id, action in log:
            if player_id is None:
                game.timeout()
            else:
                game.apply(player_id, action)
        return game

    def to_dict(self) -> dict[str, Any]:
        self.state.rng = self._rng.state
        plain: dict[str, Any] = to_plain(self.state)
        return plain

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        plain = json.loads(json.dumps(data))  # a private deep copy
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

    def result(self) -> dict[str, Any] | None:
        return self.state.result

    def pending(self) -> dict[str, Any]:
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return {"phase": "finished", "players": [], "seconds": None}
        if st.phase == "rebuy":
            return {"phase": "rebuy", "players": list(st.rebuy_pending), "seconds": REBUY_SECONDS}
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            away = self._seats[hand.actor].away
            seconds = AWAY_SECONDS if away else self.options.turn_seconds
            return {"phase": "betting", "players": [hand.actor], "seconds": seconds}
        if hand.phase == "choose":
            waiting = [p for p in hand.participants if self._must_choose(hand, p)]
            seconds = self.options.turn_seconds + CHOOSE_EXTRA_SECONDS
            return {"phase": "choose", "players": waiting, "seconds": seconds}
        if hand.phase == "rejoin":
            return {
                "phase": "rejoin",
                "players": list(hand.rejoin_pending),
                "seconds": REJOIN_SECONDS,
            }
        waiting = [p for p in self._ready_expected() if p not in hand.ready]
        return {"phase": "handEnd", "players": waiting, "seconds": HAND_END_SECONDS}

    def legal_actions(self, player_id: str) -> list[dict[str, Any]]:
        """What ``player_id`` may do now, with the exact chips each action costs."""
        st, hand = self.state, self.state.hand
        if st.phase == "finished" or player_id not in self._seats:
            return []
        seat = self._seats[player_id]
        if st.phase == "rebuy":
            if player_id not in st.rebuy_pending:
                return []
            return [
                {"type": "rebuy", "accept": True, "amount": 0},
                {"type": "rebuy", "accept": False, "amount": 0},
            ]
        assert hand is not None
        if hand.phase == "betting":
            if hand.actor != player_id:
                return []
            return betting.legal_actions(self._bet_ctx(hand, player_id))
        if hand.phase == "choose":
            return [{"type": "choose", "amount": 0}] if self._must_choose(hand, player_id) else []
        if hand.phase == "rejoin":
            if player_id not in hand.rejoin_pending:
                return []
            actions: list[dict[str, Any]] = []
            if seat.stack >= hand.rejoin_cost:
                actions.append({"type": "rejoin", "accept": True, "amount": hand.rejoin_cost})
            actions.append({"type": "rejoin", "accept": False, "amount": 0})
            return actions
        if player_id in self._ready_expected() and player_id not in hand.ready:
            return [{"type": "ready", "amount": 0}]
        return []

    def view(self, viewer: str | None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, viewer)

    # ----------------------------------------------------------------- actions
    def apply(self, player_id: str, action: Action) -> list[Event]:
        """Apply one player's action; ``IllegalAction`` (Korean reason) changes nothing."""
        kind, payload = _parse(action)
        if not isinstance(player_id, str) or player_id not in self._seats:
            raise IllegalAction("이 게임의 참가자가 아니에요")
        if self.state.phase == "finished":
            raise IllegalAction("게임이 이미 끝났어요")
        seat = self._seats[player_id]
        if seat.status == "left":
            raise IllegalAction("방을 나간 뒤에는 행동할 수 없어요")
        if kind == "leave":
            return self._leave(seat)
        if kind == "disconnect":
            if not seat.connected:
                raise IllegalAction("이미 연결이 끊겨 있어요")
            seat.connected = False
            return [{"type": "disconnect", "player": seat.id}, *self._check_connected_end()]
        if kind == "reconnect":
            if seat.connected:
                raise IllegalAction("이미 연결되어 있어요")
            seat.connected = True
            return [{"type": "reconnect", "player": seat.id}]
        if kind == "rebuy":
            self._verify_rebuy(seat, payload["accept"])
            return self._touch(seat) + self._rebuy(seat, payload["accept"])
        hand = self.state.hand
        if self.state.phase != "playing" or hand is None:
            raise IllegalAction("지금은 리바이를 기다리는 중이에요")
        if kind in betting.BET_ACTIONS:
            if hand.phase != "betting":
                raise IllegalAction("지금은 베팅할 때가 아니에요")
            if hand.actor != player_id:
                raise IllegalAction("지금은 내 차례가 아니에요")
            amount = betting.verify(kind, self._bet_ctx(hand, player_id))
            return self._touch(seat) + self._bet(hand, player_id, kind, amount)
        if kind == "choose":
            self._verify_choose(hand, player_id, payload["cardIds"])
            return self._touch(seat) + self._choose(hand, player_id, payload["cardIds"])
        if kind == "rejoin":
            self._verify_rejoin(hand, seat, payload["accept"])
            return self._touch(seat) + self._rejoin(hand, seat, payload["accept"])
        # ready
        if hand.phase != "handEnd":
            raise IllegalAction("지금은 준비할 때가 아니에요")
        if player_id in hand.ready or player_id not in self._ready_expected():
            raise IllegalAction("이미 준비했어요")
        return self._touch(seat) + self._ready(hand, [player_id])

    def timeout(self) -> list[Event]:
        """§8.5: the automatic action for everyone the game is waiting for."""
        st, hand = self.state, self.state.hand
        if st.phase == "finished":
            return []
        events: list[Event] = []
        if st.phase == "rebuy":
            for pid in list(st.rebuy_pending):
                events.append({"type": "timeout", "player": pid, "action": "rebuy"})
                events += self._rebuy(self._seats[pid], False)
            return events
        assert hand is not None
        if hand.phase == "betting":
            assert hand.actor is not None
            pid = hand.actor
            kind = "die" if hand.opened else "check"
            events.append({"type": "timeout", "player": pid, "action": kind})
            events += self._count_timeout(self._seats[pid])
            return events + self._bet(hand, pid, kind, 0)
        if hand.phase == "choose":
            for pid in [p for p in hand.participants if self._must_choose(hand, p)]:
                cards = [DECK[i] for i in hand.players[pid].hand]
                a, b = best_two(cards, self.options)
                events.append({"type": "timeout", "player": pid, "action": "choose"})
                events += self._count_timeout(self._seats[pid])
                events += self._choose(hand, pid, [a.id, b.id])
            return events
        if hand.phase == "rejoin":
            for pid in list(hand.rejoin_pending):
                events.append({"type": "timeout", "player": pid, "action": "rejoin"})
                events += self._rejoin(hand, self._seats[pid], False)
            return events
        waiting = [p for p in self._ready_expected() if p not in hand.ready]
        return self._ready(hand, waiting)
