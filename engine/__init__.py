"""Pure Seotda rules engine: no I/O, no clock, no asyncio, randomness only from a seeded RNG.

Modules follow the sections of docs/rules.md: cards (§3), options (§2), hands (§6.1–6.2),
showdown (§6.3), and the game state machine (§4–§8).
"""

from .cards import DECK, Card
from .hands import HandRank, best_two, evaluate
from .options import Options, OptionsError
from .showdown import Outcome, resolve

__all__ = [
    "Card",
    "DECK",
    "Options",
    "OptionsError",
    "HandRank",
    "Outcome",
    "evaluate",
    "best_two",
    "resolve",
]

from .errors import IllegalAction  # noqa: E402
from .game import Game  # noqa: E402
from .types import Refusal  # noqa: E402

__all__ += ["Game", "IllegalAction", "Refusal"]
