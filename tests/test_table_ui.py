"""The table as players see it, scripted with the pilot harness (seotda_tui.testing)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import Options
from seotda_tui.testing import Table
from seotda_tui.ui.app import SeotdaApp
from seotda_tui.ui.screens import table as table_module
from seotda_tui.ui.screens.help import HelpScreen
from seotda_tui.ui.screens.lobby import LobbyScreen
from seotda_tui.ui.screens.results import ResultsScreen
from seotda_tui.ui.screens.table import TableScreen
from seotda_tui.ui.widgets.actions import ActionBar
from seotda_tui.ui.widgets.card import CardView
from seotda_tui.ui.widgets.chatline import ChatInput
from seotda_tui.ui.widgets.gauge import StatusGauge
from seotda_tui.ui.widgets.hand import HandCards
from seotda_tui.ui.widgets.pot import PotView
from seotda_tui.ui.widgets.texts import ACTION_NAMES, BET_ORDER, chips

from .gamekit import busted_at_rebuy


def buttons(t: Table, nick: str) -> dict[str, tuple[str, bool]]:
    bar = t.screen(nick).query_one(ActionBar)
    return {kind: bar.place(kind) for kind in BET_ORDER}


def check_bar(t: Table, nick: str) -> None:
    """Every button: enabled exactly when legal, labelled with the engine's exact chips."""
    legal: dict[str, Any] = {a["type"]: a for a in t.legal(nick) if a["type"] in ACTION_NAMES}
    for kind, (label, enabled) in buttons(t, nick).items():
        assert enabled == (kind in legal), (kind, label, legal)
        amount = legal.get(kind, {}).get("amount")
        if amount:
            assert f"(+{chips(amount)})" in label, (kind, label, amount)
        else:
            assert "(+" not in label, (kind, label)
        assert label.startswith(f"{BET_ORDER.index(kind) + 1} {ACTION_NAMES[kind]}")


async def test_action_bar_amounts_and_dimming_follow_the_legal_actions() -> None:
    options = Options(max_raise="full")
    async with Table.open(["a", "b", "c"], options=options, seed=5) as t:
        seen: set[str] = set()
        for key in ("3", "7", "5", "4", "4"):  # 삥, 하프, 따당, then calls
            actor = t.actor
            assert actor is not None
            check_bar(t, actor)
            for nick in ("a", "b", "c"):
                if nick != actor:
                    assert not any(on for _, on in buttons(t, nick).values())
            seen |= {a["type"] for a in t.legal(actor)}
            before: dict[str, int] = {a["type"]: a["amount"] for a in t.legal(actor)}
            kind = BET_ORDER[int(key) - 1]
            await t.press(actor, key)  # the hotkey sends exactly that action
            bet = [e for e in t.manager.log(t.room_id) if e["type"] == "bet"][-1]
            assert (bet["player"], bet["action"], bet["amount"]) == (actor, kind, before[kind])
        assert {"check", "ping", "call", "ddadang", "quarter", "half", "full", "die"} <= seen


async def test_an_illegal_hotkey_explains_itself_and_changes_nothing() -> None:
    async with Table.open(["a", "b"], seed=5) as t:
        actor = t.actor
        await t.press(actor, "4")  # 콜 with nothing to call
        assert "맞출 금액이 없어요(체크 또는 삥)" in t.text(actor)  # the engine says why
        assert t.actor == actor


async def test_three_card_choice_with_keys_and_the_recommendation() -> None:
    deal = {"a": ["1광", "4열", "8광"], "b": ["2띠", "3띠", "5띠"]}
    async with Table.open(["a", "b"], options={"cardMode": "three"}, seed=5, deal=deal) as t:
        for _ in range(2):
            await t.press(t.actor, "2")
        assert t.game.view(None).get("handPhase") == "choose"
        assert "카드 2장을 고르세요" in t.text("a")
        await t.press("a", "1", "2")
        assert "= 독사" in t.text("a")  # the picked pair is named live
        await t.press("a", "r")  # recommended: 18광땡
        assert "= 18광땡" in t.text("a")
        await t.press("a", "enter")
        assert t.seat("a").get("chosenIds") == [0, 14]
        assert "선택 완료" in t.text("b")  # what b sees of a's seat


async def play_to_showdown(t: Table) -> None:
    while t.game.view(None).get("handPhase") == "betting":
        kinds = [a["type"] for a in t.legal(t.actor)]
        await t.press(t.actor, "2" if "check" in kinds else "4")


@pytest.mark.parametrize(
    ("deal", "options", "banner"),
    [
        ({"a": ["3광", "7열"], "b": ["9열", "9띠"]}, {}, "땡잡이!"),
        ({"a": ["4열", "7열"], "b": ["1광", "3광"]}, {}, "암행어사 출두!"),
        ({"a": ["4띠", "9열"], "b": ["1띠", "2열"]}, {}, "구사 재경기"),
        ({"a": ["4열", "9열"], "b": ["8광", "8일"]}, {}, "멍텅구리구사 재경기"),
        ({"a": ["2띠", "3띠"], "b": ["6띠", "9띠"]}, {}, "동점 재경기"),
    ],
)
async def test_special_outcomes_are_announced(deal: Any, options: Any, banner: str) -> None:
    options = {"dealMode": "oneRound", **options}  # one betting round: a shorter script
    async with Table.open(["a", "b"], options=options, seed=11, deal=deal) as t:
        await play_to_showdown(t)
        for nick in ("a", "b"):
            assert banner in t.text(nick), t.text(nick)
            assert t.screen(nick).query_one(PotView).flash == banner


async def test_banner_goes_away_by_itself() -> None:
    """After FLASH_SECONDS on the session's clock (the rooms' fake one here), not before."""
    deal = {"a": ["3광", "7열"], "b": ["9열", "9띠"]}
    async with Table.open(["a", "b"], options={"dealMode": "oneRound"}, seed=11, deal=deal) as t:
        await play_to_showdown(t)
        assert "땡잡이!" in t.text("b")
        await t.pilot("b").pause(0.2)  # real time alone moves nothing
        await t.advance(table_module.FLASH_SECONDS - 0.1)
        assert "땡잡이!" in t.text("b")
        await t.advance(0.1)
        assert "땡잡이!" not in t.text("b").split("\n")[7]  # the flash line, not the result line
        assert t.screen("b").query_one(PotView).flash == ""


async def test_gusa_rematch_banner_and_payouts() -> None:
    deal = {"a": ["4띠", "9열"], "b": ["1띠", "2열"]}
    async with Table.open(["a", "b"], seed=11, deal=deal) as t:
        await play_to_showdown(t)
        text = t.text("b")
        assert "구사 재경기" in text
        seats = t.screen("b").shown_seats
        assert seats["a"].hand_name == "구사" and "알리" in t.text("b")
        for nick in ("a", "b"):
            await t.press(nick, "space")
        assert t.game.view(None).get("rematchNo") == 1
        assert "재경기 1회차 - 구사" in t.text("a") and "재경기 1회차 - 구사" in t.text("b")
        assert t.screen("a").query_one(PotView).amount == 20  # the pot stays; no new school


def status_row(t: Table, nick: str) -> str:
    """The countdown's row, left of the log."""
    gauge = t.screen(nick).query_one(StatusGauge)
    row = t.text(nick).splitlines()[gauge.region.y]
    return row.split("│")[0].rstrip()


async def test_countdown_gauge_follows_the_engine_deadline() -> None:
    """Everyone at the table sees the acting player's seconds, by the second (issue 32: the
    others saw a bar in 5 s steps without a number)."""
    async with Table.open(["a", "b", "c"], seed=5, spectators=["w"]) as t:
        actor = t.actor
        assert actor is not None
        others = [n for n in ("a", "b", "c", "w") if n != actor]
        assert all(f"{actor}님 차례" in t.text(n) for n in others)
        for step, seconds in ((0, 20), (7, 13), (1, 12), (8, 4)):
            await t.advance(step)
            assert f"{seconds}초" in status_row(t, actor), status_row(t, actor)
            for nick in others:
                assert status_row(t, nick).endswith(f" {seconds}초"), (nick, status_row(t, nick))
        await t.advance(4)  # the deadline: the engine checks for the actor
        assert t.seat(actor).get("lastAction") == {"type": "check", "amount": 0}


async def test_everyone_sees_the_countdown_in_english_and_with_long_names() -> None:
    """The seconds stay on the line when whose turn / who is choosing is long: the names are
    cut with "…" on purpose, never the number (3장's choice lists everyone choosing)."""
    names = ["가나다라마바사아", "다라마바사아자차", "자차카타파하가나", "타파하가나다라마"]
    options = Options(card_mode="three")
    for language, unit in (("ko", "초"), ("en", "s")):
        async with Table.open(
            names, seed=3, options=options, spectators=["w"], language=language
        ) as t:
            await t.press(names[0], "l")  # the log open: the narrowest table at 80 columns
            t.play_until(lambda g: g.view(None).get("handPhase") == "choose")
            await t.refresh()
            await t.advance(3)
            rows = {nick: status_row(t, nick) for nick in (*names, "w")}
            shown = {re.search(rf" (\d+){unit}$", row) for row in rows.values()}
            assert None not in shown, "\n".join(rows.values())  # the seconds end every line
            assert len({m.group(1) for m in shown if m}) == 1, rows  # the same on every screen
            assert any("…" in row for row in rows.values()), rows  # the names were cut


async def test_a_resize_or_restyle_keeps_the_countdown_where_it_was() -> None:
    """The redraw of a resize or a card-style change must not restart the turn's seconds."""
    async with Table.open(["a", "b"], seed=5, size=(100, 30)) as t:
        actor = t.actor
        await t.advance(7)
        assert "13초" in t.text(actor)
        await t.pilot(actor).resize_terminal(110, 32)
        await t.settle()
        assert "13초" in t.text(actor) and "20초" not in t.text(actor)
        await t.press(actor, "a")  # ASCII cards: another full redraw
        await t.advance(1)
        assert "12초" in t.text(actor)


async def test_spectators_see_the_table_without_private_cards_or_actions() -> None:
    deal = {"a": ["3광", "7열"], "b": ["9열", "9띠"]}
    async with Table.open(["a", "b"], seed=11, deal=deal, spectators=["구경"]) as t:
        screen = t.screen("구경")
        assert isinstance(screen, TableScreen)
        assert not screen.query_one(ActionBar).display
        text = t.text("구경")
        assert "관전 중이에요" in text and "3광" not in text and "9열" not in text
        assert set(screen.shown_seats) == {"a", "b"}  # both players, as boxes of card backs
        assert all(c is None for info in screen.shown_seats.values() for c in info.faces)
        await play_to_showdown(t)
        text = t.text("구경")
        assert "3광" in text and "9열" in text and "땡잡이!" in text  # revealed to everyone


async def test_ascii_and_big_text_modes_are_per_session() -> None:
    async with Table.open(["a", "b"], seed=5, deal={"a": ["3광"], "b": ["9열"]}) as t:
        await t.press("a", "a")
        views = t.screen("a").query(CardView)
        assert views and all(v.style_name == "ascii" for v in views)
        text = t.text("a")
        assert "+----------+" in text and "3G Gwang" in text and "╭" not in text.split("\n")[2]
        assert all(v.style_name == "box" for v in t.screen("b").query(CardView))
        await t.press("a", "a", "b")  # ASCII off, big text on
        assert all(v.style_name == "big" for v in t.screen("a").query(CardView))
        assert "███" in t.text("a") and t.app("a").card_style == "big"
        await t.press("a", "question_mark")  # the help's cards follow the mode too
        assert isinstance(t.app("a").screen, HelpScreen)
        assert all(v.style_name == "big" for v in t.app("a").screen.query(CardView))


async def test_table_too_small_shows_only_the_notice() -> None:
    async with Table.open(["a", "b"], seed=5, size=(79, 24)) as t:
        assert "창을 키워 주세요" in t.text("a") and "다이" not in t.text("a")
        await t.pilot("a").resize_terminal(80, 24)
        await t.settle()
        assert "창을 키워 주세요" not in t.text("a") and "1 다이" in t.text("a")


async def test_help_lists_the_jokbo_with_cards_and_highlights_the_own_hand() -> None:
    options = {"amhaeng": False, "dealMode": "oneRound"}
    async with Table.open(["a", "b"], options=options, seed=5, deal={"a": ["1광", "2띠"]}) as t:
        await t.press("a", "f1")
        help_screen = t.app("a").screen
        assert isinstance(help_screen, HelpScreen)
        text = t.text("a")
        assert "지금 내 패: 알리" in text and "38광땡" in text
        mine = [row for row in help_screen.query(".jokbo-row") if row.has_class("-mine")]
        assert len(mine) == 1 and "알리" in str(mine[0].query_one(".jokbo-name").render())
        names = [str(s.render()) for s in help_screen.query(".jokbo-name")]
        assert any("땡잡이" in n for n in names) and not any("암행어사" in n for n in names)
        assert len(help_screen.query(CardView)) == 2 * len(names)
        await t.press("a", "escape")
        assert isinstance(t.app("a").screen, TableScreen)


async def test_help_from_the_lobby_has_the_rules_and_the_virtual_chips_note() -> None:
    async with Table.open(["a", "b"], seed=5, start=False) as t:
        await t.press("a", "q")  # leave the waiting room for the lobby
        assert isinstance(t.app("a").screen, LobbyScreen)
        await t.press("a", "question_mark")
        screen = t.app("a").screen
        assert isinstance(screen, HelpScreen)
        rules = str(screen.query_one("#help-rules").render())
        for word in (
            "끗",
            "학교",
            "삥",
            "따당",
            "쿼터",
            "하프",
            "다이",
            "가상 칩",
            "땡잡이",
            "구사",
        ):
            assert word in rules
        assert "풀:" not in rules  # maxRaise=half by default
        assert "가상 칩" in t.text("a")


async def test_results_screen_and_back_to_the_lobby() -> None:
    async with Table.open(["a", "b"], seed=3, options={"handLimit": 10}) as t:
        for _ in range(300):
            if t.manager.room(t.room_id).status != "playing":
                break
            t.clock.advance(20)
        await t.settle()
        for nick in ("a", "b"):
            assert isinstance(t.app(nick).screen, ResultsScreen)
            text = t.text(nick)
            assert "게임 끝! 10판 종료" in text and "1위" in text and "리바이" in text
            assert "최고 족보" in text and "가장 큰 판돈" in text and "가상 칩" in text
            assert "₩" not in text and "원" not in text
        await t.press("a", "q")
        assert isinstance(t.app("a").screen, LobbyScreen)
        assert t.manager.room_of("a") is None
        await t.press("b", "enter")
        assert isinstance(t.app("b").screen, TableScreen)
        hand = t.screen("b").query_one(HandCards)  # the waiting room: places kept, hidden
        assert not hand.display and hand.cards == []


async def test_chat_on_the_table_is_plain_text_without_escapes() -> None:
    async with Table.open(["a", "b"], seed=5) as t:
        assert await t.say("b", "안녕[bold]x[/] \x1b]0;pwned\x07\x1b[31m빨강\u202e") is None
        text = t.text("a")
        assert "b: 안녕[bold]x[/] 빨강" in text  # markup shown as typed, escapes gone
        assert "\x1b" not in text and "pwned" not in text and "\u202e" not in text
        # typing in the chat input: t opens it, Enter sends, and the game keys come back
        assert not t.app("a").screen.query(ChatInput)  # mounted when chat first opens
        await t.press("a", "t")
        await t.pilot("a").press(*"gg", "space", "2")
        await t.press("a", "enter")
        assert "a: gg 2" in t.text("b")
        assert t.seat(t.actor).get("lastAction") is None  # "2" went to the chat
        # the rate limit: a fourth line within three seconds is refused, in Korean
        for word in ("하나", "둘", "셋"):
            await t.say("b", word)
        assert await t.say("b", "넷") is not None
        await t.press("b", "t")
        await t.pilot("b").press(*"abc")
        await t.press("b", "enter")
        assert "채팅이 너무 빨라요" in t.text("b")
        await t.press("b", "t")  # the refused line comes back to be sent later
        assert t.app("b").screen.query_one(ChatInput).value == "abc"


async def test_rejoin_prompt_shows_its_cost_and_countdown() -> None:
    deal = {"a": ["4띠", "9열"], "b": ["1띠", "2열"], "c": ["5띠", "6띠"]}
    async with Table.open(
        ["a", "b", "c"], options={"rejoinCost": "half", "dealMode": "oneRound"}, seed=11, deal=deal
    ) as t:
        while t.actor is not None:
            await t.press(t.actor, "1" if t.actor == "c" else "2")  # c dies, a and b check
        assert "구사 재경기" in t.text("c")
        for nick in ("a", "b", "c"):
            await t.press(nick, "space")
        assert t.game.view(None).get("handPhase") == "rejoin"
        rejoin = t.view("c").get("rejoin")
        assert rejoin is not None
        cost = rejoin["cost"]
        text = t.text("c")
        assert f"y 재참가 (+{cost})" in text and "n 안 함" in text
        assert "구사 재경기에 다시 참가할까요?" in text and "15초" in text
        await t.advance(5)
        assert "10초" in t.text("c")
        await t.press("c", "y")
        assert t.game.view(None).get("rematchNo") == 1 and t.seat("c")["inHand"]


async def test_rebuy_prompt_shows_its_countdown() -> None:
    async with busted_at_rebuy() as t:
        text = t.text("b")
        assert "y 칩 다시 받기" in text and "칩을 다시 받을까요? y/n" in text and "20초" in text
        assert "[파산]" in text


def count_displays(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """Frames each app sends from now on (by ``id(app)``), counted at ``App._display``."""
    displays: dict[int, int] = {}
    original = SeotdaApp._display

    def display(self: SeotdaApp, screen: Any, renderable: Any) -> None:
        displays[id(self)] = displays.get(id(self), 0) + 1
        original(self, screen, renderable)

    monkeypatch.setattr(SeotdaApp, "_display", display)
    return displays


async def test_a_betting_push_is_painted_within_its_own_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bet changes no layout, so every seat's frame goes out while the push is handled
    (``BaseScreen.paint_now``), not several event-loop turns later."""
    displays = count_displays(monkeypatch)
    painted: list[tuple[set[str], bool]] = []
    original_on_pushed = TableScreen.on_pushed

    def on_pushed(self: TableScreen, message: Any) -> None:
        before = displays.get(id(self.app), 0)
        original_on_pushed(self, message)
        kinds = {e["type"] for e in message.payload.events}
        painted.append((kinds, displays.get(id(self.app), 0) > before))

    monkeypatch.setattr(TableScreen, "on_pushed", on_pushed)
    async with Table.open(["a", "b", "c"], seed=5) as t:
        painted.clear()
        for key in ("3", "4"):  # 삥, then a call
            await t.press(t.actor, key)
        bets = [done for kinds, done in painted if kinds == {"bet"}]
        assert len(bets) == 6  # two bets, three seats each
        assert all(bets)
        assert "삥" in t.text("c")


async def test_a_countdown_tick_paints_the_gauge_row_without_walking_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The acting seat's countdown moves every second on every table: the tick sends that
    frame itself, and looks at the gauge only, not at every widget of the screen."""
    displays = count_displays(monkeypatch)
    walks: list[str] = []
    original_walk = TableScreen.walk_children

    def walk_children(self: TableScreen, *args: Any, **kwargs: Any) -> Any:
        walks.append(self.nickname)
        return original_walk(self, *args, **kwargs)

    painted: list[tuple[bool, int]] = []  # (the tick sent a frame, walks during it)
    original_tick = TableScreen.tick

    def tick(self: TableScreen) -> None:
        before, walked = displays.get(id(self.app), 0), len(walks)
        original_tick(self)
        painted.append((displays.get(id(self.app), 0) > before, len(walks) - walked))

    monkeypatch.setattr(TableScreen, "walk_children", walk_children)
    monkeypatch.setattr(TableScreen, "tick", tick)
    async with Table.open(["a", "b", "c"], seed=5) as t:
        actor = t.actor
        assert actor is not None
        before = t.text(actor)
        painted.clear()
        await t.advance(1)
        assert t.text(actor) != before  # one second less on the acting seat's gauge
        assert (True, 0) in painted  # its tick painted it, with no walk
        assert all(walked == 0 for _, walked in painted)


async def test_a_number_key_bets_without_a_trip_back_to_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The screen runs ``num(n)`` itself; other keys still find their bindings via the app."""
    checked: list[str] = []
    original = SeotdaApp._check_bindings

    async def check_bindings(self: SeotdaApp, key: str, priority: bool = False) -> bool:
        if not priority:
            checked.append(key)
        return await original(self, key, priority)

    monkeypatch.setattr(SeotdaApp, "_check_bindings", check_bindings)
    async with Table.open(["a", "b"], seed=5) as t:
        actor = t.actor
        assert actor is not None
        await t.press(actor, "3")  # 삥
        bet = [e for e in t.manager.log(t.room_id) if e["type"] == "bet"][-1]
        assert (bet["player"], bet["action"]) == (actor, "ping")
        assert "3" not in checked
        await t.press(actor, "question_mark")
        assert "question_mark" in checked
        assert isinstance(t.app(actor).screen, HelpScreen)
