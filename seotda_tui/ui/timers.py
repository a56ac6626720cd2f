"""A screen's timers on the injected clock: what a screen shows that depends on the game's time.

Why not Textual's ``set_interval`` / ``set_timer``: those run on the event loop's own time, so a
test on a :class:`~seotda_tui.clock.FakeClock` had to tick its screens by hand, and a flash went
away after real seconds whatever the fake clock said. These run on the session's clock
(``app.clock``, the rooms' own: the one a deadline is a moment on), and call back on the
screen's own task (posted, as Textual's ``call_later`` does: a clock's callback may run on
another session's task, or inside a test's ``FakeClock.advance``). In production the clock is
the loop's, so they fire when Textual's timers did.

Textual's own timers stay Textual's: the screen refresh, the cursor blink, animations, and the
driver's escape and resize debounces (``ui/driver.py``) are about drawing and input, not the
game's time.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump

from ..clock import Cancellable, Clock


class ScreenTimer:
    """Calls ``callback`` on ``target``'s task ``seconds`` after it starts on ``clock`` (and every
    ``seconds`` after that if ``repeat``), until :meth:`stop` or ``target`` closes.

    A repeating timer counts from its start, not from each call (no drift), skips the times it
    missed (a busy loop, or a fake clock moved many seconds at once) and never has more than one
    call waiting on ``target``'s queue: the callback reads the clock's time, not how often it ran.
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
        self._waiting = False  # a call is posted and has not run yet
        self._handle: Cancellable | None = clock.call_later(seconds, self._due)

    def stop(self) -> None:
        """No more calls (one already posted is dropped too). The screen and the callback are
        let go: a screen's timers are stopped as it unmounts, so a closed screen is freed by
        reference counting alone (no cycle through its timers; tests/test_memory.py)."""
        self._target = self._callback = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _due(self) -> None:
        self._handle = None
        if self._repeat:
            now = self._clock.time()
            while self._next <= now:
                self._next += self._seconds
            self._handle = self._clock.call_later(self._next - now, self._due)
        if not self._waiting and self._target is not None:
            self._waiting = self._target.call_later(self._run)
            if not self._waiting:  # the screen closed: nothing more to show
                self.stop()

    def _run(self) -> None:
        self._waiting = False
        callback = self._callback
        if not self._repeat:
            self.stop()
        if callback is not None:
            callback()


def every(
    clock: Clock, target: MessagePump, seconds: float, callback: Callable[[], object]
) -> ScreenTimer:
    """``callback`` on ``target``'s task every ``seconds`` of ``clock`` (a countdown's tick)."""
    return ScreenTimer(clock, target, seconds, callback, repeat=True)


def after(
    clock: Clock, target: MessagePump, seconds: float, callback: Callable[[], object]
) -> ScreenTimer:
    """``callback`` on ``target``'s task once, ``seconds`` of ``clock`` from now (a flash)."""
    return ScreenTimer(clock, target, seconds, callback)
