"""Issue 36 variants at the table: what 한장공유 (``cardMode=shared``) adds to the presenter.

The 선 picks the shared card with the digit keys (1 back, 2 on through the 20 cards) and Enter;
the candidate shows as their own card while they pick. Everyone else reads who is picking, and
once picked the shared card stands in the middle of the table, beside the pot.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import DECK
from engine.types import LegalAction, View

from ...i18n import _
from ..widgets.texts import card_short

Part = tuple[str, str]
Prompt = tuple[str, str, bool]

#: The digit keys that step through the 20 cards while picking.
PICK_BACK, PICK_ON = 1, 2


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
        return [(_("공유 카드를 골라요: 1·2 키로 넘기고 Enter"), "bold reverse")]
    return [(_("{p}님이 공유 카드를 고르는 중").format(p=waiting), "")]


def pick_prompts(selection: Sequence[int]) -> list[Prompt]:
    card = card_short(DECK[candidate(selection)].to_dict())
    return [
        (f"num({PICK_BACK})", _("1 이전"), True),
        (f"num({PICK_ON})", _("2 다음"), True),
        ("confirm", _("Enter {card} 공유").format(card=card), True),
    ]


def shared_note(view: View) -> str:
    """The middle's word for the shared card once picked ("" otherwise)."""
    shared = view.get("sharedCard")
    if not shared:
        return ""
    return _("공유 카드 {card}").format(card=card_short(shared))
