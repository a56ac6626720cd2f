"""Two sizes for one check: ``make test`` runs each at the size that still catches its fault,
``make soak`` (``SEOTDA_SOAK=1``) at the long size. A test asks ``sized(fast, soak)``."""

import os

SOAK = os.environ.get("SEOTDA_SOAK") == "1"


def sized(fast: int, soak: int) -> int:
    """The count for this run: ``soak`` under ``make soak``, else ``fast``."""
    return soak if SOAK else fast
