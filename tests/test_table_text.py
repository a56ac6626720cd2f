"""What the table says at 80×24 (issue #16): the pot and the result reach every viewer, pots are
labelled, amounts have thousands separators, seats start from the viewer."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine import Game, Options
from seotda_tui.rooms import RoomManager
from seotda_tui.testing import Table
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.widgets.seats import SeatBoxes, box_width

from .ssh_harness import ssh_server

#: Ten seats with the longest nicknames (8 Hangul syllables = 16 cells).
LONG = [
    "가나다라마바사아",
    "자차카타파하가나",
    "다라마바사아자차",
    "카타파하가나다라",
    "마바사아자차카타",
    "파하가나다라마바",
    "사아자차카타파하",
    "나다라마바사아자",
    "라마바사아자차카",
    "바사아자차카타파",
]
WATCHER = "구경꾼구경꾼구경"


def _hand_end(game: Any) -> bool:
    return game.view(None).get("handPhase") == "handEnd"


async def test_full_table_every_viewer_sees_the_pot_and_the_result() -> None:
    async with Table.open(LONG, spectators=[WATCHER], options=Options(), seed=3) as t:
        actor = t.actor
        for nick in [*LONG, WATCHER]:
            # "판돈 100칩", or "판돈" beside the large digits and "칩"
            assert re.search(r"판돈 .*칩", t.text(nick)), (nick, nick == actor, t.text(nick))
        t.play_until(_hand_end)
        await t.settle()
        results = t.game.view(None).get("results")
        winner = results[0]["winners"][0]
        net = results[0]["net"][winner]  # the pot less the winner's own chips (issue 32)
        assert net < results[0]["amount"]
        line = f"{winner} 승리 +{net:,}칩"
        for nick in [*LONG, WATCHER]:
            assert line in t.text(nick), (nick, t.text(nick))


def _banner(t: Table, nick: str) -> str:
    return str(t.screen(nick).query_one("#banner").plain)


async def test_rematch_pots_are_labelled_and_one_winner_is_listed_once() -> None:
    deal = {"a": ["4띠", "9열"], "b": ["1띠", "2열"], "c": ["5띠", "6띠"]}
    async with Table.open(
        ["a", "b", "c"], options={"rejoinCost": "half", "dealMode": "oneRound"}, seed=11, deal=deal
    ) as t:
        while t.actor is not None:
            await t.press(t.actor, "1" if t.actor == "c" else "2")  # c dies, a and b check
        for nick in ("a", "b", "c"):
            await t.press(nick, "space")
        view = t.view("a")
        rejoin = view.get("rejoin")
        assert view.get("handPhase") == "rejoin" and rejoin is not None
        cost = rejoin["cost"]
        for nick in ("a", "b"):  # the rejoin cost is not called the pot
            assert f"재참가 비용 {cost:,}칩" in t.text(nick)
            assert "(판돈" not in t.text(nick)
        t.rig({"a": ["3광", "8광"], "b": ["1띠", "2띠"], "c": ["5열", "6열"]}, next_match=True)
        await t.press("c", "y")
        carried = t.view("a").get("pots", [])[0]["amount"]  # the kept pot comes first
        actor = t.actor
        assert actor is not None
        await t.act(actor, {"type": "ping"})
        text = t.text("b")
        assert f"이월 {carried:,}" in text and "새 베팅 " in text, text
        while t.actor is not None:
            await t.act(t.actor, {"type": "call"})
        results = t.game.view(None).get("results")
        assert len(results) == 2 and all(r["winners"] == ["a"] for r in results)
        total = sum(r["net"]["a"] for r in results)  # what a won, net (issue 32)
        for nick in ("a", "b", "c"):
            assert _banner(t, nick).count("승리") == 1, _banner(t, nick)
            assert f"a 승리 +{total:,}칩" in t.text(nick)


async def test_an_uncalled_bet_is_not_a_pot() -> None:
    options = Options(deal_mode="oneRound")
    first = Game.new(options, ["a", "b", "c"], 4).view(None).get("actor")  # the seed decides
    assert first is not None
    async with Table.open(
        ["a", "b", "c"], options=options, seed=4, stacks={first: 5 + 10}
    ) as t:  # 5 chips behind the school
        assert t.actor == first and t.seat(first)["stack"] == 5
        await t.act(
            first,
            {"type": "call"}
            if any(a["type"] == "call" for a in t.legal(first))
            else {"type": "ping"},
        )
        second = t.actor
        assert second is not None
        raise_ = next(a for a in t.legal(second) if a["type"] in ("half", "ddadang", "quarter"))
        await t.act(second, {"type": raise_["type"]})
        third = t.actor
        assert third is not None and third not in (first, second)
        text = t.text(third)  # the raise is not called yet: no side pot (issue 32 item 3)
        assert "콜 대기 " not in text and "사이드 " not in text and "(메인 " not in text, text


def _seconds(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"(\d+)초", text)]


async def test_every_viewer_of_a_deadline_reads_the_same_seconds() -> None:
    """The rebuyer saw 7초 while everyone else saw 10초: numbers now agree within a second."""
    async with Table.open(["a", "b", "c"], spectators=["w"], seed=5) as t:
        actor = t.actor
        for step in (1, 2, 4, 3, 2, 1, 1, 1, 1):
            await t.advance(step)
            if t.actor != actor:
                break
            assert actor is not None
            (mine,) = _seconds(t.text(actor))
            for nick in ("a", "b", "c", "w"):
                for shown in _seconds(t.text(nick)):
                    assert abs(shown - mine) <= 1, (nick, shown, mine)


async def test_big_text_in_ascii_mode_says_it_does_not_show(tmp_path: Path) -> None:
    """Over SSH (the pilots run without toasts): ``b`` with ASCII cards says it shows nothing."""
    factory = make_app_factory(RoomManager(seed_source=lambda: 7))
    async with ssh_server(tmp_path, factory) as server, server.connect("영희") as c:
        await c.wait_for("영희님 환영해요")
        await c.press("a")
        await c.wait_for("ASCII 모드 켬")
        await c.press("b")
        await c.wait_for("큰 글씨 켬 (ASCII에선 안 보여요)")


async def test_a_toast_leaves_the_three_card_recommendation_readable() -> None:
    async with Table.open(
        ["a", "b"], options={"cardMode": "three"}, seed=5, notifications=True
    ) as t:
        t.play_until(lambda g: g.view(None).get("handPhase") == "choose")
        await t.refresh()
        nick = t.game.pending()["players"][0]
        assert "추천(r): " in t.text(nick)
        before = t.text(nick).splitlines()
        t.app(nick).notify("칩이 모자라 재참가할 수 없어요")  # a toast as long as they come
        await t.pilot(nick).pause(0.1)
        text = t.text(nick)
        assert "칩이 모자라 재참가할 수 없어요" in text, text
        # one row under the title is covered for a moment; the hand, prompts and keys are not
        changed = [i for i, (x, y) in enumerate(zip(before, text.splitlines())) if x != y]
        assert changed == [1], text


async def test_the_summary_has_thousands_separators_and_says_whose_best_hand() -> None:
    options = Options(hand_limit=10, starting_chips=5000)
    first, second = Game.new(options, ["a", "b"], 3).players  # seat order: the seed decides
    stacks = {first: 5000 + 2000, second: 5000 - 2000}
    async with Table.open(["a", "b"], seed=3, options=options, stacks=stacks) as t:
        for _ in range(300):
            if getattr(t.manager.room(t.room_id), "status", None) != "playing":
                break
            t.clock.advance(20)
        await t.settle()
        result = t.game.result()
        assert result is not None
        top = result["ranking"][0]
        gain = top["score"] - 5000
        best = result["stats"]["bestHand"]
        assert gain >= 1000
        for nick in ("a", "b"):
            text = t.text(nick)
            assert f"1위 {top['playerId']}({gain:+,}칩)" in text, text
            assert f"최고 족보 {best['name']}({best['playerId']}, {best['handNo']}판)" in text, text


async def test_seats_are_listed_from_the_viewer() -> None:
    names = ["철수", "영희", "민수", "지영", "동현"]
    async with Table.open(names, spectators=["구경"], seed=8) as t:
        order = [s["id"] for s in t.view("구경")["seats"]]
        for nick in names:
            i = order.index(nick)
            expected = order[i + 1 :] + order[:i]
            shown = [n for n in t.screen(nick).shown_seats if n != nick]
            assert shown == expected, (nick, shown, expected)
            rows = t.text(nick).splitlines()[1:]  # below the title (방장 …)
            where = {
                n: next((r, row.find(n)) for r, row in enumerate(rows) if n in row)
                for n in expected
            }
            assert sorted(expected, key=where.__getitem__) == expected, t.text(nick)
        assert list(t.screen("구경").shown_seats) == order


async def test_opening_and_closing_the_log_keeps_every_seat_name_whole() -> None:
    names = ["가나다", "마바사아", LONG[0], LONG[1], "철수"]
    async with Table.open(names, seed=3, size=(100, 30)) as t:
        me = names[0]
        for _ in range(3):
            await t.press(me, "l")
            text = t.text(me)
            for nick in names[1:]:
                assert any(nick in row for row in text.splitlines()), text
            boxes = t.screen(me).query_one(SeatBoxes)
            drawn = boxes.columns * (box_width(2, "box") + 1) - 1
            assert drawn <= boxes.size.width, (boxes.columns, boxes.size.width)  # none cut


# ---------------------------------------------------------------- the first-hands tip (item 13)


def tip_wrapped_only_between_phrases(t: Table, nick: str) -> list[str]:
    """The own-hand rows of ``nick``'s screen, checked: each phrase of the first-hands tip is
    on one row whole, or (left out to fit) nowhere — never a fragment on a row."""
    from seotda_tui.ui.present.text import FIRST_HAND_HINT

    from .fitkit import drawn

    mine = t.screen(nick).query_one("#mine")
    rows = drawn(t.app(nick), mine.content_region)
    for phrase in FIRST_HAND_HINT.text().split(" · "):
        if any(phrase in row for row in rows):
            continue
        words = [w for w in phrase.split() if len(w) > 1]
        assert not any(w in row for w in words for row in rows), (phrase, rows)
    return rows


async def test_the_first_hands_tip_wraps_only_between_its_phrases() -> None:
    from seotda_tui.ui.present.text import FIRST_HAND_HINT

    options = Options(deal_mode="oneRound")
    # 110 columns: the hand log opens beside the table and leaves the tip 41 cells, where the
    # terminal broke it as "… 1~8 베팅 · t" / "채팅"
    for size in ((80, 24), (110, 30), (110, 24)):
        async with Table.open(["a", "b"], options=options, seed=4, size=size) as t:
            rows = tip_wrapped_only_between_phrases(t, "a")
            assert any("처음이세요?" in row for row in rows), (size, rows)
            if size == (80, 24):  # room for the whole tip on one row
                assert any(FIRST_HAND_HINT.text() in row for row in rows), rows
    async with Table.open(LONG, spectators=[WATCHER], options=options, seed=4) as t:
        for nick in LONG[:3]:  # ten seats at 80×24: compact cards, the tip beside them
            tip_wrapped_only_between_phrases(t, nick)
