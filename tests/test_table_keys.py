"""Keys, dialogs and feedback lines at the table (issue #16), scripted with the pilot harness."""

from __future__ import annotations

from engine import Options
from seotda_tui.testing import Table


def bets(t: Table) -> list[dict[str, object]]:
    return [e for e in t.manager.log(t.room_id) if e["type"] == "bet"]


# ---------------------------------------------------------------------- 2. the too-small screen
async def test_keys_do_nothing_while_the_table_is_hidden_by_the_too_small_notice() -> None:
    async with Table.open(["a", "b"], options=Options(), seed=5) as t:
        actor = t.actor
        assert actor is not None
        await t.pilot(actor).resize_terminal(70, 20)
        await t.settle()
        assert "창을 키워 주세요" in t.text(actor)
        await t.press(actor, "3", "4", "8", "q", "question_mark")  # 삥, 콜, 다이, leave, help
        assert bets(t) == [] and t.actor == actor
        assert t.manager.room_of(actor) == t.room_id
        assert type(t.screen(actor)).__name__ == "TableScreen"
        await t.pilot(actor).resize_terminal(80, 24)
        await t.settle()
        await t.press(actor, "3")  # visible again: the same key bets
        assert [(e["player"], e["action"]) for e in bets(t)] == [(actor, "ping")]
