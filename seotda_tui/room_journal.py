"""The room manager's side of the game journal: record games safely, find the ones to resume.

:class:`GameRecorder` wraps a :class:`~seotda_tui.journal.Journal` so that a failing disk never
raises into a room: each write returns whether it was committed, and the room manager applies
nothing a player could see unless it was (the room pauses instead, see
:mod:`seotda_tui.room_pause`), so a restart always resumes from a log without holes.

:func:`prune_journal` drops long-finished games (the server runs it at start-up and hourly).

Journal keys are ``"<room id>-<game number in that room>"``: room ids are random (unique across
restarts) and a room that plays again gets a new key, so finished games keep their own records.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine import Game, Options

from .clock import Cancellable, Clock
from .journal import Journal, JournaledGame
from .logs import log_event

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("seotda.rooms")


def game_key(room_id: str, game_no: int) -> str:
    return f"{room_id}-{game_no}"


def split_key(key: str) -> tuple[str, int]:
    """``"ab12-3"`` → ``("ab12", 3)``; a key in another shape is its own room id, game 1."""
    room_id, _, number = key.rpartition("-")
    if room_id and number.isdigit():
        return room_id, int(number)
    return key, 1


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
    :mod:`seotda_tui.room_pause`). While the journal keeps failing, one ``journal_error`` line
    is logged at the first failure and then at most one every :data:`LOG_EVERY` seconds
    (with how many failures it stands for); the first write that works again logs
    ``journal_recovered``. Rooms log their own pause and resume at most once a
    :data:`LOG_EVERY` each.
    """

    #: Seconds between two ``journal_error`` lines while writes keep failing.
    LOG_EVERY = 60.0

    def __init__(self, journal: Journal, clock: Callable[[], float] = time.monotonic) -> None:
        self.journal = journal
        self._clock = clock
        self._failing_since: float | None = None
        self._logged_at = 0.0
        self._unlogged = 0  # failures since the last journal_error line

    def start(
        self,
        key: str,
        name: str,
        host: str,
        options: Options,
        seed: str,
        players: list[str],
        bots: Mapping[str, str],
    ) -> bool:
        return self._write(
            "start",
            key,
            lambda: self.journal.start_game(
                key, name, host, options, seed, list(players), dict(bots)
            ),
        )

    def record(self, key: str | None, player: str | None, action: Mapping[str, Any]) -> bool:
        if key is None:
            return True
        return self._write("record", key, lambda: self.journal.record(key, player, dict(action)))

    def finish(self, key: str | None, result: dict[str, Any] | None) -> bool:
        if key is None:
            return True
        return self._write("finish", key, lambda: self.journal.finish(key, result))

    def probe(self, key: str) -> bool:
        """A probe that works does not end the fault (``journal_recovered``): a nearly full disk
        may take the probe's one page and still refuse the next action."""
        return self._write("probe", key, lambda: self.journal.probe(key), recovers=False)

    def time(self) -> float:
        return self._clock()

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
                seconds=round(self._clock() - self._failing_since, 1),
                failures=self._unlogged,
            )
            self._failing_since = None
            self._unlogged = 0
        return True

    def _failed(self, op: str, key: str | None, exc: Exception) -> None:
        now = self._clock()
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
    """The room manager's journal methods (a mixin of :class:`~seotda_tui.rooms.RoomManager`)."""

    if TYPE_CHECKING:
        clock: Clock
        reconnect_grace: float
        _rooms: dict[str, Room]
        _where: dict[str, str]
        _recorder: GameRecorder | None
        _unarmed: list[str]

        def _new_room_id(self) -> str: ...
        def _fix_host(self, room: Room) -> list[dict[str, Any]]: ...
        def _start_bot(self, room: Room, bot: str) -> None: ...
        def _grace_over(self, room_id: str, nick: str) -> None: ...
        def _push_lobby(self) -> None: ...
        def _changed(
            self, room: Room, events: list[dict[str, Any]], force: bool = False
        ) -> None: ...

    def resume(self) -> list[str]:
        """Rebuild every unfinished journaled game into a room; returns their ids (see top)."""
        if self._recorder is None:
            return []
        resumed: list[str] = []
        for saved in self._recorder.open_games():
            if any(r.journal_key == saved.room_id for r in self._rooms.values()):
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
            room = self._restore(
                saved.room_id,
                saved.name,
                saved.host,
                saved.options,
                saved.seed,
                saved.players,
                saved.bots,
                game,
            )
            resumed.append(room.id)
            log_event(
                log,
                "game_resumed",
                room=room.id,
                game=room.game_no,
                players=len(room.players),
                bots=len(room.bots),
                actions=len(saved.log),
            )
        self._unarmed += resumed
        self._arm_resumed()
        self._push_lobby()
        return resumed

    def _restore(
        self,
        key: str,
        name: str,
        host: str,
        options: Options,
        seed: str,
        players: list[str],
        bots: dict[str, str],
        game: Game,
    ) -> Room:
        room_id, game_no = split_key(key)
        if room_id in self._rooms:
            room_id = self._new_room_id()
        seated = [p for p in players if game.seat_status(p) != "left"]
        from .rooms import PLAYING, Room  # (rooms imports this module)

        room = Room(room_id, name, None, options, players=seated, status=PLAYING, game=game)
        room.left = [p for p in players if game.seat_status(p) == "left"]
        room.bots = {p: bots[p] for p in seated if p in bots}
        room.seed, room.game_no, room.journal_key = seed, game_no, key
        for nick in room.humans():
            # grace not started yet (armed with the timers), or already over before the crash
            room.offline[nick] = NOT_ARMED if game.is_connected(nick) else None
            self._where.setdefault(nick, room_id)
        room.host = host if host in room.humans() else None
        self._fix_host(room)
        room.log.append({"type": "resumed"})
        self._rooms[room_id] = room
        return room

    def _arm_resumed(self) -> None:
        """Start the grace timers, deadlines and bots of resumed rooms once the loop runs."""
        if not self._unarmed:
            return
        try:
            self.clock.time()
        except RuntimeError:  # LoopClock before the event loop runs: try again on the next call
            return
        room_ids, self._unarmed = self._unarmed, []
        for room_id in room_ids:
            room = self._rooms.get(room_id)
            if room is None or room.status != "playing":
                continue
            for nick, timer in list(room.offline.items()):
                if timer is NOT_ARMED:
                    room.offline[nick] = self._grace_timer(room_id, nick)
            for bot in room.bots:
                self._start_bot(room, bot)
            self._changed(room, [], force=True)

    def _grace_timer(self, room_id: str, nick: str) -> Cancellable:
        """The grace timer of an offline seat; its end is kept for the table's countdown."""
        self._rooms[room_id].grace_ends[nick] = self.clock.time() + self.reconnect_grace
        return self.clock.call_later(self.reconnect_grace, lambda: self._grace_over(room_id, nick))
