"""The table presenter without Textual: real room updates in, the TableModel's fields checked.

Five players and a spectator at a real RoomManager (fake clock, seeded deal); every session's
update goes through :func:`present` at 80×24, 100×30 and 200×60, in 2장 and 3장, in Korean and
English. Nothing here starts an app: the presenter must answer alone.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from engine import Options
from engine.cards import DECK, card_id
from engine.hands import evaluate
from engine.types import CardDict, ShownHand
from seotda_tui.i18n import Language, speaking
from seotda_tui.rooms import RoomManager, RoomUpdate
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.rooms.events import RoomEvent
from seotda_tui.ui.jokbo import jokbo_side_parts
from seotda_tui.ui.present.log import log_lines, logged
from seotda_tui.ui.present.shape import SHAPES, table_layout
from seotda_tui.ui.present.table import SessionUpdate, TableModel, present
from seotda_tui.ui.present.text import cut_text
from seotda_tui.ui.widgets.texts import chips

PLAYERS = ["영희", "철수", "민수", "지영", "동수"]
WATCHER = "구경꾼"
SIZES = [(80, 24), (100, 30), (200, 60)]
MODES = ["two", "three"]


@contextmanager
def room(mode: str, start: bool = True) -> Iterator[tuple[RoomManager, str, dict[str, RoomUpdate]]]:
    """A five-player room (and one watcher) whose sessions' latest updates are in the dict."""
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: 3)
    summary = manager.create_room(PLAYERS[0], "테스트 방", Options(card_mode=mode))
    for nick in PLAYERS[1:]:
        manager.join(summary.id, nick)
    manager.watch(summary.id, WATCHER)
    latest: dict[str, RoomUpdate] = {}

    def keep(nick: str) -> Callable[[RoomUpdate], None]:
        return lambda update: latest.__setitem__(nick, update)

    for nick in [*PLAYERS, WATCHER]:
        manager.subscribe_room(summary.id, nick, keep(nick))
    if start:
        manager.start(summary.id, PLAYERS[0])
    yield manager, summary.id, latest


def model(
    update: RoomUpdate,
    nick: str,
    size: tuple[int, int] = (80, 24),
    language: Language | None = None,
    style: str = "box",
) -> TableModel:
    return present(SessionUpdate(update, nick), 1000.0, size, style, language, [])


def text(parts: tuple[tuple[str, str], ...]) -> str:
    return "".join(t for t, _style in parts)


def test_no_widget_or_screen_is_imported_to_present() -> None:
    """The presenter runs on its own: a fresh interpreter imports it without any widget (bar the
    pure widgets/texts.py), screen or Textual's app (fit.py's wrap helper aside)."""
    code = (
        "import sys, seotda_tui.ui.present.table, seotda_tui.ui.present.replay\n"
        "print(sorted(m for m in sys.modules if m.startswith(('seotda_tui.ui.widgets.',"
        " 'seotda_tui.ui.screens', 'textual.app', 'textual.widget'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['seotda_tui.ui.widgets.texts']"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
def test_who_sees_which_cards_and_keys(mode: str, size: tuple[int, int]) -> None:
    cards = 3 if mode == "three" else 2
    with room(mode) as (manager, room_id, latest):
        actor = latest[WATCHER].view["actor"]
        for nick in PLAYERS:
            m = model(latest[nick], nick, size)
            seat = next(s for s in latest[nick].view["seats"] if s["id"] == nick)
            # a player sees the others around the table and the own cards below, in their places
            order = [s["id"] for s in latest[nick].view["seats"]]
            i = order.index(nick)  # the next seats clockwise first, as at a real table
            assert [s.name for s in m.seats] == order[i + 1 :] + order[:i]
            assert m.hand.cards == tuple(c["id"] for c in seat["cards"] if "hidden" not in c)
            assert m.hand.cards and m.hand.places == cards
            assert all(not any(f is not None for f in s.faces) for s in m.seats)  # backs only
            assert text(m.me_line).startswith(nick)
            assert m.action_bar
            mine = nick == actor
            assert ("내 차례예요!" in text(m.status)) is mine
            assert bool(m.actions) is mine, nick
            assert text(m.status) == ("내 차례예요! 1~8 키" if mine else f"{actor}님 차례")
        watcher = model(latest[WATCHER], WATCHER, size)
        engine_order = [s["id"] for s in latest[WATCHER].view["seats"]]
        assert [s.name for s in watcher.seats] == engine_order  # everyone
        assert sorted(engine_order) == sorted(PLAYERS)
        assert watcher.hand.cards == () and watcher.hand.places == 0
        assert text(watcher.me_line) == "관전 중이에요"
        assert not watcher.action_bar and not watcher.actions and not watcher.legal
        assert ("leave", "q 나가기", True) in watcher.prompts


@pytest.mark.parametrize("mode", MODES)
def test_the_shape_follows_the_terminal(mode: str) -> None:
    with room(mode) as (_manager, _room_id, latest):
        player, watcher = latest[PLAYERS[0]], latest[WATCHER]
        small = model(player, PLAYERS[0], (80, 24)).layout
        # 80×24: boxes and large cards, but no rows left for the pot's big digits; no log
        assert small.shape == ("box", "large", False)
        assert not small.log_visible and not small.jokbo_side
        assert small.table_width == 78 and small.box_columns == 78 // 31 + (mode == "two")
        # a spectator has no own cards: the rows go to the big pot
        assert model(watcher, WATCHER, (80, 24)).layout.shape == ("box", "large", True)
        medium = model(player, PLAYERS[0], (100, 30)).layout
        assert medium.shape == ("box", "large", True) and not medium.log_visible
        big = model(player, PLAYERS[0], (200, 60)).layout
        assert big.shape == ("box", "large", True)
        assert big.log_visible and big.jokbo_side and big.log_width == 78
        assert big.table_width == 200 - 2 - 78
        # the log toggled on at 80 columns narrows the table and the texts beside the cards
        toggled = present(
            SessionUpdate(player, PLAYERS[0], log_shown=True), 1000.0, (80, 24), "box", None, []
        )
        assert toggled.layout.log_visible and toggled.layout.table_width == 80 - 2 - 26
        assert toggled.layout.mine_width < small.mine_width


def test_one_shape_list_has_the_compact_big_pot() -> None:
    """The live table's compact cards with the big pot (the replay's old list lacked it)."""
    assert ("box", "compact", True) in SHAPES and ("line", "compact", True) in SHAPES
    layout = table_layout(
        size=(80, 30), style="box", fixed=7, others=2, cards=3, own_cards=True, log_visible=True
    )
    # 52 cells cannot hold three large cards and a name beside them: compact, but rows spare
    assert layout.shape == ("box", "compact", True)
    assert layout.mine_rows == 2 and layout.mine_width == 52 - 3 * 7 - 1


def test_the_pot_and_the_rounds_bet() -> None:
    with room("two") as (manager, room_id, latest):
        actor = latest[WATCHER].view["actor"]
        legal = latest[actor].view["legalActions"]
        before = model(latest[WATCHER], WATCHER)
        assert before.pot.amount == latest[WATCHER].view["pot"] == 50
        raise_ = next(a for a in legal if a["type"] not in ("die", "check"))
        manager.act(room_id, actor, {"type": raise_["type"]})
        view = latest[WATCHER].view
        assert view is not None and view["currentBet"]
        after = model(latest[WATCHER], WATCHER)
        assert after.pot.amount == view["pot"] > 50
        assert after.pot.note == f"이번 라운드 {chips(view['currentBet'])}"
        assert after.pot.sides == () and after.pot.flash is None  # the flash is the screen's timer
        seat = next(s for s in after.seats if s.name == actor)
        assert seat.bet == view["currentBet"] and seat.action


def test_english() -> None:
    english = Language("en")
    with room("three") as (_manager, _room_id, latest):
        watcher = model(latest[WATCHER], WATCHER, (100, 30), english)
        assert text(watcher.me_line) == "You are watching"
        assert "Hand 1" in text(watcher.title) and "ante" in text(watcher.title)
        assert watcher.spectators == f"Watching: {WATCHER}"
        assert "turn" in text(watcher.status).lower()
        korean = model(latest[WATCHER], WATCHER, (100, 30))
        assert korean.layout == watcher.layout and korean.seats == watcher.seats
        assert text(korean.title) != text(watcher.title)
        with speaking(english):  # the session's language when none is passed
            assert model(latest[WATCHER], WATCHER, (100, 30)).title == watcher.title


def test_the_waiting_room() -> None:
    with room("two", start=False) as (_manager, _room_id, latest):
        host = model(latest[PLAYERS[0]], PLAYERS[0], (100, 30))
        assert host.layout.shape == ("line", "compact", False) and host.layout.log_visible
        assert [s.name for s in host.seats] == PLAYERS and host.seats[0].badges == ("방장",)
        assert text(host.mine).startswith("■ 이 방의 규칙 (i 자세히)")
        assert host.hand.cards == () and not host.action_bar and host.pot.amount is None
        assert ("start", "s 시작", True) in host.prompts
        guest = model(latest[PLAYERS[1]], PLAYERS[1], (100, 30))
        assert not any(p[0] == "start" for p in guest.prompts)
        assert text(guest.status) and text(guest.status) != text(host.status)
        watcher = model(latest[WATCHER], WATCHER, (100, 30))
        assert watcher.prompts[0][0] == "join"


def test_what_the_session_adds_to_its_update() -> None:
    """present(update, now, size, style, language, selection): the session's own part of the
    table (here the 기리 line and the first-hands tip) is in its input, and the private
    room's code comes with the update, not from the session."""
    with room("three") as (_manager, _room_id, latest):
        me = PLAYERS[0]
        update = latest[me]
        view = update.view
        assert view is not None
        plain = model(update, me)
        cut = cut_text(view)
        own = SessionUpdate(update, me, cut=cut, first_hands=True)
        seen = present(own, 1000.0, (100, 30), "box", None, [])
        assert cut and seen.banner[0] == (cut, "dim") and plain.banner[:1] != ((cut, "dim"),)
        assert "처음이세요?" in text(seen.mine) and "처음이세요?" not in text(plain.mine)
        assert seen.layout == model(update, me, (100, 30)).layout  # the same arrangement
        private = RoomManager(clock=FakeClock(1000.0))
        code_room = private.create_room("하나", "비밀 방", Options(), private=True)
        inside: list[RoomUpdate] = []
        private.subscribe_room(code_room.id, "하나", inside.append)
        code = inside[-1].code
        assert code and text(model(inside[-1], "하나").title).startswith(f"방 코드 {code}")


def shown(player: str, a: int, b: int, options: Options) -> ShownHand:
    rank = evaluate(DECK[a], DECK[b], options)
    cards: list[CardDict] = [
        {"id": i, "month": DECK[i].month, "kind": DECK[i].kind} for i in (a, b)
    ]
    return {
        "player": player,
        "cards": cards,
        "name": rank.name,
        "value": rank.value,
        "special": rank.special,
    }


def test_the_hand_log_names_a_showdown_as_the_seats_do() -> None:
    """One helper writes the hand log for the live table and the replay (present/log.py): a
    땡잡이 that met 장땡 lost, so the log names it by its plain value, from the payout that
    follows it in the same batch; the same showdown alone keeps the engine's names."""
    options = Options()
    catcher = shown("영희", card_id(3, True), card_id(7, True), options)  # 3광·7열끗
    jang = shown("철수", card_id(10, True), card_id(10, False), options)
    assert catcher["special"] == "ttaengjabi" and jang["name"] == "장땡"
    showdown: RoomEvent = {"type": "showdown", "hands": [catcher, jang]}
    payout: RoomEvent = {
        "type": "payout",
        "player": "철수",
        "amount": 100,
        "reason": "high",
        "main": True,
        "net": 50,
    }
    lines = log_lines(logged([showdown, payout]), options)
    assert lines[0].endswith("= 망통 (땡잡이 불발)") and lines[1].endswith("= 장땡")
    alone = log_lines(logged([showdown]), options)  # no results: the engine's names
    assert alone[0].endswith("= 땡잡이")
    entries = logged([showdown, payout])  # kept, and written again in another language
    with speaking(Language("en")):
        english = log_lines(entries, options)
    assert len(english) == len(lines) and english != lines
    assert "(땡잡이 불발)" not in english[0]


def test_the_jokbo_beside_the_table_is_the_helps_and_marks_the_own_hand() -> None:
    """The presenter decides the 족보 list too (it was the screen's own call): on a big terminal
    only, from the help's rows (ui/jokbo.py, one source), the own hand's row marked."""
    with room("three") as (_manager, _room_id, latest):  # (two cards dealt: a hand to mark)
        me = PLAYERS[0]
        view = latest[me].view
        assert view is not None and (hand := view.get("myHand"))
        big = model(latest[me], me, (200, 60))
        assert big.layout.jokbo_side and big.jokbo == tuple(
            jokbo_side_parts(latest[me].room.options, hand["name"])
        )
        marked = [t for t, style in big.jokbo if style == "bold reverse"]
        assert len(marked) == 1 and marked[0].startswith("\n▶")
        assert model(latest[me], me, (80, 24)).jokbo == ()  # no room for it
        watcher = model(latest[WATCHER], WATCHER, (200, 60))
        assert watcher.jokbo and not any(s == "bold reverse" for _t, s in watcher.jokbo)


def test_the_banner_is_shortened_to_its_rows_not_covered() -> None:
    """Found at 80×24 (issue 36's deals): a side pot's and the main pot's winners with long
    names and amounts took two rows where the layout had one, the second covered by the own
    cards. The banner now keeps its rows: whole when it fits, then each win short, then "…"."""
    from engine.types import View
    from seotda_tui.ui.present.fit import text_rows
    from seotda_tui.ui.present.table import fit_banner

    side, main = "나다라마바사아자", "다라마바사아자차"
    view: View = {  # type: ignore[typeddict-item]  # (only what the banner reads)
        "phase": "playing",
        "handPhase": "handEnd",
        "results": [
            {"type": "win", "winners": [side], "amount": 39_600_000, "reason": ""},
            {"type": "win", "winners": [main], "amount": 899_991, "reason": ""},
        ],
    }
    whole = "".join(t for t, _ in fit_banner("", view, 160, 1))
    assert f"{side} 승리 +39,600,000칩" in whole and f"{main} 승리 +899,991칩" in whole
    assert "".join(t for t, _ in fit_banner("기리: 가님이 패를 떼고", view, 160, 1)).startswith(
        "기리"
    )
    for width, rows in ((78, 1), (52, 2), (52, 1), (30, 1)):
        parts = list(fit_banner("기리: 가님이 패를 떼고 선 나님이 나눠요", view, width, rows))
        assert text_rows(parts, width) <= rows, (width, rows, parts)
    short = "".join(t for t, _ in fit_banner("", view, 78, 1))
    assert f"{side} 승 +39,600,000" in short and f"{main} 승 +899,991" in short, short
    clipped = "".join(t for t, _ in fit_banner("", view, 30, 1))
    assert clipped.endswith("…") and clipped.startswith(side), clipped
