"""The room manager's side of the game journal: record games safely, find the ones to resume.

:class:`GameRecorder` wraps a :class:`~seotda_tui.rooms.journal.Journal` so that a failing disk never
raises into a room: each write returns whether it was committed, and the room manager applies
nothing a player could see unless it was (the room pauses instead, see
:mod:`seotda_tui.rooms.pause`), so a restart always resumes from a log without holes.

:func:`prune_journal` drops long-finished games (the server runs it at start-up and hourly).

Journal keys are ``"<room id>-<game number in that room>"``: room ids are random (unique across
restarts) and a room that plays again gets a new key, so finished games keep their own records.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping
from typing import TypedDict

from engine import Game
from engine.types import Action

from ..logs import log_event
from .clock import Clock
from .journal import Finish, GameRecord, Journal, JournaledGame
from .model import PLAYING, Room
from .private import Privacy
from .records import GameTally

log = logging.getLogger("seotda.rooms")


def game_key(room_id: str, game_no: int) -> str:
    return f"{room_id}-{game_no}"


def split_key(key: str) -> tuple[str, int]:
    """``"ab12-3"`` → ``("ab12", 3)``; a key in another shape is its own room id, game 1."""
    room_id, _, number = key.rpartition("-")
    if room_id and number.isdigit():
        return room_id, int(number)
    return key, 1


class ModerationDict(TypedDict):
    """The journal's ``moderation`` column: the host's bars (sorted) and lock."""

    barred: list[str]
    locked: bool


def room_moderation(room: Room) -> ModerationDict:
    """What the journal keeps of the host's bars and lock (rooms/moderation.py)."""
    return {"barred": sorted(room.barred), "locked": room.locked}


def restore_moderation(room: Room, saved: object) -> None:
    """The bars and lock a journaled room had (anything malformed: none)."""
    if not isinstance(saved, dict):
        return
    barred = saved.get("barred")
    if isinstance(barred, list):
        room.barred = {nick for nick in barred if isinstance(nick, str)}
    room.locked = saved.get("locked") is True


def prune_journal(journal: Journal, keep_days: int) -> int:
    """Drop games finished more than ``keep_days`` ago; never raises (the next run retries).

    Logged only when something went, so an idle server's log stays quiet.
    """
    try:
        removed = journal.prune(keep_days)
    except Exception:  # noqa: BLE001 - logged; the server must go on
        log_event(log, "journal_error", level=logging.ERROR, exc_info=True, op="prune")
        return 0
    if removed:
        log_event(log, "journal_pruned", games=removed, keep_days=keep_days)
    return removed


class GameRecorder:
    """Never raises: each write says whether it was committed; failures are logged, throttled.

    The caller decides what a failed write means (the room manager pauses the room, see
    :mod:`seotda_tui.rooms.pause`). While the journal keeps failing, one ``journal_error`` line
    is logged at the first failure and then at most one every :data:`LOG_EVERY` seconds
    (with how many failures it stands for); the first write that works again logs
    ``journal_recovered``. Rooms log their own pause and resume at most once a
    :data:`LOG_EVERY` each.
    """

    #: Seconds between two ``journal_error`` lines while writes keep failing.
    LOG_EVERY = 60.0

    def __init__(self, journal: Journal, clock: Clock) -> None:
        self.journal = journal
        self._clock = clock
        self._failing_since: float | None = None
        self._logged_at = 0.0
        self._unlogged = 0  # failures since the last journal_error line

    def start(self, game: GameRecord) -> bool:
        return self._write("start", game.room_id, lambda: self.journal.start_game(game))

    def record(self, key: str | None, player: str | None, action: Action) -> bool:
        if key is None:
            return True
        return self._write("record", key, lambda: self.journal.record(key, player, dict(action)))

    def watched(self, key: str | None, nick: str) -> bool:
        """``nick`` watches the game ``key``: it goes into their hand history."""
        if key is None:
            return True
        return self._write("watch", key, lambda: self.journal.watched(key, nick))

    def unseen(self, key: str | None, nick: str) -> bool:
        """``nick`` was removed from the game ``key``: it leaves their hand history."""
        if key is None:
            return True
        return self._write("unseen", key, lambda: self.journal.unseen(key, nick))

    def room_changed(self, room: Room) -> bool:
        """The running game's room got a new code, bar or lock (kept for a restart)."""
        key = room.journal_key
        if key is None:
            return True
        privacy = room.privacy.to_dict() if room.privacy is not None else None
        moderation = room_moderation(room)
        return self._write("room", key, lambda: self.journal.room_changed(key, privacy, moderation))

    def finish(self, key: str | None, result: Finish | None) -> bool:
        if key is None:
            return True
        return self._write("finish", key, lambda: self.journal.finish(key, result))

    def probe(self, key: str) -> bool:
        """A probe that works does not end the fault (``journal_recovered``): a nearly full disk
        may take the probe's one page and still refuse the next action."""
        return self._write("probe", key, lambda: self.journal.probe(key), recovers=False)

    def time(self) -> float:
        """The rooms' clock (the manager's): its log throttle counts on it, as the pauses do."""
        return self._clock.time()

    def _write(
        self, op: str, key: str | None, write: Callable[[], None], recovers: bool = True
    ) -> bool:
        try:
            write()
        except Exception as exc:  # noqa: BLE001 - logged; the caller pauses and retries
            self._failed(op, key, exc)
            return False
        if recovers and self._failing_since is not None:
            log_event(
                log,
                "journal_recovered",
                level=logging.WARNING,
                seconds=round(self.time() - self._failing_since, 1),
                failures=self._unlogged,
            )
            self._failing_since = None
            self._unlogged = 0
        return True

    def _failed(self, op: str, key: str | None, exc: Exception) -> None:
        now = self.time()
        first = self._failing_since is None
        if first:
            self._failing_since = now
        self._unlogged += 1
        if first or now - self._logged_at >= self.LOG_EVERY:
            log_event(
                log,
                "journal_error",
                level=logging.ERROR,
                exc_info=first,
                op=op,
                game=key,
                error=str(exc),
                failures=self._unlogged,
            )
            self._logged_at = now
            self._unlogged = 0

    def open_games(self) -> list[JournaledGame]:
        try:
            return self.journal.open_games()
        except Exception:  # noqa: BLE001 - logged; the game must go on
            log_event(log, "journal_error", level=logging.ERROR, exc_info=True, op="open_games")
            return []

    def close(self) -> None:
        try:
            self.journal.close()
        except Exception:  # noqa: BLE001 - logged; the game must go on
            log_event(log, "journal_error", level=logging.ERROR, exc_info=True, op="close")


class _NotArmed:
    """A resumed seat's reconnect grace that starts once the event loop runs."""

    def cancel(self) -> None:
        pass


NOT_ARMED = _NotArmed()


class JournalResume:
    """Rebuilds the journal's unfinished games into rooms, for the manager that owns it.

    The manager places the rooms (and their players) and arms their timers and bots. With
    ``tallies`` each room also gets its game's records tally, counted again from its log.
    """

    def __init__(self, recorder: GameRecorder, tallies: bool = False) -> None:
        self._recorder = recorder
        self._tallies = tallies

    def resume(self, rooms: Mapping[str, Room], new_room_id: Callable[[], str]) -> list[Room]:
        """Rebuild every unfinished journaled game into a room, beside ``rooms`` (see the
        manager's docstring); ``new_room_id`` names one whose id is taken."""
        resumed: list[Room] = []
        taken = set(rooms)
        for saved in self._recorder.open_games():
            if any(r.journal_key == saved.room_id for r in rooms.values()):
                continue  # already running (resume called twice)
            try:
                game = saved.rebuild()
            except Exception:  # noqa: BLE001 - logged; the game must go on
                log_event(
                    log, "resume_failed", level=logging.ERROR, exc_info=True, game=saved.room_id
                )
                self._recorder.finish(saved.room_id, {"aborted": "replayFailed"})
                continue
            if game.finished:  # the crash came between its last action and its end
                self._recorder.finish(saved.room_id, copy.deepcopy(game.result()))
                continue
            room = self._restore(taken, new_room_id, saved, game)
            if self._tallies:
                room.tally = GameTally.replayed(saved.options, saved.players, saved.seed, saved.log)
            room.privacy = Privacy.from_dict(saved.privacy)
            restore_moderation(room, saved.moderation)
            resumed.append(room)
            taken.add(room.id)
            log_event(
                log,
                "game_resumed",
                room=room.id,
                game=room.game_no,
                players=len(room.players),
                bots=len(room.bots),
                actions=len(saved.log),
            )
        return resumed

    @staticmethod
    def _restore(
        taken: set[str],
        new_room_id: Callable[[], str],
        saved: GameRecord,
        game: Game,
    ) -> Room:
        room_id, game_no = split_key(saved.room_id)
        while room_id in taken:
            room_id = new_room_id()
        # in join order, then anyone who sat down mid-game (issue 32)
        players = [*saved.players, *(p for p in game.players if p not in saved.players)]
        seated = [p for p in players if game.seat_status(p) != "left"]
        room = Room(
            room_id, saved.name, None, saved.options, players=seated, status=PLAYING, game=game
        )
        room.left = [p for p in players if game.seat_status(p) == "left"]
        room.bots = {p: saved.bots[p] for p in seated if p in saved.bots}
        room.seed, room.game_no, room.journal_key = saved.seed, game_no, saved.room_id
        for nick in room.humans():
            # grace not started yet (armed with the timers), or already over before the crash
            room.offline[nick] = NOT_ARMED if game.is_connected(nick) else None
        room.host = saved.host if saved.host in room.humans() else None
        room.fix_host()
        room.log.append({"type": "resumed"})
        return room
