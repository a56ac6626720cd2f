"""Hand history: a player's finished games, read from the journal and replayed frame by frame.

A replay runs the journal's log through the engine's own replay loop (``Game.replay_steps``, which
``Game.replay`` — and so the resume of unfinished games — runs too). Each frame is one journaled
step and its view is ``game.view(viewer)`` right after it: the view that viewer was sent at that
moment. A player's replay shows their own cards and others' only where the showdown revealed
them; anyone else (a spectator) gets the spectator view. Nothing else of the state leaves this
module (the states kept to rebuild a hand's views stay inside :class:`Replay`).

Games exist as long as the journal keeps them (``journal_keep_days``): a pruned game leaves
the list, and a game nobody may see (not played or watched by that nickname) never opens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine import Game, Options
from engine.types import Event, View

from .events import RoomEvent
from .journal import Entry, Journal, SeenRow

#: How many past games the list shows.
HISTORY_LIMIT = 30
#: Steps whose events are only these are folded into the next frame (a player pressing "ready"
#: is not an action worth a key press in a replay).
QUIET_EVENTS = frozenset({"ready"})


@dataclass(frozen=True)
class PastGame:
    """One line of the history list: plain data, the screen writes the words."""

    key: str
    name: str
    players: tuple[str, ...]
    finished_at: float
    watched: bool  # the nickname did not play it
    rank: int | None = None  # the own place (None: watched, or the game was aborted)
    final_chips: int | None = None
    aborted: bool = False


@dataclass(frozen=True)
class Frame:
    """One step of the replay: the public events that led to it (the view is :meth:`Replay.view`)."""

    step: int  # journal entries applied (0 = the first deal)
    events: tuple[RoomEvent, ...]
    hand: int  # index in :attr:`Replay.hand_starts`


class Replay:
    """A finished game as one viewer saw it; frame 0 is the first deal.

    Opening it applies the whole log once, keeping the events and the game's state at the
    start of every hand; a hand's views are built when it is first looked at (from that
    state, through the same replay loop), so opening a long game costs one pass of the engine.
    """

    def __init__(
        self,
        game: PastGame,
        options: Options,
        viewer: str | None,
        log: list[Entry],
        frames: list[Frame],
        hand_states: Sequence[Mapping[str, object]],  # Game.to_dict() at each hand's start
    ) -> None:
        self.game, self.options, self.viewer = game, options, viewer
        self.frames = tuple(frames)
        self.hand_starts = tuple(
            i for i, f in enumerate(frames) if i == 0 or f.hand != frames[i - 1].hand
        )
        self._log = log
        self._hand_states = hand_states
        self._views: dict[int, list[View]] = {}

    def view(self, index: int) -> View:
        """The view the viewer was sent at frame ``index``."""
        hand = self.frames[index].hand
        views = self._views.get(hand)
        if views is None:
            views = self._views[hand] = self._hand_views(hand)
        return views[index - self.hand_starts[hand]]

    def _hand_views(self, hand: int) -> list[View]:
        first = self.hand_starts[hand]
        end = self.hand_starts[hand + 1] if hand + 1 < len(self.hand_starts) else len(self.frames)
        game = Game.from_dict(self._hand_states[hand])
        views = [game.view(self.viewer)]
        step = self.frames[first].step
        for frame in self.frames[first + 1 : end]:
            for _ in Game.replay_steps(game, self._log[step : frame.step]):
                pass
            step = frame.step
            views.append(game.view(self.viewer))
        return views

    def next_hand(self, index: int) -> int:
        """The first frame of the next hand (the last frame if this is the last hand)."""
        hand = self.frames[index].hand
        if hand + 1 < len(self.hand_starts):
            return self.hand_starts[hand + 1]
        return len(self.frames) - 1

    def previous_hand(self, index: int) -> int:
        """The start of this hand, or of the one before when already at its start."""
        hand = self.frames[index].hand
        start = self.hand_starts[hand]
        if index > start or hand == 0:
            return start
        return self.hand_starts[hand - 1]


def _past_game(row: SeenRow, nick: str) -> PastGame:
    players = tuple(str(p) for p in row["players"])
    result = row["result"]
    ranking = result["ranking"] if result is not None and "ranking" in result else []
    own = next((r for r in ranking if r["playerId"] == nick), None)
    return PastGame(
        key=row["key"],
        name=row["name"],
        players=players,
        finished_at=float(row["finishedAt"]),
        watched=nick not in players,
        rank=int(own["rank"]) if own else None,
        final_chips=int(own["finalChips"]) if own else None,
        aborted=not result or "aborted" in result,
    )


def _starts_hand(events: list[Event]) -> bool:
    return any(e["type"] in ("handStart", "rematchStart") for e in events)


class GameHistory:
    """Reads the journal (the room manager's own connection: one thread, plain reads)."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def games(self, nick: str, limit: int = HISTORY_LIMIT) -> list[PastGame]:
        """``nick``'s finished games, played or watched, newest first."""
        return [_past_game(row, nick) for row in self._journal.games_seen_by(nick, limit)]

    def replay(self, key: str, nick: str) -> Replay | None:
        """Game ``key`` as ``nick`` saw it, or None if it is gone or was never theirs.

        Raises what the engine raises for a log it cannot replay (a corrupt journal)."""
        found = self._journal.finished_game(key, nick)
        if found is None:
            return None
        row, saved = found
        game = Game.new(saved.options, saved.players, saved.seed)
        first: list[RoomEvent] = [{"type": "gameStart", "players": game.players}]
        first += game.last_events
        frames = [Frame(0, tuple(first), 0)]
        states = [game.to_dict()]
        waiting: list[RoomEvent] = []  # quiet events, for the next frame
        steps = Game.replay_steps(game, saved.log)
        for step, events in enumerate(steps, 1):
            waiting += events
            if all(e["type"] in QUIET_EVENTS for e in events) and step < len(saved.log):
                continue
            hand = frames[-1].hand
            if _starts_hand(events):
                hand += 1
                states.append(game.to_dict())
            frames.append(Frame(step, tuple(waiting), hand))
            waiting = []
        return Replay(
            _past_game(row, nick),
            saved.options,
            nick if nick in game.players else None,
            saved.log,
            frames,
            states,
        )
