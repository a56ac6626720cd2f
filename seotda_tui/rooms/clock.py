"""The rooms' name for the shared clock (:mod:`seotda_tui.clock`), kept so ``.clock`` imports stay put."""

from ..clock import Cancellable, Clock, FakeClock, LoopClock

__all__ = ["Cancellable", "Clock", "FakeClock", "LoopClock"]
