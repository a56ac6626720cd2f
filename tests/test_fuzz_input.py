"""No key sequence crashes a session (issue 30 item 13).

Keys arrive from SSH in packets: two keys in one packet reach the app before it handled the
first (a screen it pushed is still composing, a widget it removed is still there). The named
crashes each have a direct test; then random and doubled key bursts go to every screen, over
Textual's pilot (keys posted back to back, as the SSH driver posts a packet's keys) and over
real SSH (each burst one write, and EOF right after the session opens or after a burst).

A crash ends the app with a traceback: over the pilot ``run_test`` raises it and the app's
return code is 1; over SSH it is an ERROR record of ``seotda.app`` (the crash report, see
``ui/driver.py``) and the session's ``disconnect`` with reason ``app_crashed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from textual import events
from textual.widgets import TabbedContent

from engine import Options
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomError, RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.journal import Journal
from seotda_tui.testing import Table
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.help import PANES, HelpScreen
from seotda_tui.ui.widgets.code_prompt import CodePrompt

from .ssh_harness import ssh_server, start_game
from .tiers import sized

#: Every key a screen binds, the keys widgets take, and a few that nothing binds:
#: name → (Textual's key, its character, the bytes a terminal sends).
KEYS: dict[str, tuple[str, str | None, bytes]] = {
    "enter": ("enter", "\r", b"\r"),
    "escape": ("escape", "\x1b", b"\x1b"),
    "tab": ("tab", "\t", b"\t"),
    "shift+tab": ("shift+tab", None, b"\x1b[Z"),
    "up": ("up", None, b"\x1b[A"),
    "down": ("down", None, b"\x1b[B"),
    "right": ("right", None, b"\x1b[C"),
    "left": ("left", None, b"\x1b[D"),
    "home": ("home", None, b"\x1b[H"),
    "end": ("end", None, b"\x1b[F"),
    "pageup": ("pageup", None, b"\x1b[5~"),
    "pagedown": ("pagedown", None, b"\x1b[6~"),
    "delete": ("delete", None, b"\x1b[3~"),
    "backspace": ("backspace", "\x7f", b"\x7f"),
    "space": ("space", " ", b" "),
    "f1": ("f1", None, b"\x1bOP"),
    "?": ("question_mark", "?", b"?"),
    "+": ("plus", "+", b"+"),
    "-": ("minus", "-", b"-"),
    "=": ("equals_sign", "=", b"="),
    "[": ("left_square_bracket", "[", b"["),
    "]": ("right_square_bracket", "]", b"]"),
    **{c: (c, c, c.encode()) for c in "abcdhijlmnpqrstwxyLK0123456789"},
    **{c: (c, c, c.encode()) for c in "ㅂㅁㅠㅗㅜㅈㅅㅊㄱㅛㄴㅓㅣㅑㅔㅡ가"},
}
NAMES = sorted(KEYS)

#: Waits between bursts: none (the next burst joins this one), one loop turn, until idle.
WAITS = ("none", "turn", "idle")


def key_event(app: SeotdaApp, name: str) -> events.Key:
    key, character, _bytes = KEYS[name]
    return events.Key(key, character).set_sender(app)


def burst(app: SeotdaApp, names: Sequence[str]) -> None:
    """Post ``names`` to the app back to back, as the SSH driver posts one packet's keys."""
    driver = app._driver
    assert driver is not None
    for name in names:
        driver.send_message(key_event(app, name))


async def wait(pilot: Any, how: str) -> None:
    if how == "turn":
        await asyncio.sleep(0)
    elif how == "idle":
        await pilot.pause()


def alive(app: SeotdaApp) -> bool:
    return app.return_code is None and app.is_running


# ------------------------------------------------------------------ the named crashes


def lobby_manager(tmp_path: Path | None = None) -> RoomManager:
    """A lobby with a public room (민수's) and, listed first, a private one (지영's)."""
    journal = Journal(tmp_path / "games.sqlite3") if tmp_path is not None else None
    m = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 7, journal=journal)
    m.create_room("지영", "비밀 방", Options(), private=True)
    m.create_room("민수", "공개 방", Options())
    return m


@asynccontextmanager
async def lobby_app(m: RoomManager, nick: str = "영희") -> AsyncIterator[tuple[SeotdaApp, Any]]:
    app = make_app_factory(m)(SimpleNamespace(nickname=nick), None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        yield app, pilot
    assert app.return_code in (None, 0)


@pytest.mark.parametrize(
    "keys", [("enter", "enter"), ("c", "c"), ("w", "w"), ("enter", "w"), ("c", "escape", "c")]
)
async def test_two_keys_in_one_packet_on_a_private_room_open_one_code_prompt(
    keys: tuple[str, ...],
) -> None:
    m = lobby_manager()
    async with lobby_app(m) as (app, pilot):
        burst(app, keys)
        await pilot.pause()
        assert alive(app)
        assert len(app.screen.query(CodePrompt)) == 1
        await pilot.press(*"WRONG", "enter")  # the one prompt takes a code (a wrong one)
        assert alive(app) and not app.screen.query(CodePrompt)
        assert m.room_of("영희") is None


async def test_language_then_help_in_one_packet() -> None:
    """``L`` on help (which redoes it in English) and ``?`` (which closes it) in one packet."""
    async with lobby_app(lobby_manager()) as (app, pilot):
        for keys in (("L", "?"), ("L", "right"), ("L", "L", "escape")):
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            burst(app, keys)
            await pilot.pause()
            assert alive(app)
            if isinstance(app.screen, HelpScreen):
                await pilot.press("escape")
        assert app.language.code == "ko"  # (six L: back to Korean)


async def test_help_keys_while_it_composes_or_changes_language() -> None:
    """Tab and scroll keys reach help before it composed, and while ``L`` redoes it."""
    async with lobby_app(lobby_manager()) as (app, pilot):
        burst(app, ("?", "right", "tab", "down", "shift+tab", "end", "L", "right", "pageup"))
        await pilot.pause()
        assert alive(app)
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        # the tab keys moved the tab that shows, and the screen knows which one it is
        assert screen.tab in PANES
        burst(app, ("right",))
        await pilot.pause()
        assert screen.tab == screen.query_one(TabbedContent).active
        burst(app, ("L", "L", "right", "L"))
        await pilot.pause()
        await pilot.pause()
        assert alive(app) and screen.tab == screen.query_one(TabbedContent).active


async def test_tab_keys_typed_while_help_composes_act_once_it_is_up() -> None:
    """``?``, then → (or → → ↓) in the next packet, before help finished composing (on a busy
    server it takes a second: the play-test lost them): once help is up, the tab they name
    shows, scrolled as typed. (In the same packet as ``?`` they are the lobby's keys.)"""
    for keys, tab, scrolled in (
        (("?", "right"), "help-rules-pane", False),
        (("?", "right", "right", "down"), "help-keys-pane", True),
        (("?", "left"), "help-keys-pane", False),
    ):
        async with lobby_app(lobby_manager()) as (app, pilot):
            burst(app, keys[:1])
            while not isinstance(app.screen, HelpScreen):  # pushed, not yet composed
                await asyncio.sleep(0)
            screen = app.screen
            assert not screen.is_mounted
            burst(app, keys[1:])  # the next packet
            await pilot.pause()
            await pilot.pause()
            assert screen.tab == tab == screen.query_one(TabbedContent).active
            assert (screen._scroller().scroll_y > 0) == scrolled


async def test_the_app_ends_cleanly_while_a_screen_composes() -> None:
    """The client's EOF (``app.exit``) in the same turn as the key that opened a screen."""
    for keys in (("?",), ("n",), ("h",), ("?", "L"), ("q", "y", "?")):
        for turns in range(0, 13, 4):
            async with lobby_app(lobby_manager()) as (app, pilot):
                burst(app, keys)
                for _turn in range(turns):
                    await asyncio.sleep(0)
                app.exit()
                await pilot.pause()


# ------------------------------------------------------------------ every screen, fuzzed


@dataclass(frozen=True)
class Scene:
    """A screen to fuzz: the world it lives in, whose app, the keys that reach it."""

    name: str
    world: str  # "lobby", "waiting" (a room before its game), "playing", "finished"
    who: str  # a nickname, or "actor" / "other" (whose turn it is, or not)
    prelude: tuple[str, ...]
    screen: str  # the screen class the prelude reaches


SCENES = (
    Scene("lobby", "lobby", "영희", (), "LobbyScreen"),
    Scene("code prompt", "lobby", "영희", ("c",), "LobbyScreen"),
    Scene("room form", "lobby", "영희", ("n",), "CreateRoomScreen"),
    Scene("help hands", "lobby", "영희", ("?",), "HelpScreen"),
    Scene("help rules", "lobby", "영희", ("?", "right"), "HelpScreen"),
    Scene("help keys", "lobby", "영희", ("?", "right", "right"), "HelpScreen"),
    Scene("records", "lobby", "영희", ("r",), "RecordsScreen"),
    Scene("history", "lobby", "영희", ("h",), "HistoryScreen"),
    Scene("replay", "lobby", "영희", ("h", "enter"), "ReplayScreen"),
    Scene("quit confirm", "lobby", "영희", ("q",), "ConfirmScreen"),
    Scene("lobby chat", "lobby", "영희", ("t",), "LobbyScreen"),
    Scene("waiting room host", "waiting", "a", (), "TableScreen"),
    Scene("waiting room guest", "waiting", "b", (), "TableScreen"),
    Scene("host menu", "waiting", "a", ("m",), "ModerationScreen"),
    Scene("acting player", "playing", "actor", (), "TableScreen"),
    Scene("waiting player", "playing", "other", (), "TableScreen"),
    Scene("spectator", "playing", "c", (), "TableScreen"),
    Scene("table chat", "playing", "actor", ("t",), "TableScreen"),
    Scene("leave confirm", "playing", "actor", ("q",), "ConfirmScreen"),
    Scene("host menu at the table", "playing", "a", ("m",), "ModerationScreen"),
    Scene("results", "finished", "a", (), "ResultsScreen"),
)

ONE_HAND = Options(end_condition="hands", hand_limit=10)  # the shortest game


def finish(m: RoomManager, room_id: str) -> None:
    """Play ``room_id``'s game to its end server-side (check, call, ready, first two cards)."""
    for _step in range(500):
        game = m.live_game(room_id)
        if game is None or game.finished:
            return
        pending = game.pending()["players"]
        if not pending:
            m.clock.advance(60)  # type: ignore[attr-defined]
            continue
        nick = pending[0]
        kinds = [a["type"] for a in game.legal_actions(nick)]
        kind = next((k for k in ("check", "call", "ready", "choose") if k in kinds), kinds[0])
        action: dict[str, Any] = {"type": kind}
        if kind == "choose":
            seat = next(s for s in game.view(nick)["seats"] if s["id"] == nick)
            action["cardIds"] = [c["id"] for c in seat["cards"]][:2]  # type: ignore[typeddict-item]
        elif kind not in ("check", "call", "ready"):
            action["accept"] = False
        with contextlib.suppress(RoomError):  # (refused: the loop asks the game again)
            m.act(room_id, nick, action)
    raise AssertionError("the game did not end")


@asynccontextmanager
async def scene_apps(
    scene: Scene, data: Path
) -> AsyncIterator[tuple[SeotdaApp, Any, dict[str, Any]]]:
    """The scene's world, its apps running; yields the app that gets the keys, its pilot,
    and every app's pilot (by nickname)."""
    if scene.world == "lobby":
        m = lobby_manager(data)
        past = m.create_room(scene.who, "지난 판", ONE_HAND)  # for the history and the replay
        m.join(past.id, "철수")
        m.start(past.id, scene.who)
        finish(m, past.id)
        for nick in (scene.who, "철수"):
            m.leave(past.id, nick)
        async with lobby_app(m, scene.who) as (app, pilot):
            yield app, pilot, {scene.who: pilot}
        return
    players, options = ["a", "b"], ONE_HAND
    async with Table.open(
        players, spectators=["c"], options=options, start=scene.world != "waiting"
    ) as t:
        if scene.world == "finished":
            finish(t.manager, t.room_id)
            await t.settle()
        who: str | None = scene.who
        if who in ("actor", "other"):
            actor = t.actor
            who = actor if who == "actor" else next(p for p in players if p != actor)
        assert who is not None
        yield t.app(who), t.pilot(who), t.pilots


async def fuzz(scene: Scene, steps: Sequence[tuple[list[str], str]], data: Path) -> None:
    async with scene_apps(scene, data) as (app, pilot, pilots):
        for name in scene.prelude:
            burst(app, [name])
            await pilot.pause()
        assert type(app.screen).__name__ == scene.screen, scene
        for names, how in steps:
            if not alive(app):
                break
            burst(app, names)
            await wait(pilot, how)
        if alive(app):
            app.exit()  # the client's EOF, right after the last burst
        for other in pilots.values():
            await other.pause()
        for other in pilots.values():
            assert other.app.return_code in (None, 0), f"{other.app.nickname}'s app crashed"


def steps_from(seed: int, count: int | None = None) -> list[tuple[list[str], str]]:
    """Bursts of 1–4 keys, half of them one key doubled, each followed by one of the waits.
    (Drawn from a seed rather than by Hypothesis's list strategies, whose first example is
    the smallest one: ``make test`` runs one example, and it must be a real one.)"""
    rng = random.Random(seed)
    steps = []
    for _step in range(count or sized(25, 80)):
        first = rng.choice(NAMES)
        extra = rng.choices(NAMES, k=rng.randint(0, 3))
        steps.append(([first, first] if rng.random() < 0.5 else [first, *extra], rng.choice(WAITS)))
    return steps


@pytest.mark.parametrize("scene", SCENES, ids=[scene.name for scene in SCENES])
def test_random_and_doubled_keys_on_every_screen(scene: Scene, tmp_path: Path) -> None:
    runs = iter(range(10**6))

    @settings(
        max_examples=sized(1, 50),
        deadline=None,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(seed=st.integers(0, 2**32 - 1))
    def check(seed: int) -> None:
        asyncio.run(fuzz(scene, steps_from(seed), tmp_path / str(next(runs))))

    check()


#: ``make soak``'s failing examples (scene, seed, the shortest failing run of steps) and the
#: crash each found: help's tab bar mounting after the session's end took its tabs (lobby, room
#: form, help ×2); a doubled Enter on the host menu dismissing twice, the second time the
#: table below it and then the last screen (host menu, leave confirm); a host-menu answer
#: said on a table screen already closed (waiting room host, waiting player, host menu at
#: the table).
SOAK_SEEDS = [
    ("lobby", 32184, 45),
    ("room form", 102535, 67),
    ("help rules", 153916718, 18),
    ("help keys", 712, 31),
    ("waiting room host", 247900201, 57),
    ("host menu", 35581, 5),
    ("waiting player", 74744, 59),
    ("leave confirm", 155, 15),
    ("host menu at the table", 13590804, 28),
]


@pytest.mark.parametrize(("name", "seed", "count"), SOAK_SEEDS)
def test_the_soaks_failing_seeds(name: str, seed: int, count: int, tmp_path: Path) -> None:
    scene = next(scene for scene in SCENES if scene.name == name)
    asyncio.run(fuzz(scene, steps_from(seed, count), tmp_path))


def test_the_seed_that_left_the_pot_check_without_its_table(tmp_path: Path) -> None:
    """make soak's seed 623 (80 steps) in the host's waiting room: a game started and left
    again, the pot's after-refresh check ran on a table whose widgets were gone (NoMatches
    'PotView', the app ended)."""
    scene = next(scene for scene in SCENES if scene.name == "waiting room host")
    asyncio.run(fuzz(scene, steps_from(623, 80), tmp_path))


# ------------------------------------------------------------------ over real SSH


def crashes(records: Sequence[logging.LogRecord]) -> list[str]:
    """Every crash report (``seotda.app`` errors) and every session that ended in a crash."""
    found = []
    for record in records:
        fields = record_fields(record)
        if record.name.startswith("seotda.app") and record.levelno >= logging.ERROR:
            found.append(record.getMessage()[-1500:])
        elif fields.get("event") == "disconnect" and fields.get("reason") == "app_crashed":
            found.append(f"{fields.get('user')}: app_crashed")
        elif record.exc_info:
            found.append(record.getMessage())
    return found


async def test_eof_right_after_the_session_opens_over_ssh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """EOF as soon as the shell opens (the lobby still composing), or right after a packet
    that opens a screen: each session ends as the client left; none leaves a crash report."""
    caplog.set_level(logging.INFO)
    m = lobby_manager()
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        for n in range(sized(6, 120)):
            async with server.connect(f"eof{n % 3}") as client:
                assert client.chan is not None
                first = (b"", b"?", b"n", b"cc", b"\r\r")[n % 5]
                if first:
                    await client.wait_for("환영해요")
                    client.chan.write(first)
                client.chan.write_eof()
                await client.wait_closed()
    assert not crashes(caplog.records)
    ends = [f for r in caplog.records if (f := record_fields(r)).get("event") == "disconnect"]
    assert len(ends) == sized(6, 120)


#: The named crashes' packets (the private room is the lobby's first row), each L paired.
NAMED_BURSTS = (b"\r\r", b"cc", b"ww", b"\rw", b"c\x1bc", b"?LL", b"LL?", b"??", b"?\t\t")


async def test_doubled_and_random_keys_over_ssh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each burst is one write (one packet): the named doubles on a private room and on help,
    then random bursts from two players at a table, then EOF; no session crashes."""
    caplog.set_level(logging.INFO)
    rng = random.Random(sized(1, random.randrange(10**9)))
    m = lobby_manager()
    async with (
        ssh_server(tmp_path, make_app_factory(m)) as server,
        server.connect("영희") as host,
        server.connect("철수") as guest,
    ):
        for client in (host, guest):
            await client.wait_for("환영해요")
        for data in NAMED_BURSTS:
            await host.send(data)
            await asyncio.sleep(0.2)
            await host.send(b"\x1b")
            await asyncio.sleep(0.6)  # (a lone ESC waits out the escape delay)
        await host.wait_for("환영해요")  # still there, in the lobby, in Korean
        for nick in ("지영", "민수"):  # their rooms close: the game's room is the first row
            room_id = m.room_of(nick)
            assert room_id is not None
            m.leave(room_id, nick)
        await start_game(host, "영희", guest)
        for _step in range(sized(30, 400)):
            client = rng.choice((host, guest))
            if client.closed.is_set():
                continue
            names = [rng.choice(NAMES) for _ in range(rng.randint(1, 4))]
            if rng.random() < 0.5:
                names = [names[0], names[0]]
            await client.send(b"".join(KEYS[name][2] for name in names))
            await asyncio.sleep(rng.choice((0, 0.01, 0.05, 0.15)))
        for client in (host, guest):
            if not client.closed.is_set():
                assert client.chan is not None
                client.chan.write_eof()
            await client.wait_closed()
    assert not crashes(caplog.records)
