"""Help's 키 tab against the keys the screens bind and the README's keys table (issue 32 item 10).

The tab is drawn from ``help_text.KEY_SECTIONS``; each section names its README row. These
tests keep the three from drifting apart again: every key a screen or widget binds is in the
tab, and each section names the same keys as its README row. The pilot tests read the tab as
a player sees it, in both languages (the Korean one had no ``L`` line, neither had ``+``/``-``).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from textual.binding import Binding

import seotda_tui.ui
from seotda_tui import i18n
from seotda_tui.testing import Table
from seotda_tui.ui import keys
from seotda_tui.ui.screens.help import HelpScreen
from seotda_tui.ui.screens.help_text import KEY_SECTIONS, KeySection
from seotda_tui.ui.widgets import chatline

README = Path(__file__).resolve().parent.parent / "README.md"
HANGUL_KEY = re.compile(r"^[\u3131-\u318e]$")  # a key as a Korean input method sends it
#: Textual's key names as help and the README write them (the key map's, and the room list's
#: ``ctrl+home``/``ctrl+end``, which are its Home/End).
SHOWN = {**keys.SHOWN, "ctrl+home": "Home", "ctrl+end": "End"}
#: Keys named inside a description ("Enter sends, Esc closes"), here and in the README.
NAMED = re.compile(
    r"Shift\+Tab|\bTab\b|\bEnter\b|\bEsc\b|\bSpace\b|\bF1\b|PgUp|PgDn|Home|End|[←→↑↓]"
)


def bound_keys() -> dict[str, set[str]]:
    """Every key bound by a class of ``seotda_tui.ui`` (screens, widgets, the app), as shown,
    with the classes that bind it."""
    found: dict[str, set[str]] = {}
    for info in pkgutil.walk_packages(seotda_tui.ui.__path__, "seotda_tui.ui."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if not (isinstance(obj, type) and obj.__module__ == module.__name__):
                continue
            for binding in obj.__dict__.get("BINDINGS", ()):
                keys = binding.key if isinstance(binding, Binding) else binding[0]
                for key in keys.split(","):
                    if not HANGUL_KEY.match(key):
                        found.setdefault(SHOWN.get(key, key), set()).add(obj.__name__)
    return found


def _expand(token: str) -> set[str]:
    """ "1–8" is eight keys."""
    if re.fullmatch(r"\d–\d", token):
        return {str(n) for n in range(int(token[0]), int(token[-1]) + 1)}
    return {token}


def section_keys(section: KeySection) -> set[str]:
    """The keys a help section names: its keys column, and keys named in its descriptions."""
    keys: set[str] = set()
    for shown, what in section.entries:
        for token in shown.split():
            for key in ["[", "]"] if token == "[/]" else token.split("/"):
                keys |= _expand(key)
        keys |= set(NAMED.findall(what))
    return keys


def readme_rows() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| where | keys |") :].split("\n\n")[0]
    rows = {}
    for line in table.splitlines()[2:]:
        where, keys = (cell.strip() for cell in line.strip().strip("|").split("|", 1))
        rows[where] = keys.rstrip("|").strip()
    return rows


def readme_keys(row: str) -> set[str]:
    keys: set[str] = set()
    for first, last in re.findall(r"`(\d)`–`(\d)`", row):
        keys |= _expand(f"{first}–{last}")
    keys |= set(re.findall(r"`([^`]+)`", row))
    keys |= set(NAMED.findall(re.sub(r"`[^`]+`", "", row)))
    return keys


def test_every_key_a_screen_binds_is_in_help_keys_tab() -> None:
    bound = bound_keys()
    assert {"L", "+", "-", "?", "1", "8", "n", "Esc", "PgDn"} <= set(bound)  # (found them)
    in_help = set().union(*(section_keys(s) for s in KEY_SECTIONS))
    missing = {key: sorted(classes) for key, classes in bound.items() if key not in in_help}
    assert not missing, f"bound but not in help's 키 tab (help_text.KEY_SECTIONS): {missing}"


def test_help_sections_name_the_keys_of_their_readme_rows() -> None:
    rows = readme_rows()
    assert [s.where for s in KEY_SECTIONS] == list(rows), "one help section per README row"
    for section in KEY_SECTIONS:
        assert section_keys(section) == readme_keys(rows[section.where]), section.where


async def keys_tab_lines(t: Table, nick: str) -> list[str]:
    """Every line of the 키 tab, scrolled through a page at a time as a player would."""
    await t.press(nick, "question_mark")
    assert isinstance(t.screen(nick), HelpScreen)
    await t.press(nick, "right", "right")
    lines: list[str] = []
    for _page in range(8):
        lines += [line for line in t.text(nick).splitlines() if line not in lines]
        await t.press(nick, "pagedown")
    await t.press(nick, "escape")
    return lines


def keyed(lines: list[str], key: str) -> list[str]:
    """The tab's lines whose keys column is ``key`` (then the description)."""
    return [line for line in lines if re.match(rf"^ *{re.escape(key)} {{2,}}\S", line)]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize(
    ("language", "switch", "add_bot", "remove_bot"),
    [
        (i18n.KOREAN, "English ↔ 한국어", "봇 추가", "마지막 봇 빼기"),
        (i18n.ENGLISH, "한국어 (Korean) ↔ English", "add a bot", "remove the last bot"),
    ],
)
async def test_keys_tab_lists_L_and_the_bot_keys(
    size: tuple[int, int], language: str, switch: str, add_bot: str, remove_bot: str
) -> None:
    """The host in the waiting room and a seated player: both read L, + and - in the tab."""
    async with Table.open(["a", "b"], start=False, size=size, language=language) as t:
        for nick in ("a", "b"):
            lines = await keys_tab_lines(t, nick)
            assert any(switch in line for line in keyed(lines, "L")), lines
            assert any(add_bot in line for line in keyed(lines, "+")), lines
            assert any(remove_bot in line for line in keyed(lines, "-")), lines
            assert keyed(lines, "1–8") and keyed(lines, "Enter/Space/Esc"), lines


def test_english_key_descriptions_start_in_lower_case_as_the_readme_writes_them() -> None:
    """'w Watch' and 'h Past games' borrowed the lobby's column titles; a description reads
    as the README's keys table does (a name such as ASCII or a key such as Enter may lead)."""
    with i18n.speaking(i18n.Language(i18n.ENGLISH)):
        leading = {
            shown: i18n._(what).split()[0]
            for section in KEY_SECTIONS
            for shown, what in section.entries
        }
    capitalised = {
        shown: word
        for shown, word in leading.items()
        if word[0].isupper() and word not in {"ASCII", "Die"}  # 1–8: the bets' names
    }
    assert not capitalised, capitalised


def test_the_chat_lines_hints_name_the_key_maps_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat line's hints and its input's placeholder take their keys from the one key map,
    as help's keys column does: a key moved there moves in the hints (they were literal text,
    which nothing kept in step with the bindings). The wording is as before in both languages."""
    hints = chatline.hint_text(chatline.KEYS_TABLE)
    assert hints == "? 도움말 · t 채팅 · l 기록 · a ASCII · L English"
    assert chatline.placeholder() == "채팅: Enter 보내기 · Esc 닫기"
    with i18n.speaking(i18n.Language(i18n.ENGLISH)):
        lobby = chatline.hint_text(chatline.KEYS_LOBBY)
        assert lobby == "h past games · r records · ? help · t chat · a ASCII · L 한국어"
        assert chatline.placeholder() == "Chat: Enter send · Esc close"
    monkeypatch.setitem(keys.KEYS, "toggle_log", ("o",))
    monkeypatch.setitem(keys.KEYS, "cancel", ("f2",))
    assert chatline.hint_text(chatline.KEYS_TABLE) == hints.replace("l 기록", "o 기록")
    shorter = chatline.SHORTER_KEYS[chatline.KEYS_TABLE]
    assert [chatline.hint_text(h) for h in shorter] == [
        "? 도움말 · o 기록 · L English",
        "o 기록 · L English",
    ]
    assert chatline.placeholder() == "채팅: Enter 보내기 · f2 닫기"
