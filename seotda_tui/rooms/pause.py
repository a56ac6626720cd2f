"""No journal, no play: an engine change is applied only once its journal write committed.

Why: a change players saw but the journal lacks is lost at the next crash, and every change after
it replays wrongly. So each engine change of a journaled game goes through
:meth:`StorageFaults.apply_journaled`: snapshot the game (``game.to_dict()``, ~0.1 ms, see
BENCHMARKS.md), apply, write; when the write fails the snapshot comes back and nothing is pushed.

A failed write pauses the room (``Room.paused_since``; ``RoomUpdate.paused`` tells the screens,
which show :data:`PAUSED_NOTICE`): ``act`` refuses with :data:`PAUSED_REASON`, the deadline timer
stops, the bots stop, and the manager's own engine changes (``leave``/``disconnect``/``reconnect``,
and the timeout whose write failed) wait in ``Room.backlog``. The manager retries on its clock
after :data:`RETRY_STEPS` (1, 2, 5, then every 10 s): it writes the backlog in order, applying each
change once written (a change the game no longer takes is dropped), or, with nothing waiting, makes
one probe write to the game's own record (:meth:`~seotda_tui.rooms.journal.Journal.probe`). Once that works the room plays on
where it stopped, with a fresh full turn.

A game whose start cannot be written does not start (the host gets :data:`START_REFUSED`); a
finish that cannot be written is retried on the same steps while the result stays on screen (a
restart would close that game anyway: its replay ends finished).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from engine import Game, IllegalAction
from engine.types import Action

from ..i18n import N_
from ..logs import log_event
from .clock import Cancellable, Clock
from .events import RoomEvent
from .journal import Entry, Finish
from .model import Room
from .recording import GameRecorder

log = logging.getLogger("seotda.rooms")

#: Seconds between write attempts while the journal fails (the last step repeats).
RETRY_STEPS = (1.0, 2.0, 5.0, 10.0)
#: What ``act`` answers while the room is paused.
#: (Short: the table shows it beside "q 나가기"; the status line says the rest.)
PAUSED_REASON = N_("저장 공간 문제로 잠시 멈췄어요")
#: The table screen's status line while the room is paused.
PAUSED_NOTICE = N_("저장 공간 문제로 게임을 잠시 멈췄어요 · 다시 저장되면 이어서 해요")
#: What the host hears when the game's start cannot be written.
#: (Whole beside "q 나가기" at 80 columns, as the advice must be: 60 cells, 62 in English.)
START_REFUSED = N_("저장 공간 문제로 시작하지 못했어요. 잠시 뒤에 다시 해 주세요")

Events = list[RoomEvent]
Change = Entry  # (player, action); player None = the timeout


def retry_delay(step: int) -> float:
    return RETRY_STEPS[min(step, len(RETRY_STEPS) - 1)]


class StorageFaults:
    """The room manager's write-or-pause rules (the manager owns one, with its journal).

    ``rooms`` finds a room by id (None once closed); ``changed(room, events, force)`` is the
    manager's push after a change, here after a retry.
    """

    def __init__(
        self,
        recorder: GameRecorder | None,
        clock: Clock,
        rooms: Callable[[str], Room | None],
        changed: Callable[[Room, Events, bool], None],
    ) -> None:
        self._recorder = recorder
        self.clock = clock
        self._rooms = rooms
        self._changed = changed
        self._unfinished: dict[str, Finish | None] = {}  # game ends not yet written
        self._finish_timer: Cancellable | None = None
        self._finish_step = 0

    def close(self) -> None:
        """Server shutdown: no more retries of game ends (the journal is being closed)."""
        self._stop_finish_retry()
        self._recorder = None

    # ------------------------------------------------------------------ one change
    def apply_journaled(self, room: Room, nick: str | None, action: Action) -> Events | None:
        """Apply one engine change and journal it; ``None`` = not written, the game as before.

        ``IllegalAction`` (and an engine error) propagate with the game unchanged.
        """
        game = room.game
        assert game is not None
        if self._recorder is None or room.journal_key is None:
            return [*(game.timeout() if nick is None else game.apply(nick, action))]
        snapshot = game.to_dict()
        events: Events = [*(game.timeout() if nick is None else game.apply(nick, action))]
        if self._recorder.record(room.journal_key, nick, action):
            return events
        # back in place, the same object: whoever holds the game (a loop over its seats) sees it
        vars(game).update(vars(Game.from_dict(snapshot)))
        return None

    def manager_change(self, room: Room, nick: str | None, action: Action) -> Events:
        """A change the manager makes (timeout, leave, disconnect, reconnect): applied once
        written; while the room is paused (or this write fails) it waits in the backlog."""
        if room.paused_since is not None:
            room.backlog.append((nick, action))
            return []
        try:
            events = self.apply_journaled(room, nick, action)
        except IllegalAction as exc:
            log.debug("engine refused %s for %s: %s", action, nick, exc)
            return []
        if events is None:
            room.backlog.append((nick, action))
            self.pause(room)
            return []
        return events

    # ------------------------------------------------------------------ pause and resume
    def pause(self, room: Room) -> None:
        """Stop the room's clock-driven play; the caller pushes the change (``paused``)."""
        if room.paused_since is not None:
            return
        room.paused_since = self.clock.time()
        room.retry_count = 0
        room.cancel_timer()
        # a nearly full disk may take some writes and refuse others: one pause line (and its
        # resume line) a room per GameRecorder.LOG_EVERY, however often it pauses
        assert self._recorder is not None
        now = self._recorder.time()
        last = room.pause_logged_at
        room.pause_logged = last is None or now - last >= self._recorder.LOG_EVERY
        if room.pause_logged:
            room.pause_logged_at = now
            log_event(
                log, "room_paused", level=logging.WARNING, room=room.id, game=room.journal_key
            )
        self._arm_retry(room)

    def _arm_retry(self, room: Room) -> None:
        delay = retry_delay(room.retry_count)
        room.retry_count += 1
        room_id = room.id
        room.retry_timer = self.clock.call_later(delay, lambda: self._retry(room_id))

    def _retry(self, room_id: str) -> None:
        room = self._rooms(room_id)
        if room is None or room.paused_since is None or room.game is None:
            return
        room.retry_timer = None
        events: Events = []
        wrote = False
        while room.backlog and not room.game.finished:
            nick, action = room.backlog[0]
            try:
                applied = self.apply_journaled(room, nick, action)
            except IllegalAction:
                applied, written = [], False  # the game no longer takes it: nothing to write
            except Exception:  # noqa: BLE001 - an engine bug must not kill the timer callback
                log_event(log, "timeout_failed", level=logging.ERROR, exc_info=True, room=room_id)
                applied, written = [], False
            else:
                written = applied is not None
            if applied is None:
                break
            room.backlog.pop(0)
            events += applied
            wrote = wrote or written
        ok = not room.backlog or room.game.finished
        if ok and not wrote:
            key = room.journal_key
            ok = self._recorder is None or key is None or self._recorder.probe(key)
        if ok:
            room.backlog.clear()
            if room.pause_logged:
                log_event(
                    log,
                    "room_resumed",
                    room=room.id,
                    game=room.journal_key,
                    seconds=round(self.clock.time() - room.paused_since, 1),
                    retries=room.retry_count,
                )
            room.paused_since = None
        else:
            self._arm_retry(room)
        self._changed(room, events, True)  # force: a fresh full turn after the pause

    def stop_retry(self, room: Room) -> None:
        if room.retry_timer is not None:
            room.retry_timer.cancel()
        room.retry_timer = None

    # ------------------------------------------------------------------ the game's end
    def record_finish(self, key: str | None, result: Finish | None) -> None:
        """Write the game's end now, or keep it and retry on :data:`RETRY_STEPS`."""
        if self._recorder is None or key is None:
            return
        if not self._unfinished and self._recorder.finish(key, result):
            return
        self._unfinished[key] = result
        if self._finish_timer is None:
            self._arm_finish_retry()

    def _arm_finish_retry(self) -> None:
        delay = retry_delay(self._finish_step)
        self._finish_step += 1
        self._finish_timer = self.clock.call_later(delay, self._retry_finishes)

    def _retry_finishes(self) -> None:
        self._finish_timer = None
        if self._recorder is None:
            return
        for key, result in list(self._unfinished.items()):
            if not self._recorder.finish(key, result):
                self._arm_finish_retry()
                return
            del self._unfinished[key]
        self._finish_step = 0

    def _stop_finish_retry(self) -> None:
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        self._finish_timer = None
