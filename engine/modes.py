"""Issue 36 variants (``cardMode``): what each deals when, and who sees which card.

- ``indian`` (인디언 섯다): one card each that everyone but its holder sees, a betting round,
  then one card only its holder sees, a second round, the showdown. The holder's first card
  is hidden from the holder in every view (replays are views too) until the showdown.
- ``shared`` (한장공유): before the deal the match's 선 picks one of the 20 cards as the shared
  card, shown to all (flow.py's ``pickShared`` phase; a timeout picks the shuffled deck's top
  card); one card each, one betting round; each hand is its card plus the shared card.
- ``regret`` (후회의 섯다): the 20 cards lie face down; from the player right of the 선 each
  takes one in turn (flow.py's ``draw`` phase: the cards are face down and shuffled, so taking
  one is taking the shuffled pile's next) until everyone holds four (three with six players);
  each keeps two (the ``choose`` phase, as in 3장 섯다), one betting round, the showdown, which
  also shows every shown-down player's unchosen cards.

The flow (engine/flow.py) asks here how many cards the first deal gives and whether a second
card and round follow; the view (engine/views.py) asks who sees which card. Kept apart so the
two-card and three-card games read as they did.
"""

from __future__ import annotations

from .options import Options
from .state import Hand, RoundPlayer

#: The holder's own first card in 인디언 섯다 (index in ``RoundPlayer.hand``).
INDIAN_CARD = 0


def first_deal(options: Options) -> int:
    """How many cards each player gets before the first betting round (§5.1/§5.2)."""
    if options.card_mode == "regret":
        return 0  # the players draw their cards (flow.py's draw phase)
    if options.card_mode in ("indian", "shared"):
        return 1
    return 1 if options.card_mode == "two" and options.deal_mode == "twoRounds" else 2


def second_round(options: Options) -> bool:
    """Whether one more card and a second betting round follow the first round (not 3장,
    whose third card leads to the choose phase)."""
    return options.card_mode == "indian" or (
        options.card_mode == "two" and options.deal_mode == "twoRounds"
    )


def regret_cards(players: int) -> int:
    """후회의 섯다: how many cards each player draws (four; three with six players)."""
    return 3 if players >= 6 else 4


def draw_order(participants: list[str]) -> list[str]:
    """후회의 섯다: the draw goes round from the player right of the 선 (the next in the play
    order), the 선 drawing last."""
    return participants[1:] + participants[:1]


def shown_to(options: Options, hand: Hand, rp: RoundPlayer, viewer: str | None) -> list[bool]:
    """For each of ``rp``'s cards, whether ``viewer`` (None: a spectator) sees its face before
    the showdown reveals it: the own cards, and in 인디언 섯다 the others' first cards."""
    own = rp.id == viewer
    if options.card_mode != "indian":
        return [own] * len(rp.hand)
    seen = [own] * len(rp.hand)
    if len(rp.hand) > INDIAN_CARD:
        seen[INDIAN_CARD] = not own or _revealed(hand, rp.id)
    return seen


def known_own(options: Options, hand: Hand, rp: RoundPlayer) -> list[int]:
    """The cards ``rp`` knows they play with (what hints may judge from): the own cards they
    see, and 한장공유's shared card."""
    own = [c for c, seen in zip(rp.hand, shown_to(options, hand, rp, rp.id)) if seen]
    return own + ([hand.shared] if hand.shared is not None else [])


def _revealed(hand: Hand, pid: str) -> bool:
    return bool(hand.showdown) and any(r["player"] == pid for r in hand.showdown or [])
