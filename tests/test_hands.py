"""§6.1–6.2 족보 and §8.5 three-card choice, checked against tests/seotda_reference.py.

The reference table is written by hand from the spec (a month-pair grid plus the 광땡 and
special-hand rows); it never calls the engine's helpers.
"""

from __future__ import annotations

from itertools import combinations, permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, HandRank, Options, best_two, evaluate
from tests.seotda_reference import CODES, NAME_VALUE, Rules, best_two_ids, expected_ids

# Every combination of the options that change hand values (§10: 옵션 조합별 스냅샷).
RULE_GRID = [
    Rules(gwang_ttaeng=g, ttaengjabi=t, amhaeng=a, gusa=gu, mung_gusa=m)
    for g, t, a, gu, m in product(
        ("all", "only38"),
        ("off", "strict", "loose"),
        (True, False),
        (True, False),
        ("off", "upTo8", "upTo9", "upToJang"),
    )
]
PAIRS = list(combinations(range(20), 2))


def options_for(rules: Rules) -> Options:
    return Options(
        gwang_ttaeng=rules.gwang_ttaeng,
        ttaengjabi=rules.ttaengjabi,
        amhaeng=rules.amhaeng,
        gusa=rules.gusa,
        mung_gusa=rules.mung_gusa,
        tie_rule=rules.tie_rule,
    )


def rule_id(rules: Rules) -> str:
    return (
        f"{rules.gwang_ttaeng}-ttaengjabi:{rules.ttaengjabi}-amhaeng:{int(rules.amhaeng)}"
        f"-gusa:{int(rules.gusa)}-mung:{rules.mung_gusa}"
    )


def hand(a: str, b: str, **options) -> HandRank:
    return evaluate(DECK[CODES.index(a)], DECK[CODES.index(b)], Options(**options))


def test_there_are_190_two_card_combinations():
    assert len(PAIRS) == 190
    assert len(RULE_GRID) == 96


@pytest.mark.parametrize("rules", RULE_GRID, ids=rule_id)
def test_all_190_combinations_match_the_reference_table(rules):
    options = options_for(rules)
    wrong = []
    for a, b in PAIRS:
        want = expected_ids(a, b, rules)
        for x, y in ((a, b), (b, a)):  # the order of the cards must not matter
            got = evaluate(DECK[x], DECK[y], options)
            if (got.value, got.name, got.special) != (want.value, want.name, want.special):
                wrong.append((CODES[x], CODES[y], got, want))
    assert not wrong, wrong[:5]


# ---- snapshot of the default rules: how many of the 190 hands carry each name ----

# fmt: off
DEFAULT_NAME_COUNTS = {
    "38광땡": 1, "18광땡": 1, "13광땡": 1,
    "장땡": 1, "9땡": 1, "8땡": 1, "7땡": 1, "6땡": 1, "5땡": 1, "4땡": 1, "3땡": 1, "2땡": 1,
    "삥땡": 1,
    "알리": 4, "독사": 4, "구삥": 4, "장삥": 4, "장사": 4, "세륙": 4,
    "땡잡이": 1, "암행어사": 1, "구사": 3, "멍텅구리구사": 1,
}
# fmt: on


def test_default_rules_name_counts():
    options = Options()
    counts: dict[str, int] = {}
    for a, b in PAIRS:
        name = evaluate(DECK[a], DECK[b], options).name
        counts[name] = counts.get(name, 0) + 1
    assert {k: v for k, v in counts.items() if k in DEFAULT_NAME_COUNTS} == DEFAULT_NAME_COUNTS
    # 1광+3광 / 1광+8광 / 3광+8광 are taken by 광땡 and 3광+7열, 4열+7열, 4·9 by specials;
    # every other pair is a 끗 hand.
    kkut = {k: v for k, v in counts.items() if k not in DEFAULT_NAME_COUNTS}
    assert set(kkut) == {"갑오", "8끗", "7끗", "6끗", "5끗", "4끗", "3끗", "2끗", "1끗", "망통"}
    assert sum(counts.values()) == 190


def test_every_name_the_spec_lists_is_produced():
    names = {
        evaluate(DECK[a], DECK[b], options_for(rules)).name
        for rules in (Rules(), Rules(gusa=False))
        for a, b in PAIRS
    }
    assert set(NAME_VALUE) | {"땡잡이", "암행어사", "구사", "멍텅구리구사"} <= names


# ---- §6.1 / §10 named lines ----


@pytest.mark.parametrize(
    ("a", "b", "options", "value", "name"),
    [
        ("1광", "3광", {"gwang_ttaeng": "all"}, 980, "13광땡"),
        ("1광", "3광", {"gwang_ttaeng": "only38"}, 4, "4끗"),
        ("1광", "8광", {"gwang_ttaeng": "all"}, 990, "18광땡"),
        ("1광", "8광", {"gwang_ttaeng": "only38"}, 9, "갑오"),
        ("3광", "8광", {"gwang_ttaeng": "only38"}, 1000, "38광땡"),
        ("1띠", "8광", {}, 9, "갑오"),  # 광 조합이 아니면 광땡이 아니다
        ("3띠", "8광", {}, 1, "1끗"),
        ("1띠", "3광", {}, 4, "4끗"),
        ("10열", "10띠", {}, 910, "장땡"),
        ("1광", "1띠", {}, 901, "삥땡"),
        ("7열", "8광", {}, 5, "5끗"),  # 7 + 8 = 15 → 5끗
        ("9열", "10띠", {}, 9, "갑오"),  # 9 + 10 = 19 → 갑오
        ("2열", "8일", {}, 0, "망통"),  # 2 + 8 = 10 → 망통
        ("1광", "2띠", {}, 806, "알리"),
        ("1띠", "2열", {}, 806, "알리"),
        ("4띠", "6열", {}, 801, "세륙"),
    ],
)
def test_spec_hand_lines(a, b, options, value, name):
    rank = hand(a, b, **options)
    assert (rank.value, rank.name, rank.special) == (value, name, None)


# ---- §6.2 special hands: display name, kept plain value, and when the option is off ----


@pytest.mark.parametrize(
    ("a", "b", "options", "special", "name", "value"),
    [
        ("3광", "7열", {"ttaengjabi": "strict"}, "ttaengjabi", "땡잡이", 0),
        ("3광", "7열", {"ttaengjabi": "loose"}, "ttaengjabi", "땡잡이", 0),
        ("3띠", "7열", {"ttaengjabi": "strict"}, None, "망통", 0),
        ("3띠", "7열", {"ttaengjabi": "loose"}, "ttaengjabi", "땡잡이", 0),
        ("3띠", "7띠", {"ttaengjabi": "loose"}, "ttaengjabi", "땡잡이", 0),
        ("3광", "7열", {"ttaengjabi": "off"}, None, "망통", 0),
        ("4열", "7열", {"amhaeng": True}, "amhaeng", "암행어사", 1),
        ("4열", "7열", {"amhaeng": False}, None, "1끗", 1),
        ("4띠", "7열", {"amhaeng": True}, None, "1끗", 1),
        ("4띠", "9열", {}, "gusa", "구사", 3),
        ("4열", "9띠", {}, "gusa", "구사", 3),
        ("4띠", "9띠", {}, "gusa", "구사", 3),
        ("4열", "9열", {"mung_gusa": "upTo8"}, "mungGusa", "멍텅구리구사", 3),
        ("4열", "9열", {"mung_gusa": "upToJang"}, "mungGusa", "멍텅구리구사", 3),
        ("4열", "9열", {"mung_gusa": "off"}, "gusa", "구사", 3),
        ("4열", "9열", {"gusa": False, "mung_gusa": "upToJang"}, None, "3끗", 3),
        ("4띠", "9열", {"gusa": False}, None, "3끗", 3),
    ],
)
def test_special_hands(a, b, options, special, name, value):
    rank = hand(a, b, **options)
    assert (rank.special, rank.name, rank.value) == (special, name, value)


def test_strict_ttaengjabi_and_amhaeng_share_the_7_yeol():
    # §6.2: they can never both be held in one deal, because both need 7월 열끗.
    holders = [
        (a, b)
        for a, b in PAIRS
        if evaluate(DECK[a], DECK[b], Options()).special in ("ttaengjabi", "amhaeng")
    ]
    assert [(CODES[a], CODES[b]) for a, b in holders] == [("3광", "7열"), ("4열", "7열")]


def test_same_card_twice_is_refused():
    with pytest.raises(ValueError):
        evaluate(DECK[3], DECK[3], Options())


# ---- hint and strength ----


@pytest.mark.parametrize("rules", [Rules(), Rules(ttaengjabi="loose", mung_gusa="upToJang")])
def test_every_hand_has_a_hint_and_a_strength(rules):
    options = options_for(rules)
    for a, b in PAIRS:
        rank = evaluate(DECK[a], DECK[b], options)
        assert rank.hint.strip()
        assert rank.name in rank.hint
        assert rank.strength in ("높음", "중간", "낮음")


def test_strength_never_drops_as_plain_value_rises():
    order = {"낮음": 0, "중간": 1, "높음": 2}
    plain_ranks = sorted(
        (evaluate(DECK[a], DECK[b], Options()) for a, b in PAIRS),
        key=lambda r: r.value,
    )
    plain_ranks = [r for r in plain_ranks if r.special is None]
    levels = [order[r.strength] for r in plain_ranks]
    assert levels == sorted(levels)
    assert {r.strength for r in plain_ranks if r.value >= 901} == {"높음"}
    assert {r.strength for r in plain_ranks if r.value == 0} == {"낮음"}


def test_gusa_hint_is_the_spec_example():
    # §8.3: hints show e.g. "구사 - 상대가 알리 이하면 재경기".
    assert hand("4띠", "9열").hint == "구사 - 상대가 알리 이하면 재경기"


def test_hand_rank_to_dict():
    rank = hand("1광", "2띠")
    assert rank.to_dict() == {
        "value": 806,
        "name": "알리",
        "special": None,
        "hint": rank.hint,
        "strength": rank.strength,
    }


# ---- §8.5 best_two ----


def test_best_two_picks_18_gwang_ttaeng_from_1gwang_8gwang_4yeol():
    # §6.4 예 12 / §10: 1광·8광·4열끗 → (1광+8광) 18광땡, not 독사 or 2끗.
    cards = [DECK[0], DECK[14], DECK[6]]
    for order in permutations(cards):
        a, b = best_two(order, Options())
        assert {a.id, b.id} == {0, 14}
        assert evaluate(a, b, Options()).name == "18광땡"


def test_best_two_with_only38_picks_the_plain_best():
    # only38: 1광+8광 is 갑오 (9), 1광+4열끗 독사 (805) wins.
    a, b = best_two([DECK[0], DECK[14], DECK[6]], Options(gwang_ttaeng="only38"))
    assert {a.id, b.id} == {0, 6}


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(gwang_ttaeng="only38", ttaengjabi="loose", mung_gusa="off"),
        Rules(ttaengjabi="off", amhaeng=False, gusa=False),
    ],
    ids=rule_id,
)
def test_best_two_on_every_three_card_hand(rules):
    options = options_for(rules)
    for ids in combinations(range(20), 3):
        a, b = best_two([DECK[i] for i in ids], options)
        assert {a.id, b.id} == best_two_ids(ids, rules), [CODES[i] for i in ids]


@settings(max_examples=300, deadline=None)
@given(
    cards=st.permutations(range(20)).map(lambda p: p[:3]),
    rules=st.sampled_from(RULE_GRID),
)
def test_best_two_property(cards, rules):
    options = options_for(rules)
    hand3 = [DECK[i] for i in cards]
    a, b = best_two(hand3, options)
    assert a in hand3 and b in hand3 and a != b
    assert {a.id, b.id} == best_two_ids(tuple(cards), rules)
    chosen = evaluate(a, b, options).value
    assert all(chosen >= evaluate(x, y, options).value for x, y in combinations(hand3, 2))


def test_best_two_of_two_cards_returns_them():
    assert best_two([DECK[5], DECK[9]], Options()) == (DECK[5], DECK[9])


def test_best_two_of_four_cards_for_regret_seotda():
    # issue 36 후회의 섯다 keeps two of four: 1광 2열 3광 8광 → 38광땡 (over 13·18광땡)
    a, b = best_two([DECK[i] for i in (0, 2, 4, 14)], Options())
    assert {a.id, b.id} == {4, 14}
    a, b = best_two([DECK[i] for i in (0, 2, 7, 11)], Options())  # 1광 2열 4띠 6띠: 알리
    assert {a.id, b.id} == {0, 2}


@pytest.mark.parametrize(
    "ids", [[0], [0, 0, 1], [0, 1, 1, 2]], ids=["one card", "duplicate", "duplicate of four"]
)
def test_best_two_refuses_bad_input(ids):
    with pytest.raises(ValueError):
        best_two([DECK[i] for i in ids], Options())
