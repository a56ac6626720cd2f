"""The one key map (seotda_tui/ui/keys.py): the 두벌식 aliases, and no key doing two things.

Every screen and the app bind their keys through ``keys.bind``; these tests check the map
itself (each QWERTY letter's jamo, written out here row by row as the keyboard has them) and
what the screens made of it: every letter a class binds answers to its jamo the same way, no
key of a screen (with the app's keys under it) is bound to two actions, and every key a
screen's hint line names is one that screen binds.
"""

from __future__ import annotations

import importlib
import pkgutil
import string

import pytest
from textual.binding import Binding, BindingsMap
from textual.screen import Screen

import seotda_tui.ui
from seotda_tui import i18n
from seotda_tui.ui import keys
from seotda_tui.ui.app import SeotdaApp

#: The 두벌식 layout's three letter rows, QWERTY over jamo (unshifted).
ROWS = (
    ("qwertyuiop", "ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔ"),
    ("asdfghjkl", "ㅁㄴㅇㄹㅎㅗㅓㅏㅣ"),
    ("zxcvbnm", "ㅋㅌㅊㅍㅠㅜㅡ"),
)


def classes_with_bindings() -> list[type]:
    """Every class of ``seotda_tui.ui`` that declares BINDINGS of its own."""
    found = []
    for info in pkgutil.walk_packages(seotda_tui.ui.__path__, "seotda_tui.ui."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            mine = isinstance(obj, type) and obj.__module__ == module.__name__
            if mine and "BINDINGS" in obj.__dict__:
                found.append(obj)
    return found


def key_actions(bindings: BindingsMap) -> dict[str, set[tuple[str, bool]]]:
    """Each key's (action, priority) pairs."""
    return {
        key: {(b.action, b.priority) for b in bound}
        for key, bound in bindings.key_to_bindings.items()
    }


def test_every_qwerty_letter_has_its_dubeolsik_jamo() -> None:
    expected = {
        letter: jamo for qwerty, row in ROWS for letter, jamo in zip(qwerty, row, strict=True)
    }
    assert len(expected) == 26
    assert dict(keys.DUBEOLSIK) == expected


def test_keys_of_adds_the_alias_after_each_lowercase_letter_only() -> None:
    assert keys.keys_of("leave", "cancel") == ("q", "ㅂ", "escape")
    assert keys.keys_of("help") == ("question_mark", "f1")
    assert keys.keys_of("language") == ("L",)  # capital: its 두벌식 jamo is l's
    assert keys.keys_of("add_bot", "remove_bot") == ("plus", "equals_sign", "minus")


def test_the_intents_and_the_map_agree() -> None:
    """Every intent the type names has keys, and the map has nothing else."""
    assert set(keys.KEYS) == set(keys.INTENTS)
    assert all(keys.KEYS[intent] for intent in keys.INTENTS)


def test_bind_makes_one_binding_of_the_keys_and_their_aliases() -> None:
    binding = keys.bind(("cancel", "leave", "records"), "close", "닫기", priority=True)
    assert isinstance(binding, Binding)
    assert binding.key == "escape,q,ㅂ,r,ㄱ"
    assert (binding.action, binding.description, binding.show, binding.priority) == (
        "close",
        "닫기",
        False,
        True,
    )
    digits = keys.numbered("num({n})", keys.BET_NUMBERS, priority=True)
    assert [(b.key, b.action, b.priority) for b in digits[:2]] == [
        ("1", "num(1)", True),
        ("2", "num(2)", True),
    ]
    assert len(digits) == 8


def test_shown_writes_keys_as_help_does() -> None:
    assert keys.shown("help") == "?/F1"
    assert keys.shown(("leave", "cancel", "help")) == "q/Esc/?"
    assert keys.shown(("left", "right"), "next_field") == "←/→ Tab"
    assert keys.shown(("previous_hand", "next_hand"), ("page_up", "page_down")) == "[/] PgUp/PgDn"
    assert keys.shown("add_bot") == "+"
    assert keys.shown_numbers(keys.BET_NUMBERS) == "1–8"
    assert keys.shown_numbers(keys.CARD_NUMBERS) == "1/2/3"


def test_every_bound_letter_answers_to_its_jamo_the_same_way() -> None:
    """A player with the Korean input method on gets the same action from ㅂ as from q,
    on every screen, widget and the app."""
    checked = 0
    for cls in classes_with_bindings():
        bound = key_actions(BindingsMap(cls.__dict__["BINDINGS"]))
        for key, actions in bound.items():
            if key in keys.DUBEOLSIK:
                assert bound.get(keys.DUBEOLSIK[key]) == actions, (cls.__name__, key)
                checked += 1
    assert checked > 30  # (the lobby, the table, the app, ... were found)


def test_no_key_does_two_things_on_one_screen() -> None:
    """Within a class's own bindings no key has two actions, and no screen takes one of the
    app's keys (which work on every screen) for something else."""
    app_keys = key_actions(BindingsMap(SeotdaApp.__dict__["BINDINGS"]))
    screens = 0
    for cls in classes_with_bindings():
        own = key_actions(BindingsMap(cls.__dict__["BINDINGS"]))
        clashing = {key: actions for key, actions in own.items() if len(actions) > 1}
        assert not clashing, (cls.__name__, clashing)
        if issubclass(cls, Screen):
            screens += 1
            taken = set(own) & set(app_keys)
            assert not taken, (cls.__name__, taken)
    assert screens >= 10


# ---------------------------------------------------------------- the screens' key hints
def bound_keys(*holders: type) -> set[str]:
    """Every key the classes bind, with what they inherit (a Screen's Tab, an Input's Enter)."""
    return {
        key
        for cls in holders
        for base in cls.__mro__
        if "BINDINGS" in base.__dict__
        for key in BindingsMap(base.__dict__["BINDINGS"]).key_to_bindings
    }


def hint_holders() -> dict[keys.KeyHint, tuple[type, ...]]:
    """Every key hint line and the classes whose keys it names: its screen, the widget that
    takes the keys where it shows (a list's ↑/↓, a choice's ←/→, the code prompt's Enter), and
    the app where the hint names one of the app's keys (they work on every screen)."""
    from textual.widgets import OptionList

    from seotda_tui.ui.present import table, text, variants, waiting
    from seotda_tui.ui.present.text import FIRST_HAND_HINT
    from seotda_tui.ui.screens import (
        confirm,
        create_room,
        deal_record,
        lobby,
        moderation,
        quick_chat,
        records,
        replay,
        results,
        table_actions,
    )
    from seotda_tui.ui.screens import help as help_screen
    from seotda_tui.ui.screens.table import TableScreen
    from seotda_tui.ui.widgets import code_prompt, texts
    from seotda_tui.ui.widgets.choice import Choice
    from seotda_tui.ui.widgets.roomlist import RoomList

    form = (create_room.CreateRoomScreen, Choice)
    # the table's prompts, status words and waiting-room lines: the table binds every key
    # they name (some act in one phase only, e.g. y/n, Space; the binding is the screen's)
    at_table = (
        *(table.JOIN, table.START, table.ADD_BOT, table.REMOVE_BOT, table.MODERATE),
        *(table.LEAVE, table.CONFIRM, table.RECOMMEND, table.READY, table.RULES),
        *(table.REJOIN_YES, table.REJOIN_NO, table.REBUY_YES, table.REBUY_NO),
        *(table.GUSA_REFUND, table.GUSA_REMATCH, table.GUSA_DECLINE, table.RULES_HEAD),
        *(text.BET_KEYS, text.CHOOSE_KEYS, text.PICK_KEYS, text.PICK_FOUR_KEYS),
        *(text.GUSA_CHOICE_ASK, text.REJOIN_ASK, text.REBUY_ASK, text.READY_ASK),
        text.RECOMMENDED,
        *(variants.PICK_ASK, variants.PICK_BACK_KEY, variants.PICK_ON_KEY),
        *(variants.PICK_CONFIRM, variants.DRAW_ASK, variants.DRAW_KEY),
        variants.CHOOSE_FOUR_KEYS,
        *(waiting.START, waiting.START_WITH_TWO, waiting.START_AGAIN),
        *(waiting.SIT_TO_HOST, waiting.NO_HOST, waiting.NO_HOST_SHORT),
        table_actions.WATCHER_JOIN,
        texts.RULES_CHANGED,  # the hand log's line (the table's log)
    )
    return {
        **dict.fromkeys(at_table, (TableScreen,)),
        confirm.YES: (confirm.ConfirmScreen,),
        confirm.NO: (confirm.ConfirmScreen,),
        quick_chat.TITLE: (quick_chat.QuickChatScreen,),
        create_room.TITLE: form,
        create_room.EDIT_TITLE: form,
        results.KEYS: (results.ResultsScreen,),
        results.KEYS_LIVE: (results.ResultsScreen,),
        replay.LIST_KEYS: (replay.HistoryScreen, RoomList),
        replay.REPLAY_KEYS: (replay.ReplayScreen,),
        replay.REPLAY_KEYS_SHORT: (replay.ReplayScreen,),
        replay.DEAL_RECORD_KEY: (replay.ReplayScreen,),
        lobby.TITLE_KEYS: (lobby.LobbyScreen,),
        lobby.EMPTY: (lobby.LobbyScreen,),
        lobby.RULES_HEAD: (lobby.LobbyScreen,),
        moderation.TITLE: (moderation.ModerationScreen, OptionList),
        deal_record.HOW_TO: (deal_record.DealRecordScreen,),
        help_screen.FOOTER: (help_screen.HelpScreen, SeotdaApp),
        code_prompt.KEYS: (code_prompt.CodePrompt, lobby.LobbyScreen),
        FIRST_HAND_HINT: (TableScreen, SeotdaApp),
        records.KEYS: (records.RecordsScreen,),
        records.PANEL_KEYS: (records.SeatRecordsScreen,),
    }


def unbound(hint: keys.KeyHint, holders: tuple[type, ...]) -> list[str]:
    """The keys ``hint`` names that none of ``holders`` binds."""
    bound = bound_keys(*holders)
    return [key for key in hint.named() if key not in bound]


def test_every_key_hint_names_only_keys_its_screen_binds() -> None:
    """A hint saying "Esc 닫기" on a screen where Esc does nothing would send a player
    looking for a key that is not there; each hint's fields are its msgid's, too."""
    for hint, holders in hint_holders().items():
        assert not unbound(hint, holders), (hint, unbound(hint, holders))
        fields = {f for _lit, f, _spec, _conv in string.Formatter().parse(hint.msgid) if f}
        assert fields == set(hint.keys) | set(hint.values), hint


def test_the_chat_lines_hints_name_only_keys_their_screens_bind() -> None:
    from seotda_tui.ui.screens.lobby import LobbyScreen
    from seotda_tui.ui.screens.table import TableScreen
    from seotda_tui.ui.widgets import chatline

    table = [chatline.KEYS_TABLE, *chatline.SHORTER_KEYS[chatline.KEYS_TABLE]]
    for hints, holders in [
        *((h, (TableScreen,)) for h in table),
        (chatline.KEYS_LOBBY, (LobbyScreen,)),
    ]:
        named = [keys.KEYS[intent][0] for intent, _label in hints]
        assert set(named) <= bound_keys(*holders, SeotdaApp), (holders, named)


def test_every_key_hint_in_the_ui_is_checked() -> None:
    """A new hint line (a module's KeyHint) must be in :func:`hint_holders`, or nothing would
    check the keys it names."""
    found = set()
    for info in pkgutil.walk_packages(seotda_tui.ui.__path__, "seotda_tui.ui."):
        module = importlib.import_module(info.name)
        found |= {obj for obj in vars(module).values() if isinstance(obj, keys.KeyHint)}
    assert found == set(hint_holders())


def test_a_hint_naming_a_key_its_screen_does_not_bind_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check above fails on a broken binding: the quick chat without its Esc, the replay
    with v taken away."""
    from seotda_tui.ui.screens import quick_chat, replay

    holders = hint_holders()
    without_esc = [b for b in quick_chat.QuickChatScreen.BINDINGS if "escape" not in str(b)]
    monkeypatch.setattr(quick_chat.QuickChatScreen, "BINDINGS", without_esc)
    assert unbound(quick_chat.TITLE, holders[quick_chat.TITLE]) == ["escape"]
    no_v = [b for b in replay.ReplayScreen.BINDINGS if "deal_record" not in str(b)]
    monkeypatch.setattr(replay.ReplayScreen, "BINDINGS", no_v)
    assert unbound(replay.DEAL_RECORD_KEY, holders[replay.DEAL_RECORD_KEY]) == ["v"]
    assert unbound(replay.REPLAY_KEYS, holders[replay.REPLAY_KEYS]) == []


def test_a_table_hint_whose_key_the_table_does_not_bind_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table's words are checked against the table's bindings: without its Space (ready)
    and its y, the lines naming them are caught, and only those."""
    from seotda_tui.ui.present import table, text
    from seotda_tui.ui.screens.table import TableScreen

    holders = hint_holders()
    taken_away = {"ready", "answer(True)"}
    kept = [b for b in TableScreen.BINDINGS if getattr(b, "action", "") not in taken_away]
    assert len(kept) == len(TableScreen.BINDINGS) - 2
    monkeypatch.setattr(TableScreen, "BINDINGS", kept)
    caught = {hint for hint, at in holders.items() if unbound(hint, at)}
    assert caught == {
        table.READY,
        text.READY_ASK,
        table.REJOIN_YES,
        table.REBUY_YES,
        table.GUSA_REFUND,
        table.GUSA_REMATCH,
        text.GUSA_CHOICE_ASK,
        text.REJOIN_ASK,
        text.REBUY_ASK,
    }
    assert unbound(text.REBUY_ASK, holders[text.REBUY_ASK]) == ["y"]


def test_the_hints_read_as_before_and_follow_the_key_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hints draw the keys from the map: the same text as the literal lines they replaced
    (in both languages), and a key moved in the map moves in every hint naming it."""
    from seotda_tui.ui.present.text import FIRST_HAND_HINT
    from seotda_tui.ui.screens import lobby, replay, results

    assert lobby.TITLE_KEYS.text() == "n 새 방  Enter 참가  w 관전  c 코드  q 나가기"
    assert replay.REPLAY_KEYS.text() == (
        "←/→ 한 수 · [ ] PgUp/PgDn 한 판 · Home/End 처음/끝 · q 목록"
    )
    assert FIRST_HAND_HINT.text() == "처음이세요? ? 족보·규칙 · 1~8 베팅 · t 채팅"
    with i18n.speaking(i18n.Language("en")):
        assert results.KEYS.text() == "Enter back to the room · q to the lobby"
        assert FIRST_HAND_HINT.text() == "New here? ? hands·rules · 1~8 bet · t chat"
    monkeypatch.setitem(keys.KEYS, "leave", ("x",))
    monkeypatch.setitem(keys.KEYS, "home", ("f5",))
    assert results.KEYS.text() == "Enter 방으로 돌아가기 · x 로비로"
    assert replay.REPLAY_KEYS.text() == (
        "←/→ 한 수 · [ ] PgUp/PgDn 한 판 · f5/End 처음/끝 · x 목록"
    )


def test_the_tables_words_read_as_before_and_follow_the_key_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table's prompts and status lines as they read before they took their keys from the
    map (each language writing a run of digit keys its own way), and after a key moves."""
    from seotda_tui.ui.present import table, text, variants, waiting

    assert text.GUSA_CHOICE_ASK.text() == "내 구사를 발동할까요? y/n (n: 그대로 판정)"
    assert text.CHOOSE_KEYS.text() == "카드 2장을 고르세요: 1·2·3 키, Enter 확정"
    assert variants.CHOOSE_FOUR_KEYS.text() == "카드 2장을 고르세요: 1~4 키, Enter 확정"
    assert variants.PICK_ASK.text() == "공유 카드를 골라요: 1·2 키로 넘기고 Enter"
    assert waiting.NO_HOST_SHORT.text() == "방장 없음 · j로 앉으면 방장"
    assert table.ADD_BOT.text() == "+ 봇" and table.LEAVE.text() == "q 나가기"
    with i18n.speaking(i18n.Language("en")):
        assert variants.CHOOSE_FOUR_KEYS.text() == "Pick 2 cards: keys 1-4, Enter to confirm"
        assert variants.PICK_ASK.text() == "Pick the shared card: 1/2 to browse, Enter"
        assert text.CHOOSE_KEYS.text() == "Pick 2 cards: keys 1·2·3, Enter confirms"
        assert text.READY_ASK.text() == "Hand over. Space: ready for the next"
        assert variants.PICK_CONFIRM.text(card="3광") == "Enter share 3광"
    monkeypatch.setitem(keys.KEYS, "yes", ("o",))
    monkeypatch.setitem(keys.KEYS, "start", ("g",))
    assert text.GUSA_CHOICE_ASK.text() == "내 구사를 발동할까요? o/n (n: 그대로 판정)"
    assert table.GUSA_REMATCH.text() == "o 재경기" and waiting.START.text() == "g 키로 시작해요"


def test_a_run_of_digit_keys_is_written_as_each_language_asks() -> None:
    """One by one for a short run, a span for a long one; a field's format spec is the
    separator a language writes instead."""
    assert keys.hint_keys(range(1, 3)) == "1·2" and keys.hint_keys(range(1, 9)) == "1~8"
    assert keys.hint_keys(range(2, 3)) == "2"
    four = keys.hint_keys(range(1, 5))
    assert (format(four, "-"), format(four, "/"), format(four, "")) == ("1-4", "1/4", "1~4")
    assert format(keys.hint_keys(keys.CARD_NUMBERS), "/") == "1/2/3"
