"""What the room manager and its callers exchange: plain, frozen data (and the room itself).

:class:`RoomSummary` and :class:`RoomUpdate` are what callers get (immutable, cheap to compare);
:class:`RoomError` is how a refusal reaches them. :class:`Room` is the manager's mutable state of
one room: only :mod:`.manager` and its collaborators (bots, journal, storage faults) touch it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

from engine import Game, Options

from ..i18n import N_, tr
from .clock import Cancellable
from .private import Privacy

if TYPE_CHECKING:
    from .records import GameTally

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
STATUS_LABELS = {WAITING: N_("대기 중"), PLAYING: N_("게임 중"), FINISHED: N_("종료")}
LOG_LIMIT = 300
ROOM_NAME_CELLS = 20


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

    def __init__(self, code: RoomErrorCode, template: str, **values: object) -> None:
        super().__init__(template.format(**values) if values else template)
        self.code: RoomErrorCode = code
        self.template = template
        self.values = values

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
    #: (nick, the manager clock's time its reconnect grace ends) for offline seats still in it
    grace: tuple[tuple[str, float], ...] = ()
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
    view: dict[str, Any] | None  # None before the first game starts
    events: tuple[dict[str, Any], ...]  # public events of this change (the whole log if snapshot)
    deadline: float | None  # seconds left before the game acts for whoever it waits for
    result: dict[str, Any] | None  # the last finished game's result
    snapshot: bool = False  # first push after subscribing
    closed: bool = False  # the room is gone
    paused: bool = False  # the journal cannot be written: no play until it can (rooms/pause.py)
    #: with ``closed``: why this viewer is out (e.g. the host removed them)
    notice: str | None = None
    #: ``notice`` before formatting (a msgid) and its values, for the viewer's language
    notice_template: str | None = None
    notice_values: tuple[tuple[str, str], ...] = ()

    def notice_shown(self) -> str | None:
        """``notice`` in the current session's language."""
        if self.notice_template is None:
            return self.notice
        return tr(self.notice_template, dict(self.notice_values))


class SeatDriver(Protocol):
    """What a room keeps of the driver that plays one of its bot seats."""

    errors: int  # actions the game refused (should stay 0; counted for tests and logs)

    def stop(self) -> None: ...


RoomCallback = Callable[[RoomUpdate], None]
LobbyCallback = Callable[[list[RoomSummary]], None]


@dataclass
class Room:
    """Mutable room state; only the manager touches it."""

    id: str
    name: str
    host: str | None
    options: Options
    players: list[str] = field(default_factory=list)
    spectators: list[str] = field(default_factory=list)
    status: str = WAITING
    game: Game | None = None
    offline: dict[str, Cancellable | None] = field(default_factory=dict)  # None = grace over
    grace_ends: dict[str, float] = field(default_factory=dict)  # clock time each grace ends
    left: list[str] = field(default_factory=list)
    log: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=LOG_LIMIT))
    result: dict[str, Any] | None = None
    timer: Cancellable | None = None
    timer_seq: int = 0
    deadline_at: float | None = None
    pending_key: tuple[Any, ...] | None = None
    pending_players: frozenset[str] = frozenset()
    subscribers: dict[int, tuple[str, RoomCallback]] = field(default_factory=dict)
    bots: dict[str, str] = field(default_factory=dict)  # bot nickname -> level, in seat order
    bot_players: dict[str, SeatDriver] = field(default_factory=dict)  # (bot_seats.BotPlayer)
    seed: str = ""  # the current game's seed
    game_no: int = 0  # games started in this room (journal key = f"{id}-{game_no}")
    journal_key: str | None = None
    paused_since: float | None = None  # the clock's time the journal first failed (rooms/pause.py)
    backlog: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)
    retry_timer: Cancellable | None = None
    retry_count: int = 0
    pause_logged: bool = False  # this pause's room_paused line was written (room_resumed follows)
    pause_logged_at: float | None = None
    tally: GameTally | None = None  # the running game's counts for the records (rooms/records.py)
    locked: bool = False  # see rooms/moderation.py
    barred: set[str] = field(default_factory=set)
    privacy: Privacy | None = None  # a private room's code (rooms/private.py)

    @property
    def paused(self) -> bool:
        return self.paused_since is not None

    def humans(self) -> list[str]:
        return [p for p in self.players if p not in self.bots]

    def summary(self) -> RoomSummary:
        return RoomSummary(
            id=self.id,
            name=self.name,
            host=self.host,
            players=tuple(self.players),
            max_players=self.options.max_players,
            spectators=tuple(self.spectators),
            status=self.status,
            offline=tuple(p for p in self.players if p in self.offline),
            left=tuple(self.left),
            options=self.options,
            bots=tuple(p for p in self.players if p in self.bots),
            grace=tuple(
                (p, self.grace_ends[p])
                for p in self.players
                if self.offline.get(p) is not None and p in self.grace_ends
            ),
            locked=self.locked,
            barred=tuple(sorted(self.barred)),
            private=self.privacy is not None,
            listed=self.privacy is None or self.privacy.listed,
        )

    def has(self, nick: str) -> bool:
        """Is ``nick`` in the room already (seated or watching)?"""
        return nick in self.players or nick in self.spectators

    def viewer_for(self, nick: str) -> str | None:
        """A seated player of the current game sees their own cards; anyone else the public view."""
        if self.game is not None and nick in self.players and nick in self.game.players:
            return nick
        return None

    def cancel_timer(self) -> None:
        """Stop the engine's deadline (and forget the decision it was for)."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = None
        self.deadline_at = None
        self.pending_key = None
        self.pending_players = frozenset()

    def fix_host(self) -> list[dict[str, Any]]:
        """A human host again if the host left (or was never one): the first online human."""
        if self.host in self.players and self.host not in self.bots:
            return []
        humans = self.humans()
        online = [p for p in humans if p not in self.offline]
        candidates = online or humans
        new_host = candidates[0] if candidates else None
        self.host = new_host
        return [{"type": "host", "player": new_host}] if new_host else []
