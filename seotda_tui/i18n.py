"""The message catalogue: every text shown to a player goes through ``_()`` (Korean msgids).

Korean is the source language: the msgid *is* the Korean text, so Korean output needs no
catalogue and stays byte-identical to the text in the code. English comes from
``seotda_tui/locale/en/LC_MESSAGES/seotda.mo`` (stdlib :mod:`gettext`), compiled by Babel from
the ``.po`` beside it (``make i18n``; ``make test`` and ``make run`` do it first).

Why a context variable and not a translator passed around: many sessions' apps share one
process and event loop, and one pilot test may run several apps at once, so nothing may be
process-global (no ``gettext.install``, no ``os.environ``). Each app sets :data:`current` in its
own task before its widgets start (``SeotdaApp.on_load``); Textual starts every widget's task from
there, and asyncio copies the context into each task, so every pure text helper (table text,
pot text, help text, room rules) can call ``_()`` without a parameter. The variable holds a
mutable :class:`Language` (one per session), so ``L`` switches every task of that session at
once, and no other session. (So a screen is pushed from the app's own tasks, as its keys and
messages do: a task started from elsewhere, e.g. a test's, would have that task's language.)

Layers below the UI (``rooms/``, ``engine/``) do not translate: they mark their texts with
:func:`N_` (or the ``RoomError``/``IllegalAction``/``Refusal`` constructors, Babel keywords in
``babel.cfg``) and the UI translates them by msgid. A text with values carries its template and
values (``RoomError.template``/``.values``), never a pre-formatted string.

This module is a shared leaf: it imports nothing of ours, so ``rooms/`` and ``ssh/`` may use it.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

DOMAIN = "seotda"
LOCALE_DIR = Path(__file__).with_name("locale")
KOREAN, ENGLISH = "ko", "en"
#: The languages a player can pick (``L`` cycles through them), the source language first.
LANGUAGES = (KOREAN, ENGLISH)
#: A pseudo-locale for tests: every translated text comes out as ``⟦text⟧``, so text shown
#: without the markers is text that did not go through the catalogue.
PSEUDO = "qps"
PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (it is translated where shown)."""
    return message


class _Pseudo(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return f"{PSEUDO_OPEN}{message}{PSEUDO_CLOSE}"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self.gettext(msgid1 if n == 1 else msgid2)


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The catalogue of ``language`` (loaded once per process; read-only, so shared)."""
    if language == PSEUDO:
        return _Pseudo()
    if language == KOREAN:
        return gettext.NullTranslations()  # the msgids are the Korean text
    try:
        return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])
    except FileNotFoundError as exc:
        raise RuntimeError(
            f"no compiled catalogue for {language!r} in {LOCALE_DIR}: run `make i18n`"
        ) from exc


def load_all() -> None:
    """Load every catalogue now (the server does at start): a missing one fails there,
    not in a player's session."""
    for language in LANGUAGES:
        translations(language)


class Language:
    """One session's language; mutable so every task of the session follows a switch."""

    def __init__(self, code: str = KOREAN) -> None:
        self.code = code
        self._tr = translations(code)

    def set(self, code: str) -> None:
        self._tr = translations(code)
        self.code = code

    def gettext(self, message: str) -> str:
        return self._tr.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._tr.ngettext(singular, plural, n)


_SOURCE = Language(KOREAN)
#: The language of the running task's session; outside any session, the source language.
current: ContextVar[Language] = ContextVar("seotda_language", default=_SOURCE)


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Run a block as ``language``'s session would: for code outside a session's tasks that
    renders its screen (a test reading a screen from the test's own task)."""
    token = current.set(language)
    try:
        yield
    finally:
        current.reset(token)


def _(message: str) -> str:
    """``message`` (a Korean msgid) in the current session's language."""
    return current.get().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a text with a count ``n`` in the current session's language ("1 hand",
    "2 hands"). Korean has one form, so both msgids are the same Korean text; the English
    .po entry has ``msgid_plural`` and ``msgstr[0]``/``msgstr[1]`` (``Plural-Forms`` in its
    header). Format the result with ``n`` as for ``_()``."""
    return current.get().ngettext(singular, plural, n)


def tr(template: str, values: Mapping[str, object] | None = None) -> str:
    """A marked template (e.g. a ``RoomError``'s) translated, then filled with ``values``."""
    text = _(template)
    return text.format(**values) if values else text


def language_code() -> str:
    return current.get().code


def next_language(code: str) -> str:
    """The language ``L`` switches to from ``code``."""
    if code not in LANGUAGES:
        return KOREAN
    return LANGUAGES[(LANGUAGES.index(code) + 1) % len(LANGUAGES)]


def normalize(code: str | None) -> str | None:
    """``"en"``, ``"ko"`` (or the pseudo-locale) from a setting or a stored value; None if
    it names no language we have."""
    if not code:
        return None
    code = code.strip().lower()
    return code if code in (*LANGUAGES, PSEUDO) else None


def from_environment(env: Mapping[str, str]) -> str | None:
    """The language a client's ``LC_ALL``/``LANG`` asks for (untrusted text): English when it
    starts with ``en``, Korean for any other value, None when the client sent neither."""
    for name in ("LC_ALL", "LANG"):
        value = env.get(name)
        if isinstance(value, str) and value.strip():
            return ENGLISH if value.strip().lower().startswith("en") else KOREAN
    return None


def terminal_language(env: Mapping[str, str]) -> str:
    """The language of the server's own command line (``--help``) from the operator's locale:
    the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set (POSIX's order) decides;
    Korean when it names Korean (``ko_KR.UTF-8``), else English (``C``, ``en_US``, unset)."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").strip()
        if value:
            return KOREAN if value.lower().startswith("ko") else ENGLISH
    return ENGLISH
