"""What the table says at 80×24 (issue #16): the pot and the result reach every viewer, pots are
labelled, amounts have thousands separators, seats start from the viewer."""

from __future__ import annotations

import re
from typing import Any

from engine import Options
from seotda_tui.testing import Table

#: Ten seats with the longest nicknames (8 Hangul syllables = 16 cells).
LONG = [
    "가나다라마바사아",
    "자차카타파하가나",
    "다라마바사아자차",
    "카타파하가나다라",
    "마바사아자차카타",
    "파하가나다라마바",
    "사아자차카타파하",
    "나다라마바사아자",
    "라마바사아자차카",
    "바사아자차카타파",
]
WATCHER = "구경꾼구경꾼구경"


def _hand_end(game: Any) -> bool:
    return game.state.hand is not None and game.state.hand.phase == "handEnd"


async def test_full_table_every_viewer_sees_the_pot_and_the_result() -> None:
    async with Table.open(LONG, spectators=[WATCHER], options=Options(), seed=3) as t:
        actor = t.actor
        for nick in [*LONG, WATCHER]:
            # "판돈 100칩", or "판돈" beside the large digits and "칩"
            assert re.search(r"판돈 .*칩", t.text(nick)), (nick, nick == actor, t.text(nick))
        t.play_until(_hand_end)
        await t.settle()
        results = t.game.state.hand.results  # type: ignore[union-attr]
        winner = results[0]["winners"][0]
        amount = results[0]["amount"]
        line = f"{winner} 승리 +{amount:,}칩"
        for nick in [*LONG, WATCHER]:
            assert line in t.text(nick), (nick, t.text(nick))
