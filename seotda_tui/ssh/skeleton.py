"""Look-alike nicknames: the UTS #39 "skeleton" of a string.

Two names whose skeletons are equal look the same on screen ("vіctim" with a
Cyrillic і, "victim" with a Latin i), so a new name is refused when its skeleton
is that of a name already in use (see :mod:`seotda_tui.ssh.auth`).

The data is Unicode's own ``confusables.txt``, as shipped (in JSON) by the
``confusable-homoglyphs`` package: pure Python, installs anywhere, and its data
file is generated from the Unicode file rather than written by hand. (PyICU has
``SpoofChecker.getSkeleton`` but builds against system ICU headers; the other
candidates on PyPI are unmaintained or keep their own tables.) That package
answers "what may this character be confused with" rather than "what is its
prototype", so the prototype is recovered here: confusables.txt maps each
source character to one prototype, and the package lists, for every
character, the characters on the other side of its lines. Each group is thus
a star around its prototype, which is the member with the most neighbours (a
multi-character prototype such as "rn" for "m" wins a tie, since sources are
always one code point; otherwise the smallest, so the choice is stable).

skeleton(X) = NFD(each character of NFD(X) replaced by its prototype), as in
UTS #39 section 4 (nicknames cannot hold default-ignorable characters, see
:func:`seotda_tui.sanitize.validate_nickname`, so that step is not needed).
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs.confusables import confusables_data

# The package wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display.
_LRM = "\u200e"


@cache
def _prototypes() -> dict[str, str]:
    """Character → its prototype, for every character confusables.txt mentions."""
    neighbours: dict[str, set[str]] = {}
    for char, glyphs in confusables_data.items():
        a = char.replace(_LRM, "")
        for glyph in glyphs:
            b = str(glyph["c"]).replace(_LRM, "")
            if a and b and a != b:
                neighbours.setdefault(a, set()).add(b)
                neighbours.setdefault(b, set()).add(a)

    def rank(node: str) -> tuple[int, int, str]:
        return (-len(neighbours[node]), -len(node), node)

    prototypes: dict[str, str] = {}
    for node, near in neighbours.items():
        if len(node) != 1:
            continue  # a multi-character string is only ever a prototype
        best = min([node, *near], key=rank)
        if best != node:
            prototypes[node] = best
    return prototypes


def skeleton(text: str) -> str:
    """The string every look-alike of ``text`` shares (UTS #39 skeleton)."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


#: Room bots are named "봇" + a number (``봇1(신중)``, :func:`seotda_tui.sanitize.is_bot_nickname`).
_BOT_PREFIX = "봇"


@cache
def _bot_skeletons() -> tuple[str, ...]:
    """The skeletons every bot name starts with: 봇 then a digit, drawn any way (봇l, 봇O)."""
    return tuple(sorted({skeleton(_BOT_PREFIX + digit) for digit in "0123456789"}))


def looks_like_bot(name: str) -> bool:
    """Whether ``name`` reads as a bot's name on screen (``봇l(신중)`` with a Latin l for 1):
    the prefix that :func:`~seotda_tui.sanitize.is_bot_nickname` reserves, compared by skeleton."""
    return skeleton(name).startswith(_bot_skeletons())
