"""§2 모드와 옵션: defaults, accepted values, and every OptionsError path with its message."""

from __future__ import annotations

import dataclasses
from typing import get_type_hints

import pytest

from engine import Options, OptionsError
from engine.options import OptionsDict

# The spec's §2 table: snake_case field, camelCase key, choices, default.
SPEC_OPTIONS = [
    ("card_mode", "cardMode", ("two", "three"), "two"),
    ("deal_mode", "dealMode", ("twoRounds", "oneRound"), "twoRounds"),
    ("starting_chips", "startingChips", (500, 1000, 2000, 5000), 1000),
    ("base_unit", "baseUnit", (2, 10, 20, 50), 10),
    ("max_raise", "maxRaise", ("half", "full"), "half"),
    ("end_condition", "endCondition", ("hands", "lastStanding"), "hands"),
    ("hand_limit", "handLimit", (10, 20, 30, 50), 20),
    ("school_up_every", "schoolUpEvery", (0, 5, 10, 15), 0),
    ("rebuy", "rebuy", ("off", "limited", "unlimited"), "unlimited"),
    ("rebuy_limit", "rebuyLimit", (1, 2, 3), 1),
    # issue 32: a spectator may sit down at the next hand of a running game
    ("mid_join", "midJoin", (True, False), True),
    ("turn_seconds", "turnSeconds", (15, 20, 30, 60), 20),
    ("dealer_rule", "dealerRule", ("winner", "rotate"), "winner"),
    ("gwang_ttaeng", "gwangTtaeng", ("all", "only38"), "all"),
    ("ttaengjabi", "ttaengjabi", ("off", "strict", "loose"), "strict"),
    ("amhaeng", "amhaeng", (True, False), True),
    ("gusa", "gusa", (True, False), True),
    ("mung_gusa", "mungGusa", ("off", "upTo8", "upTo9", "upToJang"), "upTo8"),
    # issue #19's two 구사 rules (defaults keep the spec's §6.3 behaviour)
    ("gusa_when_winning", "gusaWhenWinning", ("win", "rematch"), "win"),
    ("gusa_outcome", "gusaOutcome", ("rematch", "refund"), "rematch"),
    # issue 36: 구사 선택권 and 땡값 (off by default: today's game)
    ("gusa_choice", "gusaChoice", (True, False), False),
    ("tie_rule", "tieRule", ("rematch", "split"), "rematch"),
    ("rejoin_cost", "rejoinCost", ("none", "half", "full"), "none"),
    ("ttaeng_value", "ttaengValue", ("off", "school", "double"), "off"),
    # issue 36 item 6: every deal committed to before it is dealt (on unless a room turns it off)
    ("verifiable_deals", "verifiableDeals", (True, False), True),
    ("hints", "hints", (True, False), True),
]
SPEC_DEFAULTS = {camel: default for _, camel, _, default in SPEC_OPTIONS}

# One out-of-range value per option and the exact message: the option's name + its choices.
BAD_VALUES = [
    ("card_mode", "four", "카드 방식은 two, three, indian, shared, regret 중 하나여야 해요"),
    ("deal_mode", "threeRounds", "분배 방식은 twoRounds, oneRound 중 하나여야 해요"),
    ("starting_chips", 750, "시작 칩은 500, 1000, 2000, 5000 중 하나여야 해요"),
    ("base_unit", 5, "기본 단위(학교)는 2, 10, 20, 50 중 하나여야 해요"),
    ("max_raise", "quarter", "최대 레이즈는 half, full 중 하나여야 해요"),
    ("end_condition", "time", "종료 방식은 hands, lastStanding 중 하나여야 해요"),
    ("hand_limit", 40, "판 수는 10, 20, 30, 50 중 하나여야 해요"),
    ("school_up_every", 3, "학교 상승 주기는 0, 5, 10, 15 중 하나여야 해요"),
    ("rebuy", "once", "리바이는 off, limited, unlimited 중 하나여야 해요"),
    ("rebuy_limit", 4, "리바이 횟수는 1, 2, 3 중 하나여야 해요"),
    ("mid_join", 1, "중간 참가는 켬(true) 또는 끔(false)이어야 해요"),
    ("turn_seconds", 10, "행동 제한 시간은 15, 20, 30, 60 중 하나여야 해요"),
    ("dealer_rule", "random", "선 정하기는 winner, rotate 중 하나여야 해요"),
    ("gwang_ttaeng", "only13", "광땡 종류는 all, only38 중 하나여야 해요"),
    ("ttaengjabi", "on", "땡잡이는 off, strict, loose 중 하나여야 해요"),
    ("amhaeng", "yes", "암행어사는 켬(true) 또는 끔(false)이어야 해요"),
    ("gusa", None, "구사는 켬(true) 또는 끔(false)이어야 해요"),
    ("mung_gusa", "upTo7", "멍텅구리구사는 off, upTo8, upTo9, upToJang 중 하나여야 해요"),
    ("gusa_when_winning", "always", "구사가 이길 때는 win, rematch 중 하나여야 해요"),
    ("gusa_outcome", "split", "구사 처리는 rematch, refund 중 하나여야 해요"),
    ("gusa_choice", "yes", "구사 선택권은 켬(true) 또는 끔(false)이어야 해요"),
    ("tie_rule", "highCard", "동점 처리는 rematch, split 중 하나여야 해요"),
    ("rejoin_cost", "double", "재참가 비용은 none, half, full 중 하나여야 해요"),
    ("ttaeng_value", "triple", "땡값은 off, school, double 중 하나여야 해요"),
    ("verifiable_deals", "on", "딜 검증은 켬(true) 또는 끔(false)이어야 해요"),
    ("hints", "on", "힌트는 켬(true) 또는 끔(false)이어야 해요"),
]


def test_defaults_are_the_spec_defaults():
    assert Options().to_dict() == SPEC_DEFAULTS
    for field, _, _, default in SPEC_OPTIONS:
        assert getattr(Options(), field) == default


def test_options_has_exactly_the_spec_fields():
    assert [f.name for f in dataclasses.fields(Options)] == [o[0] for o in SPEC_OPTIONS]


@pytest.mark.parametrize(
    ("field", "value"),
    [(field, choice) for field, _, choices, _ in SPEC_OPTIONS for choice in choices],
)
def test_every_spec_choice_is_accepted(field, value):
    options = Options(**{field: value})
    assert getattr(options, field) == value


def test_bad_value_table_covers_every_option():
    assert sorted(row[0] for row in BAD_VALUES) == sorted(o[0] for o in SPEC_OPTIONS)


@pytest.mark.parametrize(("field", "value", "message"), BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_out_of_range_value_is_refused_with_named_message(field, value, message):
    with pytest.raises(OptionsError) as err:
        Options(**{field: value})
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("amhaeng", 1, "암행어사는 켬(true) 또는 끔(false)이어야 해요"),
        ("gusa", 0, "구사는 켬(true) 또는 끔(false)이어야 해요"),
        ("hints", 1, "힌트는 켬(true) 또는 끔(false)이어야 해요"),
    ],
)
def test_bool_options_refuse_ints(field, value, message):
    with pytest.raises(OptionsError) as err:
        Options(**{field: value})
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("starting_chips", "1000"),  # a string that looks right
        ("starting_chips", 1000.0),  # a float equal to a choice
        ("hand_limit", True),  # True == 1 must not pass as a number
        ("school_up_every", False),  # False == 0 must not pass either
        ("card_mode", "Two"),  # spellings are exact
    ],
)
def test_values_must_match_type_and_spelling(field, value):
    with pytest.raises(OptionsError):
        Options(**{field: value})


def test_options_error_is_a_value_error():
    assert issubclass(OptionsError, ValueError)


@pytest.mark.parametrize(
    ("base_unit", "starting_chips", "ok"),
    [
        (50, 1000, True),  # 50 × 20 = 1000: the boundary is allowed
        (50, 500, False),
        (20, 500, True),  # 400 ≤ 500
        (50, 5000, True),
        (2, 500, True),
    ],
)
def test_base_unit_times_twenty_must_fit_in_starting_chips(base_unit, starting_chips, ok):
    if ok:
        Options(base_unit=base_unit, starting_chips=starting_chips)
        return
    with pytest.raises(OptionsError) as err:
        Options(base_unit=base_unit, starting_chips=starting_chips)
    assert str(err.value) == f"기본 단위(학교) × 20이 시작 칩({starting_chips})보다 클 수 없어요"


def test_replace_validates_too():
    assert dataclasses.replace(Options(), tie_rule="split").tie_rule == "split"
    with pytest.raises(OptionsError):
        dataclasses.replace(Options(), starting_chips=500, base_unit=50)
    with pytest.raises(OptionsError):
        dataclasses.replace(Options(), mung_gusa="upTo10")


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Options().gusa = False  # type: ignore[misc]


# ---- from_dict / to_dict ----


def test_from_dict_accepts_camel_case_keys():
    data = {
        "cardMode": "three",
        "dealMode": "oneRound",
        "startingChips": 5000,
        "baseUnit": 50,
        "gwangTtaeng": "only38",
        "mungGusa": "upToJang",
        "tieRule": "split",
        "rejoinCost": "half",
        "amhaeng": False,
    }
    options = Options.from_dict(data)
    assert options.to_dict() == SPEC_DEFAULTS | data


def test_from_dict_accepts_snake_case_keys():
    options = Options.from_dict({"starting_chips": 2000, "mung_gusa": "upTo9"})
    assert (options.starting_chips, options.mung_gusa) == (2000, "upTo9")


def test_from_dict_round_trips_to_dict():
    options = Options(card_mode="three", ttaengjabi="loose", gusa=False, hints=False)
    assert Options.from_dict(options.to_dict()) == options
    assert Options.from_dict({}) == Options()


@pytest.mark.parametrize("key", ["foo", "tie_Rule", "mung-gusa", 7])
def test_from_dict_refuses_unknown_keys(key):
    with pytest.raises(OptionsError) as err:
        Options.from_dict({key: "x"})
    assert str(err.value) == f"알 수 없는 옵션이에요: {key!r}"


def test_from_dict_refuses_the_same_option_twice():
    with pytest.raises(OptionsError) as err:
        Options.from_dict({"tieRule": "split", "tie_rule": "rematch"})
    assert str(err.value) == "동점 처리는 한 번만 정할 수 있어요"


@pytest.mark.parametrize(
    ("camel", "value"),
    [(camel, choice) for _, camel, choices, _ in SPEC_OPTIONS for choice in choices],
)
def test_from_dict_takes_every_spec_choice(camel, value):
    """Every option reaches the constructor (from_dict names each field once)."""
    room = {"startingChips": 5000} if camel == "baseUnit" else {}  # (학교 × 20 ≤ 시작 칩)
    options = Options.from_dict(room | {camel: value})
    assert dict(options.to_dict())[camel] == value


def test_to_dict_keys_are_the_typed_dicts_in_spec_order():
    assert list(Options().to_dict()) == [camel for _, camel, _, _ in SPEC_OPTIONS]
    assert list(get_type_hints(OptionsDict)) == [camel for _, camel, _, _ in SPEC_OPTIONS]


@pytest.mark.parametrize(("field", "value", "message"), BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_from_dict_refuses_bad_values_like_the_constructor(field, value, message):
    camel = next(c for f, c, _, _ in SPEC_OPTIONS if f == field)
    for key in (field, camel):
        with pytest.raises(OptionsError) as err:
            Options.from_dict({key: value})
        assert str(err.value) == message


@pytest.mark.parametrize(
    "data",
    [
        {"startingChips": "1000"},
        {"startingChips": 1000.0},
        {"handLimit": True},
        {"hints": 1},
        {"cardMode": None},
        {"rebuyLimit": [1]},
    ],
)
def test_from_dict_refuses_values_of_another_type(data):
    with pytest.raises(OptionsError, match="야 해요$"):
        Options.from_dict(data)


def test_from_dict_names_the_first_bad_option_in_spec_order():
    """As the constructor does, whatever order the dict has."""
    with pytest.raises(OptionsError) as err:
        Options.from_dict({"hints": "on", "rebuyLimit": 9, "startingChips": "x"})
    assert str(err.value) == "시작 칩은 500, 1000, 2000, 5000 중 하나여야 해요"


def test_from_dict_validates_values():
    with pytest.raises(OptionsError) as err:
        Options.from_dict({"startingChips": 100})
    assert str(err.value) == "시작 칩은 500, 1000, 2000, 5000 중 하나여야 해요"
    with pytest.raises(OptionsError) as err:
        Options.from_dict({"baseUnit": 50, "startingChips": 500})
    assert "× 20" in str(err.value)


# ---- player counts (§1, §2) ----


@pytest.mark.parametrize(
    ("card_mode", "n", "message"),
    [
        ("two", 1, "참가 인원은 2명 이상이어야 해요"),
        ("two", 0, "참가 인원은 2명 이상이어야 해요"),
        ("two", 11, "참가 인원은 최대 10명까지예요"),
        ("three", 1, "참가 인원은 2명 이상이어야 해요"),
        ("three", 7, "3장 섯다는 최대 6명까지예요"),
        ("three", 10, "3장 섯다는 최대 6명까지예요"),
    ],
)
def test_check_players_refuses(card_mode, n, message):
    with pytest.raises(OptionsError) as err:
        Options(card_mode=card_mode).check_players(n)
    assert str(err.value) == message


@pytest.mark.parametrize(("card_mode", "n"), [("two", 2), ("two", 10), ("three", 2), ("three", 6)])
def test_check_players_accepts_the_spec_range(card_mode, n):
    Options(card_mode=card_mode).check_players(n)


@pytest.mark.parametrize("n", [True, 2.0, "2"])
def test_check_players_refuses_non_ints(n):
    with pytest.raises(OptionsError):
        Options().check_players(n)


def test_max_players():
    assert Options().max_players == 10
    assert Options(card_mode="three").max_players == 6
