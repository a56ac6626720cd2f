"""English text defects from the play-test (issue 32 item 15) and the school cap in help's rules
(item 12), read off the screens as players see them (pilot, 80×24 and 120×40).

* counts take the plural form they need (``i18n.ngettext``): "up to 1 rebuy", "1 hand played";
* 갑오's note reads as English; hand names that wrap in help go on under themselves, and the
  side list beside a wide table shows them whole;
* the results have no Rebuy column in a room without rebuys;
* the lobby's rules cell keeps "·Full" at 80 columns;
* help's rules say where the 학교 stops rising (starting chips ÷ 5), in both languages.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine import Options
from engine.types import BiggestPot, GameStats
from seotda_tui import i18n
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.records_db import RecentGame
from seotda_tui.testing import Table, screen_text
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.records import recent_label
from seotda_tui.ui.screens.results import stats_text
from seotda_tui.ui.widgets.texts import game_summary

SIZES = [(80, 24), (120, 40)]
EN = i18n.ENGLISH


def english() -> i18n.Language:
    return i18n.Language(EN)


# ---------------------------------------------------------------------- plurals
def test_counts_of_one_are_singular_in_english() -> None:
    with i18n.speaking(english()):
        summary = game_summary({"summary": "1판 종료. 1위 a(1,020칩)"})
        assert summary == "1 hand played. Winner a (1,020 chips)"
        assert game_summary({"summary": "3판 종료. 최후의 1인 b(2,000칩)"}).startswith(
            "3 hands played. Last one standing b"
        )
        no_pot: BiggestPot = {"handNo": 0, "amount": 0, "winners": []}
        stats: GameStats = {
            "handsPlayed": 1,
            "rematches": 1,
            "bestHand": None,
            "biggestPot": no_pot,
        }
        assert stats_text(stats).plain == "1 hand played · 1 rematch"
        stats = {"handsPlayed": 12, "rematches": 0, "bestHand": None, "biggestPot": no_pot}
        assert stats_text(stats).plain == "12 hands played · 0 rematches"
        game = SimpleNamespace(place=1, seats=2, net=20, hands_played=1)
        assert recent_label(game).endswith("+20 chips 1 hand")  # type: ignore[arg-type]
        assert RecentGame  # (the type recent_label takes)
    with i18n.speaking(i18n.Language(i18n.KOREAN)):  # Korean: one form, as before
        assert stats_text(stats).plain == "친 판 12판 · 재경기 0번"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("limit", [1, 2])
async def test_waiting_room_says_up_to_1_rebuy(size: tuple[int, int], limit: int) -> None:
    options = Options(rebuy="limited", rebuy_limit=limit)
    async with Table.open(["a", "b"], options=options, start=False, size=size, language=EN) as t:
        for nick in ("a", "b"):  # the host and a seated player
            text = t.text(nick)
            if limit == 1:
                assert "up to 1 rebuy " in text or "up to 1 rebuy\n" in text, text
                assert "1 rebuys" not in text
            else:
                assert "up to 2 rebuys" in text, text


# ---------------------------------------------------------------------- help's hand names
async def open_help(t: Table, nick: str, *keys: str) -> str:
    await t.press(nick, "question_mark", *keys)
    return t.text(nick)


@pytest.mark.parametrize("size", SIZES)
async def test_help_hand_names_wrap_under_themselves_and_gabo_reads(size: tuple[int, int]) -> None:
    async with Table.open(["a", "b"], start=False, size=size, language=EN) as t:
        pages = [await open_help(t, "a")]
        for _page in range(6):
            await t.press("a", "pagedown")
            pages.append(t.text("a"))
        text = "\n".join(pages)
        assert "the last digit of the two months' sum is 9" in text
        assert "..9" not in text
        lines = [line for line in text.splitlines() if "■" not in line]  # (not the headings)
        for piece in ("Gwang-ttaeng", "(9 kkeut)", "(0 kkeut)", "(pairs)", "2-ttaeng"):
            found = [line for line in lines if piece in line[:16]]  # in the name column
            assert found, piece
            for line in found:  # under the name column (after the ▶ mark's), never at 0
                assert line.index(piece) == len(line) - len(line.lstrip()) >= 2, line
        gabo = next(n for n, line in enumerate(lines) if line.lstrip().startswith("Gabo"))
        assert lines[gabo + 1].lstrip().startswith("(9 kkeut)")  # broken before the gloss


async def test_side_list_beside_a_wide_table_shows_whole_names() -> None:
    deal = {"a": ["4띠", "5띠"], "b": ["1광", "2열"]}
    options = Options(deal_mode="oneRound")  # both cards at once: the own hand is marked
    async with Table.open(["a", "b"], options=options, size=(120, 40), language=EN, deal=deal) as t:
        text = t.text("a")
        for name, cards in (("38 Gwang-ttaeng", "3Br 8Br"), ("9-ttaeng ~ 2-ttaeng", "9An 9Rb")):
            line = next(line for line in text.splitlines() if name in line)
            assert f"{name} " in line and line.index(cards) > line.index(name) + len(name)
        assert "▶ Gabo" in text


# ---------------------------------------------------------------------- results
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("rebuy", ["off", "unlimited"])
async def test_results_have_a_rebuy_column_only_with_rebuys(
    size: tuple[int, int], rebuy: str
) -> None:
    options = Options(rebuy=rebuy, end_condition="hands", hand_limit=10)
    for language, header in ((EN, "Rebuy"), (i18n.KOREAN, "리바이")):
        async with Table.open(
            ["a", "b"], options=options, size=size, language=language, spectators=["s"]
        ) as t:
            t.play_until(lambda game: game.finished)
            await t.settle()
            for nick in ("a", "b", "s"):  # players and a spectator
                text = t.text(nick)
                assert "#1 " in text or "1위" in text, text  # the results show
                assert (header in text) == (rebuy != "off"), text


# ---------------------------------------------------------------------- lobby
async def test_lobby_rules_cell_keeps_full_at_80_columns() -> None:
    manager = RoomManager(clock=FakeClock(1000.0))
    manager.create_room("alice", "alice's room", Options(max_raise="full"))
    session = SimpleNamespace(language=english())
    app = make_app_factory(manager)(SimpleNamespace(nickname="bob"), session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines() if "alice's room" in line)
        assert row.rstrip().endswith("·Full"), row
        assert "2 cards·" in row and "ante 10·20 hands·Full" in row


# ---------------------------------------------------------------------- item 12: school cap
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("language", "rule", "steps"),
    [
        (i18n.KOREAN, "시작 칩의 1/5(100칩)에서 멈춰요", "20 → 40 → 80 → 100"),
        (EN, "stops at a fifth of the starting chips", "20 → 40 → 80 → 100"),
    ],
)
async def test_help_rules_say_where_the_school_stops(
    size: tuple[int, int], language: str, rule: str, steps: str
) -> None:
    options = Options(starting_chips=500, base_unit=20, school_up_every=5)
    assert options.school_steps() == [20, 40, 80, 100]  # the engine's own rule
    async with Table.open(
        ["a", "b"], options=options, start=False, size=size, language=language
    ) as t:
        title = t.text("a")
        assert ("(최대 100)" in title) if language == i18n.KOREAN else ("(up to 100)" in title)
        await t.press("b", "i")  # help's 규칙 tab, as the table's i opens it
        seen = ""
        for _page in range(6):
            seen += t.text("b")
            await t.press("b", "pagedown")
        flat = " ".join(seen.split())
        assert rule in flat and steps in flat, seen
