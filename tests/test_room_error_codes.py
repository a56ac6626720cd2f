"""Every room refusal says why with a code (issue 31): tests and callers check ``RoomError.code``,
not the Korean text. Read from the source (every ``RoomError(...)`` call in ``seotda_tui``), so a
new raise site without a known code, a code nobody raises, or one text under two codes fails here.
"""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

from seotda_tui.rooms import ROOM_ERROR_CODES, RoomError

PACKAGE = Path(__file__).resolve().parents[1] / "seotda_tui"
#: The one call that is no raise site: a worker rebuilding the hub's refusal (its code is
#: checked against ROOM_ERROR_CODES there; tests/test_workers_protocol.py).
FROM_WIRE = "cluster/protocol.py"
#: Codes worded per operation (one meaning: "only the host may ...", "not during a game").
WORDED_PER_OPERATION = {"not_host", "game_running"}
OPTIONS_TEXT = "<the OptionsError's template>"
ENGINE_TEXT = "<the engine's refusal (IllegalAction), relayed by act>"


def calls() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "RoomError":
                found.append((path.relative_to(PACKAGE).as_posix(), node))
    return found


def template(where: str, arg: ast.expr) -> str:
    """The msgid a raise site passes: a literal, ``N_("...")`` or a module constant."""
    if isinstance(arg, ast.Call) and getattr(arg.func, "id", None) == "N_":
        arg = arg.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.Name):
        module = importlib.import_module(
            "seotda_tui." + where.removesuffix(".py").replace("/", ".")
        )
        value = getattr(module, arg.id)
        assert isinstance(value, str), f"{where}: {arg.id}"
        return value
    if ast.unparse(arg) == "str(exc)" and where == "rooms/api.py":
        return ENGINE_TEXT  # RoomError.illegal: the engine's own catalogue text
    assert ast.unparse(arg) == "exc.template", f"{where}:{arg.lineno}: {ast.unparse(arg)}"
    return OPTIONS_TEXT


def raise_sites() -> list[tuple[str, str, str]]:
    """(file:line, code, template) of every RoomError the package builds from a literal code."""
    sites = []
    for where, call in calls():
        if where == FROM_WIRE:
            continue
        assert len(call.args) >= 2, f"{where}:{call.lineno}: RoomError(code, template, ...)"
        code = call.args[0]
        assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
            f"{where}:{call.lineno}: the code must be written at the raise site"
        )
        sites.append((f"{where}:{call.lineno}", code.value, template(where, call.args[1])))
    return sites


def test_every_raise_site_has_a_known_code_and_every_code_is_raised() -> None:
    sites = raise_sites()
    assert len(sites) >= 39  # (the walk found the raise sites: 39 when this was written)
    unknown = [(at, code) for at, code, _ in sites if code not in ROOM_ERROR_CODES]
    assert not unknown
    assert {code for _, code, _ in sites} == ROOM_ERROR_CODES  # no code nobody raises
    assert [where for where, _ in calls()].count(FROM_WIRE) == 1


def test_one_text_has_one_code_and_one_code_one_meaning() -> None:
    codes_of: defaultdict[str, set[str]] = defaultdict(set)
    texts_of: defaultdict[str, set[str]] = defaultdict(set)
    for _, code, text in raise_sites():
        codes_of[text].add(code)
        texts_of[code].add(text)
    assert {text: codes for text, codes in codes_of.items() if len(codes) > 1} == {}
    # a code under several texts is one meaning worded per operation, and listed as such
    assert {code for code, texts in texts_of.items() if len(texts) > 1} == WORDED_PER_OPERATION


def test_the_code_travels_with_the_text() -> None:
    err = RoomError("room_full", "자리가 없어요 (최대 {n}명)", n=6)
    assert (err.code, str(err), err.values) == ("room_full", "자리가 없어요 (최대 6명)", {"n": 6})
