"""Private tables and direct joins (#18): the code, the form, the lobby's prompt, ``철수+CODE``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from seotda_tui.rooms import RoomManager, RoomSummary, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.rooms.private import (
    ADDRESS_GUESS_LIMIT,
    CODE_ALPHABET,
    CODE_LENGTH,
    GUESS_LIMIT,
    ROOM_GUESS_LIMIT,
    SERVER_GUESS_LIMIT,
    new_code,
    normalize_code,
)
from seotda_tui.sanitize import split_login
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.create_room import PRIVACY_CHOICES
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.code_prompt import CodePrompt

from .refusals import refused
from .ssh_harness import connect, default_passphrase, ssh_server, wait_until
from .test_app_pilot import open_create_form

SIZE = (80, 24)


def manager(**kw: Any) -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 42, **kw)


def screen_text(app: SeotdaApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def app_for(m: RoomManager, nick: str) -> SeotdaApp:
    return make_app_factory(m)(SimpleNamespace(nickname=nick), None)


def code_of(m: RoomManager, room_id: str, host: str = "영희") -> str:
    code = m.room_code(room_id, host)
    assert code is not None
    return code


# ---------------------------------------------------------------- the code and the manager
def test_codes_are_short_unambiguous_and_unique_among_live_rooms() -> None:
    assert not set("0O1IL") & set(CODE_ALPHABET)
    m = manager()
    codes = set()
    for n in range(40):
        room = m.create_room(f"방장{n}", "방", {}, private=True)
        code = code_of(m, room.id, f"방장{n}")
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
        codes.add(code)
    assert len(codes) == 40
    # a taken code is never handed out again, however the dice fall
    rolls = iter("A" * 16 + "B" * 8)
    assert new_code({"A" * 8}, lambda _alphabet: next(rolls)) == "B" * 8


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("k7qx3m9p", "K7QX3M9P"),
        (" K7QX-3M9P ", "K7QX3M9P"),
        ("k7qx3", "K7QX3"),  # a code made before codes were lengthened (a resumed game's)
        ("K7QX3M9", None),
        ("K7QX3M9P2", None),
        ("K7QO3M9P", None),
        ("ＫＸＸＸＸＸＸＸ", None),
        ("\x1b[2JK7QX3M9P", None),
        ("K" * 10_000, None),
        (None, None),
    ],
)
def test_typed_codes_are_read_case_insensitively_and_hostile_text_is_no_code(
    typed: Any, code: str | None
) -> None:
    assert normalize_code(typed) == code


def test_private_room_needs_its_code_to_join_or_watch() -> None:
    m = manager()
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    assert room.private and room.listed
    with refused("need_code"):
        m.join(room.id, "철수")
    with refused("wrong_code"):
        m.watch(room.id, "철수", "Z" * 8 if code != "Z" * 8 else "Y" * 8)
    assert m.room_of("철수") is None
    m.watch(room.id, "철수", code.lower())
    m.join(room.id, "철수")  # a spectator inside may sit down without typing it again
    assert m.room(room.id).players == ("영희", "철수")
    # those inside see the code (to pass it on); nobody outside does
    assert m.room_code(room.id, "철수") == code and m.room_code(room.id, "민수") is None
    public = m.create_room("민수", "공개 방", {})
    assert m.room_code(public.id, "민수") is None
    m.join(public.id, "지영")  # public rooms need nothing


def test_unlisted_rooms_stay_out_of_the_lobby_list() -> None:
    m = manager()
    seen: list[list[str]] = []
    m.subscribe_lobby(lambda rooms: seen.append([r.name for r in rooms]))
    listed = m.create_room("영희", "보이는 방", {}, private=True, listed=True)
    hidden = m.create_room("민수", "숨은 방", {}, private=True, listed=False)
    assert [r.id for r in m.rooms()] == [listed.id]
    assert {r.id for r in m.rooms(unlisted=True)} == {listed.id, hidden.id}
    assert all("숨은 방" not in names for names in seen)
    # found by its code only, never by its name
    assert m.find_room(code_of(m, hidden.id, "민수")).id == hidden.id
    assert m.find_room("숨은 방") is None and m.find_room("보이는 방") is None


def test_direct_join_takes_a_seat_else_watches_and_says_when_nothing_answers() -> None:
    m = manager()
    public = m.create_room("영희", "영희네", {})
    assert m.direct_join("영희네", "철수") == public.id
    assert "철수" in m.room(public.id).players
    m.start(public.id, "영희")
    assert m.direct_join("영희네", "민수") == public.id  # playing: watch
    assert m.room(public.id).spectators == ("민수",)
    with refused("room_not_found"):
        m.direct_join("ABCDEFGH", "지영")
    with refused("room_not_found"):
        m.direct_join("\x1b]0;x\x07" + "가" * 100, "지영")
    assert m.room_of("지영") is None


@pytest.mark.parametrize(
    ("username", "expected"),
    [
        ("철수", ("철수", None)),
        ("철수+K7QX3", ("철수", "K7QX3")),
        ("철수+", ("철수", None)),
        ("철수+영희네+방", ("철수", "영희네+방")),
        ("철수+\x1b[31m영희네\x07", ("철수", "영희네")),  # escapes removed like any text
        ("철수+" + "x" * 65, ("철수", None)),
        ("+K7QX3", ("", "K7QX3")),  # (then the empty name is refused as before)
    ],
)
def test_login_name_splits_into_name_and_room(
    username: str, expected: tuple[str, str | None]
) -> None:
    assert split_login(username) == expected


def test_privacy_survives_a_restart(tmp_path: Path) -> None:
    journal_path = tmp_path / "g.sqlite3"
    m = manager(journal=Journal(journal_path))
    room = m.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = code_of(m, room.id)
    m.join(room.id, "철수", code)
    m.start(room.id, "영희")
    m.close()
    again = manager(journal=Journal(journal_path))
    (resumed,) = again.rooms(unlisted=True)
    assert resumed.private and not resumed.listed and again.rooms() == []
    assert again.room_code(resumed.id, "영희") == code
    assert again.find_room(code.lower()).id == resumed.id
    again.close()


# ---------------------------------------------------------------- the code rides on the updates
def test_updates_carry_the_code_only_to_those_inside() -> None:
    """``RoomUpdate.code`` keeps ``room_code``'s rule per viewer (issue 34): the seated and the
    watching get it; nobody outside ever does: not the lobby, not a session that left (still
    subscribed), not a removed player's last push (the code changes as they go)."""
    m = manager()
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    m.join(room.id, "철수", code)
    m.watch(room.id, "민수", code)
    m.watch(room.id, "지영", code)
    got: dict[str, list[RoomUpdate]] = {n: [] for n in ("영희", "철수", "민수", "지영")}
    for nick, seen in got.items():
        m.subscribe_room(room.id, nick, seen.append)
    lobby: list[list[RoomSummary]] = []
    m.subscribe_lobby(lobby.append)
    assert [seen[-1].code for seen in got.values()] == [code] * 4  # the snapshots
    m.leave(room.id, "민수")  # (its table would unsubscribe; this one stays subscribed)
    after_leaving = len(got["민수"])
    m.remove(room.id, "영희", "지영")
    new = code_of(m, room.id)
    assert new != code
    assert got["영희"][-1].code == new and got["철수"][-1].code == new
    assert len(got["민수"]) > after_leaving  # pushed, but without the code
    assert all(update.code is None for update in got["민수"][after_leaving:])
    last = got["지영"][-1]
    assert last.closed and last.notice and last.code is None
    assert all(update.code != new for update in got["지영"])
    assert lobby and code not in repr(lobby) and new not in repr(lobby)
    public = m.create_room("구경꾼", "공개 방", {})
    seen_public: list[RoomUpdate] = []
    m.subscribe_room(public.id, "구경꾼", seen_public.append)
    assert seen_public[-1].code is None


class CodeCallCounter(RoomManager):
    """A manager that counts ``room_code`` calls (with --workers each was a round trip)."""

    def __init__(self) -> None:
        super().__init__(clock=FakeClock(), seed_source=lambda: 42)
        self.code_calls = 0

    def room_code(self, room_id: str, nick: str) -> str | None:
        self.code_calls += 1
        return super().room_code(room_id, nick)


async def test_the_table_redraws_a_private_room_without_asking_for_its_code() -> None:
    """Every redraw of a private room asked ``manager.room_code`` (issue 34); the update
    carries it now, so pushes, a new code and a resize redraw the title with no call."""
    m = CodeCallCounter()
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    m.join(room.id, "철수", code)
    m.start(room.id, "영희")
    m.code_calls = 0
    guest = app_for(m, "철수")  # seated in a running game: straight to the table
    async with guest.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(guest.screen, TableScreen)
        assert f"방 코드 {code}" in screen_text(guest)
        m.watch(room.id, "민수", code)
        await pilot.pause()
        assert "관전 1명" in screen_text(guest)
        m.change_code(room.id, "영희")
        await pilot.pause()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert m.code_calls == 0
        new = code_of(m, room.id)
        assert new != code and f"방 코드 {new}" in screen_text(guest)


# ---------------------------------------------------------------- pilot: form and lobby
async def test_form_makes_an_unlisted_private_room_and_the_table_shows_its_code() -> None:
    m = manager()
    app = app_for(m, "영희")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        form = await open_create_form(pilot)
        form.query_one("#room-privacy").focus()
        await pilot.press("right", "right")  # 공개 → 비공개·목록에 보임 → 비공개·목록에 없음
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        (room,) = m.rooms(unlisted=True)
        assert room.private and not room.listed and m.rooms() == []
        await pilot.pause()
        assert f"방 코드 {code_of(m, room.id)}" in screen_text(app)


async def test_every_privacy_label_keeps_its_inner_spaces_at_80x24() -> None:
    """The widest labels ("비공개 · 목록에 없음", 20 cells) got the tight ``<…>`` form the
    narrow grid column forces; the privacy choice spans the free columns to its right."""
    app = app_for(manager(), "영희")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one("#room-privacy").focus()
        for label, _ in PRIVACY_CHOICES:
            assert f"< {label} >" in screen_text(app)
            await pilot.press("right")
            await pilot.pause()


async def test_the_code_stays_in_sight_at_a_full_80_column_table() -> None:
    m = manager()
    host = "가나다라마바사아"  # 16 cells, the longest nickname
    room = m.create_room(host, "가" * 10, {}, private=True)  # 20 cells, the longest name
    code = code_of(m, room.id, host)
    m.join(room.id, "철수", code)
    m.watch(room.id, "민수", code)
    m.start(room.id, host)
    app = app_for(m, host)  # seated in a running game: straight back to the table
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert f"방 코드 {code}" in screen_text(app)


async def test_lobby_asks_a_listed_private_rooms_code_and_refuses_a_wrong_one() -> None:
    m = manager()
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    app = app_for(m, "철수")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "비밀 방 (비공개)" in text and code not in text
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query(CodePrompt) and m.room_of("철수") is None
        wrong = "Z" * 8 if code != "Z" * 8 else "Y" * 8
        await pilot.press(*wrong.lower(), "enter")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and m.room_of("철수") is None
        assert "방 코드가 맞지 않아요" in screen_text(app)
        await pilot.press("w")  # watching asks too
        await pilot.pause()
        await pilot.press(*code, "enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert m.room(room.id).spectators == ("철수",)


async def test_code_key_opens_an_unlisted_room_and_escape_cancels() -> None:
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = code_of(m, room.id)
    app = app_for(m, "철수")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "숨은 방" not in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        assert app.screen.query(CodePrompt)
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(CodePrompt)
        await pilot.press("c")
        await pilot.pause()
        await pilot.press(*f"{code[:2]}-{code[2:]}".lower(), "enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert m.room(room.id).players == ("영희", "철수")


# ---------------------------------------------------------------- real SSH: 철수+CODE@host
def login(server: Any, username: str) -> Any:
    """Keyless login; the passphrase is the name part's (the identity is the name alone)."""
    name, _ = split_login(username)
    return server.connect(username, passphrase=default_passphrase(name))


async def test_direct_join_by_code_and_a_second_player_with_the_same_code(tmp_path: Path) -> None:
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = code_of(m, room.id)
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        async with login(server, f"철수+{code.lower()}") as first:
            await first.wait_for("방장 영희님이 시작하기를")
            await first.wait_for(f"방 코드 {code}")
            async with login(server, f"민수+{code}") as second:
                await second.wait_for("방장 영희님이 시작하기를")
                await wait_until(lambda: m.room(room.id).players == ("영희", "철수", "민수"))
                assert m.room_of("철수") == m.room_of("민수") == room.id


async def test_direct_join_by_room_name_and_the_name_part_is_the_identity(
    tmp_path: Path,
) -> None:
    m = manager()
    room = m.create_room("영희", "영희네", {})
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        async with login(server, "철수+영희네") as client:
            await client.wait_for("방장 영희님이 시작하기를")
            assert m.room_of("철수") == room.id
        await wait_until(lambda: m.room_of("철수") is None)
        # 철수 is now held by his passphrase: another one with a room part does not get in
        with pytest.raises(Exception):  # noqa: B017,PT011 - asyncssh's PermissionDenied
            async with connect(server.port, "철수+영희네", passphrase="다른-비밀번호-99"):
                pass
        assert m.room_of("철수") is None


async def test_stale_code_lands_in_the_lobby_with_a_message(tmp_path: Path) -> None:
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True)
    code = code_of(m, room.id)
    m.leave(room.id, "영희")  # the room closed: its code is stale
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        async with login(server, f"철수+{code}") as client:
            await client.wait_for("철수님")
            await client.wait_for(f"'{code}' 방을 찾지 못했어요")
            assert m.room_of("철수") is None


async def test_direct_join_of_a_playing_private_room_watches(tmp_path: Path) -> None:
    m = manager()
    room = m.create_room("영희", "비밀 판", {}, private=True)
    code = code_of(m, room.id)
    m.join(room.id, "철수", code)
    m.start(room.id, "영희")
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        async with login(server, f"민수+{code}") as client:
            await client.wait_for("· 게임 중 ·")
            await wait_until(lambda: m.room(room.id).spectators == ("민수",))
            assert "민수" not in m.room(room.id).players


def test_wrong_codes_are_limited_per_nickname_so_codes_cannot_be_scanned() -> None:
    clock = FakeClock()
    m = RoomManager(clock=clock, seed_source=lambda: 42)
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    wrong = [c * 8 for c in "ZYXWVT" if c * 8 != code]
    for guess in wrong[:3]:
        with refused("wrong_code"):
            m.join(room.id, "철수", guess)
    for guess in wrong[3:5]:  # a code that opens no room (the only room has another) counts too
        with refused("room_not_found"):
            m.direct_join(guess, "철수")
    with refused("too_many_guesses"):
        m.join(room.id, "철수", code)  # even the right one, for a minute
    with refused("too_many_guesses"):
        m.direct_join(code, "철수")
    m.join(room.id, "민수", code)  # others are not held back
    clock.advance(61)
    m.join(room.id, "철수", code)
    assert m.room(room.id).players == ("영희", "민수", "철수")


# ---------------------------------------------------------------- item 10: no scan by address
def guesses(code: str, n: int) -> list[str]:
    """``n`` well-formed codes, none of them ``code``."""
    alphabet = CODE_ALPHABET
    found = []
    for i in range(n + 1):
        guess = "".join(alphabet[(i // 30**k) % 30] for k in range(CODE_LENGTH))
        if guess != code:
            found.append(guess)
    return found[:n]


def test_throwaway_nicknames_from_one_address_share_its_wrong_codes() -> None:
    clock = FakeClock()
    m = RoomManager(clock=clock, seed_source=lambda: 42)
    room = m.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = code_of(m, room.id)
    for n, guess in enumerate(guesses(code, ADDRESS_GUESS_LIMIT)):
        nick = f"스캔{n}"  # a fresh nickname for every guess
        m.session_connected(nick, "127.0.0.1")
        with refused("room_not_found"):
            m.direct_join(guess, nick)
    m.session_connected("스캔x", "127.0.0.1")
    with refused("too_many_guesses"):
        m.direct_join(code, "스캔x")  # even the right code, for a minute
    with refused("too_many_guesses"):
        m.watch(room.id, "스캔x", code)
    m.session_connected("친구", "127.0.0.2")  # another address is not held back
    assert m.direct_join(code, "친구") == room.id
    clock.advance(61)
    assert m.direct_join(code, "스캔x") == room.id


def test_an_ipv6_64_is_one_address_for_the_guesses() -> None:
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True)
    code = code_of(m, room.id)
    for n, guess in enumerate(guesses(code, ADDRESS_GUESS_LIMIT)):
        m.session_connected(f"스캔{n}", f"2001:db8:1:2::{n + 1:x}")
        with refused("wrong_code"):
            m.join(room.id, f"스캔{n}", guess)
    m.session_connected("스캔x", "2001:db8:1:2:ffff::1")
    with refused("too_many_guesses"):
        m.join(room.id, "스캔x", code)


def test_many_addresses_get_one_wrong_code_each_once_the_server_is_crowded() -> None:
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True)
    code = code_of(m, room.id)
    wrong = guesses(code, SERVER_GUESS_LIMIT + 2)
    for n in range(SERVER_GUESS_LIMIT):  # one wrong code from each of 60 addresses
        m.session_connected(f"스캔{n}", f"10.0.{n // 200}.{n % 200 + 1}")
        with refused("room_not_found"):
            m.direct_join(wrong[n], f"스캔{n}")
    m.session_connected("스캔0b", "10.0.0.1")  # an address that guessed wrong: no more
    with refused("too_many_guesses"):
        m.direct_join(wrong[-1], "스캔0b")
    m.session_connected("친구", "192.0.2.7")  # a clean address still gets its code checked
    assert m.direct_join(code, "친구") == room.id


def test_one_room_crowded_with_wrong_codes_holds_back_those_who_guessed_it() -> None:
    m = manager()
    room = m.create_room("영희", "비밀 방", {}, private=True)
    code = code_of(m, room.id)
    wrong = guesses(code, ROOM_GUESS_LIMIT)
    for n in range(ROOM_GUESS_LIMIT):
        m.session_connected(f"스캔{n}", f"10.1.0.{n + 1}")
        with refused("wrong_code"):
            m.join(room.id, f"스캔{n}", wrong[n])
    with refused("too_many_guesses"):
        m.join(room.id, "스캔0", code)
    m.session_connected("친구", "192.0.2.7")
    m.join(room.id, "친구", code)


async def test_throwaway_nicknames_over_ssh_are_held_back_by_their_address(
    tmp_path: Path,
) -> None:
    """Two throwaway nicknames from 127.0.0.1 spend its ten wrong codes (five each, in the
    lobby's code prompt); a third nickname from there is refused even the right code, while a
    friend from 127.0.0.2 gets in with it."""
    m = manager()
    room = m.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = code_of(m, room.id)
    wrong = guesses(code, ADDRESS_GUESS_LIMIT)
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        for n in range(2):
            async with login(server, f"스캔{n}") as scanner:
                await scanner.wait_for(f"스캔{n}님")
                for guess in wrong[n * GUESS_LIMIT : (n + 1) * GUESS_LIMIT]:
                    await scanner.press("c")
                    await scanner.wait_for("Enter 들어가기")  # the prompt's line is visible
                    await scanner.type(guess)
                    await scanner.wait_for(guess)  # and so is what is typed
                    await scanner.press("enter")
                    await scanner.wait_for(f"'{guess}' 방을 찾지 못했어요")
        async with login(server, f"스캔2+{code}") as third:
            await third.wait_for("방 코드를 너무 여러 번 틀렸어요")
            assert m.room_of("스캔2") is None
        async with server.connect(
            f"친구+{code}", passphrase=default_passphrase("친구"), local_ip="127.0.0.2"
        ) as friend:
            await friend.wait_for("방장 영희님이 시작하기를")
            assert m.room_of("친구") == room.id
