"""Host moderation: remove a player or spectator (between hands only), lock the room, hand the
host role on. The manager with a fake clock, then Textual pilots sharing one manager as SSH
sessions would (the host's menu, the confirm dialog, the removed player back in the lobby)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from engine import Options
from seotda_tui.rooms import PLAYING, RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.moderation import NOT_HOST
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.confirm import ConfirmScreen
from seotda_tui.ui.screens.lobby import LobbyScreen, row_cells
from seotda_tui.ui.screens.moderation import ModerationScreen, menu_items
from seotda_tui.ui.screens.table import TableScreen

from .refusals import refused
from .ssh_harness import ssh_server

SIZE = (80, 24)


def manager() -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 7)


def room_with(m: RoomManager, *players: str, watchers: tuple[str, ...] = ()) -> str:
    room = m.create_room(players[0], "철수네 판", Options())
    for nick in players[1:]:
        m.join(room.id, nick)
    for nick in watchers:
        m.watch(room.id, nick)
    return room.id


def to_hand_end(m: RoomManager, room_id: str) -> None:
    """Everyone whose turn it is dies until the hand is over (server side, test-only peek)."""
    game = m.live_game(room_id)
    assert game is not None
    for _ in range(50):
        if game.pending()["phase"] != "betting":
            return
        (actor,) = game.pending()["players"]
        m.act(room_id, actor, {"type": "die"})
    raise AssertionError("the hand never ended")


def test_the_host_removes_a_waiting_player_who_cannot_come_back_until_readmitted() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", "민수")
    pushes: list[RoomUpdate] = []
    m.subscribe_room(room_id, "철수", pushes.append)
    with refused("not_host"):
        m.remove(room_id, "민수", "철수")
    m.remove(room_id, "영희", "철수")
    room = m.room(room_id)
    assert room is not None and room.players == ("영희", "민수") and room.barred == ("철수",)
    assert m.room_of("철수") is None
    last = pushes[-1]
    assert last.closed and last.notice is not None and "내보냈어요" in last.notice
    assert {"type": "leaveRoom", "player": "철수", "by": "영희"} in m.log(room_id)
    for enter in (m.join, m.watch):
        with refused("barred"):
            enter(room_id, "철수")
    m.set_locked(room_id, "영희", True)
    m.set_locked(room_id, "영희", False)  # the lock is not the bar
    with refused("barred"):
        m.join(room_id, "철수")
    m.readmit(room_id, "영희")
    m.join(room_id, "철수")
    assert m.room(room_id).players == ("영희", "민수", "철수")


def test_a_spectator_can_be_removed_at_any_time_but_the_host_and_bots_cannot() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", watchers=("구경꾼",))
    m.add_bot(room_id, "영희")
    m.start(room_id, "영희")
    m.remove(room_id, "영희", "구경꾼")  # mid-hand: a spectator has nothing at stake
    assert m.room(room_id).spectators == ()
    with refused("remove_self"):
        m.remove(room_id, "영희", "영희")
    bot = m.room(room_id).bots[0]
    with refused("remove_bot"):
        m.remove(room_id, "영희", bot)
    with refused("target_absent"):
        m.remove(room_id, "영희", "아무개")


def test_a_player_is_removed_only_between_hands_and_then_plays_on_as_one_who_left() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", "민수")
    m.start(room_id, "영희")
    game = m.live_game(room_id)
    assert game is not None
    with refused("mid_hand"):
        m.remove(room_id, "영희", "철수")
    assert game.seat_status("철수") == "playing"
    to_hand_end(m, room_id)
    assert game.pending()["phase"] == "handEnd"
    m.remove(room_id, "영희", "철수")
    room = m.room(room_id)
    assert room is not None and room.status == PLAYING
    assert room.left == ("철수",) and "철수" not in room.players
    assert game.seat_status("철수") == "left"  # exactly what a voluntary leave does (§5.7)


def test_a_locked_room_takes_no_newcomers_but_a_spectator_may_sit() -> None:
    m = manager()
    room_id = room_with(m, "영희", watchers=("구경꾼",))
    with refused("not_host"):
        m.set_locked(room_id, "구경꾼", True)
    m.set_locked(room_id, "영희", True)
    assert m.room(room_id).locked
    assert {"type": "locked", "by": "영희"} in m.log(room_id)
    for enter in (m.join, m.watch):
        with refused("locked"):
            enter(room_id, "새손님")
    m.join(room_id, "구경꾼")
    m.set_locked(room_id, "영희", False)
    m.watch(room_id, "새손님")


def test_the_host_hands_the_role_to_a_seated_connected_human() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", watchers=("구경꾼",))
    m.add_bot(room_id, "영희")
    bot = m.room(room_id).bots[0]
    for target in ("구경꾼", bot):  # a spectator, a bot
        with refused("target_not_seated"):
            m.hand_host(room_id, "영희", target)
    with refused("already_host"):
        m.hand_host(room_id, "영희", "영희")
    m.hand_host(room_id, "영희", "철수")
    assert m.room(room_id).host == "철수"
    assert {"type": "host", "player": "철수", "by": "영희"} in m.log(room_id)
    with refused("not_host"):
        m.start(room_id, "영희")
    m.start(room_id, "철수")
    m.session_connected("영희")
    m.session_disconnected("영희")  # offline mid-game: not a host to be
    with refused("target_offline"):
        m.hand_host(room_id, "철수", "영희")


def test_the_menu_offers_what_the_host_may_do_and_the_lobby_shows_the_lock() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", watchers=("구경꾼",))
    m.add_bot(room_id, "영희")
    room = m.room(room_id)
    assert room is not None
    choices = [choice for choice, _ in menu_items(room, "영희")]
    assert choices == [
        ("remove", "철수"),
        ("remove", "구경꾼"),
        ("host", "철수"),
        ("rules", ""),  # between games (issue 32; tests/test_room_rules_change.py)
        ("lock", ""),
    ]
    assert "잠김" not in row_cells(room, 1)[5]
    m.set_locked(room_id, "영희", True)
    m.remove(room_id, "영희", "구경꾼")
    room = m.room(room_id)
    assert room is not None and row_cells(room, 1)[5] == "대기 중 잠김"
    choices = [choice for choice, _ in menu_items(room, "영희")]
    assert ("unlock", "") in choices and ("readmit", "") in choices


# -- item 12: a removal that sticks -------------------------------------------------------------


def private_room(m: RoomManager, *players: str, watchers: tuple[str, ...] = ()) -> tuple[str, str]:
    room = m.create_room(players[0], "비밀 판", Options(), private=True)
    code = m.room_code(room.id, players[0])
    assert code is not None
    for nick in players[1:]:
        m.join(room.id, nick, code)
    for nick in watchers:
        m.watch(room.id, nick, code)
    return room.id, code


def test_a_removal_from_a_private_room_changes_its_code_so_a_fresh_name_cannot_walk_back() -> None:
    m = manager()
    room_id, old = private_room(m, "영희", "철수", "민수")
    m.remove(room_id, "영희", "철수")
    new = m.room_code(room_id, "영희")
    assert new is not None and new != old
    assert m.room_code(room_id, "민수") == new  # those inside see the new one
    assert {"type": "codeChanged", "by": "영희"} in m.log(room_id)
    with refused("wrong_code"):
        m.join(room_id, "철수2", old)  # the same person under a fresh name, with the old code
    with refused("room_not_found"):
        m.direct_join(old, "철수3")
    m.join(room_id, "지영", new)


def test_the_host_changes_the_code_and_only_the_host_of_a_private_room_may() -> None:
    m = manager()
    room_id, old = private_room(m, "영희", "철수")
    with refused("not_host"):
        m.change_code(room_id, "철수")
    assert m.room_code(room_id, "영희") == old
    m.change_code(room_id, "영희")
    new = m.room_code(room_id, "영희")
    assert new is not None and new != old and m.find_room(old) is None
    assert m.find_room(new).id == room_id
    public = room_with(m, "민수", "지영")
    with refused("not_private"):
        m.change_code(public, "민수")
    choices = [c for c, _ in menu_items(m.room(room_id), "영희")]
    assert ("code", "") in choices
    assert ("code", "") not in [c for c, _ in menu_items(m.room(public), "민수")]


def test_bars_the_lock_and_a_changed_code_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    m = RoomManager(clock=FakeClock(), seed_source=lambda: 7, journal=Journal(path))
    room_id, _code = private_room(m, "영희", "철수", "민수", watchers=("구경꾼",))
    m.start(room_id, "영희")
    m.remove(room_id, "영희", "구경꾼")  # mid-game: a spectator
    m.set_locked(room_id, "영희", True)
    code = m.room_code(room_id, "영희")
    m.close()
    again = RoomManager(clock=FakeClock(), seed_source=lambda: 7, journal=Journal(path))
    (room,) = again.rooms()
    assert room.barred == ("구경꾼",) and room.locked
    assert again.room_code(room.id, "영희") == code
    with refused("barred"):
        again.watch(room.id, "구경꾼", code)
    again.close()


def test_the_game_leaves_a_removed_persons_history_from_the_moment_of_removal(
    tmp_path: Path,
) -> None:
    m = RoomManager(clock=FakeClock(), seed_source=lambda: 7, journal=Journal(tmp_path / "g.db"))
    room_id = room_with(m, "영희", "철수", "민수", watchers=("구경꾼",))
    m.start(room_id, "영희")
    to_hand_end(m, room_id)
    m.remove(room_id, "영희", "구경꾼")
    m.remove(room_id, "영희", "민수")  # a seated player, between hands
    m.leave(room_id, "철수")  # the game ends
    history = m.history
    assert history is not None
    (game,) = history.games("영희")
    assert history.games("구경꾼") == [] and history.replay(game.key, "구경꾼") is None
    assert history.games("민수") == [] and history.replay(game.key, "민수") is None
    assert [g.key for g in history.games("철수")] == [game.key]
    m.close()


# -- pilots -----------------------------------------------------------------------------------


def screen_text(app: SeotdaApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def app_for(m: RoomManager, nick: str) -> SeotdaApp:
    return make_app_factory(m)(SimpleNamespace(nickname=nick), None)


async def settle(*pilots: Any) -> None:
    for pilot in pilots:
        await pilot.pause()
        await pilot.pause()


async def test_the_host_removes_a_player_from_the_menu_and_they_land_in_the_lobby() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수", "민수")
    host, victim, other = app_for(m, "영희"), app_for(m, "철수"), app_for(m, "민수")
    async with (
        host.run_test(size=SIZE) as hp,
        victim.run_test(size=SIZE, notifications=True) as vp,
        other.run_test(size=SIZE) as op,
    ):
        await settle(hp, vp, op)
        assert all(isinstance(a.screen, TableScreen) for a in (host, victim, other))
        assert "m 방장" in screen_text(host) and "m 방장" not in screen_text(victim)
        await vp.press("m")  # not the host: only a word on the message line
        await settle(vp)
        assert NOT_HOST in screen_text(victim)
        await hp.press("m")
        await settle(hp)
        assert isinstance(host.screen, ModerationScreen)
        assert "철수님 내보내기" in screen_text(host)
        await hp.press("enter")  # the first item: 철수님 내보내기
        await settle(hp)
        assert isinstance(host.screen, ConfirmScreen)
        assert "철수님을 이 방에서 내보낼까요?" in screen_text(host)
        await hp.press("y")
        await settle(hp, vp, op)
        assert isinstance(host.screen, TableScreen)
        assert isinstance(victim.screen, LobbyScreen)
        await vp.pause(0.2)
        assert "내보냈어요" in screen_text(victim)  # the notice, in the lobby
        assert "철수님이 방장에게 내보내졌어요" in screen_text(other)
        assert m.room(room_id).players == ("영희", "민수")
        await vp.press("enter")  # trying to sit down again in that room
        await settle(vp)
        assert "다시 받아 주기 전에는" in screen_text(victim)
        assert m.room_of("철수") is None


async def test_the_host_locks_and_hands_over_from_the_menu() -> None:
    m = manager()
    room_id = room_with(m, "영희", "철수")
    host, heir = app_for(m, "영희"), app_for(m, "철수")
    async with host.run_test(size=SIZE) as hp, heir.run_test(size=SIZE) as ep:
        await settle(hp, ep)
        await hp.press("m")
        await settle(hp)
        assert isinstance(host.screen, ModerationScreen)
        menu = cast(ModerationScreen, host.screen)  # (Screen[object] does not narrow to it)
        lock_at = [c for c, _ in menu.items].index(("lock", ""))
        for _ in range(lock_at):
            await hp.press("down")
        await hp.press("enter")
        await settle(hp)
        assert isinstance(host.screen, ConfirmScreen)  # a lock asks too (issue 32 item 11)
        assert "방을 잠글까요?" in screen_text(host)
        await hp.press("y")
        await settle(hp, ep)
        assert m.room(room_id).locked
        assert "방장이 방을 잠갔어요" in screen_text(heir)
        await hp.press("m")
        await settle(hp)
        assert isinstance(host.screen, ModerationScreen)
        menu = cast(ModerationScreen, host.screen)  # (Screen[object] does not narrow to it)
        await hp.press("escape")  # closes the menu, does nothing
        await settle(hp)
        assert isinstance(host.screen, TableScreen)
        await hp.press("m")
        await settle(hp)
        assert isinstance(host.screen, ModerationScreen)
        menu = cast(ModerationScreen, host.screen)  # (Screen[object] does not narrow to it)
        for _ in range([c for c, _ in menu.items].index(("host", "철수"))):
            await hp.press("down")
        await hp.press("enter")
        await settle(hp)
        assert "철수님에게 방장을 넘길까요?" in screen_text(host)
        await hp.press("y")
        await settle(hp, ep)
        assert m.room(room_id).host == "철수"
        assert "영희님이 철수님에게 방장을 넘겼어요" in screen_text(heir)
        assert "m 방장" in screen_text(heir) and "m 방장" not in screen_text(host)


async def test_removal_over_real_ssh(tmp_path: Path) -> None:
    """Two stock-client-like sessions: the host removes the guest from the menu; the guest's
    terminal is back in the lobby with the notice, and the room refuses them."""
    m = RoomManager(seed_source=lambda: 7)
    async with ssh_server(tmp_path, make_app_factory(m)) as server, AsyncExitStack() as stack:
        host = await stack.enter_async_context(server.connect("영희", size=(100, 30)))
        guest = await stack.enter_async_context(server.connect("철수", size=(100, 30)))
        await host.wait_for("영희님 환영해요")
        await guest.wait_for("철수님 환영해요")
        await host.press("n")
        await host.wait_for("새 방 만들기")
        await host.press("enter")
        await host.wait_for("m 방장")
        await guest.wait_for("영희의 방")
        await guest.press("enter")
        await host.wait_for("철수님이 앉았어요")
        await host.press("m")
        await host.wait_for("철수님 내보내기")
        await host.press("enter")
        await host.wait_for("내보낼까요?")
        await host.press("y")
        await host.wait_for("철수님이 방장에게 내보내졌어요")
        await guest.wait_for("방장이 나를 방에서 내보냈어요")
        await guest.wait_for("섯다 로비")
        await guest.press("enter")
        await guest.wait_for("다시 받아 주기 전에는")
        assert m.room_of("철수") is None


async def test_the_host_changes_the_code_from_the_menu_and_the_table_shows_the_new_one() -> None:
    m = manager()
    room_id, old = private_room(m, "영희", "철수")
    host, guest = app_for(m, "영희"), app_for(m, "철수")
    async with host.run_test(size=SIZE) as hp, guest.run_test(size=SIZE) as gp:
        await settle(hp, gp)
        assert f"방 코드 {old}" in screen_text(guest)
        await hp.press("m")
        await settle(hp)
        assert isinstance(host.screen, ModerationScreen)
        menu = cast(ModerationScreen, host.screen)  # (Screen[object] does not narrow to it)
        assert "방 코드 바꾸기" in screen_text(host)
        for _ in range([c for c, _ in menu.items].index(("code", ""))):
            await hp.press("down")
        await hp.press("enter")
        await settle(hp)
        assert isinstance(host.screen, ConfirmScreen)
        assert "방 코드를 새로 바꿀까요?" in screen_text(host)
        await hp.press("y")
        await settle(hp, gp)
        new = m.room_code(room_id, "영희")
        assert new is not None and new != old
        assert f"방 코드 {new}" in screen_text(guest) and f"방 코드 {new}" in screen_text(host)
        assert "방장이 방 코드를 바꿨어요" in screen_text(guest)
