"""Input parsing for a driver whose terminal is an SSH channel: Textual's ``XTermParser``, or
a parser of public names where that cannot be used.

Why here: nothing public in Textual turns terminal bytes into events; its own drivers (Linux,
web, Windows) each build a ``textual._xterm_parser.XTermParser``, and so does ours
(``ui/driver.py``). That is Textual's stock path, so ``stock_textual`` keeps it (a ``guard``
in :class:`~.override.Override`'s terms: not a speed-up). Where the private module is gone or
its parser no longer turns ``a`` and Enter into those keys, :class:`PublicParser` reads what a
player types (text, Enter, Tab, arrows and the other editing and function keys, Ctrl and Alt,
bracketed paste, focus, SGR mouse, the synchronized-output answer) with ``textual.events`` and
``textual.keys`` alone; it does not read the kitty keyboard protocol, so the driver does not
ask for it then (:func:`reads_kitty_keys`). BENCHMARKS.md ("Input parsing") has the cost of each.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from textual import events
from textual.keys import KEY_NAME_REPLACEMENTS
from textual.message import Message
from textual.messages import TerminalSupportsSynchronizedOutput

from .override import Override, first_reason, wrong_parameters

NAME = "xterm_parser"


class InputParser(Protocol):
    """What the driver needs of a parser (``XTermParser``'s public methods)."""

    def feed(self, data: str) -> Iterable[Message]: ...

    def tick(self) -> Iterable[Message]: ...


class PublicParseError(Exception):
    """Stands for ``textual._parser.ParseError`` where that is not used (never raised)."""


def _private() -> tuple[Any, type[Exception]]:
    """Textual's parser class and its ``ParseError`` (ImportError where they are gone)."""
    from textual._parser import ParseError
    from textual._xterm_parser import XTermParser

    return XTermParser, ParseError


def _missing() -> str | None:
    try:
        parser, error = _private()
    except ImportError as exc:
        return f"textual._xterm_parser: {exc}"
    if not (isinstance(error, type) and issubclass(error, Exception)):
        return "textual._parser.ParseError is not an exception"
    return first_reason(
        lambda: wrong_parameters(parser, "__init__", ["self", "debug"]),
        lambda: wrong_parameters(parser, "feed", ["self", "data"]),
        lambda: wrong_parameters(parser, "tick", ["self"]),
        lambda: _parses_keys(parser(debug=False)),
    )


def _parses_keys(parser: InputParser) -> str | None:
    """Why ``parser`` does not read ``a``, Enter and an arrow as Textual's keys (the probe)."""
    keys = [(m.key, m.character) for m in parser.feed("a\r\x1b[A") if isinstance(m, events.Key)]
    if keys != [("a", "a"), ("enter", "\r"), ("up", None)]:
        return f"XTermParser read a, Enter, Up as {keys!r}"
    return None


OVERRIDE = Override(NAME, "textual", _missing, guard=True)


def new_parser(textuals: bool) -> InputParser:
    """A parser for one session: Textual's (``textuals``: the override is on) or the public one."""
    if not textuals:
        return PublicParser()
    parser: InputParser = _private()[0](debug=False)  # (debug=True writes keys.log here)
    return parser


def parse_error(textuals: bool) -> type[Exception]:
    """What the parser raises for input it refuses but survives (Textual's ``ParseError``)."""
    return _private()[1] if textuals else PublicParseError


def reads_kitty_keys(textuals: bool) -> bool:
    """Whether the parser reads the kitty keyboard protocol (the driver asks for it then)."""
    return textuals


ESC = "\x1b"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
#: An escape sequence longer than this is not one: dropped (Textual gives up at 32 too).
LONGEST = 32
_CSI = re.compile(r"\x1b\[([0-9;:<=>?$ ]*)([@-~])")
_NOT_PARAMETER = re.compile(r"[^0-9;:<=>?$ ]")
_SGR_MOUSE = re.compile(r"<(\d+);(\d+);(\d+)")
_POSITION = re.compile(r"(\d+);(\d+)")
_MODE_REPORT = re.compile(r"\?(\d+);(\d+)\$")

#: Control characters → key names, as Textual names them (the rest: ``ctrl+<letter>``).
_CONTROL = {
    "\r": "enter",
    "\t": "tab",
    "\x7f": "backspace",
    "\x08": "backspace",
    "\x00": "ctrl+@",
    "\x1c": "ctrl+backslash",
    "\x1d": "ctrl+right_square_bracket",
    "\x1e": "ctrl+circumflex_accent",
    "\x1f": "ctrl+underscore",
}
#: Final letters of CSI and SS3 sequences (``ESC[A``, ``ESCOA``, ``ESC[1;5A``).
_LETTERS = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "H": "home",
    "F": "end",
    "P": "f1",
    "Q": "f2",
    "R": "f3",
    "S": "f4",
}
#: ``ESC[n~`` keys.
_TILDE = {
    1: "home",
    2: "insert",
    3: "delete",
    4: "end",
    5: "pageup",
    6: "pagedown",
    7: "home",
    8: "end",
    11: "f1",
    12: "f2",
    13: "f3",
    14: "f4",
    15: "f5",
    17: "f6",
    18: "f7",
    19: "f8",
    20: "f9",
    21: "f10",
    23: "f11",
    24: "f12",
}


def _character_key(character: str, alt: bool = False) -> events.Key:
    """One typed character as Textual's key event (its name as ``textual.keys`` names it)."""
    if character in _CONTROL:
        name = _CONTROL[character]
    elif "\x01" <= character <= "\x1a":
        name = f"ctrl+{chr(ord(character) + 96)}"
    elif character.isalnum():
        name = character
    else:
        try:
            name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            name = character
        name = KEY_NAME_REPLACEMENTS.get(name, name)
    if alt:
        if len(name) == 1 and name.isupper():
            name = f"shift+{name.lower()}"
        name = f"alt+{name}"
    return events.Key(name, character)


def _modified(name: str, parameter: str) -> str:
    """``name`` with the xterm modifier parameter's keys (``5`` → ``ctrl+``)."""
    try:
        bits = int(parameter) - 1
    except ValueError:
        return name
    for bit, modifier in ((2, "alt"), (1, "shift"), (4, "ctrl")):  # ctrl+shift+alt+…
        if bits & bit:
            name = f"{modifier}+{name}"
    return name


class PublicParser:
    """Terminal input → Textual events, with public names only (see the module's docstring).

    ``feed`` keeps an unfinished escape sequence for the next read; ``tick`` (the driver calls
    it once no byte followed for Textual's escape delay) reads what is left as keys: a lone ESC
    is the Escape key."""

    def __init__(self) -> None:
        self._pending = ""
        self._paste: list[str] | None = None
        self._last = (0, 0)

    def feed(self, data: str) -> Iterator[Message]:
        text, self._pending = self._pending + data, ""
        i = 0
        while i < len(text):
            if self._paste is not None:
                end = text.find(PASTE_END, i)
                if end < 0:
                    keep = _partial_suffix(text, PASTE_END)
                    self._paste.append(text[i : len(text) - keep])
                    self._pending = text[len(text) - keep :]
                    return
                self._paste.append(text[i:end])
                pasted, self._paste = "".join(self._paste), None
                yield events.Paste(pasted.replace("\x00", ""))
                i = end + len(PASTE_END)
                continue
            if text[i] != ESC:
                yield _character_key(text[i])
                i += 1
                continue
            used, messages = self._escape(text, i)
            if used == 0:  # unfinished: wait for more (or the tick)
                self._pending = text[i:]
                return
            yield from messages
            i += used

    def tick(self) -> Iterator[Message]:
        pending, self._pending = self._pending, ""
        if self._paste is not None:
            self._paste.append(pending)
            return
        if pending:
            yield events.Key("escape", ESC)
            for character in pending[1:]:
                yield _character_key(character)

    def _escape(self, text: str, i: int) -> tuple[int, list[Message]]:
        """The length of the escape sequence at ``text[i]`` and its events; 0: unfinished."""
        rest = text[i + 1 :]
        if not rest:
            return 0, []
        if rest[0] == ESC:
            return 1, [events.Key("escape", ESC)]
        if rest[0] == "O":
            if len(rest) < 2:
                return 0, []
            name = _LETTERS.get(rest[1])
            return 3, [events.Key(name, None)] if name else []
        if rest[0] != "[":
            return 2, [_character_key(rest[0], alt=True)]
        match = _CSI.match(text, i)
        if match is None:
            stray = _NOT_PARAMETER.search(text, i + 2)
            if stray is not None:  # a character no sequence has there: dropped up to it
                return stray.start() - i, []
            return (len(text) - i, []) if len(text) - i > LONGEST else (0, [])
        end = match.end()
        if match.group(0) == "\x1b[M":  # an X10 mouse report: three raw bytes follow (dropped)
            return (end + 3 - i, []) if len(text) >= end + 3 else (0, [])
        return end - i, self._csi(match.group(1), match.group(2))

    def _csi(self, parameters: str, final: str) -> list[Message]:
        if not parameters and final in "IO":
            return [events.AppFocus() if final == "I" else events.AppBlur()]
        if final == "~" and parameters == "200":
            self._paste = []
            return []
        if final in "mM" and (mouse := _SGR_MOUSE.fullmatch(parameters)):
            event = self._mouse(*(int(g) for g in mouse.groups()), pressed=final == "M")
            return [event] if event is not None else []
        if final == "y" and (mode := _MODE_REPORT.fullmatch(parameters)):
            if mode.group(1) == "2026" and int(mode.group(2)) > 0:
                return [TerminalSupportsSynchronizedOutput()]
            return []
        if final == "R" and (position := _POSITION.fullmatch(parameters)):
            row, column = (int(g) for g in position.groups())  # (before F3: as Textual does)
            return [events.CursorPosition(column - 1, row - 1)]
        if final == "Z" and not parameters:
            return [events.Key("shift+tab", None)]
        numbers = parameters.split(";")
        if final in _LETTERS and (not parameters or (len(numbers) == 2 and numbers[0] == "1")):
            name = _LETTERS[final]
            return [events.Key(_modified(name, numbers[1]) if parameters else name, None)]
        if (
            final == "~"
            and numbers[0].isdigit()
            and int(numbers[0]) in _TILDE
            and len(numbers) <= 2
        ):
            name = _TILDE[int(numbers[0])]
            return [events.Key(_modified(name, numbers[1]) if len(numbers) == 2 else name, None)]
        return []

    def _mouse(self, buttons: int, column: int, row: int, *, pressed: bool) -> Message | None:
        """An SGR mouse report as Textual's event (as ``XTermParser.parse_mouse_code``)."""
        x, y = column - 1, row - 1
        if x < 0 or y < 0:
            return None
        delta_x, delta_y = x - self._last[0], y - self._last[1]
        self._last = (x, y)
        event_class: type[events.MouseEvent]
        if buttons & 64:
            event_class = [
                events.MouseScrollUp,
                events.MouseScrollDown,
                events.MouseScrollLeft,
                events.MouseScrollRight,
            ][buttons & 3]
            button = 0
        else:
            button = (buttons + 1) & 3
            if buttons & 32 or button == 0:
                event_class = events.MouseMove
            else:
                event_class = events.MouseDown if pressed else events.MouseUp
        return event_class(
            None,
            float(x),
            float(y),
            delta_x,
            delta_y,
            button,
            bool(buttons & 4),
            bool(buttons & 8),
            bool(buttons & 16),
            screen_x=float(x),
            screen_y=float(y),
        )


def _partial_suffix(text: str, marker: str) -> int:
    """How many of ``text``'s last characters begin ``marker`` (a marker split across reads)."""
    for length in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-length:]):
            return length
    return 0
