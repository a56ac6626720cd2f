"""One key map: each intent's keys, with the Korean input method's aliases derived once.

A player whose Korean input method is on types ㅂ where the key cap says q (the 두벌식 layout
every Korean keyboard has). Every lowercase letter here answers to its jamo too: :func:`keys_of`
adds it from :data:`DUBEOLSIK`, so no screen lists an alias by hand. Screens and the app build
their Textual bindings with :func:`bind` (and :func:`numbered` for the digit keys); help's 키
tab writes the same keys with :func:`shown`, and the screens' key hints with :class:`KeyHint`.
A key may serve several intents (r is the lobby's records and the table's recommendation) but
never two on one screen, and a hint names only keys its screen binds (tests/test_keys.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Literal, cast, get_args

from textual.binding import Binding

from ..i18n import _

#: The jamo each unshifted QWERTY letter types on the 두벌식 (standard Korean) layout. Shifted
#: letters are left out: most type the same jamo as unshifted (L would be l's ㅣ).
DUBEOLSIK: Final[Mapping[str, str]] = dict(
    zip(
        "qwertyuiopasdfghjklzxcvbnm",
        "ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔㅁㄴㅇㄹㅎㅗㅓㅏㅣㅋㅌㅊㅍㅠㅜㅡ",
        strict=True,
    )
)

Intent = Literal[
    # anywhere (the app)
    "help",
    "ascii",
    "big_text",
    "language",
    "chat",
    "quick_chat",
    "leave",
    "cancel",
    # moving about a list, a form or a replay
    "confirm",
    "ready",
    "left",
    "right",
    "up",
    "down",
    "page_up",
    "page_down",
    "home",
    "end",
    "next_field",
    "previous_field",
    "previous_hand",
    "next_hand",
    "deal_record",  # a replayed hand's deal record (verifiable deals, issue 36)
    # the lobby
    "new_room",
    "watch",
    "code",
    "history",
    "records",
    "rules",
    "browser_link",
    # the table and its prompts
    "sit",
    "start",
    "recommend",
    "yes",
    "no",
    "toggle_log",
    "seat_records",
    "moderate",
    "add_bot",
    "remove_bot",
]

#: Each intent's keys (Textual's key names), the main one first. The aliases are not here.
KEYS: Final[Mapping[Intent, tuple[str, ...]]] = {
    "help": ("question_mark", "f1"),
    "ascii": ("a",),
    "big_text": ("b",),
    "language": ("L",),
    "chat": ("t",),
    "quick_chat": ("e",),
    "leave": ("q",),
    "cancel": ("escape",),
    "confirm": ("enter",),
    "ready": ("space",),
    "left": ("left",),
    "right": ("right",),
    "up": ("up",),
    "down": ("down",),
    "page_up": ("pageup",),
    "page_down": ("pagedown",),
    "home": ("home",),
    "end": ("end",),
    "next_field": ("tab",),
    "previous_field": ("shift+tab",),
    "previous_hand": ("left_square_bracket",),
    "next_hand": ("right_square_bracket",),
    "deal_record": ("v",),
    "new_room": ("n",),
    "watch": ("w",),
    "code": ("c",),
    "history": ("h",),
    "records": ("r",),
    "rules": ("i",),
    "browser_link": ("u",),  # the url of a one-time browser link
    "sit": ("j",),
    "start": ("s",),
    "recommend": ("r",),
    "yes": ("y",),
    "no": ("n",),
    "toggle_log": ("l",),
    "seat_records": ("p",),
    "moderate": ("m",),
    "add_bot": ("plus", "equals_sign"),  # = is + without shift
    "remove_bot": ("minus",),
}
INTENTS: Final[tuple[Intent, ...]] = get_args(Intent)

#: The table's digit keys: the betting buttons' numbers, in 3장 섯다 the cards', and in 후회의
#: 섯다 (issue 36) the four cards' (the betting buttons' keys, free while cards are chosen).
BET_NUMBERS: Final = range(1, 9)
CARD_NUMBERS: Final = range(1, 4)
REGRET_NUMBERS: Final = range(1, 5)

#: How help and the README write a key that is not a letter or digit (the rest as they are).
SHOWN: Final[Mapping[str, str]] = {
    "question_mark": "?",
    "f1": "F1",
    "enter": "Enter",
    "escape": "Esc",
    "space": "Space",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "plus": "+",
    "equals_sign": "+",
    "minus": "-",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}


def keys_of(*intents: Intent) -> tuple[str, ...]:
    """The keys of ``intents`` in order, each lowercase letter followed by its 두벌식 jamo."""
    keys: list[str] = []
    for intent in intents:
        for key in KEYS[intent]:
            keys.append(key)
            if key in DUBEOLSIK:
                keys.append(DUBEOLSIK[key])
    return tuple(keys)


def bind(
    intents: Intent | tuple[Intent, ...],
    action: str,
    description: str = "",
    *,
    show: bool = False,
    priority: bool = False,
) -> Binding:
    """One binding of ``action`` to the keys (and aliases) of ``intents``. Hidden unless
    ``show``: this app draws its own key hints, not Textual's footer."""
    named = (intents,) if isinstance(intents, str) else intents
    keys = ",".join(keys_of(*named))
    return Binding(keys, action, description, show=show, priority=priority)


def numbered(action: str, numbers: Iterable[int], *, priority: bool = False) -> list[Binding]:
    """A binding per digit key: ``action`` with ``{n}`` filled in (``num({n})`` → ``num(3)``)."""
    return [Binding(str(n), action.format(n=n), show=False, priority=priority) for n in numbers]


def shown(*groups: Intent | tuple[Intent, ...]) -> str:
    """Keys as help's 키 tab writes them: groups apart by a space, the keys within one by "/".
    A group of one intent names all its keys (``?/F1``); of several, each one's main key
    (``q/Esc/?``). Aliases never show (they are the same keys)."""
    words: list[str] = []
    for group in groups:
        if isinstance(group, str):
            keys = list(KEYS[group])
        else:
            keys = [KEYS[intent][0] for intent in group]
        names = [SHOWN.get(key, key) for key in keys]
        words.append("/".join(dict.fromkeys(names)))
    return " ".join(words)


def shown_numbers(numbers: range) -> str:
    """Digit keys as help writes them: a short run one by one (``1/2/3``), a long one as a
    span (``1–8``)."""
    if len(numbers) <= 3:
        return "/".join(str(n) for n in numbers)
    return f"{numbers[0]}–{numbers[-1]}"


#: The keys one field of a :class:`KeyHint` names, each intent by its main key: an intent
#: (``"cancel"``: "Esc"); a tuple of intents, one group (``("left", "right")``: "←/→"); a tuple
#: of such tuples, groups apart by a space (``(("previous_hand",), ("next_hand",), ("page_up",
#: "page_down"))``: "[ ] PgUp/PgDn"); or a run of digit keys (``BET_NUMBERS``: "1~8",
#: ``CARD_NUMBERS``: "1·2·3"; see :class:`DigitKeys`).
HintKeys = Intent | tuple[Intent, ...] | tuple[tuple[Intent, ...], ...] | range


class DigitKeys(str):
    """A run of digit keys as a hint writes it: a short run one by one ("1·2·3"), a long one as
    a span ("1~8"). A language that writes it its own way gives the separator as the field's
    format spec: ``{cards:-}`` is "1-4", ``{browse:/}`` "1/2" (the English catalogue's)."""

    __slots__ = ()

    @classmethod
    def of(cls, numbers: range) -> DigitKeys:
        if len(numbers) <= 3:
            return cls("·".join(str(n) for n in numbers))
        return cls(f"{numbers[0]}~{numbers[-1]}")

    def __format__(self, separator: str, /) -> str:
        return self.replace("·", separator).replace("~", separator) if separator else str(self)


def _groups(keys: HintKeys) -> tuple[tuple[Intent, ...], ...]:
    """``keys`` as :func:`shown`'s groups, each a tuple of intents (written by main keys)."""
    if isinstance(keys, range):
        return ()
    if isinstance(keys, str):
        return ((keys,),)
    groups: list[tuple[Intent, ...]] = []
    for group in keys:
        if isinstance(group, str):  # a tuple of intents: one group
            return (cast("tuple[Intent, ...]", keys),)
        groups.append(group)
    return tuple(groups)


def hint_keys(keys: HintKeys) -> str:
    """``keys`` as a hint writes them (see :data:`HintKeys`)."""
    if isinstance(keys, range):
        return DigitKeys.of(keys)
    return shown(*_groups(keys))


class KeyHint:
    """A line of key hints: its words one msgid with a ``{field}`` where each key goes (each
    language orders its words its own way), the keys from the map, so a moved binding moves
    its hint. ``KeyHint(N_("{close} 닫기"), close="cancel").text()`` is "Esc 닫기". Fields that
    are not keys are named after the msgid and given to :meth:`text`."""

    __slots__ = ("keys", "msgid", "values")

    def __init__(self, msgid: str, /, *values: str, **keys: HintKeys) -> None:
        self.msgid = msgid
        self.values = values
        self.keys: Mapping[str, HintKeys] = keys

    def text(self, **values: object) -> str:
        """The hint in the session's language (``values``: its fields that are not keys)."""
        keys = {field: hint_keys(k) for field, k in self.keys.items()}
        return _(self.msgid).format(**keys, **values)

    def named(self) -> tuple[str, ...]:
        """The keys the hint names (Textual's key names), for checking its screen binds them."""
        named: list[str] = []
        for keys in self.keys.values():
            if isinstance(keys, range):
                named.extend(str(n) for n in keys)
            else:
                named.extend(KEYS[intent][0] for group in _groups(keys) for intent in group)
        return tuple(named)

    def __repr__(self) -> str:
        return f"KeyHint({self.msgid!r})"
