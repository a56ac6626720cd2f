"""Helpers for engine game tests: random option mixes, random play, rigged games (through
the deal hook), and what a viewer sees. Public API only: views, events, Game's queries."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from engine import DECK, Game, IllegalAction, Options, OptionsError
from engine.dealing import StackedDeck
from engine.options import SPECS
from engine.types import Event, RefusalCode, SeatView

if TYPE_CHECKING:  # the engine's tests do not load the UI
    from seotda_tui.testing import Table

TOTAL_KEYS = ("stack",)


def random_options(rng: random.Random) -> Options:
    """A random valid option mix (retry until the base-unit rule holds)."""
    while True:
        values = {s.field: rng.choice(s.choices) for s in SPECS}
        try:
            return Options.from_dict(values)
        except OptionsError:  # only the base-unit rule can refuse the spec's own choices
            continue


def total_chips(game: Game) -> int:
    o = game.options
    return o.starting_chips * len(game.players) + o.starting_chips * sum(
        s["rebuys"] for s in game.view(None)["seats"]
    )


def seat(game: Game, pid: str, viewer: str | None = None) -> SeatView:
    """``pid``'s seat as ``viewer`` sees it (by default a spectator: no cards)."""
    return next(s for s in game.view(viewer)["seats"] if s["id"] == pid)


def stack(game: Game, pid: str) -> int:
    """``pid``'s chips, as the game says them and every view shows them."""
    assert game.stack(pid) == seat(game, pid)["stack"]
    return game.stack(pid)


def held(game: Game, pid: str) -> list[int]:
    """The ids of ``pid``'s cards in this match, as ``pid``'s own view shows them."""
    return [c["id"] for c in seat(game, pid, pid).get("cards", []) if "hidden" not in c]


def deal_order(game: Game) -> list[str]:
    """The current match's players from its dealer, clockwise (the deal and betting order)."""
    view = game.view(None)
    seats = view["seats"]
    first = next(i for i, s in enumerate(seats) if s["id"] == view.get("dealer"))
    turn = seats[first:] + seats[:first]
    return [s["id"] for s in turn if s["inHand"]]


def new_game(
    n: int = 3,
    seed: int = 1,
    *,
    cards: Mapping[str, Sequence[int]] | None = None,
    stacks: Mapping[str, int] | None = None,
    deck: StackedDeck | None = None,
    **opts: Any,
) -> tuple[Game, list[str]]:
    """A game whose players are named by their place from the first dealer: "a" (선), "b", ...

    The seat shuffle and the first dealer depend on the seed and the number of players only, so
    a probe game with the same seed says which place each seat gets. ``cards``: the first hand's
    cards by name (through ``deck``, a :class:`StackedDeck`, made here if not given, which can
    rig later matches); ``stacks``: starting chips by name (before the first school).
    """
    options = Options(**opts)
    names = "abcdef"[:n]
    probe = Game.new(options, [f"p{i}" for i in range(n)], seed)
    place = deal_order(probe)  # p0.. by place from the dealer
    before = [names[place.index(f"p{i}")] for i in range(n)]  # what Game.new will shuffle
    deck = deck or StackedDeck()
    if cards:
        deck.rig(cards, hand=1)
    game = Game.new(options, before, seed, deal=deck, stacks=stacks)
    assert deal_order(game) == list(names)
    return game, list(names)


def random_action(game: Game, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """A random legal action of a random pending player, or None for a timeout."""
    pending = game.pending()
    if not pending["players"] or rng.random() < 0.08:
        return None
    pid = rng.choice(pending["players"])
    legal = game.legal_actions(pid)
    choice = rng.choice(legal)
    action: dict[str, Any] = {"type": choice["type"]}
    if "accept" in choice:  # rejoin, rebuy, gusaChoice
        action["accept"] = choice["accept"]
    if choice["type"] == "choose":
        action["cardIds"] = rng.sample(held(game, pid), 2)
    if choice["type"] == "pickShared":  # issue 36 한장공유: any of the 20 cards
        action["cardId"] = rng.randrange(20)
    return pid, action


ILLEGAL_SAMPLES: list[Any] = [
    {"type": "call"},
    {"type": "check"},
    {"type": "full"},
    {"type": "ddadang"},
    {"type": "ping"},
    {"type": "ready"},
    {"type": "choose", "cardIds": [0, 0]},
    {"type": "choose", "cardIds": [0, 1]},
    {"type": "choose", "cardIds": [0]},
    {"type": "choose"},
    {"type": "rejoin", "accept": True},
    {"type": "rebuy", "accept": True},
    {"type": "rebuy", "accept": "yes"},
    {"type": "call", "amount": 5},
    {"type": "explode"},
    {"kind": "call"},
    "call",
    None,
]


def hidden_ids_of_others(game: Game, viewer: str | None) -> set[int]:
    """Card ids the viewer must not learn: others' cards not revealed at showdown, all discards
    (each player's own view says what they hold and discarded), and in 인디언 섯다 the viewer's
    own first card."""
    view = game.view(None)
    if "handNo" not in view:
        return set()
    revealed: set[int] = set()
    for row in view.get("showdown") or []:
        revealed |= {c["id"] for c in row["cards"]}
        revealed |= {c["id"] for c in row.get("unchosen", [])}  # 후회의 섯다 shows them
    secret: set[int] = set()
    hand = game.state.hand
    if viewer is not None and hand is not None and viewer in hand.players:
        # issue 36 인디언: the own cards the own view does not show (the first card) are secret
        # to their holder too, until the showdown reveals them
        secret |= set(hand.players[viewer].hand) - set(held(game, viewer)) - revealed
    for other in view["seats"]:
        pid = other["id"]
        if pid == viewer or not other["inHand"]:
            continue
        own = seat(game, pid, pid)
        secret |= set(held(game, pid)) - revealed
        discarded = own.get("discardedId")
        if discarded is not None and discarded not in revealed:
            secret.add(discarded)
    return secret


def leaks(payload: Any, secret_ids: set[int]) -> list[str]:
    """Card-shaped records in ``payload`` that name a secret card by id or by month and kind.

    Every card the engine emits is ``{"id": i, "month": m, "kind": k}``; a secret card is found
    whether its id or only its month and kind appear.
    """
    if not secret_ids:
        return []
    text = json.dumps(payload)
    found: list[str] = []
    for card_id in secret_ids:
        card = DECK[card_id]
        for needle in (
            f'"id": {card.id}, "month"',
            f'"month": {card.month}, "kind": "{card.kind}"',
        ):
            if needle in text:
                found.append(needle)
    return found


def act(game: Game, pid: str, kind: str, **payload: Any) -> list[Event]:
    return game.apply(pid, {"type": kind, **payload})


def refusal(game: Game, pid: str, action: Any, *, own: bool = False) -> IllegalAction:
    """The engine's refusal of ``action`` (``own``: as a player's own decision, ``Game.act``,
    the path a session's keys take; else ``Game.apply``, which also takes system events),
    checked to change nothing."""
    before = game.state_hash()
    try:
        if own:
            game.act(pid, action)
        else:
            game.apply(pid, action)
    except IllegalAction as exc:
        assert game.state_hash() == before
        assert str(exc), "a refusal always says why"
        return exc
    raise AssertionError(f"{action!r} by {pid} was accepted")


def must_fail(game: Game, pid: str, action: Any, code: RefusalCode | None = None) -> str:
    """``action`` is refused (with ``code``, if given) and changes nothing; returns the reason."""
    exc = refusal(game, pid, action)
    if code is not None:
        assert exc.code == code, (exc.code, str(exc))
    return str(exc)


@asynccontextmanager
async def busted_at_rebuy() -> AsyncIterator[Table]:
    """Two players, "b" busted all in on the first hand: the table as its rebuy question opens."""
    from seotda_tui.testing import Table

    async with Table.open(
        ["a", "b"],
        options={"startingChips": 500, "maxRaise": "full"},
        seed=5,
        deal={"a": ["1광", "3광"], "b": ["2띠", "3띠"]},
    ) as t:
        while t.actor is not None:  # all in: full, then call
            kinds = [a["type"] for a in t.legal(t.actor)]
            await t.press(t.actor, "8" if "full" in kinds else "4")
        while t.game.view(None)["phase"] != "rebuy":
            await t.press(t.game.pending()["players"][0], "space")
        yield t
