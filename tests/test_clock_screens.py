"""One clock (issue 34): a screen's timing follows the session's clock, which is the rooms' own.

Moving a fake clock moves every countdown, ends a flash or a lobby message, and nothing else
does: no test ticks a screen by hand (``ui/timers.py``), and real time alone changes nothing.
"""

from __future__ import annotations

import contextvars
import weakref
from types import SimpleNamespace

from engine import Options
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.testing import Table, screen_text
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.screens.lobby import MESSAGE_SECONDS, PICK_FIRST
from seotda_tui.ui.widgets.gauge import StatusGauge


def countdowns(t: Table) -> dict[str, int | None]:
    return {nick: t.screen(nick).query_one(StatusGauge).seconds for nick in t.apps}


async def test_the_countdown_counts_to_the_updates_deadline_on_the_rooms_clock() -> None:
    async with Table.open(["a", "b", "c"], options=Options(turn_seconds=20), seed=5) as t:
        update = t.screen("a").latest
        assert update.deadline_at == t.clock.time() + 20  # a moment on the rooms' clock
        assert set(countdowns(t).values()) == {20}  # every table shows the actor's time
        await t.pilot("a").pause(1.1)  # real time passes: nothing moves
        assert set(countdowns(t).values()) == {20}
        t.clock.advance(3)  # the clock alone, no harness step: every screen's tick follows
        await t.settle()
        assert set(countdowns(t).values()) == {17}
        assert "17" in t.text(t.actor)
        await t.advance(0.5)  # within the second: still 17 (whole seconds, rounded up)
        assert set(countdowns(t).values()) == {17}


async def test_a_lobby_message_goes_after_its_seconds_on_the_clock() -> None:
    clock = FakeClock(1000.0)
    manager = RoomManager(clock=clock, seed_source=lambda: 1)
    app = make_app_factory(manager)(SimpleNamespace(nickname="영희"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # no room to join: the lobby says to pick one first
        await pilot.pause()
        assert PICK_FIRST in screen_text(app)
        clock.advance(MESSAGE_SECONDS - 0.1)
        await pilot.pause()
        assert PICK_FIRST in screen_text(app)
        clock.advance(0.1)
        await pilot.pause()
        assert PICK_FIRST not in screen_text(app)


def test_a_fake_timer_runs_where_it_was_scheduled_and_a_cancelled_one_lets_go() -> None:
    """As the loop's handles do: a screen's timer runs in its app's context (its language)
    whichever task moves the clock, and a cancelled one keeps no closed screen alive."""
    clock = FakeClock()
    where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="test")
    seen: list[str] = []

    def schedule() -> None:
        where.set("screen")
        clock.call_later(1, lambda: seen.append(where.get()))

    contextvars.copy_context().run(schedule)
    holder = Holder()
    ref = weakref.ref(holder)
    clock.call_later(1, holder.method).cancel()
    del holder
    assert ref() is None  # freed by reference counting, though its due time has not come
    clock.advance(1)
    assert seen == ["screen"] and where.get() == "test"


class Holder:
    def method(self) -> None: ...
