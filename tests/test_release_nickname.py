"""``--release-nickname`` (issue 30, item 8): a released name hands nothing over.

The admin's command runs in its own process while the server runs. While the journal has the
name in a seat of a running game it is refused (the next holder would get that seat and its
cards); a released name starts with no records and no hand history (``--keep-records`` keeps
them, for the same person coming back).
"""

from __future__ import annotations

from pathlib import Path

from seotda_tui.cli.admin import release_nickname
from seotda_tui.cli.data import journal_path, records_path
from seotda_tui.config import load_settings
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.records import GameRecords
from seotda_tui.rooms.records_db import RecordStore
from seotda_tui.ssh.store import NicknameStore
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import attempt, ssh_server, wait_until
from .test_identity import release

NEW_SECRET = "a-strangers-passphrase"


def server_manager(data_dir: Path, clock: FakeClock | None = None) -> RoomManager:
    """The manager as the real server builds it: a journal and records in the data dir."""
    data_dir.mkdir(parents=True, exist_ok=True)
    settings = load_settings(flags={"data_dir": data_dir})
    return RoomManager(
        clock=clock,
        seed_source=lambda: 7,
        journal=Journal(journal_path(settings)),
        records=GameRecords(RecordStore(records_path(settings)), lambda _nick: True),
    )


async def test_a_name_seated_in_a_running_game_is_not_released_and_a_released_one_starts_afresh(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    m = server_manager(data_dir)
    try:
        async with ssh_server(tmp_path, make_app_factory(m)) as server:
            async with server.connect("철수") as chulsoo:  # registers 철수 (a passphrase)
                await chulsoo.wait_for("철수님 환영해요")
            await wait_until(lambda: m.room_of("철수") is None)
            # a finished game: in 철수's records and hand history
            done = m.create_room("철수", "지난 판", {})
            m.join(done.id, "영희")
            m.start(done.id, "철수")
            m.leave(done.id, "영희")  # the game ends: 철수 wins
            m.leave(done.id, "철수")
            assert m.records is not None and m.records.player("철수") is not None
            assert m.history is not None and len(m.history.games("철수")) == 1
            # a running game with 철수's seat (offline: his cards wait for him)
            live = m.create_room("영희", "지금 판", {})
            m.join(live.id, "철수")
            m.start(live.id, "영희")

            code, _out, err = await release(server, "철수")
            assert code == 1 and "자리가 있어요" in err
            stranger = await attempt(server.port, "철수", passphrase=NEW_SECRET)
            assert stranger.error is not None  # the name is still 철수's: no seat for a stranger
            assert m.live_game(live.id) is not None and "철수" in m.room(live.id).players

            m.leave(live.id, "철수")  # his seat is given up: the game ends
            await wait_until(lambda: m.room_of("철수") is None)
            code, out, _err = await release(server, "철수")
            assert code == 0 and "Released nickname '철수'" in out
            assert m.records.player("철수") is None and m.records.recent("철수") == []
            assert m.history.games("철수") == []
            assert m.history.games("영희") != []  # the other players keep theirs
            fresh = await attempt(server.port, "철수", passphrase=NEW_SECRET)
            assert fresh.error is None  # a new holder, with nothing of the old one's
            await fresh.close()
    finally:
        m.close()


def test_keep_records_keeps_the_record_and_history(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    m = server_manager(data_dir, FakeClock())
    settings = load_settings(flags={"data_dir": data_dir})
    store = NicknameStore(data_dir)
    assert store.set_passphrase("철수", "scrypt$1$1$1$00$00")
    store.close()
    room = m.create_room("철수", "판", {})
    m.join(room.id, "영희")
    m.start(room.id, "철수")
    m.leave(room.id, "영희")
    m.leave(room.id, "철수")
    assert release_nickname(settings, "철수", keep_records=True) == 0
    assert m.records is not None and m.records.player("철수") is not None
    assert m.history is not None and len(m.history.games("철수")) == 1
    m.close()
