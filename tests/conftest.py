"""Every test runs with the Textual tuning the server would use (``seotda_tui/tuning/``):
all of it, or only its guards when ``SEOTDA_STOCK_TEXTUAL=1`` (the Makefile's second run)."""

from seotda_tui import tuning

tuning.install()
