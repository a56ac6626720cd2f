"""The room API: what the UI, the SSH side and the wiring may ask of a room manager, written once.

Why one Protocol: the manager of one process (:class:`~.manager.RoomManager`) and a worker's view
of the rooms process (``cluster.remote.RemoteRoomManager``) are the same service to their callers.
:class:`RoomService` says what that service is; the type checker proves both implement it (see
``_implements`` at the bottom of each), and the hub's dispatch and the wire's argument and answer
codecs are derived from its methods (:func:`room_calls`), so one new call is one method here, one
in the manager and a one-line forward in the remote.

Every call is synchronous (call it from the event loop's thread) and reports a refusal one way:
it raises :class:`RoomError` (its ``code`` says why; the text is Korean, ``shown()`` translates).
The data it takes and gives is plain and frozen (:class:`RoomSummary`, :class:`RoomUpdate`).
The full contract (room life, disconnects, the journal, bots) is the manager's module docstring.

Times have one convention here: a moment (a turn's deadline, a reconnect grace's end) is an
absolute time on the service's own :attr:`RoomService.clock`, named ``…_at`` / ``…_ends``. Why
absolute: a screen draws it again and again (every second, on a resize) and must count from one
fixed moment, and a summary is compared to skip unchanged lobby pushes (a "seconds left" changes
with every reading). The receiver's clock, not the sender's: a worker's remote converts at its
boundary (the wire carries seconds left at sending, ``cluster/protocol.py``, since two
processes' monotonic clocks share no reference point), so a caller of either service reads the
moment against ``service.clock.time()`` and nothing else.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from engine import IllegalAction, Options
from engine.types import Action, GameResult, RefusalCode, View

from ..i18n import N_, tr
from .clock import Clock
from .events import RoomEvent

if TYPE_CHECKING:
    from .history import GameHistory
    from .records import GameRecords

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
STATUS_LABELS = {WAITING: N_("대기 중"), PLAYING: N_("게임 중"), FINISHED: N_("종료")}


#: Why a room operation was refused: stable, for callers and tests to branch on (the engine's
#: ``Refusal.code`` is its counterpart). One code is one meaning; the text may differ per
#: operation (``not_host`` is "only the host may start" or "... add a bot").
RoomErrorCode = Literal[
    # the room itself
    "room_gone",  # no room has that id (any more)
    "room_not_found",  # nothing answers to the name/code typed to join directly
    "room_full",  # every seat is taken
    "mid_join_off",  # the room's options keep spectators out of a running game (midJoin)
    "already_joining",  # queued already for a seat at the next hand
    "no_hands_left",  # the hand being played is the game's last: no next hand to sit at
    "game_running",  # not while the room's game is running (join, start, bots)
    "too_few_players",  # a start with fewer than 2 seated
    "player_count",  # a start with a count the room's options refuse (OptionsError's text)
    "too_many_spectators",
    "start_refused",  # the journal could not record the start (storage fault)
    "paused",  # the journal cannot be written now: the room waits (rooms/pause.py)
    # who asks
    "in_other_room",  # the nickname is already in another room
    "already_seated",
    "not_in_room",  # the asker is not in this room
    "not_host",
    # a game action (act)
    "not_playing",  # the room runs no game now
    "not_in_game",  # the asker has no seat in the running game
    "manager_only",  # leave/disconnect/reconnect: the manager's to send, never a session's
    "illegal",  # the engine refused it (RoomError.refusal is the engine's RefusalCode)
    # private rooms (rooms/private.py)
    "need_code",
    "wrong_code",
    "too_many_guesses",  # wrong codes from this nickname/address: held back a while
    "not_private",  # a code asked of a public room
    # host moderation (rooms/moderation.py)
    "barred",  # the host removed this nickname
    "locked",
    "remove_self",
    "remove_bot",  # bots leave with the bot key, not the remove menu
    "target_absent",  # the named player is not in this room
    "mid_hand",  # a seated player cannot be removed while their hand runs
    "already_host",
    "target_not_seated",  # host handed to someone not seated
    "target_offline",
    # bots (rooms/bot_seats.py)
    "unknown_bot",  # no such bot level
    "no_bots",
    "not_a_bot",
    # limits
    "too_many_rooms",
    "too_many_from_address",
    # --workers: the worker cannot reach the rooms process (cluster/remote.py)
    "hub_down",
]
ROOM_ERROR_CODES: frozenset[str] = frozenset(get_args(RoomErrorCode))


class RoomError(ValueError):
    """A refused room operation. ``code`` is why (stable: what callers and tests check);
    ``str(exc)`` is the Korean text; ``template`` (a catalogue msgid, with ``{name}``
    placeholders; the second argument, Babel's ``RoomError:2``) and ``values`` let the UI show
    it in the player's language (:meth:`shown`)."""

    #: With code ``illegal``: the engine's reason (``IllegalAction.code``), for programs.
    refusal: RefusalCode | None = None

    def __init__(self, code: RoomErrorCode, template: str, **values: object) -> None:
        super().__init__(template.format(**values) if values else template)
        self.code: RoomErrorCode = code
        self.template = template
        self.values = values

    @staticmethod
    def illegal(exc: IllegalAction) -> RoomError:
        """The engine refused a player's action: its Korean reason (a catalogue msgid, as the
        engine raises it) and its code."""
        refused = RoomError("illegal", str(exc))
        refused.refusal = exc.code
        return refused

    def shown(self) -> str:
        """The refusal in the current session's language."""
        return tr(self.template, self.values)


@dataclass(frozen=True)
class RoomSummary:
    """What the lobby and the room header show; public and cheap to compare."""

    id: str
    name: str
    host: str | None
    players: tuple[str, ...]  # seated, in join order (the game shuffles its own seat order)
    max_players: int
    spectators: tuple[str, ...]
    status: str  # waiting | playing | finished
    offline: tuple[str, ...]  # seated players whose session dropped ("연결 끊김")
    left: tuple[str, ...]  # players who left the running game (the engine auto-dies for them)
    options: Options
    bots: tuple[str, ...] = ()  # the seated players that are bots (also in ``players``)
    #: (nick, the time on the service's clock its reconnect grace ends) for offline seats in it
    grace_ends: tuple[tuple[str, float], ...] = ()
    locked: bool = False  # the host locked it: nobody new sits or watches (rooms/moderation.py)
    barred: tuple[str, ...] = ()  # nicknames the host removed; they may not come back yet
    private: bool = False  # joining or watching needs the code (which no summary carries)
    listed: bool = True  # shown in the lobby list (a private room's host may hide it)

    @property
    def status_label(self) -> str:
        return STATUS_LABELS[self.status]

    @property
    def joinable(self) -> bool:
        return self.status != PLAYING and len(self.players) < self.max_players


@dataclass(frozen=True)
class RoomUpdate:
    """One push to one session: the room, this viewer's own view, and the change's events."""

    room: RoomSummary
    viewer: str | None  # whose view this is; None = the spectator view
    view: View | None  # None before the first game starts
    events: tuple[RoomEvent, ...]  # public events of this change (the whole log if snapshot)
    #: the time on the service's clock the game acts for whoever it waits for (None: no wait)
    deadline_at: float | None
    result: GameResult | None  # the last finished game's result
    snapshot: bool = False  # first push after subscribing
    closed: bool = False  # the room is gone
    paused: bool = False  # the journal cannot be written: no play until it can (rooms/pause.py)
    #: with ``closed``: why this viewer is out (e.g. the host removed them)
    notice: str | None = None
    #: ``notice`` before formatting (a msgid) and its values, for the viewer's language
    notice_template: str | None = None
    notice_values: tuple[tuple[str, str], ...] = ()
    #: a private room's code, in the updates of those inside it (seated or watching: they pass
    #: it on); None for a public room, a closed one, and anyone not in the room. Per viewer, so
    #: a redraw needs no call to learn it (:class:`RoomSummary`, shared by all, never carries it)
    code: str | None = None

    def seconds_left(self, now: float) -> float | None:
        """Seconds from ``now`` (the service's clock) to the deadline; None without one."""
        return None if self.deadline_at is None else max(0.0, self.deadline_at - now)

    def notice_shown(self) -> str | None:
        """``notice`` in the current session's language."""
        if self.notice_template is None:
            return self.notice
        return tr(self.notice_template, dict(self.notice_values))


RoomCallback = Callable[[RoomUpdate], None]
LobbyCallback = Callable[[list[RoomSummary]], None]
Unsubscribe = Callable[[], None]


class RoomService(Protocol):
    """Every call a session, the SSH side or the wiring makes on the rooms (see the module doc).

    Its methods are the hub's calls, one for one (:func:`room_calls`); its properties are what
    each process reads locally (a worker has its own clock and read-only database connections).
    """

    # ------------------------------------------------------------------ read locally
    @property
    def clock(self) -> Clock:
        """The rooms' time as this process reads it: ``RoomSummary.grace_ends`` and
        ``RoomUpdate.deadline_at`` are moments on this clock (see the module doc)."""
        ...

    @property
    def room_defaults(self) -> Options:
        """What the create-room form starts from (the server's ``[room_defaults]``)."""
        ...

    @property
    def records(self) -> GameRecords | None:
        """Players' records (None: this server keeps none)."""
        ...

    @property
    def history(self) -> GameHistory | None:
        """Finished games to replay (None without a journal)."""
        ...

    # ------------------------------------------------------------------ queries
    def rooms(self, *, unlisted: bool = False) -> list[RoomSummary]:
        """The lobby's list; ``unlisted=True`` adds the private rooms their hosts hid."""
        ...

    def room(self, room_id: str) -> RoomSummary | None: ...

    def room_of(self, nick: str) -> str | None:
        """The one room a nickname is in (seated or watching)."""
        ...

    def log(self, room_id: str) -> list[RoomEvent]:
        """The room's bounded public event log."""
        ...

    def find_room(self, target: str) -> RoomSummary | None:
        """The live room a typed code opens, else the public room of that name."""
        ...

    # ------------------------------------------------------------------ membership
    def direct_join(self, target: str, nick: str) -> str:
        """``ssh 철수+CODE@host``: a seat, else watching; the room's id."""
        ...

    def create_room(
        self,
        host: str,
        name: str,
        options: Options | Mapping[str, object],
        *,
        private: bool = False,
        listed: bool = True,
    ) -> RoomSummary:
        """A room with ``host`` in its first seat (bad options raise the engine's OptionsError)."""
        ...

    def join(self, room_id: str, nick: str, code: str | None = None) -> None: ...

    def watch(self, room_id: str, nick: str, code: str | None = None) -> None: ...

    def leave(self, room_id: str, nick: str) -> None: ...

    def start(self, room_id: str, nick: str) -> None: ...

    def act(self, room_id: str, nick: str, action: Action) -> None:
        """A player's game action; a refusal raises RoomError (``illegal``: the engine's)."""
        ...

    # ------------------------------------------------------------------ the host
    def add_bot(self, room_id: str, nick: str, level: str = "cautious") -> str:
        """The bot's nickname, e.g. ``봇1(신중)``."""
        ...

    def remove_bot(self, room_id: str, nick: str, bot: str | None = None) -> str:
        """The removed bot's nickname (``None``: the last one added)."""
        ...

    def remove(self, room_id: str, host: str, nick: str) -> None: ...

    def set_locked(self, room_id: str, host: str, locked: bool) -> None: ...

    def hand_host(self, room_id: str, host: str, nick: str) -> None: ...

    def readmit(self, room_id: str, host: str) -> None: ...

    def change_code(self, room_id: str, host: str) -> None: ...

    def change_options(
        self, room_id: str, host: str, options: Options | Mapping[str, object]
    ) -> None: ...

    # ------------------------------------------------------------------ sessions
    def session_connected(self, nick: str, address: str = "") -> str | None:
        """A session opened (``address``: the client's, for the limits); the room holding
        ``nick``'s seat, if any."""
        ...

    def session_disconnected(self, nick: str) -> None: ...

    # ------------------------------------------------------------------ pushes
    def subscribe_lobby(self, callback: LobbyCallback) -> Unsubscribe:
        """``callback(rooms)`` now and on every change of the lobby list."""
        ...

    def subscribe_room(self, room_id: str, nick: str, callback: RoomCallback) -> Unsubscribe:
        """``callback(update)`` now (a snapshot with the log) and after every change."""
        ...


def room_calls() -> dict[str, Callable[..., object]]:
    """The service's calls by name, in declaration order: every public method of
    :class:`RoomService` (the properties are read locally, never sent)."""
    return {
        name: member
        for name, member in vars(RoomService).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }
