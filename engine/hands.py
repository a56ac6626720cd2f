"""§6.1–6.2 족보: the value, name and special power of every two-card hand.

Each rule set gets one 400-entry lookup table (20 × 20 card ids), built once and cached on the
``Options`` instance, so ``evaluate`` is an index, not a computation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from .cards import DECK, Card
from .options import Options
from .types import HandRankDict, SpecialKind, Strength

GWANG_TTAENG = {
    frozenset({4, 14}): (1000, "38광땡"),
    frozenset({0, 14}): (990, "18광땡"),
    frozenset({0, 4}): (980, "13광땡"),
}
MIDDLE = {
    frozenset({1, 2}): (806, "알리"),
    frozenset({1, 4}): (805, "독사"),
    frozenset({1, 9}): (804, "구삥"),
    frozenset({1, 10}): (803, "장삥"),
    frozenset({4, 10}): (802, "장사"),
    frozenset({4, 6}): (801, "세륙"),
}
TTAENG_NAMES = {10: "장땡", 1: "삥땡"}
KKUT_NAMES = {9: "갑오", 0: "망통"}

#: §6.3 step 4: the opponent's best value at or below which a 구사 holder forces a rematch.
GUSA_THRESHOLD = 806
MUNG_GUSA_THRESHOLD = {"upTo8": 908, "upTo9": 909, "upToJang": 910}

SPECIAL_NAMES: dict[str, str] = {
    "ttaengjabi": "땡잡이",
    "amhaeng": "암행어사",
    "gusa": "구사",
    "mungGusa": "멍텅구리구사",
}
_SPECIAL_HINTS = {
    "ttaengjabi": "땡잡이 - 상대 최고패가 1~9땡이면 이겨요",
    "amhaeng": "암행어사 - 상대 최고패가 13·18광땡이면 이겨요",
    "gusa": "구사 - 상대가 알리 이하면 재경기",
}
_MUNG_HINTS = {
    "upTo8": "멍텅구리구사 - 상대가 8땡 이하면 재경기",
    "upTo9": "멍텅구리구사 - 상대가 9땡 이하면 재경기",
    "upToJang": "멍텅구리구사 - 상대가 장땡 이하면 재경기",
}
#: ``gusaOutcome=refund`` (사구 파토): the same thresholds give everyone their stake back.
_REFUND_WORDS = ("재경기", "파토(판돈 반환)")


@dataclass(frozen=True, slots=True)
class HandRank:
    """``value`` is the spec's comparison value; a special hand keeps its plain value."""

    value: int
    name: str
    special: SpecialKind | None
    hint: str
    strength: Strength

    def to_dict(self) -> HandRankDict:
        return {
            "value": self.value,
            "name": self.name,
            "special": self.special,
            "hint": self.hint,
            "strength": self.strength,
        }


def plain_value(a: Card, b: Card, gwang_ttaeng: str) -> tuple[int, str]:
    """§6.1 without specials: the first matching row of the table."""
    ids = frozenset({a.id, b.id})
    gwang = GWANG_TTAENG.get(ids)
    if gwang and (gwang_ttaeng == "all" or gwang[0] == 1000):
        return gwang
    if a.month == b.month:
        return 900 + a.month, TTAENG_NAMES.get(a.month, f"{a.month}땡")
    middle = MIDDLE.get(frozenset({a.month, b.month}))
    if middle:
        return middle
    kkut = (a.month + b.month) % 10
    return kkut, KKUT_NAMES.get(kkut, f"{kkut}끗")


def special_of(a: Card, b: Card, options: Options) -> SpecialKind | None:
    """§6.2: which special power (if its option is on) this pair carries."""
    ids = {a.id, b.id}
    months = {a.month, b.month}
    if options.ttaengjabi == "strict" and ids == {4, 12}:
        return "ttaengjabi"
    if options.ttaengjabi == "loose" and months == {3, 7}:
        return "ttaengjabi"
    if options.amhaeng and ids == {6, 12}:
        return "amhaeng"
    if options.gusa and months == {4, 9}:
        if ids == {6, 16} and options.effective_mung_gusa != "off":
            return "mungGusa"
        return "gusa"
    return None


def _strength(value: int) -> Strength:
    if value >= 901:
        return "높음"
    if value >= 5:  # 알리..세륙 (801–806) and 5–9끗
        return "중간"
    return "낮음"


def _rank(a: Card, b: Card, options: Options) -> HandRank:
    value, name = plain_value(a, b, options.gwang_ttaeng)
    special = special_of(a, b, options)
    if special is None:
        strength = _strength(value)
        level = {"높음": "강한", "중간": "중간 정도", "낮음": "약한"}[strength]
        return HandRank(value, name, None, f"{name} - {level} 패예요", strength)
    if special == "mungGusa":
        hint = _MUNG_HINTS[options.effective_mung_gusa]
    else:
        hint = _SPECIAL_HINTS[special]
    if special in ("gusa", "mungGusa") and options.effective_gusa_outcome == "refund":
        hint = hint.replace(*_REFUND_WORDS)
    return HandRank(value, SPECIAL_NAMES[special], special, hint, "중간")


@cache
def _table(rule_key: tuple[object, ...]) -> tuple[HandRank | None, ...]:
    gwang_ttaeng, ttaengjabi, amhaeng, gusa, mung_gusa, gusa_outcome = rule_key
    options = Options(
        gwang_ttaeng=gwang_ttaeng,  # type: ignore[arg-type]
        ttaengjabi=ttaengjabi,  # type: ignore[arg-type]
        amhaeng=amhaeng,  # type: ignore[arg-type]
        gusa=gusa,  # type: ignore[arg-type]
        mung_gusa=mung_gusa,  # type: ignore[arg-type]
        gusa_outcome=gusa_outcome,  # type: ignore[arg-type]
    )
    table: list[HandRank | None] = [None] * 400
    for a, b in combinations(DECK, 2):
        rank = _rank(a, b, options)
        table[a.id * 20 + b.id] = table[b.id * 20 + a.id] = rank
    return tuple(table)


def hand_table(options: Options) -> tuple[HandRank | None, ...]:
    """The lookup table of ``options`` (cached on the instance after the first call)."""
    try:
        cached: tuple[HandRank | None, ...] = options._hand_table  # type: ignore[attr-defined]
        return cached
    except AttributeError:
        table = _table(options.rule_key)
        object.__setattr__(options, "_hand_table", table)
        return table


def evaluate(a: Card, b: Card, options: Options) -> HandRank:
    """§6.1/6.2 hand of two distinct cards; the order of the cards does not matter."""
    rank: HandRank | None
    try:
        rank = options._hand_table[a.id * 20 + b.id]  # type: ignore[attr-defined]
    except AttributeError:
        rank = hand_table(options)[a.id * 20 + b.id]
    if rank is None:
        raise ValueError("같은 카드 두 장으로는 족보를 만들 수 없어요")
    return rank


def best_two(cards: Iterable[Card], options: Options) -> tuple[Card, Card]:
    """§8.5 automatic choice: highest value, then a special combo, then the smaller id sum."""
    hand = tuple(cards)
    if len(hand) == 2:
        return hand[0], hand[1]
    if len(hand) < 3 or len({c.id for c in hand}) != len(hand):  # (4: 후회의 섯다)
        raise ValueError("카드 세 장 중에서 두 장을 골라야 해요")
    best: tuple[Card, Card] | None = None
    best_key: tuple[int, int, int] | None = None
    for a, b in combinations(hand, 2):
        rank = evaluate(a, b, options)
        key = (rank.value, 1 if rank.special else 0, -(a.id + b.id))
        if best_key is None or key > best_key:
            best, best_key = (a, b), key
    assert best is not None
    return best


def threshold(rank: HandRank, options: Options) -> int | None:
    """§6.3 step 4 threshold of a 구사/멍텅구리구사 hand, else None."""
    if rank.special == "gusa":
        return GUSA_THRESHOLD
    if rank.special == "mungGusa":
        return MUNG_GUSA_THRESHOLD[options.effective_mung_gusa]
    return None
