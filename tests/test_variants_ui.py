"""Issue 36 variants at the table (pilot, 80×24): 인디언 섯다 as the acting player, a waiting
player and a spectator, and in English. The holder's own first card is a face-down card marked
"?" on their own screen while everyone else reads it on the holder's seat."""

from __future__ import annotations

from pathlib import Path

from engine import DECK, Options
from seotda_tui.testing import Table
from seotda_tui.ui.widgets.texts import card_name

from .fitkit import cuts
from .test_table_status import log_text

INDIAN = Options(card_mode="indian")
DEAL = {"a": ["1광", "2열"], "b": ["3광", "4띠"], "c": ["9열", "10띠"]}


def _marked(text: str) -> bool:
    """Whether a card on screen carries the "?" mark (a line with only "?" above a card)."""
    return any(line.strip() == "?" for line in text.splitlines())


async def test_indian_acting_waiting_and_watching_at_80x24() -> None:
    async with Table.open(
        ["a", "b", "c"], options=INDIAN, seed=2, deal=DEAL, spectators=["s"]
    ) as t:
        assert t.actor == "a"
        seen = {nick: t.text(nick) for nick in ("a", "b", "c", "s")}
        # a acts: sees b's 3광 and c's 9열 on their seats, not its own 1광: a "?" card instead
        assert "3광" in seen["a"] and "9열" in seen["a"] and "1광" not in seen["a"]
        assert _marked(seen["a"]) and _marked(seen["b"]) and not _marked(seen["s"])
        assert "내 차례" in seen["a"]
        # b waits: a's 1광 and c's 9열, never its own 3광
        assert "1광" in seen["b"] and "9열" in seen["b"] and "3광" not in seen["b"]
        assert "a님 차례" in seen["b"]
        # the spectator sees every first card
        assert all(card in seen["s"] for card in ("1광", "3광", "9열"))
        for nick in ("a", "b", "s"):
            assert not cuts(t.app(nick)), nick
        for _ in range(3):
            assert t.actor is not None
            await t.act(t.actor, {"type": "check"})
        await t.settle()
        mine = t.text("a")
        assert (
            "2월 열끗" in mine and "1광" not in mine
        )  # the second card is a's; the first stays "?"
        assert _marked(mine)
        assert "2월 열끗" not in t.text("b") and "2열" not in t.text("s")  # nobody else sees it
        assert "1광" in t.text("b")


async def test_indian_in_english_and_the_showdown_shows_the_holder_their_card() -> None:
    deal = {"a": ["1광", "2열"], "b": ["3광", "4띠"]}
    async with Table.open(["a", "b"], options=INDIAN, seed=2, deal=deal, language="en") as t:
        assert t.actor == "a"
        mine = t.text("a")
        assert _marked(mine) and "3Br" in mine and "1Br" not in mine
        assert "1Br" in t.text("b")
        await t.press("a", "i")
        assert "Indian Seotda (others see your first card, you don't)" in t.text("a")
        await t.press("a", "escape")
        for _ in range(4):
            assert t.actor is not None
            await t.act(t.actor, {"type": "check"})
        await t.settle()
        assert t.game.view(None).get("handPhase") == "handEnd"
        assert not _marked(t.text("a"))  # shown down: the holder sees it too


SHARED = Options(card_mode="shared")


async def test_shared_the_dealer_picks_with_the_keys_and_everyone_sees_the_card() -> None:
    deal = {"a": ["2열"], "b": ["3광"], "c": ["9열"]}
    async with Table.open(
        ["a", "b", "c"], options=SHARED, seed=2, deal=deal, spectators=["s"]
    ) as t:
        assert t.game.pending()["players"] == ["a"]
        mine = t.text("a")
        assert "공유 카드를 골라요: 1·2 키로 넘기고 Enter" in mine and "Enter 1광 공유" in mine
        for nick in ("b", "s"):
            assert "a님이 공유 카드를 고르는 중" in t.text(nick), nick
            assert "Enter 1광 공유" not in t.text(nick)
        for nick in ("a", "b", "s"):
            assert not cuts(t.app(nick)), nick
        await t.press("b", "2")  # not b's pick: nothing moves
        await t.press("a", "2", "2")
        assert "Enter 2열 공유" in t.text("a")  # 1광 → 1띠 → 2열
        await t.press("a", "1", "1", "1")  # back round the 20: 2열 → 1띠 → 1광 → 10띠
        assert "Enter 10띠 공유" in t.text("a")
        await t.press("a", "2", "enter")
        await t.settle()
        assert t.game.view(None)["sharedCard"] == {"id": 0, "month": 1, "kind": "gwang"}
        for nick in ("a", "b", "c", "s"):
            assert "공유 카드 1광" in t.text(nick), nick
        assert "알리" in t.text("a")  # the own hint counts the shared card: 2열 + 1광
        # the own row shows the own card, then the shared one marked "공유"
        assert any(line.strip() == "공유" for line in t.text("a").splitlines())
        assert "2월 열끗" in t.text("a") and "1월 광" in t.text("a")
        assert "내 차례" in t.text("a") and "a님 차례" in t.text("b")


async def test_shared_in_english_and_the_timeout_picks() -> None:
    async with Table.open(["a", "b"], options=SHARED, seed=2, language="en") as t:
        assert "Pick the shared card: 1/2 to browse, Enter" in t.text("a")
        assert "a is picking the shared card" in t.text("b")
        await t.advance(SHARED.turn_seconds + 1)
        shared = t.game.view(None)["sharedCard"]
        assert shared is not None and t.game.pending()["phase"] == "betting"
        assert "shared " in t.text("b")


REGRET = Options(card_mode="regret")


async def test_regret_draw_in_turn_then_choose_two_of_four() -> None:
    async with Table.open(["a", "b", "c"], options=REGRET, seed=2, spectators=["s"]) as t:
        (drawer,) = t.game.pending()["players"]
        waiting = next(p for p in ("a", "b", "c") if p != drawer)
        assert "Enter로 카드를 한 장 가져와요" in t.text(drawer)
        assert "Enter 한 장 가져오기" in t.text(drawer)
        for nick in (waiting, "s"):
            assert f"{drawer}님이 카드를 가져가는 중" in t.text(nick), nick
            assert "Enter 한 장 가져오기" not in t.text(nick)
        for nick in (drawer, waiting, "s"):
            assert not cuts(t.app(nick)), nick
        await t.press(waiting, "enter")  # not its turn: nothing is taken
        assert t.game.pending()["players"] == [drawer]
        for _ in range(12):
            (p,) = t.game.pending()["players"]
            await t.press(p, "enter")
        assert t.game.pending()["phase"] == "choose"
        mine = t.text("a")
        assert "카드 2장을 고르세요: 1~4 키, Enter 확정" in mine
        assert "(1~4 키나 카드 클릭," in mine  # (the hint beside the four cards)
        seat_a = next(s for s in t.game.view("a")["seats"] if s["id"] == "a")
        own = [c["id"] for c in seat_a.get("cards", []) if "hidden" not in c]
        assert len(own) == 4
        await t.press("a", "1", "4", "enter")
        assert sorted(
            next(s for s in t.game.view("a")["seats"] if s["id"] == "a")["chosenIds"]
        ) == sorted([own[0], own[3]])
        assert not cuts(t.app("a"))
        left = " + ".join(card_name(DECK[i]) for i in own[1:3])
        mine = t.screen("a").query_one("#mine").plain  # (wrapped beside the cards: not cut)
        assert f"버린 패: {left}" in mine  # both cards left out


async def test_regret_in_english_shows_the_unchosen_cards_in_the_log() -> None:
    async with Table.open(["a", "b"], options=REGRET, seed=2, language="en") as t:
        (drawer,) = t.game.pending()["players"]
        assert "Your turn! Enter takes a card" in t.text(drawer)
        t.play_until(lambda g: g.pending()["phase"] == "handEnd")
        await t.settle()
        shown = t.game.view(None)["showdown"] or []  # (everyone checked: a showdown)
        assert [len(row["unchosen"]) for row in shown] == [2, 2]
        await t.press("a", "l")
        log = log_text(t, "a")
        for row in shown:
            assert f"{row['player']} did not keep" in log


async def test_indian_replay_keeps_the_viewer_blind_to_their_own_first_card(tmp_path: Path) -> None:
    from seotda_tui import i18n
    from seotda_tui.testing import screen_text
    from seotda_tui.ui.widgets.hand import HandCards

    from .test_replay_table import WATCHER, _app, _labels, _open_replay, journaled_game

    with journaled_game(tmp_path, "indian") as played:
        mine = played.history.replay(played.key, "영희")
        watched = played.history.replay(played.key, WATCHER)
        assert mine is not None and watched is not None
        index = next(  # the first hand's second round: both cards dealt, none shown down
            i for i in range(len(mine.frames)) if mine.view(i).get("street") == 1
        )
        seat = next(s for s in watched.view(index)["seats"] if s["id"] == "영희")
        first = seat["cards"][0]["id"]  # type: ignore[typeddict-item]
        app = _app(played.manager, "영희", i18n.KOREAN)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _open_replay(pilot, app)
            with i18n.speaking(app.language):
                screen.action_go(index)
            await pilot.pause()
            text = screen_text(app)
            own = [c.id for c in screen.query_one(HandCards).cards]
            assert len(own) == 1 and first not in own  # the second card only
            assert any(line.split("│")[0].strip() == "?" for line in text.splitlines()), text
            with i18n.speaking(app.language):
                assert not any(label in text for label in _labels(first)), text
