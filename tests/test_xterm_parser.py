"""``tuning/xterm_parser.py``: Textual's private parser behind its checks, and the parser of
public names used where those fail, which reads what a player sends as Textual's does."""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.message import Message

from seotda_tui.tuning import xterm_parser
from seotda_tui.tuning.xterm_parser import PublicParser, new_parser

#: What a player's terminal sends, each list the reads of one session (a fresh parser each).
INPUTS: list[list[str]] = [
    ["a"], ["A"], ["1"], ["?"], [" "], ["가나다"], ["😀"], ["!@#.,-_+="], ["철수 ok\r"],
    ["\r"], ["\t"], ["\x7f"], ["\x08"], ["\x01"], ["\x03"], ["\x1a"], ["\x00"], ["\n"],
    ["\x1b[A"], ["\x1b[B"], ["\x1b[C"], ["\x1b[D"], ["\x1bOA"], ["\x1bOD"], ["\x1b[Z"],
    ["\x1b[1;5A"], ["\x1b[1;2B"], ["\x1b[1;3C"], ["\x1b[1;6D"], ["\x1b[H"], ["\x1b[F"],
    ["\x1bOH"], ["\x1bOF"], ["\x1b[1~"], ["\x1b[4~"], ["\x1b[2~"], ["\x1b[3~"], ["\x1b[5~"],
    ["\x1b[6~"], ["\x1b[3;5~"], ["\x1b[5;5~"],
    ["\x1bOP"], ["\x1bOQ"], ["\x1bOR"], ["\x1bOS"], ["\x1b[15~"], ["\x1b[17~"], ["\x1b[24~"],
    ["\x1b[I"], ["\x1b[O"], ["\x1b[1;1R"], ["\x1b[?2026;2$y"], ["\x1b[?2026;0$y"],
    ["\x1b[200~hi 가\nthere\x1b[201~"], ["\x1b[20", "0~he", "llo\x1b[2", "01~x"],
    ["\x1b[<0;10;5M", "\x1b[<0;10;5m"], ["\x1b[<64;3;3M"], ["\x1b[<65;3;3M"],
    ["\x1b[<35;4;4M", "\x1b[<35;6;4M"], ["\x1b[<2;1;1M"], ["\x1b[<16;5;5M"],
    ["\x1b"], ["\x1b", "[A"], ["x\x1b", "[1;5", "C"], ["\x1b\x1b"], ["\x1ba"], ["\x1bA"],
    ["ab\x1b[Ccd"], ["4", "\r", "\x1b[Z", "t"],
]  # fmt: skip


def summary(message: Message) -> tuple[Any, ...]:
    """What a handler sees of an event (a parser makes a new object each time)."""
    fields = [
        "key",
        "character",
        "text",
        "x",
        "y",
        "delta_x",
        "delta_y",
        "button",
        "shift",
        "meta",
        "ctrl",
    ]
    return (type(message).__name__, *(getattr(message, f, None) for f in fields))


def read(parser: Any, reads: list[str]) -> list[Any]:
    return [summary(m) for data in reads for m in parser.feed(data)]


def test_the_public_parser_reads_what_a_player_sends_as_textuals_does() -> None:
    textuals = [XTermParser(debug=False) for _ in INPUTS]
    publics = [PublicParser() for _ in INPUTS]
    theirs = [read(parser, reads) for parser, reads in zip(textuals, INPUTS)]
    ours = [read(parser, reads) for parser, reads in zip(publics, INPUTS)]
    time.sleep(constants.ESCAPE_DELAY + 0.02)  # a lone ESC is the Escape key once time passes
    for i in range(len(INPUTS)):
        theirs[i] += [summary(m) for m in textuals[i].tick()]
        ours[i] += [summary(m) for m in publics[i].tick()]
        assert ours[i] == theirs[i], INPUTS[i]
    silent = [reads for reads, events_ in zip(INPUTS, theirs) if not events_]
    assert silent == [["\x1b[?2026;0$y"]]  # each other input means something to Textual


def test_the_public_parser_drops_what_it_cannot_read_and_goes_on() -> None:
    parser = PublicParser()
    read_ = read(parser, ["\x1b[97;1:3u", "\x1b[48;60;200;0;0t", "\x1b[M !!", "\x1b[12\x01", "z"])
    assert read_ == [summary(events.Key("ctrl+a", "\x01")), summary(events.Key("z", "z"))]
    assert read(parser, ["\x1b[" + "1;" * 40]) == [] and read(parser, ["q"]) == [
        summary(events.Key("q", "q"))
    ]


def test_the_check_turns_textuals_parser_on_and_a_changed_one_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert xterm_parser.OVERRIDE.missing() is None
    assert isinstance(new_parser(True), XTermParser)
    assert isinstance(new_parser(False), PublicParser)
    assert xterm_parser.OVERRIDE.guard  # Textual's stock path: kept with stock_textual
    monkeypatch.setattr(XTermParser, "feed", lambda self, data: iter(()))
    assert xterm_parser.OVERRIDE.missing() == "XTermParser read a, Enter, Up as []"
    monkeypatch.setattr(XTermParser, "__init__", lambda self: None)
    assert "__init__(self) has other parameters" in str(xterm_parser.OVERRIDE.missing())
