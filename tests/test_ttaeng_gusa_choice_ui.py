"""Issue 36 at the table (pilot, 80×24): the 구사 choice prompt on the holder's table, the line
the other players and a spectator see while it is open, and the 땡값 in the hand log and the
results banner, in Korean and in English."""

from __future__ import annotations

import random
from pathlib import Path

from engine import Options
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.history import GameHistory
from seotda_tui.rooms.journal import Journal
from seotda_tui.testing import Table
from seotda_tui.ui.widgets.texts import event_lines

from .fitkit import cuts
from .test_table_status import log_text

GUSA_DEAL = {"a": ["4띠", "9열"], "b": ["1광", "2열"]}  # 구사 vs 알리: the 구사 fires
CHOICE = Options(deal_mode="oneRound", gusa_choice=True)


def fits(t: Table, nick: str, where: str) -> None:
    found = cuts(t.app(nick))
    assert not found, f"{where} ({nick}): " + "\n".join(found)


async def opened_log(t: Table, nick: str) -> str:
    """The hand log's text once ``nick`` opens it (l): at 80 columns it is off by default."""
    await t.press(nick, "l")
    return log_text(t, nick)


async def open_choice(t: Table) -> None:
    t.play_until(lambda g: g.pending()["phase"] == "gusaChoice")
    await t.settle()
    assert t.game.pending()["players"] == ["a"]


async def test_the_holder_is_prompted_and_the_others_see_who_is_deciding() -> None:
    async with Table.open(
        ["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL, spectators=["s"]
    ) as t:
        await open_choice(t)
        mine = t.text("a")
        assert "내 구사를 발동할까요? y/n (n: 그대로 판정)" in mine
        assert "y 재경기" in mine and "n 그대로 판정" in mine
        for nick in ("b", "s"):
            assert "a님이 구사 재경기를 고르는 중" in t.text(nick), nick
            assert "y 재경기" not in t.text(nick)
        for nick in ("a", "b", "s"):
            fits(t, nick, "구사 choice")
        await t.press("b", "n")  # not b's question: nothing happens
        assert t.game.pending()["phase"] == "gusaChoice"
        await t.press("a", "n")
        assert t.game.view(None).get("handPhase") == "handEnd"
        assert not t.game.view(None).get("rematchReason")
        for nick in ("a", "b"):
            assert "a 구사 발동 안 함 (그대로 판정)" in await opened_log(t, nick)
            assert "구사 재경기를 고르는 중" not in t.text(nick)


async def test_yes_or_a_timeout_fires_the_gusa() -> None:
    async with Table.open(["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL) as t:
        await open_choice(t)
        await t.press("a", "y")
        assert t.game.view(None).get("rematchReason") == "gusa"
        assert "a 구사 발동" in await opened_log(t, "b")
    async with Table.open(["a", "b"], options=CHOICE, seed=2, deal=GUSA_DEAL) as t:
        await open_choice(t)
        await t.advance(CHOICE.turn_seconds + 1)
        assert t.game.view(None).get("rematchReason") == "gusa"
        assert "시간이 지나 구사를 발동했어요" in t.text("a")


async def test_in_english_with_refund_the_prompt_and_the_waiting_line() -> None:
    options = Options(deal_mode="oneRound", gusa_choice=True, gusa_outcome="refund")
    async with Table.open(["a", "b"], options=options, seed=2, deal=GUSA_DEAL, language="en") as t:
        await open_choice(t)
        assert "Fire your Gusa? y/n (n: judge as shown)" in t.text("a")
        assert "y pato" in t.text("a") and "n judge as shown" in t.text("a")
        assert "a deciding on a Gusa rematch" in t.text("b")


TTAENG_DEAL = {"a": ["5열", "5띠"], "b": ["1광", "2열"], "c": ["2띠", "8일"]}


async def test_the_ttaeng_value_in_the_hand_log_and_the_results_line() -> None:
    options = Options(deal_mode="oneRound", ttaeng_value="school")
    for language, logged, banner in (
        (None, "땡값: c → a 10칩 (5땡)", "a 땡값 +10칩 (c)"),
        ("en", "Ttaeng bonus: c → a 10 chips", "a ttaeng bonus +10 chips (c)"),
    ):
        async with Table.open(
            ["a", "b", "c"], options=options, seed=4, deal=TTAENG_DEAL, language=language
        ) as t:
            while (actor := t.actor) is not None:  # c dies, the others check
                await t.press(actor, "1" if actor == "c" else "2")
            assert t.game.view(None).get("handPhase") == "handEnd"
            assert t.game.view(None)["ttaeng"]["payments"] == [{"player": "c", "amount": 10}]
            for nick in ("a", "b", "c"):
                assert banner in t.text(nick), nick
                if language is None:
                    fits(t, nick, "땡값 results")
                assert logged in await opened_log(t, nick), nick


def test_the_rules_and_help_name_both_rules_only_when_on() -> None:
    from seotda_tui.ui.room_rules import room_rules_lines
    from seotda_tui.ui.screens.help_text import rules_text

    on = Options(ttaeng_value="double", gusa_choice=True)
    rules = "\n".join(room_rules_lines(on))
    for needle in (
        "땡값: 다이한 사람이 내요",
        "땡 학교 2개",
        "장땡·광땡 학교 4개",
        "구사 발동은 든 사람이 골라요",
    ):
        assert needle in rules, rules
    help_text = rules_text(on)
    assert "학교 2개(장땡·광땡은 4개)를 더 내요" in help_text
    assert "구사를 든 사람이 y(발동)나 n(그대로 판정)을 골라요" in help_text
    off = "\n".join(room_rules_lines(Options())) + rules_text(Options())
    assert "땡값" not in off and "구사 발동은" not in off and "그대로 판정" not in off


def test_the_replay_shows_the_choice_and_the_ttaeng_value(tmp_path: Path) -> None:
    """A journaled game (seed "9"'s deals and this play bring both) replays with the 구사
    choice's frames and views and the 땡값's events, log lines and results."""
    options = Options(deal_mode="oneRound", gusa_choice=True, ttaeng_value="school", hand_limit=10)
    journal = Journal(tmp_path / "games.sqlite3")
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: "9", journal=journal)
    room = manager.create_room("a", "복기 방", options)
    for nick in ("b", "c"):
        manager.join(room.id, nick)
    manager.start(room.id, "a")
    rng = random.Random(11)
    while (game := manager.live_game(room.id)) is not None and not game.finished:
        nick = game.pending()["players"][0]
        legal = game.legal_actions(nick)
        pick = rng.choice([a for a in legal if a["type"] in ("check", "call", "die")] or legal)
        action: dict[str, object] = {"type": pick["type"]}
        if "accept" in pick:
            action["accept"] = pick["accept"]
        manager.act(room.id, nick, action)
    replay = GameHistory(journal).replay(f"{room.id}-1", "b")
    assert replay is not None
    frames = range(len(replay.frames))
    asked = [
        i for i in frames if any(e["type"] == "gusaChoiceOpen" for e in replay.frames[i].events)
    ]
    assert asked and all("gusaChoice" in replay.view(i) for i in asked)
    paid = [i for i in frames if any(e["type"] == "ttaengValue" for e in replay.frames[i].events)]
    assert paid
    for i in paid:
        events = replay.frames[i].events
        lines = [line for e in events for line in event_lines(e)]
        ttaeng = replay.view(i)["ttaeng"]
        for payment in ttaeng["payments"] or []:
            line = f"땡값: {payment['player']} → {ttaeng['winner']} {payment['amount']}칩"
            assert any(x.startswith(line) for x in lines), lines
    manager.close()


async def test_the_choice_and_the_ttaeng_value_over_real_ssh_at_80x24(tmp_path: Path) -> None:
    """Real SSH, pyte at 80×24, three players (one in English): hand 1's 구사 holder is asked
    and the others see who is deciding; the holder declines. Hand 2: the third dealt dies, the
    first dealt's 5땡 wins the showdown, and every terminal shows the 땡값."""
    from contextlib import AsyncExitStack

    from engine.dealing import DealRequest, StackedDeck
    from seotda_tui.ui.app import make_app_factory

    from .gamekit import deal_order
    from .ssh_harness import ssh_server, wait_until

    hands = {1: ([7, 16], [0, 2], [3, 15]), 2: ([8, 9], [0, 2], [3, 15])}  # 구사/5땡, 알리, 망통

    def deals(request: DealRequest) -> list[int]:
        stacked = StackedDeck()
        if request.hand_no in hands and request.rematch_no == 0:
            stacked.rig(dict(zip(request.receivers, hands[request.hand_no], strict=True)))
        return stacked(request)

    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30, deal=deals)
    options = Options(deal_mode="oneRound", gusa_choice=True, ttaeng_value="school")
    room = manager.create_room("영희", "구사 판", options)
    for nick in ("bob", "철수"):
        manager.join(room.id, nick)
    manager.start(room.id, "영희")
    game = manager.live_game(room.id)
    assert game is not None
    english = {"bob"}

    def says(nick: str, korean: str, en: str) -> str:
        return en if nick in english else korean

    async with ssh_server(tmp_path, make_app_factory(manager)) as server, AsyncExitStack() as st_:
        clients = {
            nick: await st_.enter_async_context(
                server.connect(
                    nick, size=(80, 24), env={"LANG": says(nick, "ko_KR.UTF-8", "en_US.UTF-8")}
                )
            )
            for nick in game.players
        }

        async def play_hand(dies: str | None) -> None:
            while (actor := game.view(None).get("actor")) is not None:
                await clients[actor].wait_for(says(actor, "내 차례예요", "Your turn"))
                await clients[actor].press("1" if actor == dies else "2")  # die or check
                await wait_until(lambda a=actor: game.view(None).get("actor") != a)

        holder, _, _ = deal_order(game)
        await play_hand(None)
        assert game.pending() == {"phase": "gusaChoice", "players": [holder], "seconds": 20}
        await clients[holder].wait_for(
            says(holder, "내 구사를 발동할까요? y/n", "Fire your Gusa? y/n")
        )
        for nick in game.players:
            if nick != holder:
                waiting = says(nick, f"{holder}님이 구사 재경기를 고르는 중", "deciding on a Gusa")
                await clients[nick].wait_for(waiting)
        await clients[holder].press("n")
        await wait_until(lambda: game.view(None).get("handPhase") == "handEnd")
        for client in clients.values():
            await client.press(" ")
        await wait_until(lambda: game.view(None).get("handNo") == 2)

        winner, _, dead = deal_order(game)
        await play_hand(dead)
        assert game.view(None)["ttaeng"]["payments"] == [{"player": dead, "amount": 10}]
        for nick, client in clients.items():
            bonus = says(nick, f"{winner} 땡값 +10칩 ({dead})", f"{winner} ttaeng bonus +10 chips")
            await client.wait_for(bonus)
