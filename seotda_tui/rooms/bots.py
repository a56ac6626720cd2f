"""Bot players: a decision from one bot's own view, never from the full state.

A bot sees exactly what a person in its seat would (``game.view(bot_id)``) and answers with one
legal action. Decisions are deterministic: the only randomness is a ``random.Random`` seeded from
the room's seed and the visible situation, so a game with bots replays exactly from its journal.

Levels:
- ``cautious`` ("신중한 봇"): plays made hands by a fixed equity ladder, folds to big bets.
- ``strong`` ("강한 봇"): equity against the number of live opponents, pot odds, position (acting
  last lets it bet more lightly) and the occasional bluff; picks its 3-card pair with ``best_two``.
- ``random`` ("무작위 봇"): any legal action; the baseline for benchmarks.

In 인디언 섯다 (issue 36) both weigh the cards they know against the ones the others show
(:func:`table_equity`): the own first card stays as unknown to a bot as to a person.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from engine import DECK, Options, best_two, evaluate
from engine.hands import hand_table
from engine.showdown import resolve_ranks
from engine.types import LegalAction, View

Action = dict[str, object]  # what a bot sends (Game.act checks it like a person's)
Policy = Callable[[View, Options, random.Random], Action]

LEVELS: dict[str, str] = {"cautious": "신중한 봇", "strong": "강한 봇", "random": "무작위 봇"}


@lru_cache(maxsize=16)
def _pair_equity(rule_key: tuple[object, ...], options: Options) -> dict[tuple[int, int], float]:
    """For every two-card hand: the share of other two-card hands (from the unseen 18) it beats.

    Ties count half; a 땡잡이 counts as beating the 1–9땡 it catches and an 암행어사 the 13·18광땡.
    """
    table = hand_table(options)
    equity: dict[tuple[int, int], float] = {}
    for a, b in combinations(range(20), 2):
        mine = table[a * 20 + b]
        assert mine is not None
        rest = [c for c in range(20) if c not in (a, b)]
        score = 0.0
        count = 0
        for c, d in combinations(rest, 2):
            theirs = table[c * 20 + d]
            assert theirs is not None
            score += _beats(mine.value, mine.special, theirs.value, theirs.special)
            count += 1
        equity[(a, b)] = score / count
    return equity


def _beats(v: int, special: str | None, w: int, their_special: str | None) -> float:
    if special == "ttaengjabi" and 901 <= w <= 909:
        return 1.0
    if their_special == "ttaengjabi" and 901 <= v <= 909:
        return 0.0
    if special == "amhaeng" and w in (980, 990):
        return 1.0
    if their_special == "amhaeng" and v in (980, 990):
        return 0.0
    if v == w:
        return 0.5
    return 1.0 if v > w else 0.0


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def hand_equity(card_ids: list[int], options: Options) -> float:
    """Heads-up equity of the cards a bot holds (1, 2 or 3 of them)."""
    table = _pair_equity(options.rule_key, options)
    ids = sorted(card_ids)
    if len(ids) >= 3:
        a, b = best_two([DECK[i] for i in ids], options)
        return table[_pair(a.id, b.id)]
    if len(ids) == 2:
        return table[(ids[0], ids[1])]
    if len(ids) == 1:  # average over the second card still to come
        values = [table[_pair(ids[0], c)] for c in range(20) if c != ids[0]]
        return sum(values) / len(values)
    return 0.5


def shared_equity(own: list[int], shared: int, options: Options) -> float:
    """한장공유 (issue 36): the share of the other players' possible cards that the own card
    plus the shared card beats, each of them holding the shared card too (ties count half)."""
    if not own:
        return 0.5
    table = hand_table(options)
    mine = table[own[0] * 20 + shared]
    assert mine is not None
    score, count = 0.0, 0
    for other in range(20):
        if other in (own[0], shared):
            continue
        theirs = table[other * 20 + shared]
        assert theirs is not None
        score += _beats(mine.value, mine.special, theirs.value, theirs.special)
        count += 1
    return score / count


def table_equity(view: View, options: Options, opponents: int) -> float:
    """The chance to win against the ``opponents`` still in. In 인디언 섯다 (issue 36) the bot
    cannot see its own first card but sees each opponent's: it weighs what it knows of its own
    hand against what each opponent shows (a shown 광 or 장 is a strong start)."""
    shared = view.get("sharedCard")
    if shared is not None:  # 한장공유: every hand holds the shared card
        return shared_equity(_own_cards(view), shared["id"], options) ** max(1, opponents)
    mine = hand_equity(_own_cards(view), options)
    if options.card_mode != "indian" or view.get("showdown"):
        return mine ** max(1, opponents)
    equity = 1.0
    for s in view["seats"]:
        if s["id"] == view["viewer"] or not s.get("inHand") or s.get("folded"):
            continue
        shown = [c["id"] for c in s.get("cards", []) if "hidden" not in c]
        theirs = hand_equity(shown, options)
        equity *= min(0.95, max(0.05, 0.5 + mine - theirs))
    return equity


def situation_rng(view: View, salt: str) -> random.Random:
    """A generator seeded from what the bot can see, so replays choose the same."""
    key = (
        salt,
        view.get("viewer"),
        view.get("handNo"),
        view.get("rematchNo"),
        view.get("street"),
        view.get("pot"),
        view.get("currentBet"),
    )
    return random.Random(repr(key))


def _own_cards(view: View) -> list[int]:
    me = next(s for s in view["seats"] if s["id"] == view["viewer"])
    return [c["id"] for c in me.get("cards", []) if "hidden" not in c]


def _pick(legal: list[LegalAction], *preferences: str) -> Action:
    by_type = {a["type"]: a for a in legal}
    for kind in preferences:
        if kind in by_type:
            return _as_action(by_type[kind])
    return _as_action(legal[0])


def _as_action(legal: LegalAction) -> Action:
    action: Action = {"type": legal["type"]}
    if "accept" in legal:
        action["accept"] = legal["accept"]
    return action


def _non_betting(
    view: View, options: Options, legal: list[LegalAction], keen: bool
) -> Action | None:
    kinds = {a["type"] for a in legal}
    if "choose" in kinds:
        a, b = best_two([DECK[i] for i in _own_cards(view)], options)
        return {"type": "choose", "cardIds": [a.id, b.id]}
    if "draw" in kinds:  # 후회의 섯다: the cards lie face down, any is as good
        return {"type": "draw"}
    if "pickShared" in kinds:
        return {"type": "pickShared", "cardId": pick_shared_card(view, options)}
    if "ready" in kinds:
        return {"type": "ready"}
    if "rebuy" in kinds:
        return {"type": "rebuy", "accept": any(a.get("accept") for a in legal)}
    if "rejoin" in kinds:
        can = any(a.get("accept") for a in legal)
        return {"type": "rejoin", "accept": bool(keen and can)}
    if "gusaChoice" in kinds:
        return {"type": "gusaChoice", "accept": not _wins_without_gusa(view, options)}
    return None


def pick_shared_card(view: View, options: Options) -> int:
    """한장공유: the 선 picks before anyone has a card, so no card favours the picker over
    the others; the bot varies its pick from hand to hand (from what it sees: replayable)."""
    return situation_rng(view, "pickShared").randrange(20)


def _wins_without_gusa(view: View, options: Options) -> bool:
    """Issue 36 구사 선택권: would the bot win (or share) the showdown if its 구사 did not fire?
    Then it takes the win; otherwise a rematch (or 사구 파토) beats a sure loss. Judged on the
    shown hands as one pot (side pots aside), as a person at the table would."""
    me = view["viewer"]
    ranks = {}
    for shown in view.get("showdown") or []:
        a, b = (DECK[c["id"]] for c in shown["cards"])
        ranks[shown["player"]] = evaluate(a, b, options)
    if me not in ranks:
        return False
    outcome = resolve_ranks(ranks, options, waived=[me])
    return me in outcome.winners


def _table_facts(view: View, legal: list[LegalAction]) -> tuple[int, int, int, bool]:
    """(opponents still in, chips to call, pot, acting last this street)."""
    opponents = sum(
        1
        for s in view["seats"]
        if s["id"] != view["viewer"] and s.get("inHand") and not s.get("folded")
    )
    to_call = next((a["amount"] for a in legal if a["type"] == "call"), 0)
    seats = [
        s for s in view["seats"] if s.get("inHand") and not s.get("folded") and not s.get("allIn")
    ]
    ids = [s["id"] for s in seats]
    last = bool(ids) and ids[-1] == view["viewer"]
    return opponents, to_call, int(view.get("pot", 0)), last


def cautious(view: View, options: Options, rng: random.Random) -> Action:
    legal = view["legalActions"]
    other = _non_betting(view, options, legal, keen=False)
    if other is not None:
        return other
    opponents, to_call, pot, _ = _table_facts(view, legal)
    equity = table_equity(view, options, opponents)
    if equity > 0.7:
        return _pick(legal, "half", "call", "ping", "check")
    if equity > 0.45:
        return _pick(legal, "call", "ping", "check")
    if to_call == 0:
        return _pick(legal, "check", "call")
    if to_call * 10 <= pot:
        return _pick(legal, "call", "die")
    return _pick(legal, "die")


@dataclass(frozen=True)
class StrongStyle:
    """Thresholds of the strong bot (tuned with ``bench/bots_bench.py``)."""

    value_raise: float = 0.8  # equity for the biggest raise
    value_bet: float = 0.6  # equity for a half-pot bet
    bluff: float = 0.5  # chance to bet an unopened pot with few opponents
    versus_raise: float = 0.55  # equity needed to call a raise
    call_margin: float = 0.1  # equity above pot odds needed to call a plain bet


STRONG = StrongStyle()


def strong(view: View, options: Options, rng: random.Random, style: StrongStyle = STRONG) -> Action:
    legal = view["legalActions"]
    other = _non_betting(view, options, legal, keen=True)
    if other is not None:
        return other
    opponents, to_call, pot, last = _table_facts(view, legal)
    equity = table_equity(view, options, opponents)
    pot_odds = to_call / (pot + to_call) if to_call else 0.0
    if last:
        equity += 0.05  # acting last: everyone else has already shown their hand's strength
    if equity > style.value_raise:
        return _pick(legal, "full", "half", "ddadang", "call", "ping", "check")
    if to_call and _facing_raise(view):  # a raise says more than pot odds do
        return _pick(legal, "call", "die") if equity > style.versus_raise else _pick(legal, "die")
    if equity > style.value_bet:
        return _pick(legal, "half", "call", "ping", "check")
    if to_call == 0:
        if opponents <= 2 and rng.random() < style.bluff:  # a bet folds out the weak hands
            return _pick(legal, "half", "ping", "check")
        return _pick(legal, "check", "call")
    if equity > pot_odds + style.call_margin:
        return _pick(legal, "call", "die")
    return _pick(legal, "die")


_RAISES = {"ddadang", "quarter", "half", "full"}


def _facing_raise(view: View) -> bool:
    for s in view["seats"]:
        last = s.get("lastAction")
        if s["id"] != view["viewer"] and not s.get("folded") and last and last["type"] in _RAISES:
            return True
    return False


def random_bot(view: View, options: Options, rng: random.Random) -> Action:
    legal = view["legalActions"]
    choice = legal[rng.randrange(len(legal))]
    if choice["type"] == "choose":
        return {"type": "choose", "cardIds": rng.sample(_own_cards(view), 2)}
    if choice["type"] == "pickShared":
        return {"type": "pickShared", "cardId": rng.randrange(20)}
    return _as_action(choice)


POLICIES: dict[str, Policy] = {"cautious": cautious, "strong": strong, "random": random_bot}


def decide(level: str, view: View, options: Options, seed: int | str = 0) -> Action | None:
    """The bot's action for this view, or None when it has nothing to do."""
    if not view.get("legalActions"):
        return None
    return POLICIES[level](view, options, situation_rng(view, f"{seed}:{level}"))
