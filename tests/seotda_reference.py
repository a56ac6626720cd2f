"""An independent reference for the rules core, written from the rules' tables, not from engine/.

Nothing here imports the engine's helpers: the deck (§3), the hand table (§6.1), the special
hands (§6.2), the showdown judge (§6.3) and the three-card choice (§8.5) are re-derived from the
rules so the tests compare two independent readings of the rules (docs/rules.md).
Cards are short codes: "3광", "7열", "9띠", "8일" (8월 일반).
"""

from __future__ import annotations

from dataclasses import dataclass

# §3 + §8.1: id = (month - 1) * 2 + (0 if special else 1); 1·3·8 special = 광, other special = 열끗.
# fmt: off
CODES: tuple[str, ...] = (
    "1광", "1띠",
    "2열", "2띠",
    "3광", "3띠",
    "4열", "4띠",
    "5열", "5띠",
    "6열", "6띠",
    "7열", "7띠",
    "8광", "8일",
    "9열", "9띠",
    "10열", "10띠",
)
# fmt: on


def month(code: str) -> int:
    return int(code[:-1])


# §6.1 by month only (rows = smaller month, columns = the larger month from the row month on).
# Written out by hand: 땡 on the diagonal, 알리~세륙 where they apply, otherwise (m1 + m2) % 10 끗.
_MONTH_GRID = {
    1: "삥땡 알리 4끗 독사 6끗 7끗 8끗 갑오 구삥 장삥",
    2: "2땡 5끗 6끗 7끗 8끗 갑오 망통 1끗 2끗",
    3: "3땡 7끗 8끗 갑오 망통 1끗 2끗 3끗",
    4: "4땡 갑오 세륙 1끗 2끗 3끗 장사",
    5: "5땡 1끗 2끗 3끗 4끗 5끗",
    6: "6땡 3끗 4끗 5끗 6끗",
    7: "7땡 5끗 6끗 7끗",
    8: "8땡 7끗 8끗",
    9: "9땡 갑오",
    10: "장땡",
}
MONTH_PAIR_NAME: dict[tuple[int, int], str] = {
    (m1, m1 + k): name for m1, row in _MONTH_GRID.items() for k, name in enumerate(row.split())
}

# §6.1 comparison values ("비교값(구현용)").
NAME_VALUE: dict[str, int] = {
    "38광땡": 1000,
    "18광땡": 990,
    "13광땡": 980,
    "장땡": 910,
    "9땡": 909,
    "8땡": 908,
    "7땡": 907,
    "6땡": 906,
    "5땡": 905,
    "4땡": 904,
    "3땡": 903,
    "2땡": 902,
    "삥땡": 901,
    "알리": 806,
    "독사": 805,
    "구삥": 804,
    "장삥": 803,
    "장사": 802,
    "세륙": 801,
    "갑오": 9,
    "8끗": 8,
    "7끗": 7,
    "6끗": 6,
    "5끗": 5,
    "4끗": 4,
    "3끗": 3,
    "2끗": 2,
    "1끗": 1,
    "망통": 0,
}

# §6.2: the display name the engine gives an active special hand (its value stays the plain one).
SPECIAL_DISPLAY = {
    "ttaengjabi": "땡잡이",
    "amhaeng": "암행어사",
    "gusa": "구사",
    "mungGusa": "멍텅구리구사",
}

# §6.3 step 4 thresholds.
GUSA_LIMIT = 806
MUNG_LIMIT = {"upTo8": 908, "upTo9": 909, "upToJang": 910}


@dataclass(frozen=True)
class Rules:
    """The five options that change hand values, plus the tie rule for the judge."""

    gwang_ttaeng: str = "all"
    ttaengjabi: str = "strict"
    amhaeng: bool = True
    gusa: bool = True
    mung_gusa: str = "upTo8"
    tie_rule: str = "rematch"


@dataclass(frozen=True)
class Expected:
    value: int
    name: str
    special: str | None


def plain(c1: str, c2: str, gwang_ttaeng: str) -> tuple[int, str]:
    """§6.1: the first matching row; 광땡 needs the 광 cards themselves."""
    pair = {c1, c2}
    if pair == {"3광", "8광"}:
        return 1000, "38광땡"
    if gwang_ttaeng == "all" and pair == {"1광", "8광"}:
        return 990, "18광땡"
    if gwang_ttaeng == "all" and pair == {"1광", "3광"}:
        return 980, "13광땡"
    m1, m2 = sorted((month(c1), month(c2)))
    name = MONTH_PAIR_NAME[(m1, m2)]
    return NAME_VALUE[name], name


def special(c1: str, c2: str, rules: Rules) -> str | None:
    """§6.2: the special power this pair carries under ``rules`` (None when its option is off)."""
    pair = {c1, c2}
    months = {month(c1), month(c2)}
    if rules.ttaengjabi == "strict" and pair == {"3광", "7열"}:
        return "ttaengjabi"
    if rules.ttaengjabi == "loose" and months == {3, 7}:
        return "ttaengjabi"
    if rules.amhaeng and pair == {"4열", "7열"}:
        return "amhaeng"
    if rules.gusa and months == {4, 9}:
        if pair == {"4열", "9열"} and rules.mung_gusa != "off":
            return "mungGusa"
        return "gusa"
    return None


def expected(c1: str, c2: str, rules: Rules) -> Expected:
    value, name = plain(c1, c2, rules.gwang_ttaeng)
    kind = special(c1, c2, rules)
    if kind is not None:
        name = SPECIAL_DISPLAY[kind]
    return Expected(value, name, kind)


def expected_ids(a: int, b: int, rules: Rules) -> Expected:
    return expected(CODES[a], CODES[b], rules)


@dataclass(frozen=True)
class Judged:
    type: str
    winners: tuple[str, ...]
    reason: str
    participants: tuple[str, ...]


def judge(hands: dict[str, tuple[int, int]], rules: Rules) -> Judged:
    """§6.3 steps 1–6 on card ids, straight from the spec's wording."""
    hand = {p: expected_ids(a, b, rules) for p, (a, b) in hands.items()}
    v = {p: h.value for p, h in hand.items()}
    vmax = max(v.values())
    ttaengjabi = {p for p, h in hand.items() if h.special == "ttaengjabi"}
    amhaeng = {p for p, h in hand.items() if h.special == "amhaeng"}
    if ttaengjabi and 901 <= vmax <= 909:
        w, reason = ttaengjabi, "ttaengjabi"
    elif amhaeng and vmax in (980, 990):
        w, reason = amhaeng, "amhaeng"
    else:
        w, reason = {p for p in hand if v[p] == vmax}, "normal"

    if rules.gusa:
        rematch = None
        for h, rank in hand.items():
            if rank.special not in ("gusa", "mungGusa") or h in w:
                continue
            limit = GUSA_LIMIT if rank.special == "gusa" else MUNG_LIMIT[rules.mung_gusa]
            triggered = max(v[q] for q in hand if q != h) <= limit
            if triggered and rematch != "mungGusa":  # 멍텅구리구사 is reported over 구사
                rematch = rank.special
        if rematch is not None:
            return Judged("rematch", (), rematch, tuple(sorted(hand)))

    if len(w) == 1:
        return Judged("win", tuple(w), reason, ())
    if rules.tie_rule == "rematch":
        return Judged("rematch", (), "tie", tuple(sorted(w)))
    return Judged("split", tuple(sorted(w)), reason, ())


def best_two_ids(ids: tuple[int, int, int], rules: Rules) -> frozenset[int]:
    """§8.5: highest value, then a special combination, then the smaller id sum."""
    pairs: list[tuple[int, int]] = [(ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2])]

    def key(pair: tuple[int, int]) -> tuple[int, bool, int]:
        rank = expected_ids(*pair, rules)
        return rank.value, rank.special is not None, -(pair[0] + pair[1])

    best: tuple[int, int] = max(pairs, key=key)
    return frozenset(best)
