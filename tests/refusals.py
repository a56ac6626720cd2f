"""``with refused("barred"): ...``: a room operation is refused for that reason (its
``RoomError.code``, not its Korean text: the text is the catalogue's, the code is the behaviour)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from seotda_tui.rooms import RoomError, RoomErrorCode


@contextmanager
def refused(code: RoomErrorCode) -> Iterator[pytest.ExceptionInfo[RoomError]]:
    with pytest.raises(RoomError) as info:
        yield info
    assert info.value.code == code, f"refused as {info.value.code!r} ({info.value}), not {code!r}"
