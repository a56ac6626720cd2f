"""Every screen in both languages, at 80×24 and 120×40 (SVG and text snapshots in
tests/snapshots/en_* and ko_*; test_snapshots.py has the Korean table in more states).

The English ones show that the English texts fit the same layouts (cards, badges, the action
bar, the prompts) and hold no Korean but names; the Korean ones pin the source language's
screens. Update with ``SEOTDA_UPDATE_SNAPSHOTS=1 make test ARGS=tests/test_i18n_snapshots.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine import Options
from seotda_tui import i18n, tuning
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table, screen_text
from seotda_tui.ui.app import SeotdaApp, make_app_factory

from .test_snapshots import check

SIZES = [(80, 24), (120, 40)]
#: Both with the tuning on; on stock Textual (the Makefile's second run, which checks that the
#: tuning paints what Textual paints) Korean alone: the paint path is the same in both
#: languages, and the English half was a sixth of that run's CPU.
LANGUAGES = [i18n.KOREAN] if tuning.stock_from_env() else [i18n.ENGLISH, i18n.KOREAN]
#: The lobby's first words in each language (to find the lobby again).
LOBBY = {i18n.ENGLISH: "Seotda lobby", i18n.KOREAN: "섯다 로비"}
PLAYERS = ["Ann", "Ben", "Cat", "Dan"]
DEAL = {"Ann": ["3광", "7열"], "Ben": ["9열", "9띠"], "Cat": ["1띠", "2열"], "Dan": ["5띠", "6띠"]}
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
#: Korean an English screen may show: the room name Table.open gives, the language key's label.
ALLOWED = ("테스트 방", "한국어")


def snap(
    name: str, size: tuple[int, int], app: SeotdaApp, lang: str, names: tuple[str, ...] = ()
) -> None:
    """Compare the screen with its snapshot; an English one may show no Korean but ``names``
    (the fixture's nicknames and room names) and :data:`ALLOWED`."""
    text = screen_text(app)
    if lang == i18n.ENGLISH:
        rest = text
        for allowed in (*names, *ALLOWED):
            rest = rest.replace(allowed, "")
        assert not HANGUL.search(rest), f"Korean on the English {name}:\n{text}"
    with i18n.speaking(app.language):  # rows rendered from this task: the session's language
        svg = app.export_screenshot(title="Seotda")
    check(f"{lang}_{name}_{size[0]}x{size[1]}", svg, text)


def app_in(lang: str, manager: RoomManager, nick: str) -> SeotdaApp:
    session = SimpleNamespace(language=i18n.Language(lang))
    return make_app_factory(manager)(
        SimpleNamespace(nickname=nick), session
    )


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
async def test_lobby_form_confirm_and_help(size: tuple[int, int], lang: str) -> None:
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 3)
    manager.create_room("Zed", "Friday table", Options(max_raise="full"))
    app = app_in(lang, manager, "Ann")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        snap("lobby", size, app, lang)
        await pilot.press("c")
        await pilot.pause()
        snap("code_prompt", size, app, lang)
        await pilot.press("escape", "n")
        await pilot.pause()
        snap("room_form", size, app, lang)
        await pilot.press("escape", "q")
        await pilot.pause()
        snap("confirm_quit", size, app, lang)
        await pilot.press("n", "question_mark")
        await pilot.pause()
        for tab in ("help_hands", "help_rules", "help_keys"):
            # the tab's underline slides there (on stock Textual, under load, still moving)
            await pilot.wait_for_scheduled_animations()
            snap(tab, size, app, lang)
            await pilot.press("right")
            await pilot.pause()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
async def test_waiting_room_and_host_menu(size: tuple[int, int], lang: str) -> None:
    async with Table.open(PLAYERS[:3], seed=7, size=size, start=False, language=lang) as t:
        snap("waiting_room", size, t.app("Ann"), lang)
        await t.press("Ann", "m")
        snap("host_menu", size, t.app("Ann"), lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
async def test_table_actor_waiter_spectator_and_results(size: tuple[int, int], lang: str) -> None:
    async with Table.open(
        PLAYERS, seed=7, deal=DEAL, size=size, spectators=["Eve"], language=lang
    ) as t:
        for _ in range(4):  # everyone checks the first round, then a Half and a Call
            await t.press(t.actor, "2")
        await t.press(t.actor, "7")
        await t.press(t.actor, "4")
        actor = t.actor
        assert actor is not None
        waiter = next(p for p in PLAYERS if p != actor)
        snap("table_actor", size, t.app(actor), lang)
        snap("table_waiter", size, t.app(waiter), lang)
        snap("table_spectator", size, t.app("Eve"), lang)
        await t.press(waiter, "p")
        snap("seat_records", size, t.app(waiter), lang)
        await t.press(waiter, "escape")
        t.play_until(lambda game: game.finished)
        await t.settle()
        snap("results", size, t.app("Ann"), lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
async def test_three_card_choice(size: tuple[int, int], lang: str) -> None:
    options = Options(card_mode="three")
    async with Table.open(["Ann", "Ben"], options=options, seed=5, size=size, language=lang) as t:
        t.play_until(lambda game: game.view(None).get("handPhase") == "choose")
        await t.refresh()
        await t.press("Ann", "1", "2")
        snap("three_cards", size, t.app("Ann"), lang)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES)
async def test_past_games_replay_and_records(
    size: tuple[int, int], lang: str, tmp_path: Path
) -> None:
    from .test_records import play_games
    from .test_replay import played_game

    with played_game(tmp_path / "replay") as played:
        app = app_in(lang, played.manager, "영희")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            snap("past_games", size, app, lang, ("영희", "철수", "민수", "복기 방"))
            await pilot.press("enter")
            await pilot.pause()
            for _ in range(12):
                await pilot.press("right")
            await pilot.pause()
            snap("replay", size, app, lang, ("영희", "철수", "민수", "구경꾼", "복기 방"))
    manager, _keys = play_games(tmp_path / "records", ["r1"])
    app = app_in(lang, manager, "철수")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        while LOBBY[lang] not in screen_text(app):
            await pilot.press("q")
            await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        snap("records", size, app, lang, ("철수", "영희", "손님", "봇1(신중)", "기록"))


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_too_small(lang: str) -> None:
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 3)
    app = app_in(lang, manager, "Ann")
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        snap("too_small", (70, 20), app, lang)
