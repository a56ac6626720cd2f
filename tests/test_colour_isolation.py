"""One terminal's settings never reach another: real SSH clients of different colour depths and
sizes in the lobby and at one table, each getting only what its own terminal takes.

Colour: the raw output is parsed for SGR sequences; a client of each depth must receive colours
in exactly its own form (the program's colours are all RGB, so a 256-colour client that gets
``31`` was served a 16-colour rendering, and a 16-colour client that gets ``38;5`` a 256-colour
one). Text: every client's pyte screen must be what the same client sees when both players of
the run are terminals like it (depth, size, display mode; countdowns masked). The colour tests
fail without ``seotda_tui/ui/colour_isolation.py``; sizes and display modes were already kept
apart (their memos are keyed by width and mode) and are checked here so they stay so.
"""

from __future__ import annotations

import re
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.color import Color, ColorSystem
from rich.style import Style

from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.colour_isolation import colour_lowering

from .ssh_harness import SSHClient, public_view, quiet, ssh_server, start_game, wait_until

#: (TERM, environment) a client of each depth sends; see ``driver.color_system_for``.
CLIENTS: dict[str, tuple[str, dict[str, str]]] = {
    "truecolor": ("xterm", {"COLORTERM": "truecolor"}),
    "256": ("xterm-256color", {}),
    "standard": ("xterm", {}),
    "none": ("xterm", {"NO_COLOR": "1"}),
}

#: The colour forms each depth may receive ("default" is 39/49).
ALLOWED: dict[str, set[str]] = {
    "truecolor": {"truecolor", "default"},
    "256": {"256", "default"},
    "standard": {"16", "default"},
    "none": set(),
}

SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
SIZE = (100, 30)


def colour_forms(output: bytes) -> Counter[str]:
    """How many colour parameters of each form the SGR sequences in ``output`` carry."""
    forms: Counter[str] = Counter()
    for match in SGR.finditer(output):
        params = re.split(rb"[;:]", match.group(1))
        i = 0
        while i < len(params):
            param = params[i]
            if param in (b"38", b"48", b"58"):
                mode = params[i + 1] if i + 1 < len(params) else b""
                forms["truecolor" if mode == b"2" else "256"] += 1
                i += 5 if mode == b"2" else 3
                continue
            n = int(param) if param else 0
            if 30 <= n <= 37 or 40 <= n <= 47 or 90 <= n <= 97 or 100 <= n <= 107:
                forms["16"] += 1
            elif n in (39, 49):
                forms["default"] += 1
            i += 1
    return forms


def assert_depth(depth: str, output: bytes, where: str) -> None:
    forms = colour_forms(output)
    wrong = {form: n for form, n in forms.items() if form not in ALLOWED[depth]}
    assert not wrong, f"{where}: a {depth} client got {wrong} (all: {dict(forms)})"
    if depth != "none":  # and it did get colours (the check is not vacuous)
        assert forms.keys() - {"default"}, f"{where}: no colours at all for {depth}"


_COUNTDOWN = re.compile(r"[━─#=.-]*\s*\d+초|[━─#=]{4,}")  # the bar (box drawing or ASCII)
_CUT = re.compile(r"기리: \S+(?: \S+)*")  # the 2 s cut line of each deal (§5.1), on the real clock


def screen_text(client: SSHClient) -> str:
    """The screen, with what moves with the clock masked: the turn countdown (its bar and
    seconds; watchers see the bar alone) and the cut line shown for 2 s at a deal."""
    text = _CUT.sub(lambda m: " " * cell_len(m.group()), _COUNTDOWN.sub("<남은 시간>", client.text))
    return "\n".join(line.rstrip() for line in text.split("\n"))


class Terminal(NamedTuple):
    """One client: its colour depth, its size, and a display key it presses at the table
    after the bets ("a" ASCII, "b" large text; "" none)."""

    depth: str
    size: tuple[int, int] = SIZE
    key: str = ""


@dataclass
class Run:
    """What the two clients received and showed, in the lobby and at the table."""

    lobby_output: tuple[bytes, bytes]
    table_output: tuple[bytes, bytes]
    lobby_text: tuple[str, str]
    table_text: tuple[str, str]


NAMES = ("영희", "철수")


async def play(tmp_path: Path, terminals: tuple[Terminal, Terminal]) -> Run:
    """영희 (``terminals[0]``) logs in, then 철수; 영희 opens a room, 철수 joins, the game
    starts, a 삥 and a 콜 are made, then each presses its display key."""
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30)
    factory = make_app_factory(manager)
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        clients: list[SSHClient] = []
        for name, terminal in zip(NAMES, terminals):
            term, env = CLIENTS[terminal.depth]
            client = await stack.enter_async_context(
                server.connect(name, term_type=term, env=env, size=terminal.size)
            )
            await client.wait_for(f"{name}님 환영해요")
            clients.append(client)
        host, guest = clients
        for client in clients:
            await quiet(client)
        lobby_output = (bytes(host.output), bytes(guest.output))
        lobby_text = (screen_text(host), screen_text(guest))
        marks = [len(client.output) for client in clients]

        await start_game(host, "영희", guest)
        by_name = dict(zip(NAMES, clients))
        for key in ("3", "4"):  # 삥, then 콜
            actor = public_view(manager, "영희").get("actor")
            assert actor is not None
            await by_name[actor].wait_for("내 차례예요")
            await by_name[actor].press(key)
            await wait_until(
                lambda actor=actor: public_view(manager, "영희").get("actor") != actor,
                what="the bet to go through",
            )
        for client, terminal in zip(clients, terminals):
            if terminal.key:
                await client.press(terminal.key)
        for client in clients:
            await quiet(client, settle=0.4)
        table_output = (bytes(host.output[marks[0] :]), bytes(guest.output[marks[1] :]))
        table_text = (screen_text(host), screen_text(guest))
    return Run(lobby_output, table_output, lobby_text, table_text)


#: Runs where both clients are the same terminal: what each role's screen should read.
_ALONE: dict[Terminal, Run] = {}


async def alone(tmp_path: Path, terminal: Terminal) -> Run:
    if terminal not in _ALONE:
        folder = tmp_path / f"alone-{terminal.depth}-{terminal.size[0]}-{terminal.key}"
        _ALONE[terminal] = await play(folder, (terminal, terminal))
    return _ALONE[terminal]


async def assert_same_screens(tmp_path: Path, terminals: tuple[Terminal, Terminal]) -> Run:
    """Play the pair; each client's screens must read as when both clients are like it."""
    run = await play(tmp_path / "pair", terminals)
    for role, terminal in enumerate(terminals):
        reference = await alone(tmp_path, terminal)
        who = f"{NAMES[role]} {terminal} beside {terminals[1 - role]}"
        assert run.lobby_text[role] == reference.lobby_text[role], who
        assert run.table_text[role] == reference.table_text[role], who
    return run


PAIRS = [
    ("truecolor", "standard"),
    ("standard", "truecolor"),
    ("standard", "256"),
    ("256", "standard"),
    ("none", "truecolor"),
    ("truecolor", "none"),
]


@pytest.mark.parametrize("depths", PAIRS, ids=["-then-".join(p) for p in PAIRS])
async def test_each_client_gets_only_its_own_colour_depth(
    tmp_path: Path, depths: tuple[str, str]
) -> None:
    terminals = (Terminal(depths[0]), Terminal(depths[1]))
    run = await assert_same_screens(tmp_path, terminals)
    for role, depth in enumerate(depths):
        who = f"{NAMES[role]} ({depth}, {depths})"
        assert_depth(depth, run.lobby_output[role], f"lobby, {who}")
        assert_depth(depth, run.table_output[role], f"table, {who}")


SIZES = [((80, 24), (200, 60)), ((200, 60), (80, 24))]


@pytest.mark.parametrize("sizes", SIZES, ids=["80x24-then-200x60", "200x60-then-80x24"])
async def test_each_client_sees_the_screen_of_its_own_size(
    tmp_path: Path, sizes: list[tuple[int, int]]
) -> None:
    await assert_same_screens(
        tmp_path, (Terminal("truecolor", sizes[0]), Terminal("256", sizes[1]))
    )


@pytest.mark.parametrize(
    ("key", "chooser_first"), [("a", True), ("b", False)], ids=["ascii-first", "large-text-second"]
)
async def test_a_display_mode_stays_with_the_client_that_chose_it(
    tmp_path: Path, key: str, chooser_first: bool
) -> None:
    """ASCII cards (other glyphs and cell widths) or large text, for one of the two only."""
    chooser, other = Terminal("256", key=key), Terminal("256")
    terminals = (chooser, other) if chooser_first else (other, chooser)
    run = await assert_same_screens(tmp_path, terminals)
    role = terminals.index(chooser)
    plain = await alone(tmp_path, other)
    assert run.table_text[role] != plain.table_text[role], "the key changed nothing"


def test_colour_forms_reads_sgr_parameters() -> None:
    """The parser the tests above rely on (one sequence of each kind)."""
    sample = b"\x1b[1;38;2;1;2;3;48;5;200m\x1b[31;49m\x1b[0m\x1b[12;5H"
    assert colour_forms(sample) == Counter({"truecolor": 1, "256": 1, "16": 1, "default": 1})


_COLOURS = st.one_of(
    st.none(),
    st.tuples(*[st.integers(0, 255)] * 3).map(lambda rgb: Color.from_rgb(*rgb)),
    st.integers(0, 255).map(Color.from_ansi),
    st.sampled_from(["red", "bright_white", "default"]).map(Color.parse),
)
_DEPTH_NAMES = {"256": ColorSystem.EIGHT_BIT, "standard": ColorSystem.STANDARD}


RESET = "\x1b[0m"


def _style(color: Color | None, bgcolor: Color | None, bold: bool, reverse: bool) -> Style:
    """A new ``Style`` each call: rich keeps rendered codes on the style object."""
    return Style(color=color, bgcolor=bgcolor, bold=bold, reverse=reverse)


@given(_COLOURS, _COLOURS, st.booleans(), st.booleans(), st.sampled_from(["256", "standard"]))
def test_lowered_output_is_what_rich_renders_at_that_depth(
    color: Color | None, bgcolor: Color | None, bold: bool, reverse: bool, depth: str
) -> None:
    truecolor = _style(color, bgcolor, bold, reverse).render(
        "가", color_system=ColorSystem.TRUECOLOR
    )
    direct = _style(color, bgcolor, bold, reverse).render("가", color_system=_DEPTH_NAMES[depth])
    lower = colour_lowering(depth)
    assert lower is not None and lower(truecolor) == direct


@given(_COLOURS, _COLOURS, st.booleans(), st.booleans())
def test_no_colour_keeps_only_the_attributes(
    color: Color | None, bgcolor: Color | None, bold: bool, reverse: bool
) -> None:
    truecolor = _style(color, bgcolor, bold, reverse).render(
        "가", color_system=ColorSystem.TRUECOLOR
    )
    plain = _style(None, None, bold, reverse).render("가", color_system=ColorSystem.TRUECOLOR)
    lower = colour_lowering(None)
    assert lower is not None
    # the same, but for a reset left where the removed sequence held only colours (harmless)
    assert lower(truecolor).replace(RESET, "") == plain.replace(RESET, "")
    assert colour_lowering("truecolor") is None  # truecolor output is sent as it is
