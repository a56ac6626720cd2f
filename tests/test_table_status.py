"""What the seats, rules and hand names tell every player (issue #16): pilot-driven tables."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import Game, Options
from seotda_tui.testing import Table


def seat_box_text(t: Table, viewer: str, nick: str) -> str:
    """The text column of ``nick``'s box (or line) on ``viewer``'s screen."""
    info = t.screen(viewer).shown_seats[nick]
    return " ".join(info.badges)


def box_lines(t: Table, viewer: str, nick: str) -> list[str]:
    """The rows of ``viewer``'s terminal that show ``nick``'s seat box (its 4 lines)."""
    rows = t.text(viewer).splitlines()
    for y, row in enumerate(rows):  # (not the title: its deal commitment is hex, "…b9…")
        if y and nick in row and y + 3 < len(rows):
            x = row.index(nick) - 1
            return [r[x : x + 24] for r in rows[y : y + 4]]
    raise AssertionError(f"{nick} not on {viewer}'s screen:\n" + "\n".join(rows))


async def test_a_disconnected_player_whose_turn_timed_out_shows_both_die_and_disconnected() -> None:
    options = Options(deal_mode="oneRound")
    async with Table.open(["a", "b", "c"], options=options, seed=3) as t:
        opener = t.actor
        assert opener is not None
        await t.press(opener, "3")  # 삥 opens: a timeout now dies
        gone = t.actor
        assert gone is not None
        watcher = next(n for n in ("a", "b", "c") if n not in (opener, gone))
        t.manager.session_disconnected(gone)
        await t.settle()
        await t.advance(options.turn_seconds + 1)
        assert t.seat(gone).get("folded")
        text = "\n".join(box_lines(t, watcher, gone))
        assert "다이" in text and "끊김" in text, text


async def test_a_busted_player_who_leaves_is_not_warned_and_shows_eliminated() -> None:
    options = Options(deal_mode="oneRound", rebuy="off", hand_limit=10)
    loser, watcher, third = "a", "b", "c"
    deal = {loser: ["2띠", "8일"], watcher: ["3광", "8광"], third: ["1띠", "4띠"]}  # 망통 loses
    # nothing left behind the school: all in from the start, the loser busts in hand 1
    async with Table.open(
        ["a", "b", "c"], options=options, seed=3, deal=deal, stacks={loser: 10}
    ) as t:
        game = t.game
        assert t.seat(loser).get("allIn")
        t.play_until(lambda g: g.seat_status(loser) == "eliminated")
        await t.settle()
        log = t.manager.log(t.room_id)
        out = log.index({"type": "eliminated", "player": loser})
        assert not any(e["type"] == "handStart" and e["handNo"] > 1 for e in log[:out])
        out_at = 1
        await t.press(loser, "q")  # the leave question has nothing to warn about
        question = t.text(loser)
        assert "이미 탈락했어요" in question and "자동으로 다이" not in question, question
        await t.press(loser, "y")
        assert loser not in t.manager.room(t.room_id).players
        t.play_until(lambda g: g.view(None).get("handNo") >= out_at + 2)
        await t.settle()
        assert game.seat_status(loser) == "eliminated"
        log = t.manager.log(t.room_id)
        assert [e for e in log if e["type"] == "eliminated"] == [log[out]]  # once, at hand 1
        badges = t.screen(watcher).shown_seats[loser].badges
        assert badges[0] == "탈락" and "연결 끊김" not in badges, badges
        assert "탈락" in "\n".join(box_lines(t, watcher, loser))


async def play_to_showdown(t: Table) -> None:
    t.play_until(lambda g: g.view(None).get("handPhase") == "handEnd")
    await t.settle()


async def test_with_hints_off_the_own_hand_is_still_named_at_the_showdown() -> None:
    options = Options(deal_mode="oneRound", hints=False)
    deal = {"a": ["1광", "8광"], "b": ["9열", "9띠"]}
    async with Table.open(["a", "b"], options=options, seed=2, deal=deal) as t:
        assert "9땡" not in t.text("b")  # no advice while the hand runs
        await play_to_showdown(t)
        assert t.game.view(None).get("showdown") is not None
        for nick, name in (("a", "18광땡"), ("b", "9땡")):
            mine = t.screen(nick).query_one("#mine").parts
            assert any(name in text for text, _ in mine), (nick, mine)


async def test_a_special_hand_that_did_not_take_effect_is_named_by_its_value() -> None:
    options = Options(deal_mode="oneRound")  # 땡잡이 strict: 3광 + 7열, void against 장땡
    deal = {"a": ["10열", "10띠"], "b": ["3광", "7열"]}
    async with Table.open(["a", "b"], options=options, seed=2, deal=deal) as t:
        await play_to_showdown(t)
        assert t.screen("a").shown_seats["b"].hand_name == "망통 (땡잡이 불발)"
        seat = "\n".join(box_lines(t, "a", "b"))
        assert "망통" in seat and "땡잡이 불발" in seat, seat
        mine = "".join(text for text, _ in t.screen("b").query_one("#mine").parts)
        assert "망통 (땡잡이 불발)" in mine, mine


async def test_a_special_hand_that_took_effect_keeps_its_name() -> None:
    deal = {"a": ["9열", "9띠"], "b": ["3광", "7열"]}
    async with Table.open(
        ["a", "b"], options=Options(deal_mode="oneRound"), seed=2, deal=deal
    ) as t:
        await play_to_showdown(t)
        assert t.screen("a").shown_seats["b"].hand_name == "땡잡이"


# ---------------------------------------------------------------- the room's rules (item 9)

RULED = Options(
    turn_seconds=30,
    rebuy="limited",
    rebuy_limit=2,
    rejoin_cost="half",
    tie_rule="split",
    dealer_rule="rotate",
    max_raise="full",
    amhaeng=False,
)


def test_the_rules_lines_name_every_rule_and_fit_80_columns() -> None:
    from rich.cells import cell_len

    from seotda_tui.ui.room_rules import RULES_CELLS, room_rules_lines

    from .gamekit import random_options

    text = "\n".join(room_rules_lines(RULED))
    for needle in (
        "차례 30초",
        "리바이 2번까지",
        "판돈 절반",
        "나눠 가짐",
        "돌아가며",
        "풀 베팅 가능",
    ):
        assert needle in text, (needle, text)
    assert "꺼진 특수패: 암행어사" in text
    rng = random.Random(16)
    for _ in range(2000):
        options = random_options(rng)
        for cells in (RULES_CELLS, 48):
            for line in room_rules_lines(options, cells):
                assert cell_len(line) <= cells, line


def rules_on_screen(t: Table, nick: str) -> list[str]:
    from seotda_tui.ui.room_rules import rule_topics

    screen = t.text(nick)
    options = t.manager.room(t.room_id).options
    parts = [p.removeprefix("특수패: ") for topic in rule_topics(options) for p in topic]
    return [part for part in parts if part not in screen]


async def test_the_rules_show_in_the_waiting_room_at_the_table_and_in_help() -> None:
    async with Table.open(["a", "b"], options=RULED, seed=2, start=False) as t:
        from seotda_tui.ui.screens.table import TableScreen

        t.app("b").push_screen(TableScreen(t.room_id))
        await t.settle()
        assert rules_on_screen(t, "b") == [], t.text("b")  # the waiting room, 80×24
        t.manager.start(t.room_id, "a")
        await t.settle()
        assert "i 규칙" in t.text("b")
        await t.press("b", "i")
        assert "■ 이 방의 규칙" in t.text("b")
        assert rules_on_screen(t, "b") == [], t.text("b")
        await t.press("b", "escape")
        await t.press("b", "question_mark")
        from textual.widgets import TabbedContent

        t.screen("b").query_one(TabbedContent).active = "help-rules-pane"  # help's 규칙 tab
        await t.settle()
        assert rules_on_screen(t, "b") == [], t.text("b")


# ---------------------------------------------------------------- reconnect grace (item 10)


async def test_a_dropped_seat_counts_its_grace_down_then_is_marked_gone_and_can_come_back() -> None:
    options = Options(turn_seconds=60)
    async with Table.open(["a", "b", "c"], options=options, seed=3, reconnect_grace=30) as t:
        t.manager.session_disconnected("b")
        await t.settle()
        assert t.screen("a").shown_seats["b"].badges[0] == "끊김 30초"
        assert "[끊김 30초]" in "\n".join(box_lines(t, "a", "b"))
        await t.advance(12)  # 18 s left, shown in 5 s steps
        assert t.screen("c").shown_seats["b"].badges[0] == "끊김 20초"
        await t.advance(20)  # the grace is over: the engine plays the seat's turns
        assert t.screen("a").shown_seats["b"].badges[0] == "연결 끊김"
        assert not t.seat("b")["connected"]
        assert t.manager.session_connected("b") == t.room_id  # may still come back
        await t.settle()
        assert "연결 끊김" not in t.screen("a").shown_seats["b"].badges


def at_hand(hand_no: int) -> Callable[[Game], bool]:
    return lambda game: game.view(None).get("handNo") == hand_no


async def test_the_first_hands_tip_shows_in_a_players_first_hands_only() -> None:
    from seotda_tui.ui.present.text import FIRST_HAND_HINT, FIRST_TIP_HANDS

    options = Options(deal_mode="oneRound", hand_limit=10)
    async with Table.open(["a", "b"], options=options, seed=4) as t:
        seen = []
        for hand_no in range(1, FIRST_TIP_HANDS + 3):
            t.play_until(at_hand(hand_no))
            await t.settle()
            seen.append(FIRST_HAND_HINT.text() in t.text("a"))
        assert seen == [True] * FIRST_TIP_HANDS + [False] * 2, seen
        t.play_until(lambda g: g.finished)
        await t.settle()
        await t.press("a", "escape")  # close the results
        t.manager.start(t.room_id, "a")  # the next game's first hand: no tip any more
        await t.settle()
        assert "게임 중" in t.text("a") and FIRST_HAND_HINT.text() not in t.text("a"), t.text("a")


async def test_each_deal_shows_the_cut_for_a_moment() -> None:
    from seotda_tui.ui.screens.table import CUT_SECONDS

    async with Table.open(["a", "b", "c"], options=Options(deal_mode="oneRound"), seed=4) as t:
        t.play_until(lambda g: g.view(None).get("handNo") == 2)
        await t.settle()
        view = t.view("a")
        seats = [s["id"] for s in view["seats"]]
        dealer = view["dealer"]
        cutter = seats[seats.index(dealer) - 1]  # the dealer's right: the last to be dealt
        for nick in ("a", "b", "c"):
            assert f"기리: {cutter}님이 패를 떼고 선 {dealer}님이 나눠요" in t.text(nick)
        await t.advance(CUT_SECONDS)
        assert "기리" not in t.text("a")


# ---------------------------------------------------------------- the hand log's showdown lines

#: (deal, the special holder's log name) — each special fired, and not fired (§6.2/§6.4):
#: an unfired special is logged as the plain hand it played as, as the seats name it.
LOGGED_SPECIALS = [
    ({"a": ["9열", "9띠"], "b": ["3광", "7열"]}, "땡잡이"),
    ({"a": ["10열", "10띠"], "b": ["3광", "7열"]}, "망통 (땡잡이 불발)"),
    ({"a": ["1광", "3광"], "b": ["4열", "7열"]}, "암행어사"),
    ({"a": ["1광", "2띠"], "b": ["4열", "7열"]}, "1끗 (암행어사 불발)"),
    ({"a": ["1광", "2띠"], "b": ["4띠", "9띠"]}, "구사"),
    ({"a": ["1광", "1띠"], "b": ["4띠", "9띠"]}, "3끗 (구사 불발)"),
    ({"a": ["8광", "8일"], "b": ["4열", "9열"]}, "멍텅구리구사"),
    ({"a": ["10열", "10띠"], "b": ["4열", "9열"]}, "3끗 (멍텅구리구사 불발)"),
]


def log_text(t: Table, nick: str) -> str:
    from seotda_tui.ui.widgets.handlog import HandLog

    log = t.screen(nick).query_one(HandLog)
    return " ".join(" ".join(strip.text.split()) for strip in log.lines)


@pytest.mark.parametrize(("deal", "logged"), LOGGED_SPECIALS)
async def test_the_hand_log_names_a_special_as_the_showdown_does(
    deal: dict[str, list[str]], logged: str
) -> None:
    async with Table.open(
        ["a", "b"], options=Options(deal_mode="oneRound"), seed=2, deal=deal, size=(120, 30)
    ) as t:
        await play_to_showdown(t)
        showdown = t.view("a").get("showdown")
        assert showdown is not None
        reveal = next(e for e in showdown if e["player"] == "b")
        assert reveal["special"] is not None  # the engine names it by the special …
        assert t.screen("a").shown_seats["b"].hand_name == logged  # … the seat by what it did
        for viewer in ("a", "b"):
            text = log_text(t, viewer)
            assert f"= {logged}" in text, (viewer, text)
            if "불발" in logged:  # never the bare special name, as if it had won
                assert f"= {reveal['name']} " not in text + " ", text


async def test_a_late_watchers_log_names_earlier_showdowns_the_same_way() -> None:
    """A new viewer's snapshot replays the whole log: each showdown is judged by the results
    of its own hand, not by the view's (a later hand's)."""
    from types import SimpleNamespace

    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.widgets.handlog import HandLog

    deal = {"a": ["10열", "10띠"], "b": ["3광", "7열"]}
    options = Options(deal_mode="oneRound", hand_limit=10)
    async with Table.open(["a", "b"], options=options, seed=2, deal=deal) as t:
        await play_to_showdown(t)
        t.play_until(lambda g: g.view(None).get("handNo") == 2)
        await t.settle()
        app = make_app_factory(t.manager, chat=t.chat)(
            SimpleNamespace(nickname="c"), None
        )
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            await pilot.press("w")  # watch the one room
            for _ in range(5):
                await pilot.pause()
            log = app.screen.query_one(HandLog)
            text = " ".join(" ".join(strip.text.split()) for strip in log.lines)
            assert "= 망통 (땡잡이 불발)" in text and "= 땡잡이" not in text, text
