"""§3 구성물: the 20 hwatu cards of Seotda."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .types import CardDict

CardKind = Literal["gwang", "yeol", "normal"]

#: Plant (꽃) of each month, §3.
PLANTS: dict[int, str] = {
    1: "송학",
    2: "매조",
    3: "벚꽃",
    4: "흑싸리",
    5: "난초",
    6: "모란",
    7: "홍싸리",
    8: "공산",
    9: "국진",
    10: "단풍",
}

GWANG_MONTHS = frozenset({1, 3, 8})


@dataclass(frozen=True, slots=True)
class Card:
    """One card; ``id`` fixes month and kind, so a hidden card must never expose its id."""

    id: int
    month: int
    kind: CardKind

    @property
    def label(self) -> str:
        """Readable Korean label, e.g. "3월 광", "7월 열끗", "9월 띠", "8월 일반"."""
        if self.kind == "gwang":
            mark = "광"
        elif self.kind == "yeol":
            mark = "열끗"
        else:
            mark = "일반" if self.month == 8 else "띠"
        return f"{self.month}월 {mark}"

    @property
    def plant(self) -> str:
        return PLANTS[self.month]

    def to_dict(self) -> CardDict:
        return {"id": self.id, "month": self.month, "kind": self.kind}

    def __str__(self) -> str:
        return self.label


def _make(card_id: int) -> Card:
    month = card_id // 2 + 1
    special = card_id % 2 == 0
    kind: CardKind = "normal"
    if special:
        kind = "gwang" if month in GWANG_MONTHS else "yeol"
    return Card(card_id, month, kind)


DECK: tuple[Card, ...] = tuple(_make(i) for i in range(20))


def card_id(month: int, special: bool) -> int:
    """Id of the card of ``month`` that is (or is not) the month's special card."""
    return (month - 1) * 2 + (0 if special else 1)
