"""The one exception an illegal or malformed action raises; its message is shown to the player."""


class IllegalAction(ValueError):
    """Raised before any state changes, so the game is exactly as it was."""
