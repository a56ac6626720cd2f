"""``python -m seotda_tui``: the server's command line (:mod:`seotda_tui.cli`)."""

from __future__ import annotations

from .cli import run

if __name__ == "__main__":
    run()
