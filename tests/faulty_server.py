"""``python -m tests.faulty_server FLAG ARGS...``: the real server, whose journal writes fail as on
a full disk ("database or disk is full") while the file ``FLAG`` exists, adding a line "refused" to
it for each refused write (so a test can wait for the retries). For subprocess tests that kill the
server mid-fault (``tests/test_resume_e2e.py``)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from seotda_tui.cli import main
from seotda_tui.rooms import journal


def inject(flag: Path) -> None:
    write = journal.Journal._write

    def failing(self: journal.Journal, *statements: tuple[str, tuple[Any, ...]]) -> int:
        if flag.exists():
            with flag.open("a", encoding="utf-8") as tally:
                tally.write("refused\n")
            raise sqlite3.OperationalError("database or disk is full")
        return write(self, *statements)

    journal.Journal._write = failing  # type: ignore[method-assign]


if __name__ == "__main__":
    inject(Path(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
