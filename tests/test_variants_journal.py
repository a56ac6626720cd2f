"""Issue 36 variants through the room journal: a server that dies mid-hand in 인디언 섯다 (second
round), 한장공유 (the 선 picking) or 후회의 섯다 (the draw) resumes where it was, every seat seeing
what it saw (the Indian holder still blind to their own first card), and goes on; the journal
rebuilds the live game."""

from __future__ import annotations

from pathlib import Path

import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal

from .gamekit import leaks
from .test_room_journal import game_of, manager_for, open_room, views_of


def _advance(m: RoomManager, room_id: str, mode: str) -> None:
    """Play into the state the test saves: indian's second round, shared's pick, a few draws."""
    game = game_of(m, room_id)
    if mode == "indian":
        while game.view(None).get("street") == 0:
            (actor,) = game.pending()["players"]
            m.act(room_id, actor, {"type": "check"})
    elif mode == "regret":
        for _ in range(4):
            (actor,) = game.pending()["players"]
            m.act(room_id, actor, {"type": "draw"})


@pytest.mark.parametrize("mode", ["indian", "shared", "regret"])
def test_a_variant_game_resumes_mid_hand(tmp_path: Path, mode: str) -> None:
    clock = FakeClock()
    m = manager_for(tmp_path, clock, reconnect_grace=60)
    room_id = open_room(m, "abc", card_mode=mode)
    m.start(room_id, "a")
    _advance(m, room_id, mode)
    before = game_of(m, room_id)
    pending = before.pending()
    assert pending["phase"] == {"indian": "betting", "shared": "pickShared", "regret": "draw"}[mode]
    seen = views_of(m, room_id, "abc")
    m2 = manager_for(tmp_path, FakeClock(1000.0), reconnect_grace=60)
    after = game_of(m2, room_id)
    assert after.state_hash() == before.state_hash() and after.pending() == pending
    for nick in "abc":
        m2.session_connected(nick)
    assert views_of(m2, room_id, "abc") == seen
    if mode == "indian":  # the holder's own first card is still hidden from them
        for nick in "abc":
            hand = after.state.hand
            assert hand is not None
            first = hand.players[nick].hand[0]
            assert not leaks(seen[nick], {first}), nick
    (actor,) = pending["players"]
    actions: dict[str, dict[str, object]] = {
        "indian": {"type": "check"},
        "shared": {"type": "pickShared", "cardId": 5},
        "regret": {"type": "draw"},
    }
    m2.act(room_id, actor, actions[mode])
    live = game_of(m2, room_id)
    (saved,) = Journal(tmp_path / "g.sqlite3").open_games()
    assert saved.rebuild().state_hash() == live.state_hash()
