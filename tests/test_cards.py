"""§3 구성물 and §8.1 HwatuCard: the 20 cards, their ids, kinds and labels."""

from __future__ import annotations

import dataclasses

import pytest

from engine import DECK, Card

# id, month, kind, label — the spec's §3 table read through §8.1's id formula.
CARDS = [
    (0, 1, "gwang", "1월 광"),
    (1, 1, "normal", "1월 띠"),
    (2, 2, "yeol", "2월 열끗"),
    (3, 2, "normal", "2월 띠"),
    (4, 3, "gwang", "3월 광"),
    (5, 3, "normal", "3월 띠"),
    (6, 4, "yeol", "4월 열끗"),
    (7, 4, "normal", "4월 띠"),
    (8, 5, "yeol", "5월 열끗"),
    (9, 5, "normal", "5월 띠"),
    (10, 6, "yeol", "6월 열끗"),
    (11, 6, "normal", "6월 띠"),
    (12, 7, "yeol", "7월 열끗"),
    (13, 7, "normal", "7월 띠"),
    (14, 8, "gwang", "8월 광"),
    (15, 8, "normal", "8월 일반"),
    (16, 9, "yeol", "9월 열끗"),
    (17, 9, "normal", "9월 띠"),
    (18, 10, "yeol", "10월 열끗"),
    (19, 10, "normal", "10월 띠"),
]


def test_deck_has_twenty_cards_indexed_by_id():
    assert len(DECK) == 20
    assert [card.id for card in DECK] == list(range(20))
    assert all(isinstance(card, Card) for card in DECK)


@pytest.mark.parametrize(("card_id", "month", "kind", "label"), CARDS, ids=[c[3] for c in CARDS])
def test_card_month_kind_and_label(card_id, month, kind, label):
    card = DECK[card_id]
    assert (card.id, card.month, card.kind) == (card_id, month, kind)
    assert card.label == label
    assert str(card) == label
    assert card.to_dict() == {"id": card_id, "month": month, "kind": kind}


def test_id_formula_month_minus_one_times_two_plus_not_special():
    for card in DECK:
        special = card.kind != "normal"
        assert card.id == (card.month - 1) * 2 + (0 if special else 1)


def test_each_month_has_one_special_and_one_plain_card():
    for month in range(1, 11):
        kinds = sorted(card.kind for card in DECK if card.month == month)
        special = "gwang" if month in (1, 3, 8) else "yeol"
        assert kinds == sorted([special, "normal"])


@pytest.mark.parametrize(
    ("label", "expected"),
    [("3월 광", 4), ("7월 열끗", 12), ("9월 띠", 17), ("8월 일반", 15)],
)
def test_issue_label_examples(label, expected):
    assert [card.id for card in DECK if card.label == label] == [expected]


def test_plants_follow_the_spec_table():
    plants = ["송학", "매조", "벚꽃", "흑싸리", "난초", "모란", "홍싸리", "공산", "국진", "단풍"]
    assert [DECK[(m - 1) * 2].plant for m in range(1, 11)] == plants


def test_cards_are_immutable_and_hashable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DECK[0].month = 2  # type: ignore[misc]
    assert len(set(DECK)) == 20
    assert DECK[4] == Card(4, 3, "gwang")
