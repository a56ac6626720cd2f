"""Issue 36 variants at the table: what 한장공유 and 후회의 섯다 add to the presenter.

한장공유: the 선 picks the shared card with the digit keys (1 back, 2 on through the 20 cards)
and Enter; the candidate shows as their own card while they pick. Everyone else reads who is
picking, and once picked the shared card stands in the middle of the table, beside the pot.
후회의 섯다: whose turn it is to take a face-down card (Enter), four places for the own cards,
and the choice of two of four with the 3장 섯다's keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import DECK
from engine.types import LegalAction, View

from ...i18n import N_, _
from ..keys import REGRET_NUMBERS, KeyHint
from ..widgets.texts import card_short

Part = tuple[str, str]
Prompt = tuple[str, str, bool]

#: The digit keys that step through the 20 cards while picking.
PICK_BACK, PICK_ON = 1, 2

#: The words naming keys, each key from the key map (the table binds them: tests/test_keys.py).
PICK_ASK = KeyHint(
    N_("공유 카드를 골라요: {browse} 키로 넘기고 {confirm}"),
    browse=range(PICK_BACK, PICK_ON + 1),
    confirm="confirm",
)
PICK_BACK_KEY = KeyHint(N_("{back} 이전"), back=range(PICK_BACK, PICK_BACK + 1))
PICK_ON_KEY = KeyHint(N_("{on} 다음"), on=range(PICK_ON, PICK_ON + 1))
PICK_CONFIRM = KeyHint(N_("{confirm} {card} 공유"), "card", confirm="confirm")
DRAW_ASK = KeyHint(N_("내 차례예요! {draw}로 카드를 한 장 가져와요"), draw="confirm")
DRAW_KEY = KeyHint(N_("{draw} 한 장 가져오기"), draw="confirm")
CHOOSE_FOUR_KEYS = KeyHint(
    N_("카드 2장을 고르세요: {four} 키, {confirm} 확정"), four=REGRET_NUMBERS, confirm="confirm"
)


def picking_shared(view: View, legal: Sequence[LegalAction]) -> bool:
    """The shared card is this player's to pick now."""
    return view.get("handPhase") == "pickShared" and any(a["type"] == "pickShared" for a in legal)


def candidate(selection: Sequence[int]) -> int:
    """The card the picker is looking at (the first of the 20 until they move)."""
    return selection[0] % len(DECK) if selection else 0


def stepped(selection: Sequence[int], n: int) -> list[int]:
    """The selection after digit ``n``: one card back (1) or on (2), round the 20."""
    step = -1 if n == PICK_BACK else 1 if n == PICK_ON else 0
    return [(candidate(selection) + step) % len(DECK)]


def pick_status(view: View, me: str) -> list[Part]:
    """The status line while the shared card is picked."""
    waiting = ", ".join(view["pending"]["players"])
    if me in view["pending"]["players"]:
        return [(PICK_ASK.text(), "bold reverse")]
    return [(_("{p}님이 공유 카드를 고르는 중").format(p=waiting), "")]


def pick_prompts(selection: Sequence[int]) -> list[Prompt]:
    card = card_short(DECK[candidate(selection)].to_dict())
    return [
        (f"num({PICK_BACK})", PICK_BACK_KEY.text(), True),
        (f"num({PICK_ON})", PICK_ON_KEY.text(), True),
        ("confirm", PICK_CONFIRM.text(card=card), True),
    ]


def hand_places(card_mode: str, players: int) -> int:
    """How many places the own cards take: 3장 섯다's three, 후회의 섯다's four (three with six
    players), two otherwise."""
    if card_mode == "three":
        return 3
    if card_mode == "regret":
        return 3 if players >= 6 else 4
    return 2


def drawing(legal: Sequence[LegalAction]) -> bool:
    """후회의 섯다: it is this player's turn to take a face-down card."""
    return any(a["type"] == "draw" for a in legal)


def draw_status(view: View, me: str) -> list[Part]:
    """The status line while the 후회의 섯다 cards are taken in turn."""
    waiting = ", ".join(view["pending"]["players"])
    if me in view["pending"]["players"]:
        return [(DRAW_ASK.text(), "bold reverse")]
    return [(_("{p}님이 카드를 가져가는 중").format(p=waiting), "")]


def draw_prompts() -> list[Prompt]:
    return [("confirm", DRAW_KEY.text(), True)]


def choose_status(view: View, me: str) -> list[Part] | None:
    """후회의 섯다's choice is two of four: the 3장 line's keys would say 1·2·3."""
    seat = next((s for s in view["seats"] if s["id"] == me), None)
    if seat is None or len(seat.get("cards", [])) < 4:
        return None
    return [(CHOOSE_FOUR_KEYS.text(), "bold reverse")]


def shared_note(view: View) -> str:
    """The middle's word for the shared card once picked ("" otherwise)."""
    shared = view.get("sharedCard")
    if not shared:
        return ""
    return _("공유 카드 {card}").format(card=card_short(shared))
