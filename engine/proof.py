"""Issue 36 item 6, deals anyone can verify (``verifiableDeals``, docs/rules.md §8.4).

Each (re)match's deck comes from its own deal seed: ``SHA-256(game secret, hand, rematch)``,
the game secret being ``SHA-256`` of the room's seed (server-only, never sent). Before the deal
everyone is shown the commitment ``SHA-256(salt:seed)``; when the match is over the seed and the
salt are revealed. A revealed seed gives that one deck and nothing else: the next seed needs the
secret, which no hash reveals. The deck is the engine's own Fisher–Yates (:class:`~.rng.Rng`)
seeded with the deal seed, so anyone with this module (or its few documented lines) can redo it.

:func:`verify` checks one match's record (commitment, seed, salt, the public deal order and the
cards shown) and says what does not hold; :func:`records` builds the records from the public
events (the hand log, a replay).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import NotRequired, TypedDict

from .rng import Rng


def game_secret(seed: int | str) -> str:
    """The secret every deal seed of a game comes from (kept in the server's state only)."""
    return hashlib.sha256(f"seotda-deal-secret:{type(seed).__name__}:{seed}".encode()).hexdigest()


def deal_seed(secret: str, hand_no: int, rematch_no: int) -> tuple[str, str]:
    """(seed, salt) of one (re)match, both hex."""
    seed = hashlib.sha256(f"{secret}:seed:{hand_no}:{rematch_no}".encode()).hexdigest()
    salt = hashlib.sha256(f"{secret}:salt:{hand_no}:{rematch_no}".encode()).hexdigest()[:32]
    return seed, salt


def commitment(seed: str, salt: str) -> str:
    """What everyone is shown before the deal: ``SHA-256("{salt}:{seed}")`` in hex."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def deck(seed: str) -> list[int]:
    """The match's deck, top first: card ids 0–19 shuffled by :class:`Rng` from ``seed``."""
    cards = list(range(20))
    Rng.from_seed(seed).shuffle(cards)
    return cards


class DealRecord(TypedDict):
    """One (re)match as every seat saw it: the commitment, what was revealed, the deals in
    order (each: cards per player, the players dealt, from the dealer) and the cards shown."""

    handNo: int
    rematchNo: int
    commitment: str
    seed: str
    salt: str
    deals: list[tuple[int, list[str]]]
    shown: dict[str, list[int]]
    #: issue 36 한장공유: the card the 선 picked before the deal (out of the deck, in every
    #: shown hand)
    shared: NotRequired[int]


def dealt(cards: Sequence[int], deals: Iterable[tuple[int, Sequence[str]]]) -> dict[str, list[int]]:
    """Who got which cards, dealing ``cards`` from the top as the engine does: each deal gives
    ``count`` rounds of one card to each of its players in order."""
    pile = list(cards)
    hands: dict[str, list[int]] = {}
    for count, players in deals:
        for _ in range(count):
            for pid in players:
                if not pile:
                    raise ValueError("덱보다 많은 카드를 나눴어요")
                hands.setdefault(pid, []).append(pile.pop(0))
    return hands


def verify(record: Mapping[str, object]) -> list[str]:
    """What does not hold in ``record`` (a :class:`DealRecord`): an empty list when the seed
    matches the commitment and every shown card is the one the seed's deck dealt."""
    try:
        seed, salt, promised = (str(record[k]) for k in ("seed", "salt", "commitment"))
        raw_deals, raw_shown = record["deals"], record["shown"]
        if not isinstance(raw_deals, list) or not isinstance(raw_shown, Mapping):
            raise TypeError("deals must be a list and shown a mapping")
        deals = [(_int(c), [str(p) for p in ps]) for c, ps in raw_deals]
        shown = {str(p): [_int(i) for i in ids] for p, ids in raw_shown.items()}
    except (KeyError, TypeError, ValueError) as exc:
        return [f"기록 형식이 올바르지 않아요: {exc}"]
    problems: list[str] = []
    cards = deck(seed)
    if "shared" in record:  # 한장공유: dealt from the deck without it; every hand holds it
        shared = _int(record["shared"])
        if shared not in cards:
            return [f"공유 카드 {shared}가 덱에 없어요"]
        cards.remove(shared)
        shown = {p: [i for i in ids if i != shared] for p, ids in shown.items()}
    if commitment(seed, salt) != promised:
        problems.append("시드와 소금이 딜 전에 보인 약속(SHA-256)과 맞지 않아요")
    try:
        hands = dealt(cards, deals)
    except ValueError as exc:
        return [*problems, str(exc)]
    for pid, ids in shown.items():
        got = hands.get(pid, [])
        if not set(ids) <= set(got):
            problems.append(f"{pid}의 공개된 카드 {ids}가 시드의 덱이 나눈 카드 {got}와 달라요")
    return problems


def records(events: Iterable[Mapping[str, object]]) -> list[DealRecord]:
    """The match records in a stream of public events (a hand log, a replay's frames): each
    from its ``dealCommit`` to its ``dealReveal`` (a match never revealed is left out). One
    deal's ``dealt`` events come together, one per player (:func:`engine.flow` deals so)."""
    out: list[DealRecord] = []
    current: DealRecord | None = None
    previous: object = None
    for event in events:
        kind = event.get("type")
        if kind == "dealCommit":
            current = {
                "handNo": _int(event["handNo"]),
                "rematchNo": _int(event["rematchNo"]),
                "commitment": str(event["commitment"]),
                "seed": "",
                "salt": "",
                "deals": [],
                "shown": {},
            }
        elif current is not None and kind == "dealt":
            count, pid = _int(event["count"]), str(event["to"])
            deals = current["deals"]
            if previous == "dealt" and deals[-1][0] == count and pid not in deals[-1][1]:
                deals[-1][1].append(pid)
            else:
                deals.append((count, [pid]))
        elif current is not None and kind == "sharedCard":
            card = event["card"]
            current["shared"] = _int(card["id"]) if isinstance(card, Mapping) else _int(card)
        elif current is not None and kind == "showdown":
            for hand in _list(event["hands"]):
                current["shown"][str(hand["player"])] = [
                    _int(c["id"]) for c in _list(hand["cards"])
                ]
        elif current is not None and kind == "dealReveal":
            current["seed"], current["salt"] = str(event["seed"]), str(event["salt"])
            out.append(current)
            current = None
        previous = kind
    return out


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"not a number: {value!r}")
    return int(value)


def _list(value: object) -> list[Mapping[str, object]]:
    if not isinstance(value, list):
        raise ValueError(f"not a list: {value!r}")
    return value
