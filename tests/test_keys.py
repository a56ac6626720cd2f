"""The one key map (seotda_tui/ui/keys.py): the 두벌식 aliases, and no key doing two things.

Every screen and the app bind their keys through ``keys.bind``; these tests check the map
itself (each QWERTY letter's jamo, written out here row by row as the keyboard has them) and
what the screens made of it: every letter a class binds answers to its jamo the same way, and
no key of a screen (with the app's keys under it) is bound to two actions.
"""

from __future__ import annotations

import importlib
import pkgutil

from textual.binding import Binding, BindingsMap
from textual.screen import Screen

import seotda_tui.ui
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
