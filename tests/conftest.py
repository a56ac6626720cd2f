"""Every test runs with the Textual tuning the server would use (``seotda_tui/tuning/``):
all of it, or only its guards when ``SEOTDA_STOCK_TEXTUAL=1`` (the Makefile's stock-Textual run).

Passphrases are hashed at :data:`TEST_SCRYPT_COST` (a keyless login hashes one; the real cost is
tens of ms of CPU each), except in tests marked ``real_scrypt`` (tests/test_identity.py), which
keep the server's own cost and check the stored hash names it."""

import pytest

from seotda_tui import tuning

tuning.install()

#: scrypt's (n, r, p) for the tests' passphrases: the same code path, a trivial cost.
TEST_SCRYPT_COST = (2**4, 1, 1)


@pytest.fixture(autouse=True)
def _test_scrypt_cost(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_scrypt") is None:
        monkeypatch.setattr("seotda_tui.ssh.passphrase.COST", TEST_SCRYPT_COST)


#: Files with the longest tests (subprocess servers, whole games over many screens), longest
#: single test first: with one test per dispatch (the Makefile's --maxschedchunk 1) each free
#: worker takes the next, so none is left alone with a long one at the end. Only an order: a
#: file missing here just starts in its turn.
SLOW_FIRST = (
    "test_install.py",  # one test: builds, installs and plays (~20 s)
    "test_fit_80x24.py",
    "test_engine_legality.py",
    "test_i18n.py",
    "test_colour_isolation.py",
    "test_workers.py",
    "test_resume_e2e.py",
    "test_fuzz_input.py",
    "test_i18n_snapshots.py",
    "test_memory.py",
    "test_workers_restart.py",
    "test_room_lock.py",
    "test_workers_leftovers.py",
    "test_shutdown.py",
    "test_game_random.py",
)
_RANK = {name: n for n, name in enumerate(SLOW_FIRST)}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _RANK.get(item.path.name, len(SLOW_FIRST)))  # stable in a file
