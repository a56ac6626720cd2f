"""The message catalogue (seotda_tui/i18n.py): complete, compiled, per session, on every screen.

* every msgid the code marks (Babel's extraction, the keywords of the Makefile) has an English
  translation with the same placeholders, and the compiled .mo says what the .po says;
* every screen rendered in the pseudo-locale ``qps`` (each translated text shown as ⟦text⟧)
  shows no Korean outside the markers but nicknames and room names: a text that does not go
  through the catalogue would show there;
* sessions in one process keep their own language; ``L`` switches only its own session;
* the nickname store keeps a registered name's choice, and old databases gain the column.
"""

from __future__ import annotations

import gettext
import os
import re
import sqlite3
import string
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.catalog import Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from engine import Options
from seotda_tui import i18n
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ssh.auth import AuthPolicy
from seotda_tui.ssh.keyless import KeylessLogin
from seotda_tui.ssh.store import NicknameStore
from seotda_tui.testing import Table, screen_text
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.base import BaseScreen
from seotda_tui.ui.widgets.code_prompt import CodePrompt

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "seotda_tui" / "locale" / "en" / "LC_MESSAGES" / "seotda.po"
MO = PO.with_suffix(".mo")
#: The Makefile's BABEL_KEYWORDS.
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "RoomError": (2,),
    "OptionsError": None,
    "IllegalAction": None,
    "Refusal": (2,),
}
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]+")
FRAMES = "█▊▎│▌▐"  # the edges of panes and modals


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogue() -> None:
    """``make test`` compiles the .mo first; a bare ``pytest`` run compiles it here (into a file
    of this process's own, then renamed: another xdist worker may be reading the old one)."""
    if not MO.exists() or MO.stat().st_mtime < PO.stat().st_mtime:
        fresh = MO.with_name(f"{MO.name}.{os.getpid()}")
        with PO.open("rb") as source, fresh.open("wb") as target:
            write_mo(target, read_po(source))
        fresh.replace(MO)
        i18n.translations.cache_clear()


def code_msgids() -> set[str]:
    found: set[str] = set()
    for package in ("engine", "seotda_tui"):
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT / package, [("**.py", "python")], keywords=KEYWORDS
        ):
            found.add(message if isinstance(message, str) else message[0])
    return found


def fields(text: str) -> list[str]:
    return sorted(f for _lit, f, _spec, _conv in string.Formatter().parse(text) if f)


# ---------------------------------------------------------------------- the catalogue
def test_every_msgid_in_the_code_is_translated_in_english() -> None:
    with PO.open("rb") as f:
        catalogue = read_po(f)
    ids = code_msgids()
    assert len(ids) > 500  # the extraction found the code's texts (not an empty run)
    untranslated = sorted(m for m in ids if m not in catalogue or not all(forms(catalogue[m])))
    assert not untranslated, untranslated
    mismatched = [m for m in ids if any(fields(m) != fields(f) for f in forms(catalogue[m]))]
    assert not mismatched, mismatched
    fuzzy = [m.id for m in catalogue if m.id and m.fuzzy]
    assert not fuzzy, fuzzy


def test_the_compiled_catalogue_says_what_the_po_says() -> None:
    with PO.open("rb") as f:
        catalogue = read_po(f)
    with MO.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    stale = [m.id for m in catalogue if m.id and compiled_forms(compiled, m) != forms(m)]
    assert not stale, f"run `make i18n`: {stale[:5]}"
    assert any(m.pluralizable for m in catalogue)  # (the plural entries were checked too)


def forms(message: Message) -> list[str]:
    """A .po entry's translations: one, or one per plural form (``msgstr[0]``, ``[1]``)."""
    string = message.string
    return [string] if isinstance(string, str) else list(string)


def compiled_forms(compiled: gettext.GNUTranslations, message: Message) -> list[str]:
    """What the .mo says for ``message``: English has two plural forms (n == 1, n != 1)."""
    if isinstance(message.id, str):
        return [compiled.gettext(message.id)]
    singular, plural = message.id[0], message.id[1]
    return [compiled.ngettext(singular, plural, n) for n in (1, 2)]


def test_english_hand_names_keep_the_korean_word_and_the_badges_fit() -> None:
    from engine import DECK
    from seotda_tui.ui.widgets.card_art import render_card_lines
    from seotda_tui.ui.widgets.texts import card_name, hand_name

    token = i18n.current.set(i18n.Language(i18n.ENGLISH))
    try:
        assert hand_name("38광땡") == "38 Gwang-ttaeng"
        assert hand_name("장땡") == "Jang-ttaeng" and hand_name("7땡") == "7-ttaeng"
        assert hand_name("알리") == "Ali" and hand_name("5끗") == "5 kkeut"
        assert card_name(DECK[4]).endswith("Bright") and "Animal" in card_name(DECK[12])
        for card in DECK:  # every card, size and style: English words, and the card fits
            for size in ("large", "compact"):
                for style in ("box", "big"):
                    lines = render_card_lines(card, size, style)
                    assert not HANGUL.search("".join(line.plain for line in lines)), card
                    # (render_card_lines asserts that every line is the card's width)
    finally:
        i18n.current.reset(token)


def test_language_choice_rules() -> None:
    assert i18n.from_environment({"LANG": "en_US.UTF-8"}) == "en"
    assert i18n.from_environment({"LANG": "ko_KR.UTF-8"}) == "ko"
    assert i18n.from_environment({"LANG": "de_DE"}) == "ko"  # anything else: Korean
    assert i18n.from_environment({"LC_ALL": "en", "LANG": "ko_KR"}) == "en"
    assert i18n.from_environment({"LANG": "  "}) is None and i18n.from_environment({}) is None
    assert i18n.next_language("ko") == "en" and i18n.next_language("en") == "ko"
    assert i18n.normalize("EN") == "en" and i18n.normalize("fr") is None


def test_login_prompts_and_refusals_come_from_the_catalogue(tmp_path: Path) -> None:
    """What auth says before a session (the passphrase prompts, the refusals) is in the
    server's default language: every prompt of a first keyless login is marked in qps."""
    store = NicknameStore(tmp_path)
    try:
        policy = AuthPolicy(store, password="shared secret")
        policy.language = i18n.Language(i18n.PSEUDO)
        challenge = KeylessLogin(policy, "newname").start()
        assert not isinstance(challenge, bool)
        prompts = [text for text, _echo in challenge[3]]
        assert len(prompts) == 3  # server password, new passphrase, again
        for text in prompts:
            assert not HANGUL.search(unmarked(text, ["newname"])), text
        refusal = policy.name_state("bad name").refusal or ""
        assert refusal.startswith(i18n.PSEUDO_OPEN)
    finally:
        store.close()


def test_a_korean_server_says_it_in_english_too_before_a_session(tmp_path: Path) -> None:
    """Before a session the client's LANG is unknown: on a Korean server what auth tells a
    visitor (the first-login instructions, refusals) has its English line below; the prompts
    stay one line; a server whose default is English says it in English only."""
    store = NicknameStore(tmp_path)
    try:
        policy = AuthPolicy(store)
        challenge = KeylessLogin(policy, "newname").start()
        assert not isinstance(challenge, bool)
        first, confirm = (text for text, _echo in challenge[3])
        instructions, _, prompt = first.rpartition("\n")
        assert HANGUL.search(instructions) and "passphrase" in instructions.lower()
        assert prompt == "새 닉네임 비밀번호 (new passphrase): " and "\n" not in confirm
        refusal = policy.name_state("bad name").refusal or ""
        korean, english = refusal.split("\n")
        assert HANGUL.search(korean) and "nickname" in english and not HANGUL.search(english)
        policy.language = i18n.Language(i18n.ENGLISH)
        only = policy.name_state("bad name").refusal or ""
        assert only == english
    finally:
        store.close()


# ---------------------------------------------------------------------- the store
def test_a_registered_name_keeps_its_language_and_old_databases_gain_the_column(
    tmp_path: Path,
) -> None:
    old = sqlite3.connect(tmp_path / "seotda.sqlite3")  # a database from before languages
    old.executescript(
        "CREATE TABLE nicknames (nickname TEXT PRIMARY KEY, skeleton TEXT NOT NULL, "
        "key_fingerprint TEXT, passphrase TEXT, first_seen REAL NOT NULL, "
        "last_seen REAL NOT NULL, CHECK ((key_fingerprint IS NULL) <> (passphrase IS NULL)));"
        "INSERT INTO nicknames VALUES ('old', 'old', 'SHA256:x', NULL, 1, 1);"
    )
    old.commit()
    old.close()
    store = NicknameStore(tmp_path)
    try:
        assert store.key_for("old") == "SHA256:x" and store.language("old") is None
        assert store.set_language("old", "en") and store.language("old") == "en"
        assert store.set_language("old", "ko") and store.language("old") == "ko"
        assert not store.set_language("free", "en")  # not registered: nothing is kept
        assert store.language("free") is None
        store.release("old")
        assert store.language("old") is None  # a released name forgets it
    finally:
        store.close()


# ---------------------------------------------------------------------- screens
def unmarked(text: str, names: Iterable[str] = ()) -> str:
    """``text`` without its ⟦marked⟧ parts (nested, wrapped over lines, cut at the right
    edge, or partly under a modal's frame) and without the given nicknames and room names."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"⟦[^⟦⟧]*⟧", " ", text)
    text = re.sub(r"⟦[^⟧\n]*", " ", text)  # cut at the edge of its line (or of a modal)
    # the rest of one cut at the previous line's end, or whose start a modal covers
    text = re.sub(rf"(?m)(?:^|(?<=[{FRAMES}]))[^⟦⟧{FRAMES}\n]*⟧", " ", text)
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def assert_all_marked(
    text: str, names: Iterable[str] = (), where: str = "", shows: str = ""
) -> None:
    """No Korean outside the markers; ``shows``: a marked text that proves the screen."""
    assert i18n.PSEUDO_OPEN in text, f"{where}: nothing translated?\n{text}"
    assert f"⟦{shows}" in text, f"{where}: not the screen meant\n{text}"
    rest = unmarked(text, names)
    found = HANGUL.findall(rest)
    assert not found, f"{where}: text outside the catalogue {found}\n{text}"


def modal_part(text: str) -> str:
    """Only what is inside a modal's frame (█…█): around it, the screen below shows cut."""
    inner = []
    for line in text.splitlines():
        left, right = line.find("█"), line.rfind("█")
        if 0 <= left < right:
            inner.append(line[left + 1 : right])
    return "\n".join(inner)


def to_language(app: SeotdaApp, code: str) -> None:
    """What ``L`` does, to any language (here: the pseudo-locale), on the app's own task
    (where its language is the context's: see seotda_tui/i18n.py)."""

    def switch() -> None:
        app.set_language(code)
        for screen in app.screen_stack:
            if isinstance(screen, BaseScreen):
                screen.language_changed()

    app.call_later(switch)


async def pseudo(t: Table, *nicks: str) -> None:
    for nick in nicks or tuple(t.apps):
        to_language(t.app(nick), i18n.PSEUDO)
    await t.settle()
    await t.settle()


ROOM = "테스트 방"  # Table.open's room name


async def test_pseudo_locale_lobby_form_prompt_and_confirm() -> None:
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 3)
    manager.create_room("zed", "zroom", Options(card_mode="three"))
    language = i18n.Language(i18n.PSEUDO)
    app = make_app_factory(manager)(
        SimpleNamespace(nickname="ann"), SimpleNamespace(language=language)
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        names = ["ann", "zed", "zroom"]
        assert_all_marked(screen_text(app), names, "lobby", "섯다 로비")
        await pilot.press("c")  # the code prompt
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "code prompt", "섯다 로비")
        prompt = app.screen.query_one(CodePrompt)
        assert prompt.placeholder.startswith("⟦예:"), prompt.placeholder
        await pilot.press("escape", "n")
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "room form", "새 방 만들기")
        await pilot.press("escape", "q")
        await pilot.pause()
        assert_all_marked(modal_part(screen_text(app)), names, "confirm", "접속을 끊고")
        await pilot.press("n", "question_mark")
        await pilot.pause()
        for tab, shows in (("jokbo", "3월 광 + 8월"), ("rules", "■ 진행"), ("keys", "어디서나")):
            assert_all_marked(screen_text(app), names, f"help {tab}", shows)
            await pilot.press("right")
            await pilot.pause()
        await pilot.press("escape", "r")
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "records (none kept)", "이 서버는 전적을")
        await pilot.press("escape", "h")
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "past games (no journal)", "이 서버는 게임을")
        await pilot.press("escape")
        await pilot.resize_terminal(70, 20)
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "too small", "창을 키워")


async def test_pseudo_locale_table_for_actor_waiter_and_spectator() -> None:
    players = ["ann", "ben", "cat"]
    async with Table.open(
        players, spectators=["dan"], seed=7, size=(120, 40), start=False, language=i18n.PSEUDO
    ) as t:
        names = [*players, "dan", ROOM]
        for nick in (*players, "dan"):
            assert_all_marked(t.text(nick), names, f"waiting room ({nick})")
        await t.press("ann", "m")
        assert_all_marked(modal_part(t.text("ann")), names, "host menu", "방장 메뉴")
        await t.press("ann", "escape", "s")
        for nick in (*players, "dan"):
            assert_all_marked(t.text(nick), names, f"table ({nick})", "게임 중")
        await t.press(t.actor, "3")  # a bet: the log and the seats say it
        await t.press(t.actor, "4")
        for nick in (*players, "dan"):
            assert_all_marked(t.text(nick), names, f"after bets ({nick})")
        await t.press("ben", "p")
        assert_all_marked(t.text("ben"), names, "seat records", "자리별 전적")
        await t.press("ben", "escape")
        t.play_until(lambda game: game.finished)
        await t.settle()
        for nick in players:
            assert_all_marked(t.text(nick), names, f"results ({nick})", "게임 결과")


async def test_pseudo_locale_three_card_choice() -> None:
    options = Options(card_mode="three")
    async with Table.open(
        ["ann", "ben"], options=options, seed=5, size=(80, 24), language=i18n.PSEUDO
    ) as t:
        t.play_until(lambda game: game.view(None).get("handPhase") == "choose")
        await t.refresh()
        await t.press("ann", "1", "2")
        assert_all_marked(t.text("ann"), ["ann", "ben", ROOM], "3-card choice", "고른 패")


async def test_pseudo_locale_records_and_replay(tmp_path: Path) -> None:
    from .test_records import play_games
    from .test_replay import PLAYERS, WATCHER, played_game

    manager, _keys = play_games(tmp_path / "records", ["r1"])
    app = make_app_factory(manager)(
        SimpleNamespace(nickname="철수"), SimpleNamespace(language=i18n.Language(i18n.PSEUDO))
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        names = ["철수", "영희", "손님", "봇1(신중)", "기록"]
        assert_all_marked(screen_text(app), names, "results (on coming back)", "게임 결과")
        await pilot.press("q")  # the results, then the room, to the lobby
        await pilot.pause()
        if "⟦섯다 로비" not in screen_text(app):
            await pilot.press("q")
            await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert_all_marked(screen_text(app), names, "records", "섯다 전적")
    with played_game(tmp_path / "replay") as played:
        app = make_app_factory(played.manager)(
            SimpleNamespace(nickname=PLAYERS[0]),
            SimpleNamespace(language=i18n.Language(i18n.PSEUDO)),
        )
        names = [*PLAYERS, WATCHER, "복기 방"]
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("h")
            await pilot.pause()
            assert_all_marked(screen_text(app), names, "past games", "지난 게임 ·")
            await pilot.press("enter")
            await pilot.pause()
            for _ in range(12):
                await pilot.press("right")
            await pilot.pause()
            assert_all_marked(screen_text(app), names, "replay", "다시 보기 ·")


# ---------------------------------------------------------------------- sessions
async def test_two_sessions_in_one_process_keep_their_own_language() -> None:
    """One app in English beside one in Korean, on the same table, at the same time; ``L``
    in one switches that one only."""
    async with Table.open(["ann", "ben"], seed=7) as t:
        await t.press("ann", "L")
        assert "Your turn!" in t.text(t.actor) if t.actor == "ann" else "'s turn" in t.text("ann")
        assert "Hand 1" in t.text("ann") and "1판" in t.text("ben")
        assert "Hand 1" not in t.text("ben")
        await t.press("ben", "L")
        await t.press("ann", "L")
        assert "1판" in t.text("ann") and "Hand 1" in t.text("ben")


async def test_L_redoes_every_screen_in_english() -> None:
    """``L`` pressed on each screen (a real key) leaves no Korean on it but the names (and,
    in the form, the room name already typed in the Korean default)."""

    async def english_now(t: Table, nick: str, where: str, *names: str) -> None:
        await t.press(nick, "L")
        rest = unmarked(t.text(nick), ["ann", "ben", ROOM, "한국어", *names])
        assert not HANGUL.search(rest), f"{where}:\n{t.text(nick)}"
        await t.press(nick, "L")  # back to Korean for the next screen
        assert HANGUL.search(unmarked(t.text(nick), ["ann", "ben", ROOM, *names])), where

    async with Table.open(["ann", "ben"], seed=7, start=False) as t:
        await english_now(t, "ann", "waiting room")
        await t.press("ann", "s")
        await english_now(t, t.actor or "ann", "table")
        await t.press("ann", "question_mark")
        for tab in ("hands", "rules", "keys"):
            await english_now(t, "ann", f"help {tab}")
            await t.press("ann", "right")
        await t.press("ann", "escape", "p")
        await english_now(t, "ann", "seat records")
        await t.press("ann", "escape")
        t.play_until(lambda game: game.finished)
        await t.settle()
        await english_now(t, "ben", "results")
        await t.press("ben", "q")
        while "섯다 로비" not in t.text("ben"):
            await t.press("ben", "q")
        await english_now(t, "ben", "lobby")
        await t.press("ben", "n", "tab")  # (in the name field, L is a letter of the name)
        await english_now(t, "ben", "room form", "ben의 방")
        await t.press("ben", "escape", "h")
        await english_now(t, "ben", "past games (no journal)")
