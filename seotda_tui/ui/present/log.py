"""The hand log's lines, for the live table and the replay alike.

Why one place: both screens write a batch of events (one push, one replay frame) to their log,
and a showdown there is named as the seats name it — from the pots' outcomes that follow it in
the same batch (:func:`~.text.showdown_results`, :func:`~.text.showdown_name`). Written twice,
the two logs could name one hand two ways. Pure, like the rest of the presenter: events in,
text out, in the current language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine import Options

from ...rooms.events import RoomEvent
from ..widgets.texts import event_lines
from .text import Outcome, showdown_name, showdown_results

#: One event of the log and, for a showdown, the outcomes that name its hands (kept so the log
#: can be written again in another language without the batch it came in).
Logged = tuple[RoomEvent, list[Outcome] | None]


def logged(events: Sequence[RoomEvent]) -> list[Logged]:
    """A batch of events (one update's, one replay frame's) as log entries."""
    return [
        (event, showdown_results(events[i + 1 :]) if event["type"] == "showdown" else None)
        for i, event in enumerate(events)
    ]


def entry_lines(entry: Logged, options: Options) -> list[str]:
    """One entry's lines (most bookkeeping events have none)."""
    event, results = entry
    names = None
    if results is not None and event["type"] == "showdown":
        names = {h["player"]: showdown_name(h, results, options) for h in event["hands"]}
    return event_lines(event, names)


def log_lines(entries: Iterable[Logged], options: Options) -> list[str]:
    """The lines of ``entries``, in order."""
    return [line for entry in entries for line in entry_lines(entry, options)]
