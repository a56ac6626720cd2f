"""Time for everything that waits, injectable so deadlines can be tested without waiting.

A shared leaf: the room manager (game deadlines), the chat (its rate limit), the SSH side (the
handshake and login graces, each session's idle timer, the limits) and the screens (their
countdowns and timed lines, ``ui/timers.py``) take the same :class:`Clock`; a moment that crosses
the room API is a time on it (``rooms/api.py``). The engine has no clock: it only says how many
seconds it will wait (``game.pending()``); the manager turns that into a timer. In production that is the running event
loop (:class:`LoopClock`); tests drive a :class:`FakeClock` by hand with :meth:`FakeClock.advance`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import itertools
from collections.abc import AsyncIterator, Callable
from typing import Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """What a deadline needs from time: a monotonic ``time()`` and one-shot timers."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Cancellable: ...


class LoopClock:
    """The running asyncio loop's clock (``loop.time`` / ``loop.call_later``).

    The loop is looked up on each call, so users can be built before the loop runs.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop

    def _get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop or asyncio.get_running_loop()

    def time(self) -> float:
        return self._get_loop().time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Cancellable:
        return self._get_loop().call_later(max(0.0, delay), callback)


LOOP_CLOCK = LoopClock()
"""The running loop's clock, shared as the default of whatever takes a :class:`Clock`."""


class _FakeHandle:
    __slots__ = ("callback", "cancelled", "context", "when")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False
        #: Where it was scheduled: it runs there, as an asyncio loop's callback does (a screen's
        #: timer in its app's context, whichever task moves the clock).
        self.context = contextvars.copy_context()

    def cancel(self) -> None:
        """Let the callback and its context go at once (they may hold a closed screen)."""
        self.cancelled = True
        self.callback = _cancelled
        self.context = contextvars.Context()


def _cancelled() -> None:
    """What a cancelled fake timer holds instead of its callback."""


class FakeClock:
    """A manual clock: timers fire only inside :meth:`advance`, in time order, each in the
    context it was scheduled from (as :class:`LoopClock`'s do)."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self._heap: list[tuple[float, int, _FakeHandle]] = []
        self._seq = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> _FakeHandle:
        handle = _FakeHandle(self.now + max(0.0, delay), callback)
        heapq.heappush(self._heap, (handle.when, next(self._seq), handle))
        return handle

    @property
    def pending(self) -> list[float]:
        """Due times of the live timers, soonest first (for assertions)."""
        return sorted(h.when for _, _, h in self._heap if not h.cancelled)

    def advance(self, seconds: float) -> None:
        """Move time forward, firing every timer that falls due (timers set meanwhile included)."""
        target = self.now + seconds
        while self._heap and self._heap[0][0] <= target:
            when, _, handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            self.now = max(self.now, when)
            handle.context.run(handle.callback)
        self.now = target


@contextlib.asynccontextmanager
async def every(
    seconds: float, step: Callable[[], object], name: str, *, first: bool = False
) -> AsyncIterator[None]:
    """Run ``step`` every ``seconds`` (``first``: also right away) while the block runs; the
    loop ends with the block (the journal's pruning, a process's memory sample)."""

    async def loop() -> None:
        if first:
            step()
        while True:
            await asyncio.sleep(seconds)
            step()

    task = asyncio.create_task(loop(), name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
