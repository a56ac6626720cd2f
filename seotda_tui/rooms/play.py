"""The game driving of the room manager: start, act, the engine's deadlines, and after every change.

Why its own module: this is the one path from a room to its engine game and back. A game starts
here (the seed, the journal's record of it), every player's action and every timeout goes through
:class:`~.pause.StorageFaults` (journaled first; a failed write pauses the room), and
:meth:`GameDriver.changed` runs after every change any part of the manager makes: queued
spectators seated (:mod:`.mid_join`), bots disconnected when no human is left
(:class:`~.bot_seats.BotSeats`), the records' tally, the game's end or its next deadline, the log,
the room closed when nobody is left, and the pushes (:class:`~.pushes.Pushes`).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping

from engine import Game, IllegalAction, OptionsError
from engine.betting import BET_ACTIONS
from engine.dealing import DealHook
from engine.types import Action, PlainAction

from .. import metrics
from ..logs import log_event
from . import mid_join
from .bot_seats import BotSeats, BotTable
from .clock import Clock
from .events import RoomEvent
from .journal import GameRecord
from .model import FINISHED, PLAYING, Room, RoomError
from .pause import PAUSED_REASON, START_REFUSED, StorageFaults
from .pushes import Pushes
from .recording import game_key, room_moderation
from .records import GameTally
from .registry import RoomRegistry

log = logging.getLogger("seotda.rooms")

#: Engine actions only the manager may send; a session asking for them is refused.
_MANAGER_ONLY = frozenset({"leave", "disconnect", "reconnect"})
#: The kinds of action a session sends, as the metrics count them (anything else: "other").
_COUNTED_KINDS = frozenset(
    {*BET_ACTIONS, "choose", "rejoin", "rebuy", "gusaChoice", "ready", "join"}
)

Events = list[RoomEvent]


class GameDriver:
    """Drives each room's engine game; owns the bot seats and the storage faults.

    ``table`` is what the bots play through (the manager: ``subscribe_room`` and ``act``);
    ``deal``/``stacks`` are ``Game.new``'s test hooks.
    """

    def __init__(
        self,
        registry: RoomRegistry,
        pushes: Pushes,
        clock: Clock,
        table: BotTable,
        seed_source: Callable[[], int | str],
        deal: DealHook | None = None,
        stacks: Mapping[str, int] | None = None,
    ) -> None:
        self._registry = registry
        self._pushes = pushes
        self._clock = clock
        self._seed_source = seed_source
        self._deal, self._stacks = deal, dict(stacks or {})
        self.bots = BotSeats(table, clock, self.engine)
        self.faults = StorageFaults(registry.recorder, clock, registry.rooms.get, self.changed)

    # ------------------------------------------------------------------ what players ask
    def start(self, room: Room, nick: str) -> None:
        """The host deals the first hand with everyone seated; the seed comes from here."""
        if nick != room.host:
            raise RoomError("not_host", "방장만 시작할 수 있어요")
        if room.status == PLAYING:
            raise RoomError("game_running", "이미 게임 중이에요")
        if len(room.players) < 2:
            raise RoomError("too_few_players", "2명 이상 앉아야 시작할 수 있어요")
        try:
            room.options.check_players(len(room.players))
        except OptionsError as exc:
            raise RoomError("player_count", exc.template, **exc.values) from exc
        recorder = self._registry.recorder
        seed = self._seed_source()
        if recorder is not None:
            seed = str(seed)  # the journal keeps the seed as text, and replays it as text
        stacks = {p: c for p, c in self._stacks.items() if p in room.players}
        game = Game.new(room.options, list(room.players), seed, deal=self._deal, stacks=stacks)
        key = game_key(room.id, room.game_no + 1)
        if recorder is not None and not recorder.start(
            GameRecord(
                key,
                room.name,
                nick,
                room.options,
                str(seed),
                list(room.players),
                dict(room.bots),
                privacy=room.privacy.to_dict() if room.privacy is not None else None,
                moderation=room_moderation(room),
            )
        ):
            # a game the journal does not know must not start
            raise RoomError("start_refused", START_REFUSED)
        room.game, room.seed = game, str(seed)
        room.tally = GameTally(room.options, game.players) if self._registry.records else None
        room.game_no += 1
        room.journal_key = key if recorder else None
        if recorder is not None:
            for spectator in room.spectators:
                recorder.watched(key, spectator)  # (the hand history; may fail)
        room.status = PLAYING
        room.result = None
        room.left = []
        room.pending_key = None
        log_event(
            log,
            "game_started",
            room=room.id,
            game=room.game_no,
            players=len(room.players),
            bots=len(room.bots),
        )
        events: Events = [{"type": "gameStart", "players": room.game.players}]
        events += list(getattr(room.game, "last_events", []))
        self.changed(room, events)

    def act(self, room_id: str, nick: str, action: Action) -> None:
        """A player's action → ``game.apply``; a refusal raises RoomError (``illegal``: the
        engine's, its code in ``refusal``). Counted either way, by kind (:mod:`seotda_tui.metrics`)."""
        kind = action.get("type") if isinstance(action, Mapping) else None
        try:
            self._act(room_id, nick, action)
        except RoomError:
            metrics.action(kind if kind in _COUNTED_KINDS else "other", False)
            raise
        metrics.action(kind if kind in _COUNTED_KINDS else "other", True)

    def _act(self, room_id: str, nick: str, action: Action) -> None:
        room = self._registry.get(room_id)
        if room.status != PLAYING or room.game is None:
            raise RoomError("not_playing", "게임이 진행 중이 아니에요")
        if nick not in room.players or nick not in room.game.players:
            raise RoomError("not_in_game", "이 게임의 참가자가 아니에요")
        if isinstance(action, Mapping) and action.get("type") in _MANAGER_ONLY:
            raise RoomError("manager_only", "그 행동은 직접 할 수 없어요")
        if room.paused:
            raise RoomError("paused", PAUSED_REASON)
        try:
            events = self.faults.apply_journaled(room, nick, action)  # journaled first
        except IllegalAction as exc:
            raise RoomError.illegal(exc) from exc
        if events is None:  # not written, so not applied
            self.faults.pause(room)
            self.changed(room, [])
            raise RoomError("paused", PAUSED_REASON)
        self.changed(room, events)

    def join_next_hand(self, room: Room, nick: str) -> None:
        """A spectator asks for a seat at the next hand: the engine decides (``Game.check_join``);
        the join is journaled like any engine change (rooms/mid_join.py)."""
        assert room.game is not None
        refusal = room.game.check_join(nick)
        if refusal is not None:
            raise mid_join.refused(refusal, room)
        if room.paused:
            raise RoomError("paused", PAUSED_REASON)
        events = self.faults.apply_journaled(room, nick, {"type": "join"})  # journaled first
        if events is None:  # not written, so not applied
            self.faults.pause(room)
            self.changed(room, [])
            raise RoomError("paused", PAUSED_REASON)
        log_event(log, "join_queued", room=room.id, player=nick)
        self.changed(room, events)

    # ------------------------------------------------------------------ the manager's changes
    def engine(self, room: Room, nick: str, action: PlainAction) -> Events:
        """A manager-originated engine action; refusals (e.g. the game just ended) are ignored,
        and while the journal fails it waits (see :mod:`seotda_tui.rooms.pause`)."""
        return self.faults.manager_change(room, nick, action)

    def changed(self, room: Room, events: Events, force: bool = False) -> None:
        """After every change: log, finish or reschedule, push views, refresh the lobby."""
        events = copy.deepcopy(events)
        if room.status == PLAYING:
            events += mid_join.seat_joined(room, events)  # queued spectators seated (issue 32)
        playing = room.status == PLAYING and not room.paused  # a paused room waits for the disk
        if playing:
            events += copy.deepcopy(self.bots.humans_gone(room))
            playing = not room.paused  # (the bots' disconnect may be what could not be written)
        if room.tally is not None and room.game is not None:
            room.tally.observe(events, room.game)
        if playing and room.game is not None and room.game.finished:
            events += self._finish(room)
        elif playing:
            self._schedule(room, force)
        room.log.extend(events)
        if not room.humans() and not room.spectators:
            self._close(room)
        else:
            self._pushes.push(room, tuple(events))
        self._pushes.push_lobby()

    def _finish(self, room: Room) -> Events:
        """The game ended: keep the result, free the seats of players who are gone."""
        assert room.game is not None
        room.status = FINISHED
        room.result = self.bots.end_reason(room, copy.deepcopy(room.game.result()))
        self.faults.record_finish(room.journal_key, room.result)
        records = self._registry.records
        if records is not None and room.tally is not None and room.result is not None:
            key = room.journal_key or game_key(room.id, room.game_no)
            records.game_finished(key, room.tally, room.result, room.bots)
        room.tally = None
        room.journal_key = None
        log_event(
            log,
            "game_finished",
            room=room.id,
            game=room.game_no,
            reason=room.result["reason"] if room.result else None,
            hands=room.game.hands_played,
        )
        room.cancel_timer()
        where = self._registry.where
        for nick, timer in list(room.offline.items()):
            if timer is not None:
                timer.cancel()
            room.players.remove(nick)
            if where.get(nick) == room.id:
                del where[nick]
        room.offline.clear()
        room.left = []
        return [{"type": "roomFinished"}, *room.fix_host()]

    def _close(self, room: Room) -> None:
        """Nobody (human) is left: the room closes."""
        log_event(log, "room_closed", room=room.id, games=room.game_no)
        if room.status == PLAYING:
            # (only while paused: otherwise a running game keeps its humans' seats until it ends)
            self.faults.record_finish(room.journal_key, {"aborted": "roomClosed"})
        self.stop_room(room)
        self._registry.drop(room)
        self._pushes.closed(room)

    def stop_room(self, room: Room) -> None:
        """Stop everything a room runs on the clock: its bots, its deadline, its grace timers."""
        for bot in list(room.bot_players.values()):
            bot.stop()
        room.bot_players.clear()
        room.cancel_timer()
        self.faults.stop_retry(room)
        for timer in room.offline.values():
            if timer is not None:
                timer.cancel()

    # ------------------------------------------------------------------ the deadline
    def _schedule(self, room: Room, force: bool = False) -> None:
        """Arm the engine's deadline; a simultaneous phase keeps its deadline as players answer."""
        game = room.game
        if game is None or game.finished:
            room.cancel_timer()
            return
        pending = game.pending()
        key = game.decision_key()
        players = frozenset(pending["players"])
        same = key == room.pending_key and players <= room.pending_players
        if same and not force and room.timer is not None:
            room.pending_players = players
            return
        room.cancel_timer()
        seconds = pending["seconds"]
        if seconds is None:
            return
        room.pending_key, room.pending_players = key, players
        room.deadline_at = self._clock.time() + seconds
        room.timer_seq += 1
        seq = room.timer_seq
        room.timer = self._clock.call_later(seconds, lambda: self._deadline(room.id, seq))

    def _deadline(self, room_id: str, seq: int) -> None:
        room = self._registry.rooms.get(room_id)
        if room is None or room.game is None or room.timer is None or room.timer_seq != seq:
            return  # a stale timer that was replaced (or a closed room)
        room.timer = None
        try:
            events = self.faults.manager_change(room, None, {})  # journaled first
        except Exception:  # noqa: BLE001 - an engine bug must not kill the loop's timer callback
            log_event(log, "timeout_failed", level=logging.ERROR, exc_info=True, room=room_id)
            events = []
        self.changed(room, events, force=True)

    def seconds_left(self, room: Room) -> float | None:
        """Seconds until the game acts for whoever it waits for; None while no timer is armed."""
        if room.timer is None or room.deadline_at is None:
            return None
        return max(0.0, room.deadline_at - self._clock.time())
