"""A screen's timers on the injected clock: what a screen shows that depends on the game's time.

Why not Textual's ``set_interval`` / ``set_timer``: those run on the event loop's own time, so a
test on a :class:`~seotda_tui.clock.FakeClock` had to tick its screens by hand, and a flash went
away after real seconds whatever the fake clock said. These run on the session's clock
(``app.clock``, the rooms' own: the one a deadline is a moment on). In production that is the
loop's, so they fire when Textual's did, and as Textual's did their callback runs outside the
screen's task but in the context the timer was started from (its app, its language): a clock
runs each callback in the context it was scheduled from (asyncio's handles do; so does the fake
clock), and a screen starts its timers from its own handlers.

Textual's own timers stay Textual's: the screen refresh, the cursor blink, animations, and the
driver's escape and resize debounces (``ui/driver.py``) are about drawing and input, not the
game's time.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump

from ..clock import Cancellable, Clock


class ScreenTimer:
    """Calls ``callback`` ``seconds`` after it starts on ``clock`` (and every ``seconds`` after
    that if ``repeat``), until :meth:`stop` or ``target`` (the screen) stops running.

    A repeating timer counts from its start, not from each call (no drift), and skips the times
    it missed (a busy loop): the callback reads the clock's time, not how often it ran.
    """

    def __init__(
        self,
        clock: Clock,
        target: MessagePump,
        seconds: float,
        callback: Callable[[], object],
        *,
        repeat: bool = False,
    ) -> None:
        self._clock = clock
        self._target: MessagePump | None = target
        self._callback: Callable[[], object] | None = callback
        self._seconds, self._repeat = seconds, repeat
        self._next = clock.time() + seconds
        self._handle: Cancellable | None = clock.call_later(seconds, self._due)

    def stop(self) -> None:
        """No more calls. The screen and the callback are let go: a screen's timers are stopped
        as it unmounts, so a closed screen is freed by reference counting alone (no cycle
        through its timers; tests/test_memory.py)."""
        self._target = self._callback = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _due(self) -> None:
        self._handle = None
        callback = self._callback
        if callback is None or self._target is None or not self._target.is_running:
            self.stop()  # (the screen closed without stopping it: nothing more to show)
            return
        if self._repeat:
            now = self._clock.time()
            while self._next <= now:
                self._next += self._seconds
            self._handle = self._clock.call_later(self._next - now, self._due)
        else:
            self.stop()
        callback()


def every(
    clock: Clock, target: MessagePump, seconds: float, callback: Callable[[], object]
) -> ScreenTimer:
    """``callback`` every ``seconds`` of ``clock`` while ``target`` runs (a countdown's tick)."""
    return ScreenTimer(clock, target, seconds, callback, repeat=True)


def after(
    clock: Clock, target: MessagePump, seconds: float, callback: Callable[[], object]
) -> ScreenTimer:
    """``callback`` once, ``seconds`` of ``clock`` from now, if ``target`` still runs (a flash)."""
    return ScreenTimer(clock, target, seconds, callback)
