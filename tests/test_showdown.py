"""§6.3 쇼다운 판정: the §6.4 examples, the §10 checklist lines, and property tests
against the independent judge in tests/seotda_reference.py."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, HandRank, Options, Outcome, best_two, evaluate, resolve
from engine.showdown import Reason, resolve_ranks
from tests.seotda_reference import CODES, Rules, expected_ids, judge

# Hands used below, by the spec's names.
GWANG_38 = ("3광", "8광")
GWANG_18 = ("1광", "8광")
GWANG_13 = ("1광", "3광")
JANG = ("10열", "10띠")
TTAENG_9 = ("9열", "9띠")
TTAENG_8 = ("8광", "8일")
TTAENG_5 = ("5열", "5띠")
TTAENG_1 = ("1광", "1띠")
ALI = ("1광", "2열")
TTAENGJABI = ("3광", "7열")
AMHAENG = ("4열", "7열")
GUSA = ("4띠", "9열")
MUNG_GUSA = ("4열", "9열")


def card(code: str):
    return DECK[CODES.index(code)]


def showdown(hands: dict[str, tuple[str, str]], **options) -> Outcome:
    dealt = [code for pair in hands.values() for code in pair]
    assert len(set(dealt)) == len(dealt), f"a card is dealt twice: {dealt}"
    return resolve({p: (card(a), card(b)) for p, (a, b) in hands.items()}, Options(**options))


def win(player: str, reason: Reason = "normal") -> Outcome:
    return Outcome("win", (player,), reason)


def rematch(reason: Reason, *participants: str) -> Outcome:
    return Outcome("rematch", (), reason, participants)


def split(reason: Reason, *winners: str) -> Outcome:
    return Outcome("split", winners, reason)


# ---- §6.4 판정 예시 1–12 ----


def test_example_01_38_gwang_ttaeng_beats_amhaeng():
    assert showdown({"A": GWANG_38, "B": AMHAENG}) == win("A")


def test_example_02_amhaeng_catches_13_gwang_ttaeng():
    assert showdown({"A": GWANG_13, "B": AMHAENG, "C": JANG}) == win("B", "amhaeng")


def test_example_03_ttaengjabi_catches_9_ttaeng():
    assert showdown({"A": TTAENG_9, "B": TTAENGJABI, "C": ALI}) == win("B", "ttaengjabi")


def test_example_04_ttaengjabi_is_void_against_jang_ttaeng():
    assert showdown({"A": JANG, "B": TTAENGJABI}) == win("A")


def test_example_05_ttaengjabi_is_mangtong_against_ali():
    assert showdown({"A": TTAENGJABI, "B": ALI}) == win("B")


def test_example_06_gusa_against_ali_is_a_rematch():
    assert showdown({"A": GUSA, "B": ALI}) == rematch("gusa", "A", "B")


def test_example_07_gusa_loses_to_1_ttaeng():
    assert showdown({"A": GUSA, "B": TTAENG_1}) == win("B")


def test_example_08_gusa_that_already_wins_takes_the_pot():
    # A 구사 (3끗) is the best hand: no rematch.
    assert showdown({"A": GUSA, "B": ("5열", "7띠"), "C": ("2열", "8일")}) == win("A")


def test_example_09_mung_gusa_against_8_ttaeng():
    assert showdown({"A": MUNG_GUSA, "B": TTAENG_8}, mung_gusa="upTo8") == rematch(
        "mungGusa", "A", "B"
    )
    # "B가 9땡이면 B 승": a real 9땡 needs 9월 열끗, which A holds, so the hand is built from
    # ranks (the engine's resolve_ranks) rather than cards.
    ranks = {"A": rank_of(MUNG_GUSA), "B": HandRank(909, "9땡", None, "9땡", "높음")}
    assert resolve_ranks(ranks, Options(mung_gusa="upTo8")) == win("B")
    # upToJang: a rematch up to and including 장땡.
    assert showdown({"A": MUNG_GUSA, "B": JANG}, mung_gusa="upToJang") == rematch(
        "mungGusa", "A", "B"
    )


@pytest.mark.parametrize(
    ("tie_rule", "expected"),
    [("rematch", rematch("tie", "A", "B")), ("split", split("normal", "A", "B"))],
)
def test_example_10_equal_kkut_ties(tie_rule, expected):
    # 2월+3월 = 5끗, 6월+9월 = 5끗.
    hands = {"A": ("2열", "3광"), "B": ("6열", "9띠")}
    assert showdown(hands, tie_rule=tie_rule) == expected


def test_example_11_ttaengjabi_wins_over_gusa_and_5_ttaeng():
    hands = {"A": ("4띠", "9띠"), "B": TTAENG_5, "C": TTAENGJABI}
    assert showdown(hands) == win("C", "ttaengjabi")
    # Had A held 멍텅구리구사 (upTo8): 905 ≤ 908 → rematch of everyone at the showdown.
    hands["A"] = MUNG_GUSA
    assert showdown(hands, mung_gusa="upTo8") == rematch("mungGusa", "A", "B", "C")


def test_example_12_three_card_choice_is_18_gwang_ttaeng():
    options = Options(card_mode="three")
    chosen = best_two([card("1광"), card("8광"), card("4열")], options)
    assert {c.id for c in chosen} == {card("1광").id, card("8광").id}
    assert evaluate(*chosen, options).name == "18광땡"


def rank_of(pair: tuple[str, str], **options) -> HandRank:
    return evaluate(card(pair[0]), card(pair[1]), Options(**options))


# ---- §10 checklist lines ----


def test_strict_ttaengjabi_3tti_7yeol_is_plain_mangtong_and_misses_9_ttaeng():
    assert rank_of(("3띠", "7열"), ttaengjabi="strict").name == "망통"
    assert showdown({"A": ("3띠", "7열"), "B": TTAENG_9}, ttaengjabi="strict") == win("B")


def test_loose_ttaengjabi_3tti_7yeol_catches_9_ttaeng():
    outcome = showdown({"A": ("3띠", "7열"), "B": TTAENG_9}, ttaengjabi="loose")
    assert outcome == win("A", "ttaengjabi")


LOOSE_PAIR_AND_5_TTAENG = {"A": ("3광", "7열"), "B": ("3띠", "7띠"), "C": TTAENG_5}


def test_two_loose_ttaengjabi_and_5_ttaeng_rematch_between_the_two():
    outcome = showdown(LOOSE_PAIR_AND_5_TTAENG, ttaengjabi="loose", tie_rule="rematch")
    assert outcome == rematch("tie", "A", "B")


def test_two_loose_ttaengjabi_and_5_ttaeng_split_between_the_two():
    outcome = showdown(LOOSE_PAIR_AND_5_TTAENG, ttaengjabi="loose", tie_rule="split")
    assert outcome == split("ttaengjabi", "A", "B")


@pytest.mark.parametrize(
    ("tie_rule", "expected"),
    [("rematch", rematch("tie", "A", "B")), ("split", split("normal", "A", "B"))],
)
def test_ali_tie_leaves_the_loser_out(tie_rule, expected):
    # §6.1: 1월 광+2월 띠 vs 1월 띠+2월 열끗 are both 알리; C (5끗) is out of the rematch.
    hands = {"A": ("1광", "2띠"), "B": ("1띠", "2열"), "C": ("5열", "10열")}
    assert showdown(hands, tie_rule=tie_rule) == expected


def test_gusa_rematch_includes_every_showdown_player():
    hands = {"A": GUSA, "B": ALI, "C": ("5열", "10열"), "D": ("2띠", "8일")}
    assert showdown(hands) == rematch("gusa", "A", "B", "C", "D")


@pytest.mark.parametrize(
    ("mung_gusa", "opponent", "expected"),
    [
        ("upTo8", TTAENG_8, rematch("mungGusa", "A", "B")),  # 908 ≤ 908
        ("upTo8", JANG, win("B")),
        ("upTo9", TTAENG_8, rematch("mungGusa", "A", "B")),
        ("upTo9", JANG, win("B")),  # 910 > 909
        ("upToJang", JANG, rematch("mungGusa", "A", "B")),  # 910 ≤ 910
        ("upToJang", TTAENG_1, rematch("mungGusa", "A", "B")),
        ("upToJang", ALI, rematch("mungGusa", "A", "B")),
        ("upTo8", ("5열", "6열"), win("A")),  # 5 + 6 = 1끗: 멍텅구리구사 (3끗) simply wins
    ],
)
def test_mung_gusa_boundaries_with_cards(mung_gusa, opponent, expected):
    assert showdown({"A": MUNG_GUSA, "B": opponent}, mung_gusa=mung_gusa) == expected


@pytest.mark.parametrize(
    ("mung_gusa", "value", "expected"),
    [
        ("upTo8", 908, rematch("mungGusa", "A", "B")),
        ("upTo8", 909, win("B")),
        ("upTo9", 909, rematch("mungGusa", "A", "B")),
        ("upTo9", 910, win("B")),
        ("upToJang", 910, rematch("mungGusa", "A", "B")),
        ("upToJang", 980, win("B")),
    ],
)
def test_mung_gusa_thresholds_908_909_910(mung_gusa, value, expected):
    # 9땡 cannot face 멍텅구리구사 with real cards (both need 9월 열끗), so the 909 boundary is
    # checked on ranks; the other boundaries are also checked with cards above.
    opponent = HandRank(value, "x", None, "x", "높음")
    ranks = {"A": rank_of(MUNG_GUSA, mung_gusa=mung_gusa), "B": opponent}
    assert resolve_ranks(ranks, Options(mung_gusa=mung_gusa)) == expected


@pytest.mark.parametrize("mung_gusa", ["upTo8", "upTo9", "upToJang"])
@pytest.mark.parametrize("gwang", [GWANG_38, GWANG_18, GWANG_13], ids=["38", "18", "13"])
def test_gwang_ttaeng_always_beats_mung_gusa(mung_gusa, gwang):
    assert showdown({"A": MUNG_GUSA, "B": gwang}, mung_gusa=mung_gusa) == win("B")


def test_mung_gusa_off_is_plain_gusa():
    assert showdown({"A": MUNG_GUSA, "B": ALI}, mung_gusa="off") == rematch("gusa", "A", "B")
    assert showdown({"A": MUNG_GUSA, "B": TTAENG_8}, mung_gusa="off") == win("B")


@pytest.mark.parametrize("mung_gusa", ["off", "upTo8", "upToJang"])
def test_gusa_off_makes_4_9_a_plain_3_kkut(mung_gusa):
    options = {"gusa": False, "mung_gusa": mung_gusa}
    for holder in (GUSA, MUNG_GUSA):
        assert rank_of(holder, **options).name == "3끗"
        assert showdown({"A": holder, "B": ALI}, **options) == win("B")
        assert showdown({"A": holder, "B": ("5열", "7띠")}, **options) == win("A")  # 3끗 > 2끗


# ---- more §6.3 lines ----


@pytest.mark.parametrize(
    ("opponent", "expected"),
    [
        (TTAENG_1, win("A", "ttaengjabi")),  # 901: lowest 땡 is caught
        (TTAENG_9, win("A", "ttaengjabi")),  # 909: highest caught
        (JANG, win("B")),  # 910: void
        (GWANG_13, win("B")),
        (GWANG_38, win("B")),
        (ALI, win("B")),  # 806: void, 땡잡이 is 망통
        (("2열", "8일"), rematch("tie", "A", "B")),  # 망통 vs 망통
    ],
)
def test_ttaengjabi_range_is_1_to_9_ttaeng(opponent, expected):
    # Avoid the 3광 clash with 13광땡/38광땡 by using a loose 땡잡이 for those opponents.
    holder = ("3띠", "7띠") if "3광" in opponent else TTAENGJABI
    assert showdown({"A": holder, "B": opponent}, ttaengjabi="loose") == expected


def test_ttaengjabi_off_is_plain_mangtong():
    assert showdown({"A": TTAENGJABI, "B": TTAENG_9}, ttaengjabi="off") == win("B")


@pytest.mark.parametrize(
    ("opponent", "options", "expected"),
    [
        (GWANG_18, {}, win("A", "amhaeng")),
        (GWANG_13, {}, win("A", "amhaeng")),
        (GWANG_38, {}, win("B")),
        (JANG, {}, win("B")),
        (GWANG_18, {"amhaeng": False}, win("B")),
        (GWANG_18, {"gwang_ttaeng": "only38"}, win("B")),  # 1광+8광 is then 갑오 (9 > 1끗)
        (("2열", "8일"), {}, win("A")),  # 암행어사 is 1끗 > 망통
    ],
)
def test_amhaeng_catches_only_13_and_18_gwang_ttaeng(opponent, options, expected):
    assert showdown({"A": AMHAENG, "B": opponent}, **options) == expected


def test_gusa_inside_a_tie_at_the_top_is_not_a_gusa_rematch():
    # 구사 (3끗) ties another 3끗 at the top: the 구사 holder is in W, so only the tie rule applies.
    hands = {"A": GUSA, "B": ("5열", "8광"), "C": ("2열", "8일")}
    assert showdown(hands) == rematch("tie", "A", "B")
    assert showdown(hands, tie_rule="split") == split("normal", "A", "B")


def test_gusa_against_amhaeng_winner_is_no_rematch():
    # W = {B} (암행어사), the best plain value among C's opponents is 980 > 806.
    assert showdown({"A": GWANG_13, "B": AMHAENG, "C": ("4띠", "9띠")}) == win("B", "amhaeng")


def test_gusa_and_mung_gusa_both_triggered_report_mung_gusa():
    # The spec does not rank the two reasons; the engine reports 멍텅구리구사.
    hands = {"A": ("4띠", "9띠"), "B": MUNG_GUSA, "C": ALI}
    assert showdown(hands) == rematch("mungGusa", "A", "B", "C")


def test_single_player_wins_and_empty_showdown_is_refused():
    assert showdown({"A": ALI}) == win("A")
    with pytest.raises(ValueError):
        resolve({}, Options())


def test_outcome_fields_and_to_dict():
    outcome = showdown({"B": ("1광", "2띠"), "A": ("1띠", "2열")}, tie_rule="split")
    assert (outcome.type, outcome.winners, outcome.reason) == ("split", ("A", "B"), "normal")
    assert outcome.to_dict() == {
        "type": "split",
        "winners": ["A", "B"],
        "reason": "normal",
        "participants": [],
    }
    outcome = showdown({"B": GUSA, "A": ALI})
    assert outcome.to_dict() == {
        "type": "rematch",
        "winners": [],
        "reason": "gusa",
        "participants": ["A", "B"],
    }


# ---- property tests ----

TIE_RULES = ("rematch", "split")
RULES = st.builds(
    Rules,
    gwang_ttaeng=st.sampled_from(("all", "only38")),
    ttaengjabi=st.sampled_from(("off", "strict", "loose")),
    amhaeng=st.booleans(),
    gusa=st.booleans(),
    mung_gusa=st.sampled_from(("off", "upTo8", "upTo9", "upToJang")),
    tie_rule=st.sampled_from(TIE_RULES),
)


def player_ids(min_size: int, max_size: int):
    name = st.text("ABCDEFGHIJ가나다", min_size=1, max_size=3)
    return st.lists(name, min_size=min_size, max_size=max_size, unique=True)


def options_for(rules: Rules) -> Options:
    return Options(
        gwang_ttaeng=rules.gwang_ttaeng,
        ttaengjabi=rules.ttaengjabi,
        amhaeng=rules.amhaeng,
        gusa=rules.gusa,
        mung_gusa=rules.mung_gusa,
        tie_rule=rules.tie_rule,
    )


@st.composite
def random_showdowns(draw):
    """2..10 players dealt two distinct cards each from one shuffled deck."""
    ids = draw(player_ids(2, 10))
    deck = draw(st.permutations(range(20)))
    return {p: (deck[2 * i], deck[2 * i + 1]) for i, p in enumerate(ids)}


@st.composite
def loose_ttaengjabi_showdowns(draw):
    """Two loose 땡잡이 holders, one 1~9땡 holder, and up to three more players."""
    threes, sevens = draw(st.permutations((4, 5))), draw(st.permutations((12, 13)))
    month = draw(st.sampled_from((1, 2, 4, 5, 6, 8, 9)))
    ttaeng = ((month - 1) * 2, (month - 1) * 2 + 1)
    used = {*threes, *sevens, *ttaeng}
    rest = draw(st.permutations(sorted(set(range(20)) - used)))
    extra = draw(st.integers(0, 3))
    hands = [(threes[0], sevens[0]), (threes[1], sevens[1]), ttaeng]
    hands += [(rest[2 * i], rest[2 * i + 1]) for i in range(extra)]
    ids = draw(player_ids(len(hands), len(hands)))
    return dict(zip(ids, hands))


def to_cards(hands: dict[str, tuple[int, int]]):
    return {p: (DECK[a], DECK[b]) for p, (a, b) in hands.items()}


def reordered(hands: dict[str, Any], order: list[str]) -> dict[str, Any]:
    return {p: hands[p] for p in order}


def effective_beats_or_equals(w: str, q: str, hands: dict[str, Any], rules: Rules) -> bool:
    """§6.3 read pairwise: does w's hand beat or equal q's in this showdown?"""
    rank = {p: expected_ids(a, b, rules) for p, (a, b) in hands.items()}
    vmax = max(r.value for r in rank.values())
    if rank[w].special == "ttaengjabi" and 901 <= vmax <= 909:
        return True
    if rank[w].special == "amhaeng" and vmax in (980, 990):
        return True
    if rank[q].special == "ttaengjabi" and 901 <= vmax <= 909:
        return False
    if rank[q].special == "amhaeng" and vmax in (980, 990):
        return False
    return rank[w].value >= rank[q].value


def check_against_reference(hands: dict[str, tuple[int, int]], rules: Rules, order: list[str]):
    options = options_for(rules)
    outcome = resolve(to_cards(hands), options)
    # Invariant under reordering the mapping.
    assert resolve(to_cards(reordered(hands, order)), options) == outcome
    # Equal to the independent §6.3 judge.
    want = judge(hands, rules)
    assert (outcome.type, outcome.winners, outcome.reason, outcome.participants) == (
        want.type,
        want.winners,
        want.reason,
        want.participants,
    )
    # Structural facts of the Outcome.
    assert outcome.winners == tuple(sorted(outcome.winners))
    assert outcome.participants == tuple(sorted(outcome.participants))
    if outcome.type == "win":
        assert len(outcome.winners) == 1 and outcome.participants == ()
    elif outcome.type == "split":
        assert len(outcome.winners) >= 2 and outcome.participants == ()
    else:
        assert outcome.winners == () and len(outcome.participants) >= 2
        assert outcome.reason in ("gusa", "mungGusa", "tie")
        if outcome.reason in ("gusa", "mungGusa"):
            assert set(outcome.participants) == set(hands)
    for w in outcome.winners:
        assert all(effective_beats_or_equals(w, q, hands, rules) for q in hands if q != w)


@settings(max_examples=400, deadline=None)
@given(hands=random_showdowns(), rules=RULES, data=st.data())
def test_resolve_matches_reference_and_ignores_order(hands, rules, data):
    order = data.draw(st.permutations(list(hands)))
    check_against_reference(hands, rules, order)


@settings(max_examples=200, deadline=None)
@given(hands=loose_ttaengjabi_showdowns(), tie_rule=st.sampled_from(TIE_RULES), data=st.data())
def test_three_way_ttaengjabi_showdowns(hands, tie_rule, data):
    rules = Rules(ttaengjabi="loose", tie_rule=tie_rule)
    order = data.draw(st.permutations(list(hands)))
    check_against_reference(hands, rules, order)
    outcome = resolve(to_cards(hands), options_for(rules))
    catchers = tuple(sorted(list(hands)[:2]))
    vmax = max(expected_ids(a, b, rules).value for a, b in hands.values())
    if 901 <= vmax <= 909 and outcome.reason != "gusa" and outcome.reason != "mungGusa":
        # Both 땡잡이 holders tie at the top, whatever the order of the mapping.
        if tie_rule == "rematch":
            assert outcome == rematch("tie", *catchers)
        else:
            assert outcome == split("ttaengjabi", *catchers)
