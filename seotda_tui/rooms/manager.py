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
    manager.deadline(room_id) -> float | None         # seconds to the next automatic action
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
grace's end in ``RoomSummary.grace`` (the table counts it down); the engine hears
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

The manager is one class that owns three collaborators, each given only what it needs (no mixins
reaching for each other's private methods): :class:`~.bot_seats.BotSeats` (bot seats and their
drivers, which see the manager as a ``BotTable``: ``subscribe_room`` and ``act``),
:class:`~.pause.StorageFaults` (write-or-pause and its retries) and
:class:`~.recording.JournalResume` (rooms rebuilt from the journal). What they share is the
:class:`~.model.Room`.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import logging
import secrets
import uuid
from collections.abc import Callable, Mapping
from typing import Any, cast

from engine import Game, IllegalAction, Options, OptionsError
from engine.betting import BET_ACTIONS
from engine.dealing import DealHook
from engine.types import Action, View

from .. import metrics
from ..config import address_key
from ..i18n import N_
from ..logs import log_event
from ..sanitize import clean_text
from . import mid_join, moderation
from .api import RoomService
from .bot_seats import DEFAULT_LEVEL, BotSeats
from .clock import Cancellable, Clock, LoopClock
from .history import GameHistory
from .journal import GameRecord, Journal
from .model import (
    FINISHED,
    PLAYING,
    ROOM_NAME_CELLS,
    WAITING,
    LobbyCallback,
    Room,
    RoomCallback,
    RoomError,
    RoomSummary,
    RoomUpdate,
    SeatDriver,
)
from .pause import PAUSED_REASON, START_REFUSED, StorageFaults
from .private import (
    NEED_CODE,
    NOT_FOUND,
    TARGET_MAX,
    TOO_MANY_GUESSES,
    WRONG_CODE,
    CodeGuesses,
    Privacy,
    code_matches,
    new_code,
    normalize_code,
)
from .recording import NOT_ARMED, GameRecorder, JournalResume, game_key, room_moderation
from .records import GameRecords, GameTally

log = logging.getLogger("seotda.rooms")

MAX_ROOMS = 100
#: Rooms whose hosts are connected from one address (a NAT of a few friends fits).
MAX_ROOMS_PER_ADDRESS = 3
TOO_MANY_ROOMS = N_("방이 너무 많아요. 잠시 뒤에 다시 만들어 주세요")
TOO_MANY_FROM_ADDRESS = N_(
    "이 주소에서 연 방이 너무 많아요 (최대 {n}개). 있는 방이 닫힌 뒤에 다시 만들어 주세요"
)
MAX_SPECTATORS = 30
#: Engine actions only the manager may send; a session asking for them is refused.
_MANAGER_ONLY = frozenset({"leave", "disconnect", "reconnect"})
#: The kinds of action a session sends, as the metrics count them (anything else: "other").
_COUNTED_KINDS = frozenset({*BET_ACTIONS, "choose", "rejoin", "rebuy", "ready", "join"})
#: The states the rooms gauge reports, each every time (zeros too).
_ROOM_STATES = (WAITING, PLAYING, "paused", FINISHED)


def _clean_name(name: str, host: str) -> str:
    try:
        from ..sanitize import clean_text
    except ImportError:  # pragma: no cover - sanitize ships with the server
        cleaned = "".join(ch for ch in name if ch.isprintable()).strip()[:ROOM_NAME_CELLS]
    else:
        cleaned = clean_text(name, ROOM_NAME_CELLS)
    return cleaned or f"{host}의 방"


def _code_for(room: Room, nick: str) -> str | None:
    """A private room's code for ``nick``: only those in the room (seated or watching) see it."""
    if room.privacy is None or not room.has(nick):
        return None
    return room.privacy.code


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
        #: ``Game.new``'s deal hook and starting stacks for every game started here
        #: (seotda_tui.testing rigs cards and stacks through them).
        self._deal, self._stacks = deal, dict(stacks or {})
        self.clock: Clock = clock or LoopClock()
        #: What the create-room form starts from (the server's ``[room_defaults]`` setting).
        self.room_defaults = room_defaults or Options()
        self.reconnect_grace = reconnect_grace
        self._seed_source = seed_source or (lambda: secrets.token_hex(16))
        self.max_rooms = max_rooms
        self.max_rooms_per_address = max_rooms_per_address
        self._addresses: dict[str, str] = {}  # nick -> its session's address (address_key)
        self._rooms: dict[str, Room] = {}
        self._where: dict[str, str] = {}
        self._sessions: dict[str, int] = {}
        self._lobby_subs: dict[int, LobbyCallback] = {}
        self._room_counts: dict[str, int] = {}  # as the metrics last heard them
        self._count_rooms()  # zeros from the start (then on every change)
        self._last_lobby: tuple[RoomSummary, ...] | None = None
        self._sub_ids = itertools.count(1)
        self._guesses = CodeGuesses(lambda: self.clock.time())  # wrong private-room codes
        self._recorder = GameRecorder(journal) if journal is not None else None
        #: Players' records (:mod:`.records`): each finished game is counted here, if set.
        self.records = records
        self._unarmed: list[str] = []  # resumed rooms whose timers and bots wait for the loop
        # Its collaborators, each with the narrow view of the manager it needs:
        self._bots = BotSeats(self, self.clock, self._engine)
        self._faults = StorageFaults(self._recorder, self.clock, self._rooms.get, self._changed)
        if journal is not None:
            self.resume()

    def close(self) -> None:
        """Server shutdown: stop every timer so nothing fires into a stopped loop.

        Unfinished games stay open in the journal: the next start resumes them. The manager owns
        the journal it was given and closes it here.
        """
        for room in list(self._rooms.values()):
            self._stop_room(room)
            room.subscribers.clear()
        self._rooms.clear()
        self._where.clear()
        self._lobby_subs.clear()
        self._unarmed = []
        self._faults.close()
        if self._recorder is not None:
            self._recorder.close()
            self._recorder = None
        if self.records is not None:
            self.records.close()
            self.records = None

    # ------------------------------------------------------------------ queries
    def rooms(self, *, unlisted: bool = False) -> list[RoomSummary]:
        """The lobby's list; ``unlisted=True`` adds the private rooms their hosts hid."""
        return [
            r.summary()
            for r in self._rooms.values()
            if unlisted or r.privacy is None or r.privacy.listed
        ]

    def room(self, room_id: str) -> RoomSummary | None:
        room = self._rooms.get(room_id)
        return room.summary() if room else None

    def room_of(self, nick: str) -> str | None:
        return self._where.get(nick)

    def game_view(self, room_id: str, nick: str) -> View | None:
        """The game as ``nick``'s session sees it: own cards only; anyone not seated in the game
        (a spectator, or ``""``) gets the public view."""
        room = self._rooms.get(room_id)
        if room is None or room.game is None:
            return None
        return room.game.view(room.viewer_for(nick))

    def result(self, room_id: str) -> dict[str, Any] | None:
        """The room's last finished game's result (public), the object its updates carry."""
        room = self._rooms.get(room_id)
        return room.result if room else None

    def live_game(self, room_id: str) -> Game | None:
        """The room's engine game itself, every hand in it: for the tester harness and operator
        tools that drive or inspect a game, never for a session (which gets :meth:`game_view`)."""
        room = self._rooms.get(room_id)
        return room.game if room else None

    def bot_drivers(self, room_id: str) -> dict[str, SeatDriver]:
        """The drivers playing the room's bot seats, by bot (tools and tests read their errors)."""
        room = self._rooms.get(room_id)
        return dict(room.bot_players) if room else {}

    def paused(self, room_id: str) -> bool:
        """Whether the room waits for its journal (rooms/pause.py): no play until a write works."""
        room = self._rooms.get(room_id)
        return room is not None and room.paused

    def waiting_changes(self, room_id: str) -> list[tuple[str | None, dict[str, Any]]]:
        """The engine changes a paused room holds back until its journal can be written
        (``(player, action)``; ``None`` = a timeout), in the order they will be applied."""
        room = self._rooms.get(room_id)
        return [(nick, dict(action)) for nick, action in room.backlog] if room else []

    def deadline(self, room_id: str) -> float | None:
        """Seconds until the game acts for whoever it waits for; None while no timer is armed
        (no game, a paused room, or a resumed one whose event loop has not run yet)."""
        room = self._rooms.get(room_id)
        if room is None or room.timer is None or room.deadline_at is None:
            return None
        return max(0.0, room.deadline_at - self.clock.time())

    @property
    def lobby_subscribers(self) -> int:
        """Sessions getting lobby pushes now (a lobby screen subscribes while it is shown)."""
        return len(self._lobby_subs)

    def resend(self, room_id: str) -> None:
        """Push every session in the room its view again (after a tool edited the game)."""
        room = self._rooms.get(room_id)
        if room is not None:
            self._push(room, ())

    def log(self, room_id: str) -> list[dict[str, Any]]:
        room = self._rooms.get(room_id)
        return copy.deepcopy(list(room.log)) if room else []

    def room_code(self, room_id: str, nick: str) -> str | None:
        """A private room's code, told only to those in the room (they pass it on). Sessions
        read it from their updates (``RoomUpdate.code``, the same rule); this is for tools."""
        room = self._rooms.get(room_id)
        return _code_for(room, nick) if room is not None else None

    def find_room(self, target: str) -> RoomSummary | None:
        """The live room a typed code opens, else the public room of that name (the first).

        Private rooms are found by their code only, never by their name.
        """
        if not isinstance(target, str) or len(target) > TARGET_MAX:
            return None
        code = normalize_code(target)
        for room in self._rooms.values():
            if code is not None and room.privacy is not None and room.privacy.code == code:
                return room.summary()
        name = clean_text(target, TARGET_MAX)
        for room in self._rooms.values():
            if room.privacy is None and name and room.name == name:
                return room.summary()
        return None

    def direct_join(self, target: str, nick: str) -> str:
        """``ssh 철수+CODE@host``: take a seat in that room, or watch when it is playing or
        full; returns its id. Raises RoomError when no live room answers to ``target``."""
        address = self._addresses.get(nick, "")
        if self._guesses.blocked(nick, address):
            raise RoomError("too_many_guesses", TOO_MANY_GUESSES)
        found = self.find_room(target)
        if found is None:
            if normalize_code(target) is not None:
                self._guesses.failed(nick, address)  # shaped like a code: a guess
            raise RoomError(
                "room_not_found", NOT_FOUND, target=clean_text(target, ROOM_NAME_CELLS) or "?"
            )
        room = self._get(found.id)
        code = room.privacy.code if room.privacy else None
        if room.has(nick):
            return room.id
        try:
            self.join(room.id, nick, code)
        except RoomError:
            self.watch(room.id, nick, code)
        return room.id

    def _check_code(self, room: Room, nick: str, code: str | None) -> None:
        """A private room lets in those who know its code (or are in it already)."""
        if room.privacy is None or room.has(nick):
            return
        if code is None:
            raise RoomError("need_code", NEED_CODE)
        address = self._addresses.get(nick, "")
        if self._guesses.blocked(nick, address, room.id):
            raise RoomError("too_many_guesses", TOO_MANY_GUESSES)
        if not code_matches(room.privacy, code):
            self._guesses.failed(nick, address, room.id)
            raise RoomError("wrong_code", WRONG_CODE)

    @property
    def history(self) -> GameHistory | None:
        """The journal's finished games for the replay screen (None without a journal)."""
        return GameHistory(self._recorder.journal) if self._recorder is not None else None

    def _get(self, room_id: str) -> Room:
        room = self._rooms.get(room_id)
        if room is None:
            raise RoomError("room_gone", "방이 없어졌어요")
        return room

    def _check_free(self, nick: str, room_id: str | None = None) -> None:
        where = self._where.get(nick)
        if where is not None and where != room_id and where in self._rooms:
            raise RoomError(
                "in_other_room",
                N_("이미 '{room}' 방에 있어요. 먼저 나가 주세요"),
                room=self._rooms[where].name,
            )

    # ------------------------------------------------------------------ room membership
    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, Any],
        *,
        private: bool = False,
        listed: bool = True,
    ) -> RoomSummary:
        """Open a room with ``host`` in its first seat; bad options raise the engine's OptionsError.

        A ``private`` room gets a fresh code (:meth:`room_code`); ``listed=False`` keeps it out of
        the lobby list.
        """
        self._arm_resumed()
        if not isinstance(options, Options):
            options = Options.from_dict(options)
        self._check_free(host)
        if len(self._rooms) >= self.max_rooms:
            raise RoomError("too_many_rooms", TOO_MANY_ROOMS)
        self._check_address_rooms(host)
        room_id = self._new_room_id()
        room = Room(room_id, _clean_name(name, host), host, options, players=[host])
        if private:
            room.privacy = Privacy(new_code(self._codes()), listed)
        self._rooms[room_id] = room
        self._where[host] = room_id
        log_event(log, "room_created", room=room_id, host=host, name=room.name, private=private)
        self._changed(room, [{"type": "roomOpen", "host": host, "name": room.name}])
        return room.summary()

    def _check_address_rooms(self, host: str) -> None:
        """At most ``max_rooms_per_address`` rooms hosted from ``host``'s address."""
        address = self._addresses.get(host)
        if address is None:
            return
        hosted = sum(
            1
            for r in self._rooms.values()
            if r.host is not None and self._addresses.get(r.host) == address
        )
        if hosted >= self.max_rooms_per_address:
            raise RoomError(
                "too_many_from_address", TOO_MANY_FROM_ADDRESS, n=self.max_rooms_per_address
            )

    def _new_room_id(self) -> str:
        """Random, so ids (and the journal keys made from them) never repeat across restarts."""
        while True:
            room_id = uuid.uuid4().hex[:12]
            if room_id not in self._rooms:
                return room_id

    def _codes(self) -> set[str]:
        return {r.privacy.code for r in self._rooms.values() if r.privacy is not None}

    def _entering(self, room_id: str, nick: str, code: str | None) -> Room:
        """What sitting down and watching both check first: the room, that ``nick`` is in no
        other room, the private room's code, and that ``nick`` has no seat here yet."""
        self._arm_resumed()
        room = self._get(room_id)
        self._check_free(nick, room_id)
        self._check_code(room, nick, code)
        if nick in room.players:
            raise RoomError("already_seated", "이미 이 방에 앉아 있어요")
        return room

    def join(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Take a free seat before the game starts (a spectator of the room may sit down);
        while it runs, a spectator is queued for a seat at the next hand (issue 32)."""
        room = self._entering(room_id, nick, code)
        moderation.check_entry(room, nick)
        if room.status == PLAYING and nick in room.spectators and room.game is not None:
            self._join_next_hand(room, nick)
            return
        if room.status == PLAYING:
            raise RoomError("game_running", "게임이 이미 시작됐어요. 관전은 할 수 있어요")
        if len(room.players) >= room.options.max_players:
            raise RoomError(
                "room_full", N_("자리가 없어요 (최대 {n}명)"), n=room.options.max_players
            )
        if nick in room.spectators:
            room.spectators.remove(nick)
        room.players.append(nick)
        self._where[nick] = room_id
        if room.host is None:
            room.host = nick
        self._changed(room, [{"type": "join", "player": nick}])

    def _join_next_hand(self, room: Room, nick: str) -> None:
        """The engine decides (``Game.check_join``); the join is journaled like any engine
        change, and the seat comes when the next hand starts (rooms/mid_join.py)."""
        assert room.game is not None
        refusal = room.game.check_join(nick)
        if refusal is not None:
            raise mid_join.refused(refusal, room)
        if room.paused:
            raise RoomError("paused", PAUSED_REASON)
        events = self._faults.apply_journaled(room, nick, {"type": "join"})  # journaled first
        if events is None:  # not written, so not applied
            self._faults.pause(room)
            self._changed(room, [])
            raise RoomError("paused", PAUSED_REASON)
        log_event(log, "join_queued", room=room.id, player=nick)
        self._changed(room, events)

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Watch a room at any time, without a seat."""
        room = self._entering(room_id, nick, code)
        if nick in room.spectators:
            return
        moderation.check_entry(room, nick)
        if len(room.spectators) >= MAX_SPECTATORS:
            raise RoomError("too_many_spectators", "관전자가 너무 많아요")
        room.spectators.append(nick)
        self._where[nick] = room_id
        if self._recorder is not None and room.status == PLAYING:
            self._recorder.watched(room.journal_key, nick)  # (the hand history; may fail)
        self._changed(room, [{"type": "watch", "player": nick}])

    def leave(self, room_id: str, nick: str) -> None:
        """Leave the room. In a running game the seat stays with the engine, which auto-dies for it."""
        self._arm_resumed()
        room = self._rooms.get(room_id)
        if room is None:
            self._where.pop(nick, None)
            return
        self._leave(room, nick)

    def _leave(self, room: Room, nick: str, by: str | None = None) -> None:
        """``nick`` leaves (``by`` the host who removed them, if so); see :meth:`leave`."""
        removed = {"by": by} if by else {}
        events: list[dict[str, Any]] = []
        if nick in room.spectators:
            room.spectators.remove(nick)
            events.append({"type": "unwatch", "player": nick, **removed})
            if nick in mid_join.queued(room):  # no seat at the next hand for someone gone
                events += self._engine(room, nick, {"type": "leave"})
        elif nick in room.players:
            timer = room.offline.pop(nick, None)
            if timer is not None:
                timer.cancel()
            room.players.remove(nick)
            events.append({"type": "leaveRoom", "player": nick, **removed})
            if room.status == PLAYING and room.game is not None and nick in room.game.players:
                room.left.append(nick)
                events += self._engine(room, nick, {"type": "leave"})
        else:
            return
        if self._where.get(nick) == room.id:
            del self._where[nick]
        events += room.fix_host()
        self._changed(room, events)

    # ------------------------------------------------------------------ moderation (the host)
    def remove(self, room_id: str, host: str, nick: str) -> None:
        """The host removes a player (between hands) or a spectator, who may not come back
        until :meth:`readmit`; their sessions get a last ``closed`` push with the notice."""
        self._arm_resumed()
        room = self._get(room_id)
        moderation.check_remove(room, host, nick)
        room.barred.add(nick)
        log_event(log, "player_removed", room=room.id, host=host, player=nick)
        if self._recorder is not None:
            self._recorder.unseen(room.journal_key, nick)  # (the hand history; may fail)
        if room.privacy is not None:
            self._new_code(room)  # a fresh nickname with the old code finds nothing
        self._journal_room(room)
        notice = moderation.REMOVED_NOTICE.format(room=room.name)
        for sub, (who, callback) in list(room.subscribers.items()):
            if who == nick:
                del room.subscribers[sub]
                last = self._update(room, nick, (), closed=True)
                shown = dataclasses.replace(
                    last,
                    notice=notice,
                    notice_template=moderation.REMOVED_NOTICE,
                    notice_values=(("room", room.name),),
                )
                self._call(callback, shown)
        self._leave(room, nick, by=host)
        if room.privacy is not None and room.id in self._rooms:
            self._changed(room, [{"type": "codeChanged", "by": host}])

    def set_locked(self, room_id: str, host: str, locked: bool) -> None:
        """The host locks the room (nobody new sits or watches) or unlocks it."""
        self._arm_resumed()
        room = self._get(room_id)
        events = moderation.lock(room, host, locked)
        if events:
            self._journal_room(room)
            self._changed(room, events)

    def hand_host(self, room_id: str, host: str, nick: str) -> None:
        """The host hands the role to another seated, connected human."""
        self._arm_resumed()
        room = self._get(room_id)
        events = moderation.hand_host(room, host, nick)
        self._changed(room, events)

    def readmit(self, room_id: str, host: str) -> None:
        """The host lets everyone they removed from this room come back."""
        self._arm_resumed()
        room = self._get(room_id)
        events = moderation.readmit(room, host)
        if events:
            self._journal_room(room)
            self._changed(room, events)

    def change_code(self, room_id: str, host: str) -> None:
        """The host gives a private room a new code (those inside see it; the old one opens
        nothing)."""
        self._arm_resumed()
        room = self._get(room_id)
        moderation.check_code_change(room, host)
        self._new_code(room)
        self._journal_room(room)
        log_event(log, "code_changed", room=room.id, host=host)
        self._changed(room, [{"type": "codeChanged", "by": host}])

    def change_options(self, room_id: str, host: str, options: Options | Mapping[str, Any]) -> None:
        """The host changes the room's rules between games (not while one runs); everyone in
        the room is pushed them, and the log says what changed (rooms/moderation.py)."""
        self._arm_resumed()
        room = self._get(room_id)
        if not isinstance(options, Options):
            options = Options.from_dict(options)
        events = moderation.change_options(room, host, options)
        if events:
            fields = ",".join(str(change[0]) for change in events[0]["changes"])
            log_event(log, "options_changed", room=room.id, host=host, fields=fields)
            self._changed(room, events)

    def _new_code(self, room: Room) -> None:
        assert room.privacy is not None
        room.privacy = dataclasses.replace(room.privacy, code=new_code(self._codes()))

    def _journal_room(self, room: Room) -> None:
        """A running game's room keeps its code, bars and lock across a restart."""
        if self._recorder is not None:
            self._recorder.room_changed(room)  # (may fail: logged, the room goes on)

    def start(self, room_id: str, nick: str) -> None:
        """The host deals the first hand with everyone seated; the seed comes from here."""
        self._arm_resumed()
        room = self._get(room_id)
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
        seed = self._seed_source()
        if self._recorder is not None:
            seed = str(seed)  # the journal keeps the seed as text, and replays it as text
        stacks = {p: c for p, c in self._stacks.items() if p in room.players}
        game = Game.new(room.options, list(room.players), seed, deal=self._deal, stacks=stacks)
        key = game_key(room.id, room.game_no + 1)
        if self._recorder is not None and not self._recorder.start(
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
        room.tally = GameTally(room.options, game.players) if self.records else None
        room.game_no += 1
        room.journal_key = key if self._recorder else None
        if self._recorder is not None:
            for spectator in room.spectators:
                self._recorder.watched(key, spectator)  # (the hand history; may fail)
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
        events = [{"type": "gameStart", "players": room.game.players}]
        events += list(getattr(room.game, "last_events", []))
        self._changed(room, events)

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
        self._arm_resumed()
        room = self._get(room_id)
        if room.status != PLAYING or room.game is None:
            raise RoomError("not_playing", "게임이 진행 중이 아니에요")
        if nick not in room.players or nick not in room.game.players:
            raise RoomError("not_in_game", "이 게임의 참가자가 아니에요")
        if isinstance(action, Mapping) and action.get("type") in _MANAGER_ONLY:
            raise RoomError("manager_only", "그 행동은 직접 할 수 없어요")
        if room.paused:
            raise RoomError("paused", PAUSED_REASON)
        try:
            events = self._faults.apply_journaled(room, nick, action)  # journaled first
        except IllegalAction as exc:
            raise RoomError.illegal(exc) from exc
        if events is None:  # not written, so not applied
            self._faults.pause(room)
            self._changed(room, [])
            raise RoomError("paused", PAUSED_REASON)
        self._changed(room, events)

    # ------------------------------------------------------------------ bots
    def add_bot(self, room_id: str, nick: str, level: str = DEFAULT_LEVEL) -> str:
        """The host seats a bot (before a game starts); returns its nickname, e.g. ``봇1(신중)``."""
        self._arm_resumed()
        room = self._get(room_id)
        bot, events = self._bots.add(room, nick, level)
        self._changed(room, events)
        self._bots.start(room, bot)
        return bot

    def remove_bot(self, room_id: str, nick: str, bot: str | None = None) -> str:
        """The host takes a bot's seat away (``None`` = the last bot added); returns its name."""
        self._arm_resumed()
        room = self._get(room_id)
        bot, events = self._bots.remove(room, nick, bot)
        self._changed(room, events)
        return bot

    # ------------------------------------------------------------------ the journal
    def resume(self) -> list[str]:
        """Rebuild every unfinished journaled game into a room; returns their ids (see top)."""
        if self._recorder is None:
            return []
        tallies = self.records is not None
        rooms = JournalResume(self._recorder, tallies).resume(self._rooms, self._new_room_id)
        for room in rooms:
            if room.privacy is not None and room.privacy.code in self._codes():
                room.privacy = Privacy(new_code(self._codes()), room.privacy.listed)
            self._rooms[room.id] = room
            for nick in room.humans():
                self._where.setdefault(nick, room.id)
        resumed = [room.id for room in rooms]
        self._unarmed += resumed
        self._arm_resumed()
        self._push_lobby()
        return resumed

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
            if room is None or room.status != PLAYING:
                continue
            for nick, timer in list(room.offline.items()):
                if timer is NOT_ARMED:
                    room.offline[nick] = self._grace_timer(room_id, nick)
            for bot in room.bots:
                self._bots.start(room, bot)
            # spectators queued for the next hand are gone with the old process (issue 32)
            events: list[dict[str, Any]] = []
            for nick in mid_join.queued(room):
                events += self._engine(room, nick, {"type": "leave"})
            self._changed(room, events, force=True)

    def _grace_timer(self, room_id: str, nick: str) -> Cancellable:
        """The grace timer of an offline seat; its end is kept for the table's countdown."""
        self._rooms[room_id].grace_ends[nick] = self.clock.time() + self.reconnect_grace
        return self.clock.call_later(self.reconnect_grace, lambda: self._grace_over(room_id, nick))

    # ------------------------------------------------------------------ sessions
    def session_connected(self, nick: str, address: str = "") -> str | None:
        """A session for ``nick`` opened (from the client ``address``, for the per-address
        limits); returns the room where it holds a seat, if any."""
        self._arm_resumed()
        self._sessions[nick] = self._sessions.get(nick, 0) + 1
        if address:
            self._addresses[nick] = address_key(address)
        room_id = self._where.get(nick)
        room = self._rooms.get(room_id) if room_id else None
        if room is None or nick not in room.players:
            return None
        if nick in room.offline:
            timer = room.offline.pop(nick)
            events: list[dict[str, Any]] = [{"type": "online", "player": nick}]
            if timer is not None:
                timer.cancel()  # back within the grace: the engine never knew
            elif room.game is not None and not room.game.finished:
                events += self._engine(room, nick, {"type": "reconnect"})
            self._changed(room, events)
        return room.id

    def session_disconnected(self, nick: str) -> None:
        """The last session of ``nick`` closed: leave, or keep the seat for the grace period."""
        self._arm_resumed()
        count = self._sessions.get(nick, 0) - 1
        if count > 0:
            self._sessions[nick] = count
            return
        self._sessions.pop(nick, None)
        self._addresses.pop(nick, None)
        room_id = self._where.get(nick)
        room = self._rooms.get(room_id) if room_id else None
        if room is None:
            return
        playing = room.status == PLAYING and room.game is not None
        if nick in room.players and playing and nick in room.game.players:  # type: ignore[union-attr]
            if nick not in room.offline:
                room.offline[nick] = self._grace_timer(room.id, nick)
                self._changed(room, [{"type": "offline", "player": nick}])
            return
        self.leave(room.id, nick)

    def _grace_over(self, room_id: str, nick: str) -> None:
        room = self._rooms.get(room_id)
        if room is None or nick not in room.offline or room.offline[nick] is None:
            return
        room.offline[nick] = None
        if room.status == PLAYING and room.game is not None:
            self._changed(room, self._engine(room, nick, {"type": "disconnect"}))

    # ------------------------------------------------------------------ subscriptions
    def subscribe_lobby(self, callback: LobbyCallback) -> Callable[[], None]:
        """``callback(rooms)`` now and on every change of the lobby list."""
        self._arm_resumed()
        sub = next(self._sub_ids)
        self._lobby_subs[sub] = callback
        self._call(callback, self.rooms())
        return lambda: self._lobby_subs.pop(sub, None) and None

    def subscribe_room(self, room_id: str, nick: str, callback: RoomCallback) -> Callable[[], None]:
        """Push ``nick``'s view of the room now (a snapshot with the log) and after every change."""
        self._arm_resumed()
        room = self._get(room_id)
        if nick not in room.players and nick not in room.spectators:
            raise RoomError("not_in_room", "이 방에 들어와 있지 않아요")
        sub = next(self._sub_ids)
        room.subscribers[sub] = (nick, callback)
        self._call(callback, self._update(room, nick, tuple(room.log), snapshot=True))

        def unsubscribe() -> None:
            current = self._rooms.get(room_id)
            if current is not None:
                current.subscribers.pop(sub, None)

        return unsubscribe

    # ------------------------------------------------------------------ internals
    def _engine(self, room: Room, nick: str, action: dict[str, Any]) -> list[dict[str, Any]]:
        """A manager-originated engine action; refusals (e.g. the game just ended) are ignored,
        and while the journal fails it waits (see :mod:`seotda_tui.rooms.pause`)."""
        return self._faults.manager_change(room, nick, action)

    def _finish(self, room: Room) -> list[dict[str, Any]]:
        """The game ended: keep the result, free the seats of players who are gone."""
        assert room.game is not None
        room.status = FINISHED
        room.result = self._bots.end_reason(room, copy.deepcopy(room.game.result()))
        self._faults.record_finish(room.journal_key, room.result)
        if self.records is not None and room.tally is not None and room.result is not None:
            key = room.journal_key or game_key(room.id, room.game_no)
            self.records.game_finished(key, room.tally, room.result, room.bots)
        room.tally = None
        room.journal_key = None
        log_event(
            log,
            "game_finished",
            room=room.id,
            game=room.game_no,
            reason=(room.result or {}).get("reason"),
            hands=room.game.hands_played,
        )
        room.cancel_timer()
        for nick, timer in list(room.offline.items()):
            if timer is not None:
                timer.cancel()
            room.players.remove(nick)
            if self._where.get(nick) == room.id:
                del self._where[nick]
        room.offline.clear()
        room.left = []
        return [{"type": "roomFinished"}, *room.fix_host()]

    def _stop_room(self, room: Room) -> None:
        """Stop everything a room runs on the clock: its bots, its deadline, its grace timers."""
        for bot in list(room.bot_players.values()):
            bot.stop()
        room.bot_players.clear()
        room.cancel_timer()
        self._faults.stop_retry(room)
        for timer in room.offline.values():
            if timer is not None:
                timer.cancel()

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
        room.deadline_at = self.clock.time() + seconds
        room.timer_seq += 1
        seq = room.timer_seq
        room.timer = self.clock.call_later(seconds, lambda: self._deadline(room.id, seq))

    def _deadline(self, room_id: str, seq: int) -> None:
        room = self._rooms.get(room_id)
        if room is None or room.game is None or room.timer is None or room.timer_seq != seq:
            return  # a stale timer that was replaced (or a closed room)
        room.timer = None
        try:
            events = self._faults.manager_change(room, None, {})  # journaled first
        except Exception:  # noqa: BLE001 - an engine bug must not kill the loop's timer callback
            log_event(log, "timeout_failed", level=logging.ERROR, exc_info=True, room=room_id)
            events = []
        self._changed(room, events, force=True)

    def _changed(self, room: Room, events: list[dict[str, Any]], force: bool = False) -> None:
        """After every change: log, finish or reschedule, push views, refresh the lobby."""
        events = copy.deepcopy(events)
        if room.status == PLAYING:
            events += mid_join.seat_joined(room, events)  # queued spectators seated (issue 32)
        playing = room.status == PLAYING and not room.paused  # a paused room waits for the disk
        if playing:
            events += copy.deepcopy(self._bots.humans_gone(room))
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
            self._push(room, tuple(events))
        self._push_lobby()

    def _close(self, room: Room) -> None:
        log_event(log, "room_closed", room=room.id, games=room.game_no)
        if room.status == PLAYING:
            # (only while paused: otherwise a running game keeps its humans' seats until it ends)
            self._faults.record_finish(room.journal_key, {"aborted": "roomClosed"})
        self._stop_room(room)
        self._rooms.pop(room.id, None)
        for nick in [n for n, r in self._where.items() if r == room.id]:
            del self._where[nick]
        subscribers = list(room.subscribers.values())
        room.subscribers.clear()
        for nick, callback in subscribers:
            self._call(callback, self._update(room, nick, (), closed=True))

    def _update(
        self,
        room: Room,
        nick: str,
        events: tuple[dict[str, Any], ...],
        snapshot: bool = False,
        closed: bool = False,
        cache: dict[str | None, dict[str, Any]] | None = None,
    ) -> RoomUpdate:
        viewer = room.viewer_for(nick)
        view = None
        if room.game is not None:
            if cache is not None and viewer in cache:
                view = cache[viewer]
            else:
                # shares nothing with the state: no copy needed
                view = cast(dict[str, Any], room.game.view(viewer))
                if cache is not None:
                    cache[viewer] = view
        deadline = None
        if room.deadline_at is not None:
            deadline = max(0.0, room.deadline_at - self.clock.time())
        return RoomUpdate(
            room=room.summary(),
            viewer=viewer,
            view=view,
            events=copy.deepcopy(events) if snapshot else events,
            deadline=deadline,
            result=room.result,
            snapshot=snapshot,
            closed=closed,
            paused=room.paused,
            code=None if closed else _code_for(room, nick),
        )

    def _push(self, room: Room, events: tuple[dict[str, Any], ...]) -> None:
        cache: dict[str | None, dict[str, Any]] = {}
        for nick, callback in list(room.subscribers.values()):
            self._call(callback, self._update(room, nick, events, cache=cache))

    def _push_lobby(self) -> None:
        self._count_rooms()
        rooms = tuple(self.rooms())
        if rooms == self._last_lobby:
            return
        self._last_lobby = rooms
        for callback in list(self._lobby_subs.values()):
            self._call(callback, list(rooms))

    def _count_rooms(self) -> None:
        """The rooms gauge by state (every room, the private ones too), when it changed."""
        counts = dict.fromkeys(_ROOM_STATES, 0)
        for room in self._rooms.values():
            counts["paused" if room.paused else room.status] += 1
        if counts != self._room_counts:
            self._room_counts = counts
            metrics.rooms(counts)

    @staticmethod
    def _call(callback: Callable[[Any], None], arg: Any) -> None:
        """One session's failing callback must not stop the others' updates."""
        try:
            callback(arg)
        except Exception:
            log.exception("room subscriber failed")


def _implements(manager: RoomManager) -> RoomService:
    return manager  # mypy proves here that RoomManager is all that rooms/api.py says
