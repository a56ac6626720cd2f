"""The room manager: one per server process, shared by every SSH session.

Why it exists: sessions must never hold a ``Game`` (it contains everyone's cards). The manager owns
the games, the seed randomness and the clock, and pushes each subscribed session only its own
redacted ``game.view(viewer)`` plus the public events of each change. No Textual here: pure asyncio
timers behind an injectable :class:`~seotda_tui.rooms.clock.Clock`, so it is unit-tested with a fake clock.

API (all synchronous; call from the event loop's thread; what callers may use of it is
:class:`~seotda_tui.rooms.api.RoomService`, and every refusal raises :class:`RoomError`)::

    manager = RoomManager(clock=None, reconnect_grace=60.0, seed_source=None, room_defaults=None,
                          journal=None,                 # a Journal: record games, resume them
                          records=None,                 # a GameRecords: players' statistics
                          deal=None, stacks=None)       # Game.new's test hooks (no journal)
    manager.records -> GameRecords | None             # what the records screens read
    manager.room_defaults -> Options                  # what the create-room form starts from
    manager.rooms(unlisted=False) -> list[RoomSummary]  # the lobby list (+ unlisted rooms)
    manager.room(room_id) -> RoomSummary | None
    manager.room_of(nick) -> str | None              # the one room a nickname is in
    manager.create_room(host, name, options, private=False, listed=True) -> RoomSummary
                                                      # host takes the first seat
    manager.join(room_id, nick, code=None) / watch(room_id, nick, code=None)
        / leave(room_id, nick) / start(room_id, nick) -> raise RoomError (its ``code``, a Korean message) when refused
    manager.room_code(room_id, nick) -> str | None    # a private room's code, for those inside
                                                      # (tools; sessions get RoomUpdate.code)
    manager.find_room(code_or_name) -> RoomSummary | None   # a live code, or a public room's name
    manager.direct_join(code_or_name, nick) -> str    # seat, else watch (``ssh 철수+CODE@host``)
    manager.act(room_id, nick, action)                # refused: RoomError (``illegal``: the engine's)
    manager.add_bot(room_id, host, level="cautious") -> str   # the bot's nickname, e.g. 봇1(신중)
    manager.remove_bot(room_id, host, bot=None) -> str  # None = the last bot added
    manager.remove(room_id, host, nick) / set_locked(room_id, host, locked) /
        hand_host(room_id, host, nick) / readmit(room_id, host) /
        change_code(room_id, host) /                  # moderation (rooms/moderation.py)
        change_options(room_id, host, options)        # new rules between games
    manager.resume() -> list[str]                     # rooms rebuilt from the journal (see below)
    manager.subscribe_lobby(cb) -> unsubscribe        # cb(list[RoomSummary]) on every lobby change
    manager.subscribe_room(room_id, nick, cb) -> unsubscribe  # cb(RoomUpdate); first call at once
    manager.session_connected(nick, address="") -> str | None  # the room holding nick's seat
                                                      # (address: the client's, for the limits)
    manager.session_disconnected(nick)
    manager.log(room_id) -> list[dict]                # bounded public event log
    manager.game_view(room_id, nick) -> View | None  # the game as nick sees it (own cards only)
    manager.result(room_id) -> dict | None           # the last finished game's result
    manager.live_game(room_id) -> Game | None        # server truth, for the tester harness / tools
    manager.bot_drivers(room_id) -> dict[str, SeatDriver]  # who plays each bot seat (tools, tests)
    manager.seconds_left(room_id) -> float | None     # seconds to the next automatic action
    manager.paused(room_id) -> bool                   # waiting for the journal (rooms/pause.py)
    manager.waiting_changes(room_id) -> list[(nick, action)]  # what a paused room holds back
    manager.lobby_subscribers -> int                  # sessions getting lobby pushes now
    manager.resend(room_id)                          # push every session its view again
    manager.history -> GameHistory | None             # finished games to replay (rooms/history.py)
    manager.close()                                   # shutdown: cancel timers, close the journal

Callbacks run synchronously inside the manager call that caused the change, possibly on another
session's task: they must only hand the update over (e.g. post a message) and never call back into
the manager. A callback that raises is logged and skipped; other sessions still get their update.
An update's ``view`` is shared by the subscribers with the same viewer (spectators) and must be
treated as read-only; it shares nothing with the game (the engine's views are fresh).

Room life: ``waiting`` (대기 중) → host ``start`` with ≥2 seated players → ``playing`` (게임 중:
a spectator's ``join`` queues them for a seat at the next hand when the room's ``midJoin`` option
allows it — the engine decides, the join is journaled, rooms/mid_join.py; issue 32) →
the game ends → ``finished`` (종료: the result stays on screen, players who left or are offline
lose their seats, others may join, the host may start again). A room with no human players and no
spectators closes. A nickname is in at most one room at a time.

Per address (the client's, told by ``session_connected``): at most ``max_rooms_per_address`` rooms
hosted from one address (so a few addresses cannot fill ``max_rooms`` with hidden rooms), and
the private codes' guess limits (:class:`~.private.CodeGuesses`).

Disconnects: a spectator or a not-yet-playing player who drops simply leaves. A player in a running
game keeps the seat until the game ends, marked offline (``RoomSummary.offline``) at once, with the
grace's end in ``RoomSummary.grace_ends`` (the table counts it down); the engine hears
``{"type": "disconnect"}`` only when ``reconnect_grace`` passes (from then on the seat no longer
counts as present for §6.6's end). Its turns time out as anyone's do (§8.5: the normal deadline,
then the automatic action). Reconnecting within the grace cancels it; after it the engine gets
``{"type": "reconnect"}`` and the player plays on. Leaving mid-game sends ``leave``.

Journal (optional): on ``start`` the game's options, seed, seats and bots go to the journal; every
engine change that is applied — a player's action, a timeout (``player=None``), and the manager's
own ``leave``/``disconnect``/``reconnect`` — is appended *before* anyone is pushed its effect, and
is applied only if that write commits: otherwise the room pauses until the journal can be written
again (:mod:`seotda_tui.rooms.pause`: ``act`` refuses, ``RoomUpdate.paused`` is set, no timers, no
bots; a start that cannot be written raises ``RoomError``). A refused action records nothing; the
game's end records the result (the seed is used and kept as text, ``str(seed_source())``, so the
replay deals the same cards). With a journal the constructor
calls :meth:`RoomManager.resume`: every unfinished game is replayed into a ``게임 중`` room with the
same id, every human seat offline, waiting for its player (``session_connected`` under the same
nickname finds seat, stack and cards). The reconnect grace of those seats, the engine's deadline (a
fresh full one: time spent while the server was down is not charged) and the bots start when the
server's event loop runs (at once if it already does, else on the first manager call made from
inside it). Seats whose grace had already run out before the crash stay disconnected in the engine.

Bots (:mod:`seotda_tui.rooms.bot_seats`): the host adds them to free seats before a game; they are seats
like people's (``RoomSummary.players``, and ``RoomSummary.bots`` says which), but play through a
:class:`~seotda_tui.rooms.bot_seats.BotPlayer` that subscribes under the bot's name, sees only its own
view and calls ``act``. Bots are never hosts and never keep a room open: a room with no human and
no spectator closes, and when no human in the game is left with a connection and a chance (every
one has left, been eliminated, or is offline past the grace), the manager sends the engine
``disconnect`` for every bot, which ends the game (the engine's reason ``disconnected``; the
room's result says ``botsOnly``, as a person who went bust is still connected).

The manager is one class, :class:`RoomManager`, the one implementation of
:class:`~seotda_tui.rooms.api.RoomService` in a process; it holds no rules itself but hands each
call to one of its collaborators, built once and given only what they need (composition, no
mixins reaching for each other's private methods). What they share is the
:class:`~.registry.RoomRegistry` (the rooms, who is where, the journal and records) and the
:class:`~.model.Room` itself:

- :class:`~.registry.RoomRegistry`: ids, codes, the lobby's list, lookups and the room limits;
- :class:`~.pushes.Pushes`: the subscriptions and every :class:`RoomUpdate` (per viewer);
- :class:`~.play.GameDriver`: start, act, the deadlines and what follows every change; it owns
  :class:`~.bot_seats.BotSeats` (bot seats and their drivers, which see the manager as a
  ``BotTable``: ``subscribe_room`` and ``act``) and :class:`~.pause.StorageFaults`
  (write-or-pause and its retries);
- :class:`~.seating.Seating`: creating, joining, watching, leaving and the host's moderation;
- :class:`~.presence.Presence`: sessions, the reconnect grace and the rooms resumed from the
  journal (:class:`~.recording.JournalResume`), armed once the loop runs.
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable, Mapping

from engine import Game, Options
from engine.dealing import DealHook
from engine.types import Action, GameResult, View

from .api import RoomService
from .bot_seats import DEFAULT_LEVEL
from .clock import Clock, LoopClock
from .events import RoomEvent
from .history import GameHistory
from .journal import Entry, Journal
from .model import LobbyCallback, RoomCallback, RoomSummary, SeatDriver
from .play import GameDriver
from .presence import Presence
from .pushes import Pushes
from .recording import GameRecorder
from .records import GameRecords
from .registry import (
    MAX_ROOMS,
    MAX_ROOMS_PER_ADDRESS,
    TOO_MANY_FROM_ADDRESS,
    TOO_MANY_ROOMS,
    RoomRegistry,
    code_for,
)
from .seating import MAX_SPECTATORS, Seating

__all__ = [  # (the limits' names stay importable from here)
    "MAX_ROOMS",
    "MAX_ROOMS_PER_ADDRESS",
    "MAX_SPECTATORS",
    "TOO_MANY_FROM_ADDRESS",
    "TOO_MANY_ROOMS",
    "RoomManager",
]


class RoomManager:
    """All rooms of one server. See the module docstring for the API and the rules it enforces."""

    def __init__(
        self,
        clock: Clock | None = None,
        reconnect_grace: float = 60.0,
        seed_source: Callable[[], int | str] | None = None,
        max_rooms: int = MAX_ROOMS,
        room_defaults: Options | None = None,
        journal: Journal | None = None,
        records: GameRecords | None = None,
        max_rooms_per_address: int = MAX_ROOMS_PER_ADDRESS,
        deal: DealHook | None = None,
        stacks: Mapping[str, int] | None = None,
    ) -> None:
        if (deal is not None or stacks) and journal is not None:  # it replays from the seed
            raise ValueError("a deal hook or stacks (tests, the harness) cannot be journaled")
        self.clock: Clock = clock or LoopClock()
        #: What the create-room form starts from (the server's ``[room_defaults]`` setting).
        self.room_defaults = room_defaults or Options()
        recorder = GameRecorder(journal, self.clock) if journal is not None else None
        self._registry = RoomRegistry(
            lambda: self.clock.time(), max_rooms, max_rooms_per_address, recorder, records
        )
        self._pushes = Pushes(self._registry)
        # (deal/stacks: Game.new's deal hook and starting stacks for every game started here;
        # seotda_tui.testing rigs cards and stacks through them)
        self._play = GameDriver(
            self._registry,
            self._pushes,
            self.clock,
            self,
            seed_source or (lambda: secrets.token_hex(16)),
            deal,
            stacks,
        )
        self._seating = Seating(self._registry, self._play, self._pushes)
        self._presence = Presence(
            self._registry, self._play, self._seating, self._pushes, self.clock, reconnect_grace
        )
        if journal is not None:
            self.resume()

    def close(self) -> None:
        """Server shutdown: stop every timer so nothing fires into a stopped loop.

        Unfinished games stay open in the journal: the next start resumes them. The manager owns
        the journal it was given and closes it here.
        """
        for room in list(self._registry.rooms.values()):
            self._play.stop_room(room)
        self._pushes.close()
        self._presence.close()
        self._play.faults.close()
        self._registry.close()

    # ------------------------------------------------------------------ settings
    @property
    def records(self) -> GameRecords | None:
        """Players' records (:mod:`.records`): each finished game is counted here, if set."""
        return self._registry.records

    @property
    def reconnect_grace(self) -> float:
        return self._presence.reconnect_grace

    @reconnect_grace.setter
    def reconnect_grace(self, seconds: float) -> None:
        self._presence.reconnect_grace = seconds

    @property
    def max_rooms(self) -> int:
        return self._registry.max_rooms

    @property
    def max_rooms_per_address(self) -> int:
        return self._registry.max_rooms_per_address

    @property
    def history(self) -> GameHistory | None:
        """The journal's finished games for the replay screen (None without a journal)."""
        recorder = self._registry.recorder
        return GameHistory(recorder.journal) if recorder is not None else None

    # ------------------------------------------------------------------ queries
    def rooms(self, *, unlisted: bool = False) -> list[RoomSummary]:
        """The lobby's list; ``unlisted=True`` adds the private rooms their hosts hid."""
        return self._registry.listing(unlisted)

    def room(self, room_id: str) -> RoomSummary | None:
        room = self._registry.rooms.get(room_id)
        return room.summary() if room else None

    def room_of(self, nick: str) -> str | None:
        return self._registry.where.get(nick)

    def log(self, room_id: str) -> list[RoomEvent]:
        room = self._registry.rooms.get(room_id)
        return copy.deepcopy(list(room.log)) if room else []

    def room_code(self, room_id: str, nick: str) -> str | None:
        """A private room's code, told only to those in the room (they pass it on). Sessions
        read it from their updates (``RoomUpdate.code``, the same rule); this is for tools."""
        room = self._registry.rooms.get(room_id)
        return code_for(room, nick) if room is not None else None

    def find_room(self, target: str) -> RoomSummary | None:
        """The live room a typed code opens, else the public room of that name (the first).

        Private rooms are found by their code only, never by their name.
        """
        room = self._registry.find(target)
        return room.summary() if room is not None else None

    # ------------------------------------------------------------------ tools and tests
    def game_view(self, room_id: str, nick: str) -> View | None:
        """The game as ``nick``'s session sees it: own cards only; anyone not seated in the game
        (a spectator, or ``""``) gets the public view."""
        room = self._registry.rooms.get(room_id)
        if room is None or room.game is None:
            return None
        return room.game.view(room.viewer_for(nick))

    def result(self, room_id: str) -> GameResult | None:
        """The room's last finished game's result (public), the object its updates carry."""
        room = self._registry.rooms.get(room_id)
        return room.result if room else None

    def live_game(self, room_id: str) -> Game | None:
        """The room's engine game itself, every hand in it: for the tester harness and operator
        tools that drive or inspect a game, never for a session (which gets :meth:`game_view`)."""
        room = self._registry.rooms.get(room_id)
        return room.game if room else None

    def bot_drivers(self, room_id: str) -> dict[str, SeatDriver]:
        """The drivers playing the room's bot seats, by bot (tools and tests read their errors)."""
        room = self._registry.rooms.get(room_id)
        return dict(room.bot_players) if room else {}

    def paused(self, room_id: str) -> bool:
        """Whether the room waits for its journal (rooms/pause.py): no play until a write works."""
        room = self._registry.rooms.get(room_id)
        return room is not None and room.paused

    def waiting_changes(self, room_id: str) -> list[Entry]:
        """The engine changes a paused room holds back until its journal can be written
        (``(player, action)``; ``None`` = a timeout), in the order they will be applied."""
        room = self._registry.rooms.get(room_id)
        return [(nick, dict(action)) for nick, action in room.backlog] if room else []

    def seconds_left(self, room_id: str) -> float | None:
        """Seconds until the game acts for whoever it waits for; None while no timer is armed
        (no game, a paused room, or a resumed one whose event loop has not run yet). A count,
        not a moment: ``RoomUpdate.deadline_at`` is the moment (rooms/api.py)."""
        room = self._registry.rooms.get(room_id)
        return self._play.seconds_left(room) if room is not None else None

    @property
    def lobby_subscribers(self) -> int:
        """Sessions getting lobby pushes now (a lobby screen subscribes while it is shown)."""
        return self._pushes.lobby_subscribers

    def resend(self, room_id: str) -> None:
        """Push every session in the room its view again (after a tool edited the game)."""
        room = self._registry.rooms.get(room_id)
        if room is not None:
            self._pushes.push(room, ())

    # ------------------------------------------------------------------ room membership
    def direct_join(self, target: str, nick: str) -> str:
        """``ssh 철수+CODE@host``: take a seat in that room, or watch when it is playing or
        full; returns its id. Raises RoomError when no live room answers to ``target``."""
        self._presence.arm()
        return self._seating.direct_join(target, nick)

    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, object],
        *,
        private: bool = False,
        listed: bool = True,
    ) -> RoomSummary:
        """Open a room with ``host`` in its first seat; bad options raise the engine's OptionsError.

        A ``private`` room gets a fresh code (its updates carry it to those inside);
        ``listed=False`` keeps it out of the lobby list.
        """
        self._presence.arm()
        return self._seating.create_room(host, name, options, private, listed)

    def join(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Take a free seat before the game starts (a spectator of the room may sit down);
        while it runs, a spectator is queued for a seat at the next hand (issue 32)."""
        self._presence.arm()
        self._seating.join(room_id, nick, code)

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Watch a room at any time, without a seat."""
        self._presence.arm()
        self._seating.watch(room_id, nick, code)

    def leave(self, room_id: str, nick: str) -> None:
        """Leave the room. In a running game the seat stays with the engine, which auto-dies for it."""
        self._presence.arm()
        self._seating.leave(room_id, nick)

    def start(self, room_id: str, nick: str) -> None:
        """The host deals the first hand with everyone seated; the seed comes from here."""
        self._presence.arm()
        self._play.start(self._registry.get(room_id), nick)

    def act(self, room_id: str, nick: str, action: Action) -> None:
        """A player's action → ``game.apply``; a refusal raises RoomError (``illegal``: the
        engine's, its code in ``refusal``). Counted either way, by kind (:mod:`seotda_tui.metrics`)."""
        self._presence.arm()
        self._play.act(room_id, nick, action)

    # ------------------------------------------------------------------ the host
    def add_bot(self, room_id: str, nick: str, level: str = DEFAULT_LEVEL) -> str:
        """The host seats a bot (before a game starts); returns its nickname, e.g. ``봇1(신중)``."""
        self._presence.arm()
        room = self._registry.get(room_id)
        bot, events = self._play.bots.add(room, nick, level)
        self._play.changed(room, events)
        self._play.bots.start(room, bot)
        return bot

    def remove_bot(self, room_id: str, nick: str, bot: str | None = None) -> str:
        """The host takes a bot's seat away (``None`` = the last bot added); returns its name."""
        self._presence.arm()
        room = self._registry.get(room_id)
        bot, events = self._play.bots.remove(room, nick, bot)
        self._play.changed(room, events)
        return bot

    def remove(self, room_id: str, host: str, nick: str) -> None:
        """The host removes a player (between hands) or a spectator, who may not come back
        until :meth:`readmit`; their sessions get a last ``closed`` push with the notice."""
        self._presence.arm()
        self._seating.remove(room_id, host, nick)

    def set_locked(self, room_id: str, host: str, locked: bool) -> None:
        """The host locks the room (nobody new sits or watches) or unlocks it."""
        self._presence.arm()
        self._seating.set_locked(room_id, host, locked)

    def hand_host(self, room_id: str, host: str, nick: str) -> None:
        """The host hands the role to another seated, connected human."""
        self._presence.arm()
        self._seating.hand_host(room_id, host, nick)

    def readmit(self, room_id: str, host: str) -> None:
        """The host lets everyone they removed from this room come back."""
        self._presence.arm()
        self._seating.readmit(room_id, host)

    def change_code(self, room_id: str, host: str) -> None:
        """The host gives a private room a new code (those inside see it; the old one opens
        nothing)."""
        self._presence.arm()
        self._seating.change_code(room_id, host)

    def change_options(
        self, room_id: str, host: str, options: Options | Mapping[str, object]
    ) -> None:
        """The host changes the room's rules between games (not while one runs); everyone in
        the room is pushed them, and the log says what changed (rooms/moderation.py)."""
        self._presence.arm()
        self._seating.change_options(room_id, host, options)

    # ------------------------------------------------------------------ sessions and the journal
    def session_connected(self, nick: str, address: str = "") -> str | None:
        """A session for ``nick`` opened (from the client ``address``, for the per-address
        limits); returns the room where it holds a seat, if any."""
        self._presence.arm()
        return self._presence.session_connected(nick, address)

    def session_disconnected(self, nick: str) -> None:
        """The last session of ``nick`` closed: leave, or keep the seat for the grace period."""
        self._presence.arm()
        self._presence.session_disconnected(nick)

    def resume(self) -> list[str]:
        """Rebuild every unfinished journaled game into a room; returns their ids (see top)."""
        return self._presence.resume()

    # ------------------------------------------------------------------ subscriptions
    def subscribe_lobby(self, callback: LobbyCallback) -> Callable[[], None]:
        """``callback(rooms)`` now and on every change of the lobby list."""
        self._presence.arm()
        return self._pushes.subscribe_lobby(callback)

    def subscribe_room(self, room_id: str, nick: str, callback: RoomCallback) -> Callable[[], None]:
        """Push ``nick``'s view of the room now (a snapshot with the log) and after every change."""
        self._presence.arm()
        return self._pushes.subscribe_room(self._registry.get(room_id), nick, callback)


def _implements(manager: RoomManager) -> RoomService:
    return manager  # mypy proves here that RoomManager is all that rooms/api.py says
