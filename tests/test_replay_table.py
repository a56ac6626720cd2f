"""The replay draws the table (issue 32 item 16): the live table's seat boxes or lines, pot,
banner and own cards, fed from each frame's view, at 80×24 and larger, in both languages.

The games are journaled from seeds chosen for what they hold: 암행어사 catching a 광땡, a
땡잡이, folded hands and (3장) the card each player threw away, which the showdown never
shows. Every frame, for each player and a spectator, must show no card that viewer could not
see at that point of the hand: the cards the other players held then (read from their own
replays of the same frames) appear only once the showdown revealed them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from engine import DECK, Game, Options
from seotda_tui import i18n
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.history import GameHistory, Replay
from seotda_tui.rooms.journal import GameRecord, Journal
from seotda_tui.testing import screen_text
from seotda_tui.ui.app import SeotdaApp, make_app_factory
from seotda_tui.ui.screens.replay import ReplayScreen
from seotda_tui.ui.widgets.card_art import render_card_lines
from seotda_tui.ui.widgets.hand import HandCard, HandCards
from seotda_tui.ui.widgets.pot import PotView
from seotda_tui.ui.widgets.seats import SeatBoxes, SeatList
from seotda_tui.ui.widgets.texts import card_name

from .ssh_harness import ssh_server
from .tiers import sized

THREE = ("영희", "철수", "민수")
SIX = ("영희", "철수", "민수", "지수", "하나", "두리")
WATCHER = "구경꾼"
#: Seed 96 with :func:`_policy`: 암행어사 catches a 광땡 and a 땡잡이 shows, in 2장 and 3장.
SEED = "296"
ENGLISH, KOREAN = i18n.ENGLISH, i18n.KOREAN


def _policy(game: Game, nick: str) -> dict[str, Any]:
    """Call or check whatever comes (hands reach the showdown); 민수 dies every third hand;
    the 3장 choice keeps the first two cards (the third is thrown away)."""
    legal = game.legal_actions(nick)
    kinds = {a["type"]: a for a in legal}
    if nick == "민수" and "die" in kinds and game.view(nick).get("handNo", 0) % 3 == 0:
        return {"type": "die"}
    for kind in ("call", "check", "ping"):
        if kind in kinds:
            return {"type": kind}
    if "choose" in kinds:
        seat = next(s for s in game.view(nick)["seats"] if s["id"] == nick)
        return {"type": "choose", "cardIds": [c["id"] for c in seat["cards"]][:2]}  # type: ignore[typeddict-item]
    for action in legal:
        if "accept" in action:
            return {"type": action["type"], "accept": True}
    return {"type": next(a["type"] for a in legal if a["type"] != "die")}


@dataclass
class Journaled:
    manager: RoomManager
    history: GameHistory
    key: str
    events: list[dict[str, Any]]


@contextmanager
def journaled_game(
    tmp_path: Path, mode: str = "two", players: tuple[str, ...] = THREE
) -> Iterator[Journaled]:
    """A 10-hand game played by :func:`_policy` from :data:`SEED`, journaled as the room
    manager journals one, watched by :data:`WATCHER`."""
    journal = Journal(tmp_path / f"games-{mode}-{len(players)}.sqlite3")
    options = Options(end_condition="hands", hand_limit=10, card_mode=mode)
    key = f"r{mode}-1"
    journal.start_game(GameRecord(key, "복기 방", players[0], options, SEED, list(players), {}))
    journal.watched(key, WATCHER)
    game = Game.new(options, list(players), SEED)
    events: list[dict[str, Any]] = []
    while not game.finished:
        nick = game.pending()["players"][0]
        action = _policy(game, nick)
        events += cast(list[dict[str, Any]], game.apply(nick, action))
        journal.record(key, nick, action)
    journal.finish(key, game.result())
    manager = RoomManager(clock=FakeClock(0.0), journal=journal)
    try:
        yield Journaled(manager, GameHistory(journal), key, events)
    finally:
        manager.close()
        journal.close()


def _app(manager: RoomManager, nick: str, lang: str) -> SeotdaApp:
    session = SimpleNamespace(language=i18n.Language(lang))
    return make_app_factory(manager)(
        SimpleNamespace(nickname=nick), session
    )


async def _open_replay(pilot: Any, app: SeotdaApp) -> ReplayScreen:
    await pilot.pause()
    await pilot.press("h")
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


def _labels(card_id: int) -> set[str]:
    """How a card reads on screen in the current language: its name ("4 Animal", on a large
    card and in the log) and its compact face ("4An", a seat box's or line's card)."""
    card = DECK[card_id]
    face = render_card_lines(card, "compact", "box", None)[1].plain.strip("│ ")
    return {card_name(card), face}


def _held(replay: Replay, index: int) -> set[int]:
    """The cards the replay's viewer holds at frame ``index`` (a thrown-away card too)."""
    view = replay.view(index)
    seat = next((s for s in view["seats"] if s["id"] == replay.viewer), None)
    if seat is None:
        return set()
    held = {c["id"] for c in seat.get("cards", []) if "hidden" not in c}
    if seat.get("discardedId") is not None:
        held.add(seat["discardedId"])
    return held


def _hidden(view: Mapping[str, Any], others: list[set[int]]) -> set[int]:
    """What the other players held at this frame, less what the showdown revealed."""
    revealed = {c["id"] for h in view.get("showdown") or [] for c in h["cards"]}
    return set().union(*others) - revealed


def _frames_to_check(replay: Replay) -> list[int]:
    """Every frame under ``make soak``; else those of the first hand where 암행어사 fired,
    the first where 땡잡이 showed and the first where someone died, and the last frame."""
    if sized(0, 1):
        return list(range(len(replay.frames)))
    tests = (
        lambda e: e["type"] == "payout" and e.get("reason") == "amhaeng",
        lambda e: (
            e["type"] == "showdown" and any(h.get("special") == "ttaengjabi" for h in e["hands"])
        ),
        lambda e: e["type"] == "fold" and not e.get("auto"),
    )
    hands = {
        next(f.hand for f in replay.frames if any(test(e) for e in f.events)) for test in tests
    }
    frames = [i for i, f in enumerate(replay.frames) if f.hand in hands]
    return [*frames, len(replay.frames) - 1]


# ---------------------------------------------------------------------- card privacy
@pytest.mark.parametrize(
    ("mode", "viewer"),
    [("two", "철수"), ("three", "영희"), ("three", WATCHER)],
)
async def test_no_frame_shows_a_card_the_viewer_could_not_see(
    tmp_path: Path, mode: str, viewer: str
) -> None:
    with journaled_game(tmp_path, mode) as played:
        reasons = {e.get("reason") for e in played.events if e["type"] == "payout"}
        shown = {
            h.get("special") for e in played.events if e["type"] == "showdown" for h in e["hands"]
        }
        assert "amhaeng" in reasons and "ttaengjabi" in shown  # what the seed is chosen for
        assert any(e["type"] == "fold" for e in played.events)
        mine = played.history.replay(played.key, viewer)
        assert mine is not None
        players = [p for p in THREE if p != viewer]
        theirs = [played.history.replay(played.key, p) for p in players]
        app = _app(played.manager, viewer, ENGLISH)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _open_replay(pilot, app)
            seen_revealed = seen_own = 0
            for index in _frames_to_check(mine):
                with i18n.speaking(app.language):  # (as the app's own task draws it)
                    screen.action_go(index)
                await pilot.pause()
                view = screen.frame_view
                hidden = _hidden(view, [_held(r, index) for r in theirs if r is not None])
                assert hidden or index == 0 or view.get("handPhase") != "betting"
                text = screen_text(app)
                with i18n.speaking(app.language):
                    for card in hidden:
                        for label in _labels(card):
                            assert label not in text, (index, label, text)
                for info in screen.shown_seats.values():
                    assert not hidden & {f for f in info.faces if f is not None}, (index, info)
                own = {c.id for c in screen.query_one(HandCards).cards}
                assert own <= _held(mine, index) and not own & hidden
                seen_own += bool(own)
                revealed = {c["id"] for h in view.get("showdown") or [] for c in h["cards"]}
                with i18n.speaking(app.language):
                    seen_revealed += all(
                        any(label in text for label in _labels(c)) for c in revealed - own
                    ) and bool(revealed - own)
            assert seen_revealed > 0  # the showdowns did show the revealed cards
            assert seen_own > 0 or viewer == WATCHER


# ---------------------------------------------------------------------- the table
@pytest.mark.parametrize("lang", [KOREAN, ENGLISH])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_replay_draws_the_table(tmp_path: Path, size: tuple[int, int], lang: str) -> None:
    """Seat boxes with card backs, the pot in big digits and large own cards, as the live
    table draws them at these sizes (the replay used to be seat lines and a plain pot)."""
    with journaled_game(tmp_path) as played:
        app = _app(played.manager, "영희", lang)
        async with app.run_test(size=size) as pilot:
            screen = await _open_replay(pilot, app)
            await pilot.press("right", "right")
            await pilot.pause()
            assert screen.query_one(SeatBoxes).display
            assert not screen.query_one(SeatList).display
            assert set(screen.shown_seats) == {"철수", "민수"}
            pot = screen.query_one(PotView)
            assert pot.big and pot.size.height == 3
            cards = screen.query_one(HandCards)
            assert cards.cards and all(c.size_name == "large" for c in cards.query(HandCard))
            text = screen_text(app)
            assert "▚▚▚▚" in text  # the others' cards face down
            rows = text.splitlines()
            assert len(rows) == size[1] and all(len(r) <= size[0] for r in rows)
            keys = "←/→ 한 수" if lang == KOREAN else "←/→ one step"
            assert rows[-1].strip().startswith(keys)


async def test_a_crowded_replay_draws_seat_lines_with_chips_aligned(tmp_path: Path) -> None:
    """Six players at 80×24: one line per seat, the stacks right-aligned in one column past
    1,000 ("  760 chips" over "1,302 chips"; they used to be cut to 9 cells)."""
    with journaled_game(tmp_path, players=SIX) as played:
        app = _app(played.manager, "영희", ENGLISH)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _open_replay(pilot, app)
            checked = 0
            for _step in range(len(screen.replay.frames)):
                assert screen.query_one(SeatList).display
                infos = list(screen.shown_seats.values())
                stacks = [i.stack for i in infos if i.stack is not None]
                if any(s >= 1000 for s in stacks) and any(s < 1000 for s in stacks):
                    ends = {
                        m.end()
                        for row in screen_text(app).splitlines()
                        for m in re.finditer(r"[\d,]+ chips", row)
                        if row.startswith("  ") or row.startswith("▶ ")
                    }
                    assert len(ends) == 1, screen_text(app)
                    checked += 1
                    if checked == 5:
                        break
                await pilot.press("right")
            assert checked


# ---------------------------------------------------------------------- stepping
async def test_stepping_back_shows_the_frame_as_it_was(tmp_path: Path) -> None:
    """→ then ← draws the same screen; the second card of 2장 appears at its deal and is
    gone again (a blank place) when stepping back before it."""
    with journaled_game(tmp_path) as played:
        app = _app(played.manager, "영희", KOREAN)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _open_replay(pilot, app)
            replay = screen.replay
            second = next(i for i in range(len(replay.frames)) if len(_held(replay, i)) == 2)
            for _step in range(second - 1):
                await pilot.press("right")
            await pilot.pause()
            before = screen_text(app)
            assert len(screen.query_one(HandCards).cards) == 1
            await pilot.press("right")
            await pilot.pause()
            assert screen.index == second and len(screen.query_one(HandCards).cards) == 2
            assert screen_text(app) != before
            await pilot.press("left")
            await pilot.pause()
            assert screen.index == second - 1 and len(screen.query_one(HandCards).cards) == 1
            assert screen_text(app) == before
            await pilot.press("right_square_bracket")
            await pilot.pause()
            start = replay.hand_starts[1]
            assert screen.index == start and screen.frame_view["handNo"] == 2
            await pilot.press("left_square_bracket", "left_square_bracket")
            await pilot.pause()
            assert screen.index == 0
            assert screen_text(app) != before


# ---------------------------------------------------------------------- real SSH
@pytest.mark.parametrize(
    ("size", "lang", "nick"),
    [
        ((80, 24), "ko_KR.UTF-8", "철수"),
        ((120, 40), "en_US.UTF-8", "철수"),
        ((80, 24), "en_US.UTF-8", WATCHER),
        ((100, 30), "ko_KR.UTF-8", WATCHER),
    ],
)
async def test_the_replay_table_over_ssh(
    tmp_path: Path, size: tuple[int, int], lang: str, nick: str
) -> None:
    """A player's and a spectator's replay in a real terminal: seat boxes with card backs,
    the own card large (a player's), stepping → and ←, nothing past the right edge."""
    with journaled_game(tmp_path / "journal") as played:
        replay = played.history.replay(played.key, nick)
        assert replay is not None
        async with ssh_server(tmp_path, make_app_factory(played.manager)) as server:
            async with server.connect(nick, size=size, env={"LANG": lang}) as client:
                await client.press("h")
                await client.wait_for("복기 방")
                await client.press("\r")
                await client.wait_for("다시 보기" if lang.startswith("ko") else "Replay")
                await client.press("\x1b[C", "\x1b[C")  # → →
                steps = len(replay.frames)
                await client.wait_for(f"3/{steps}")
                await client.wait_for("▚▚▚▚")  # seat boxes, cards face down
                large = "╭──────────╮" in client.text  # an own card, large
                assert large == (nick != WATCHER), client.text
                await client.press("\x1b[D")  # ←
                await client.wait_for(f"2/{steps}")
                assert all(len(row) <= size[0] for row in client.text.splitlines())
