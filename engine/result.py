"""§6.6/§8.6 결과: ranks, scores, stats and the Korean summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .state import Seat
from .types import BiggestPot, GameResult, RankingRow

if TYPE_CHECKING:
    from .core import GameCore


def _competition_ranks(keys: list[tuple[int, ...]]) -> list[int]:
    """1,1,3-style shared ranks for keys already sorted best first."""
    ranks: list[int] = []
    for i, key in enumerate(keys):
        ranks.append(ranks[-1] if i and key == keys[i - 1] else i + 1)
    return ranks


def build_result(game: GameCore, reason: str) -> GameResult:
    st, opts = game.state, game.options
    seats = st.seats
    n = len(seats)
    by_score = opts.end_condition == "hands" or reason == "handCap"
    rows: list[RankingRow] = []
    keys: list[tuple[int, ...]]
    if by_score:
        scored = sorted(seats, key=lambda s: -(s.stack - opts.starting_chips * s.rebuys))
        keys = [(s.stack - opts.starting_chips * s.rebuys,) for s in scored]
        for seat, rank, key in zip(scored, _competition_ranks(keys), keys):
            rows.append(_row(seat, rank, key[0]))
    else:
        # Survivors first (by chips), then the eliminated: later first, then more chips at that
        # hand's start first; equal keys share a rank. Score = survival order (1위 = N).
        def order_key(s: Seat) -> tuple[int, int, int]:
            if s.status != "eliminated":
                return (0, -s.stack, 0)
            return (1, -(s.eliminated_at_hand or 0), -s.stack_at_hand_start)

        ordered = sorted(seats, key=order_key)
        keys = [order_key(s) for s in ordered]
        for seat, rank in zip(ordered, _competition_ranks(keys)):
            rows.append(_row(seat, rank, n - rank + 1))
    best = st.best_hand
    biggest: BiggestPot = st.biggest_pot or {"handNo": 0, "amount": 0, "winners": []}
    top = rows[0]
    if by_score:
        gain = top["score"] - opts.starting_chips  # net of the starting stack, as players count it
        summary = f"{st.hands_played}판 종료. 1위 {top['playerId']}({gain:+,}칩)"
    else:
        summary = f"{st.hands_played}판 종료. 최후의 1인 {top['playerId']}({top['finalChips']:,}칩)"
    if best is not None:
        summary += f", 최고 족보 {best['name']}({best['playerId']}, {best['handNo']}판)"
    return {
        "ranking": rows,
        "summary": summary,
        "reason": reason,
        "stats": {
            "handsPlayed": st.hands_played,
            "rematches": st.total_rematches,
            "bestHand": (
                None
                if best is None
                else {"playerId": best["playerId"], "name": best["name"], "handNo": best["handNo"]}
            ),
            "biggestPot": biggest.copy(),
        },
    }


def _row(seat: Seat, rank: int, score: int) -> RankingRow:
    return {
        "playerId": seat.id,
        "rank": rank,
        "score": score,
        "finalChips": seat.stack,
        "rebuys": seat.rebuys,
        "eliminatedAtHand": seat.eliminated_at_hand,
    }
