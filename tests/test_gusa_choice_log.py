"""Issue 36 구사 선택권 in the hand log: a showdown whose pots wait for the 구사 holder's choice
is written once they are judged, right after the answer, and names the hands as judged — a
declined 구사 as "3끗 (구사 불발)", as its seat says it, never as "구사" (live table, replay,
and the presenter's own log entries)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from engine import Options
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.events import RoomEvent
from seotda_tui.rooms.history import GameHistory
from seotda_tui.rooms.journal import Journal
from seotda_tui.testing import Table
from seotda_tui.ui.present.log import hand_log, log_lines, logged
from seotda_tui.ui.screens.table import TableScreen

from .test_table_status import log_text
from .test_ttaeng_gusa_choice_ui import CHOICE, GUSA_DEAL, open_choice

GUSA_SHOWN = "a: 4월 띠 + 9월 열끗 = "
DECLINED = GUSA_SHOWN + "3끗 (구사 불발)"
FIRED = GUSA_SHOWN + "구사"


def in_order(text: str, *parts: str) -> None:
    """Each of ``parts`` is in ``text``, in this order (the log's lines, joined)."""
    at = [text.find(part) for part in parts]
    assert -1 not in at and at == sorted(at), (parts, at, text)


async def test_a_declined_gusa_is_logged_as_judged_after_the_answer() -> None:
    async with Table.open(["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL, size=(120, 40)) as t:
        await open_choice(t)
        for nick in ("a", "b"):  # the showdown is not judged yet: its line waits
            assert GUSA_SHOWN not in log_text(t, nick), nick
        await t.press("a", "n")
        for nick in ("a", "b"):
            text = log_text(t, nick)
            in_order(
                text,
                "a 구사 발동 안 함 (그대로 판정)",
                DECLINED,
                "b: 1월 광 + 2월 열끗 = 알리",
                "b +10칩",
            )
            assert FIRED not in text.replace(DECLINED, ""), text
        screen = t.screen("b")
        assert isinstance(screen, TableScreen)
        assert GUSA_SHOWN + screen.shown_seats["a"].hand_name == DECLINED  # as the seat says


async def test_a_fired_gusa_is_logged_as_gusa_and_in_english() -> None:
    async with Table.open(["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL, size=(120, 40)) as t:
        await open_choice(t)
        await t.press("a", "y")
        in_order(log_text(t, "b"), "a 구사 발동", FIRED, "b: 1월 광 + 2월 열끗 = 알리")
    async with Table.open(
        ["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL, size=(120, 40), language="en"
    ) as t:
        await open_choice(t)
        await t.press("a", "n")
        in_order(log_text(t, "b"), "a does not fire the Gusa", "= 3 kkeut (Gusa misfired)", "b +10")


async def test_the_replay_names_a_declined_gusa_as_judged(tmp_path: Path) -> None:
    """A journaled game (seed g3: hand 1 asks a 구사 choice; everyone checks or calls, the
    holder declines) replayed at 120×40: at the choice's frame the replay's hand log holds the
    showdown back; at the answer's frame it names the 구사 as judged, right after the answer."""
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.replay import ReplayScreen
    from seotda_tui.ui.widgets.handlog import HandLog

    options = Options(deal_mode="oneRound", gusa_choice=True, hand_limit=10, verifiable_deals=False)
    journal = Journal(tmp_path / "games.sqlite3")
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: "g3", journal=journal)
    room = manager.create_room("a", "구사 방", options)
    manager.join(room.id, "b")
    manager.start(room.id, "a")
    while (game := manager.live_game(room.id)) is not None and not game.finished:
        nick = game.pending()["players"][0]
        kinds = [a["type"] for a in game.legal_actions(nick)]
        if "gusaChoice" in kinds:
            manager.act(room.id, nick, {"type": "gusaChoice", "accept": False})
        else:
            pick = next(k for k in ("check", "call", *kinds) if k in kinds)
            manager.act(room.id, nick, {"type": pick})
    replay = GameHistory(journal).replay(f"{room.id}-1", "b")
    assert replay is not None
    types = [[e["type"] for e in frame.events] for frame in replay.frames]
    asked = next(i for i, t in enumerate(types) if "gusaChoiceOpen" in t)
    answered = next(i for i, t in enumerate(types) if "gusaChoice" in t)
    shown = next(e for e in replay.frames[asked].events if e["type"] == "showdown")
    holder = next(h["player"] for h in shown["hands"] if h["name"] in ("구사", "멍텅구리구사"))
    app = make_app_factory(manager)(SimpleNamespace(nickname="b"), None)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = ReplayScreen(replay)
        app.push_screen(screen)
        await pilot.pause()

        async def log_at(index: int) -> str:
            screen._go(index)
            await pilot.pause()
            lines = screen.query_one(HandLog).lines
            return " ".join(" ".join(strip.text.split()) for strip in lines)

        assert f"{holder}: " not in await log_at(asked)
        text = await log_at(answered)
        answer = text.index(f"{holder} 구사 발동 안 함 (그대로 판정) {holder}: ")
        judged = text[answer:].split(" = ", 1)[1]
        assert judged.startswith(("3끗 (구사 불발)", "3끗 (멍텅구리구사 불발)")), text
        assert text.count(f"{holder}: ") == 1, text
    manager.close()


def _shown(player: str, name: str) -> dict[str, Any]:
    cards = {"구사": [7, 16], "알리": [0, 2]}[name]  # 4띠 9열, 1광 2열
    return {
        "player": player,
        "cards": [{"id": c, "month": 0, "kind": "normal"} for c in cards],
        "name": name,
        "value": 0,
        "special": "gusa" if name == "구사" else None,
    }


def test_two_holders_the_line_follows_the_last_answer_also_in_one_batch() -> None:
    """Two holders asked at once (the log's entries built by the presenter): the showdown waits
    for the second answer, whether the answers come one batch each or all in one (a snapshot)."""
    showdown = {"type": "showdown", "hands": [_shown("a", "구사"), _shown("c", "구사"),
                                              _shown("b", "알리")]}  # fmt: skip
    batches = cast(
        list[list[RoomEvent]],
        [
            [showdown, {"type": "gusaChoiceOpen", "players": ["a", "c"]}],
            [{"type": "gusaChoice", "player": "a", "accept": False}],
            [
                {"type": "gusaChoice", "player": "c", "accept": False},
                {"type": "payout", "player": "b", "amount": 30, "reason": "normal", "main": True,
                 "net": 20},
                {"type": "handEnd", "handNo": 1, "rematch": False},
            ],
        ],
    )  # fmt: skip
    options = Options()
    one_by_one = log_lines(hand_log(batches), options)
    together = log_lines(logged([e for batch in batches for e in batch]), options)
    for lines in (one_by_one, together):
        assert lines[1:] == [
            "a 구사 발동 안 함 (그대로 판정)",
            "c 구사 발동 안 함 (그대로 판정)",
            "a: 4월 띠 + 9월 열끗 = 3끗 (구사 불발)",
            "c: 4월 띠 + 9월 열끗 = 3끗 (구사 불발)",
            "b: 1월 광 + 2월 열끗 = 알리",
            "b +20칩",
        ], lines
    # before the last answer: no showdown line yet
    assert not [x for x in log_lines(hand_log(batches[:2]), options) if ": " in x]
