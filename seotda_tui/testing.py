"""Script whole games with Textual pilots: one room manager, N apps, one process, no SSH.

For testers (and the project's own UI tests). :meth:`Table.open` builds a
:class:`~seotda_tui.rooms.RoomManager` on a fake clock, seats the players, starts the game with a
fixed seed, and runs one :class:`~seotda_tui.ui.app.SeotdaApp` per player (and per spectator) under
``App.run_test``, exactly as the SSH server would run them, so pressing keys in one player's app
changes what the others see::

    from engine import Options
    from seotda_tui.testing import Table

    async def test_a_scripted_hand():
        deal = {"a": ["3광", "7열"], "b": ["9열", "9띠"]}
        async with Table.open(["a", "b"], options=Options(), seed=7, deal=deal) as t:
            await t.press(t.actor, "3")        # the first to act: 삥
            ...
            assert "땡잡이!" in t.text("b")

* ``seed`` fixes the seat order, the first dealer and every shuffle (the manager's
  ``seed_source``); ``deal`` rigs the cards of the first hand (:meth:`Table.rig`), so a scripted
  hand is reproducible whatever the seed. Rigging goes through the engine's deal hook
  (``Game.new(deal=...)``, :class:`engine.dealing.StackedDeck`), never through the game's state:
  the seeded shuffle still runs, so the hands after a rigged one are dealt as the seed deals them.
* Time stands still unless the test moves it: :meth:`Table.advance` moves the manager's fake
  clock (deadlines fire) and the apps' countdowns read the same clock, so screens and SVG
  screenshots are deterministic.
* The truth is one attribute away: :attr:`Table.game` is the engine's ``Game`` (every card),
  :meth:`Table.text` is what one player's terminal shows.

Card names for ``deal``: month + kind as on the seat lines — ``"3광"``, ``"7열"``, ``"9띠"``,
``"8일"`` (8월 일반) — or an engine card id (0–19).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from types import SimpleNamespace
from typing import Any

from textual.pilot import Pilot

from engine import DECK, Game, Options
from engine.cards import card_id
from engine.dealing import StackedDeck
from engine.types import LegalAction, SeatView, View

from . import i18n, tuning
from .i18n import Language
from .rooms import RoomError, RoomManager
from .rooms.chat import ChatHub
from .rooms.clock import FakeClock
from .ui.app import SeotdaApp, make_app_factory

__all__ = ["Table", "card", "screen_text"]

CardSpec = int | str
_CARD_RE = re.compile(r"^(10|[1-9])(광|열|띠|일)$")


def card(spec: CardSpec) -> int:
    """Engine card id of ``"3광"``, ``"7열"``, ``"9띠"``, ``"8일"`` (or an id, checked)."""
    if isinstance(spec, int):
        if not 0 <= spec < 20:
            raise ValueError(f"card id out of range: {spec}")
        return spec
    match = _CARD_RE.match(spec.strip())
    if not match:
        raise ValueError(f"unknown card {spec!r}: use e.g. '3광', '7열', '9띠', '8일'")
    month, kind = int(match.group(1)), match.group(2)
    special = kind in ("광", "열")
    cid = card_id(month, special)
    expected = {"광": "gwang", "열": "yeol"}.get(kind, "normal")
    if DECK[cid].kind != expected or (kind == "일") != (month == 8 and not special):
        raise ValueError(f"there is no {spec!r} card")
    return cid


def _who(nick: str | None) -> str:
    """A player's nickname; the methods take ``None`` too, for ``t.text(t.actor)`` when
    nobody's turn it is, and fail saying so."""
    assert nick is not None, "no player named (nobody's turn?)"
    return nick


def _plan(deal: Mapping[str, Sequence[CardSpec]]) -> dict[str, list[int]]:
    return {nick: [card(c) for c in cards] for nick, cards in deal.items()}


def screen_text(app: SeotdaApp) -> str:
    """What the app's terminal shows right now, as plain text lines (rendered in the app's
    language: rows rendered now, from the caller's task, must be the session's)."""
    with i18n.speaking(app.language):
        return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class Table:
    """One room with its players' (and spectators') apps; see the module docstring."""

    def __init__(
        self,
        manager: RoomManager,
        clock: FakeClock,
        chat: ChatHub,
        room_id: str,
        apps: dict[str, SeotdaApp],
        pilots: dict[str, Pilot[None]],
    ) -> None:
        self.manager = manager
        self.clock = clock
        self.chat = chat
        self.room_id = room_id
        self.apps = apps
        self.pilots = pilots
        #: The deal hook of the Table's own manager (``None`` with a manager passed in).
        self.deck: StackedDeck | None = None

    # ------------------------------------------------------------------ building
    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        players: Sequence[str] = ("a", "b"),
        *,
        options: Options | Mapping[str, object] | None = None,
        seed: int | str = 1,
        spectators: Sequence[str] = (),
        size: tuple[int, int] = (80, 24),
        deal: Mapping[str, Sequence[CardSpec]] | None = None,
        stacks: Mapping[str, int] | None = None,
        start: bool = True,
        manager: RoomManager | None = None,
        chat: ChatHub | None = None,
        reconnect_grace: float = 60.0,
        notifications: bool = False,
        name: str = "테스트 방",
        language: str | None = None,
    ) -> AsyncIterator[Table]:
        """Seat ``players`` (the first is the host) in a room called ``name``, start with
        ``seed`` (``deal``: the first hand's cards; ``stacks``: starting chips by player, before
        the first school, e.g. a short stack), run every app (``notifications``: draw toasts, as a real session does;
        ``language``: every app's language from the start, e.g. "en", as a client's LANG
        would set it).

        The Textual tuning is installed as the server would (stock if ``SEOTDA_STOCK_TEXTUAL``)."""
        tuning.install()
        clock = FakeClock(1000.0)
        deck: StackedDeck | None = None
        if manager is None:
            deck = StackedDeck()
            manager = RoomManager(
                clock=clock,
                seed_source=lambda: seed,
                reconnect_grace=reconnect_grace,
                deal=deck,
                stacks=stacks,
            )
        elif deal or stacks:
            raise ValueError("deal= and stacks= need the Table's own manager (Game.new's hooks)")
        else:
            clock = manager.clock  # type: ignore[assignment]
        hub = chat or ChatHub(clock=clock)
        room = manager.create_room(players[0], name, options or Options())
        for nick in players[1:]:
            manager.join(room.id, nick)
        for nick in spectators:
            manager.watch(room.id, nick)
        if deck is not None and deal:
            deck.rig(_plan(deal))  # the next match dealt: the first, when the game starts
        if start:
            manager.start(room.id, players[0])
        factory = make_app_factory(manager, chat=hub)

        def session() -> SimpleNamespace | None:
            return None if language is None else SimpleNamespace(language=Language(language))

        apps = {
            nick: factory(SimpleNamespace(nickname=nick), session())
            for nick in [*players, *spectators]
        }
        table = cls(manager, clock, hub, room.id, apps, {})
        table.deck = deck
        async with AsyncExitStack() as stack:
            for nick, app in apps.items():
                table.pilots[nick] = await stack.enter_async_context(
                    app.run_test(size=size, notifications=notifications)
                )
            await table.settle()
            for nick in spectators:
                from .ui.screens.table import TableScreen

                # on the app's own task, as its keys would (its language is that task's)
                apps[nick].call_later(apps[nick].push_screen, TableScreen(room.id))
            await table.settle()
            yield table

    # ------------------------------------------------------------------ looking
    @property
    def game(self) -> Game:
        """The engine's game (server truth: every player's cards)."""
        game = self.manager.live_game(self.room_id)
        assert game is not None, "the game has not started"
        return game

    @property
    def actor(self) -> str | None:
        view = self.manager.game_view(self.room_id, "")
        assert view is not None, "the game has not started"
        return view.get("actor")

    def view(self, nick: str | None) -> View:
        """The game as ``nick``'s session is told it (own cards only)."""
        view = self.manager.game_view(self.room_id, _who(nick))
        assert view is not None, "the game has not started"
        return view

    def seat(self, nick: str | None) -> SeatView:
        """``nick``'s seat as ``nick``'s own view tells it (cards, choice, last action)."""
        return next(s for s in self.view(nick)["seats"] if s["id"] == nick)

    def own_cards(self, nick: str | None) -> list[int]:
        """The ids of the cards ``nick`` holds, as ``nick``'s own view tells them."""
        return [c["id"] for c in self.seat(nick).get("cards", []) if "hidden" not in c]

    def cards(self, nick: str | None) -> list[str]:
        """``nick``'s cards as labels ("3월 광"), as ``nick``'s own view tells them."""
        return [DECK[c].label for c in self.own_cards(nick)]

    def table_view(self) -> View:
        """The game as a spectator sees it (no cards), with the hand's keys present."""
        view = self.manager.game_view(self.room_id, "")
        assert view is not None and "handNo" in view, "no hand is being played"
        return view

    def legal(self, nick: str | None) -> list[LegalAction]:
        return self.game.legal_actions(_who(nick))

    def pilot(self, nick: str | None) -> Pilot[None]:
        return self.pilots[_who(nick)]

    def app(self, nick: str | None) -> SeotdaApp:
        return self.apps[_who(nick)]

    def screen(self, nick: str | None) -> Any:
        return self.apps[_who(nick)].screen

    def text(self, nick: str | None) -> str:
        """What ``nick``'s terminal shows (plain text)."""
        return screen_text(self.apps[_who(nick)])

    # ------------------------------------------------------------------ doing
    async def settle(self) -> None:
        """Let every app handle what was pushed to it (call after anything changes)."""
        for pilot in self.pilots.values():
            await pilot.pause()

    async def press(self, nick: str | None, *keys: str) -> None:
        """Press keys in ``nick``'s app, then settle every app."""
        await self.pilots[_who(nick)].press(*keys)
        await self.settle()

    async def act(self, nick: str, action: Mapping[str, object]) -> None:
        """Send an engine action for ``nick`` directly (no keys); a refusal raises RoomError."""
        self.manager.act(self.room_id, nick, action)
        await self.settle()

    async def advance(self, seconds: float) -> None:
        """Move the fake clock: due deadlines fire (timeouts), and the screens' timers
        (countdowns, flashes, the 기리 line) run on it too (``ui/timers.py``)."""
        self.clock.advance(seconds)
        await self.settle()

    def rig(self, deal: Mapping[str, Sequence[CardSpec]], *, next_match: bool = False) -> None:
        """Give these players these cards (in deal order) in the current match, or the next one.

        Players not named get the cards left, in the seeded shuffle's order. In the current
        match only cards still to be dealt can be chosen: the ones a player already holds must
        be the first of theirs in ``deal`` (else ``ValueError``).
        """
        if self.deck is None:
            raise ValueError("rigging needs the Table's own manager (Table.open without manager=)")
        plan = _plan(deal)
        if next_match:
            self.deck.rig(plan)
            return
        view = self.table_view()
        for nick, cards in plan.items():
            held = self.own_cards(nick)
            if cards[: len(held)] != held:
                raise ValueError(f"{nick} already holds {held}: rig the next match instead")
        self.deck.rig(plan, hand=view["handNo"], rematch=view["rematchNo"])

    async def refresh(self) -> None:
        """Push every session its view again (after editing the game by hand)."""
        self.manager.resend(self.room_id)
        await self.settle()

    async def say(self, nick: str, text: str) -> str | None:
        """Post a chat line as ``nick`` (through the hub, as the chat input does)."""
        error = self.chat.post(self.room_id, nick, text)
        await self.settle()
        return error

    def next_action(self) -> tuple[str, dict[str, object]] | None:
        """Whose turn and what :meth:`play_until` plays for them: check, else call, ready, the
        first cards offered (choose, draw, 한장공유's first card), else decline a y/n; None
        when the game waits for nobody."""
        pending = self.game.pending()["players"]
        if not pending:
            return None
        nick = pending[0]
        kinds = [a["type"] for a in self.game.legal_actions(nick)]
        for kind in ("check", "call", "ready", "choose", "draw", "pickShared"):
            if kind in kinds:
                action: dict[str, object] = {"type": kind}
                if kind == "choose":
                    action["cardIds"] = self.own_cards(nick)[:2]
                if kind == "pickShared":  # issue 36 한장공유: the first of the 20
                    action["cardId"] = 0
                return nick, action
        return nick, {"type": kinds[0], "accept": False}

    def play_until(self, done: Callable[[Game], bool], limit: int = 500) -> None:
        """Drive the game server-side (check/call, ready) until ``done(game)``."""
        for _ in range(limit):
            if done(self.game):
                return
            step = self.next_action()
            if step is None:
                raise AssertionError("the game waits for nobody")
            with contextlib.suppress(RoomError):  # (refused: the loop tries again)
                self.manager.act(self.room_id, *step)
        raise AssertionError("the game never got there")
