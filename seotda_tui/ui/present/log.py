"""The hand log's lines, for the live table and the replay alike.

Why one place: both screens write a batch of events (one push, one replay frame) to their log,
and a showdown there is named as the seats name it — from the pots' outcomes that follow it in
the same batch (:func:`~.text.showdown_results`, :func:`~.text.showdown_name`). Written twice,
the two logs could name one hand two ways. Pure, like the rest of the presenter: events in,
text out, in the current language.

A showdown whose pots wait for a 구사 choice (issue 36 ``gusaChoice``: a ``gusaChoiceOpen``
follows it) is judged in a later batch, after the holder's answer. Its line is held until then
and written right after that answer, named as judged — "3끗 (구사 불발)" after "a 구사 발동 안 함
(그대로 판정)", as the seat says it — never "구사" for a 구사 that was declined.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine import Options

from ...rooms.events import RoomEvent
from ..widgets.texts import event_lines
from .text import NEXT_DEAL, Outcome, showdown_name, showdown_results

#: One event of the log and, for a showdown, the outcomes that name its hands (kept so the log
#: can be written again in another language without the batch it came in). A showdown without
#: outcomes (``None``) is held for a 구사 choice: it has no lines; once judged, a copy with the
#: outcomes follows the holder's answer.
Logged = tuple[RoomEvent, list[Outcome] | None]


def logged(events: Sequence[RoomEvent], earlier: Iterable[Logged] = ()) -> list[Logged]:
    """A batch of events (one update's, one replay frame's) as log entries; ``earlier`` is the
    log so far, where a showdown held for a 구사 choice waits (module docstring)."""
    entries: list[Logged] = []
    for i, event in enumerate(events):
        after = events[i + 1 :]
        if event["type"] == "showdown":
            held = "gusaChoiceOpen" in _choices(after)
            entries.append((event, None if held else showdown_results(after)))
            continue
        entries.append((event, None))
        if event["type"] == "gusaChoice" and not _choices(after):  # the last answer
            results = showdown_results(after)
            showdown = _held([*earlier, *entries]) if results else None
            if showdown is not None:
                entries.append((showdown, results))
    return entries


def hand_log(batches: Iterable[Sequence[RoomEvent]]) -> list[Logged]:
    """Consecutive batches (a replayed hand's frames) as one log's entries."""
    entries: list[Logged] = []
    for events in batches:
        entries += logged(events, entries)
    return entries


def _choices(after: Sequence[RoomEvent]) -> list[str]:
    """The 구사 choice's events (asked, answered) among ``after`` before the next deal."""
    found: list[str] = []
    for event in after:
        if event["type"] in NEXT_DEAL:  # (another match's)
            break
        if event["type"] in ("gusaChoiceOpen", "gusaChoice"):
            found.append(event["type"])
    return found


def _held(entries: Sequence[Logged]) -> RoomEvent | None:
    """The showdown held for a 구사 choice, if the log's last showdown is one."""
    for event, results in reversed(entries):
        if event["type"] == "showdown":
            return event if results is None else None
    return None


def entry_lines(entry: Logged, options: Options) -> list[str]:
    """One entry's lines (most bookkeeping events have none; a held showdown none yet)."""
    event, results = entry
    if event["type"] != "showdown":
        return event_lines(event)
    if results is None:
        return []
    names = {h["player"]: showdown_name(h, results, options) for h in event["hands"]}
    return event_lines(event, names)


def log_lines(entries: Iterable[Logged], options: Options) -> list[str]:
    """The lines of ``entries``, in order."""
    return [line for entry in entries for line in entry_lines(entry, options)]
