"""The layers hold: each import-linter contract in pyproject.toml, checked by `lint-imports`.

The contracts (README "Architecture"): engine imports nothing of ours; rooms imports engine, not
ui or ssh; ui imports rooms and engine, not ssh; ssh imports none of ui's screens; cluster
(``--workers N``) imports rooms and ssh, never ui, and only cli imports it; only cli wires
every layer (inside it, the roles over housekeeping, over the admin commands, over parsing and
the data files); screens never import each other or the app; no import circles anywhere.
Each contract runs on its own, in a subprocess (lint-imports configures logging process-wide).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]["contracts"]
#: Contracts another branch makes hold: remove the mark when its fix is merged (strict, so an
#: unexpected pass fails and says so). Empty since the engine's circle was broken.
PENDING: dict[str, str] = {}
LINT = (
    "import sys; from importlinter.cli import lint_imports; "
    "sys.exit(lint_imports(limit_to_contracts=(sys.argv[1],), cache_dir=sys.argv[2], no_logo=True))"
)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One import graph for every contract (import-linter caches it by the files' mtimes)."""
    return tmp_path_factory.mktemp("import_linter_cache")


def test_every_layer_has_contracts() -> None:
    """The contracts this test runs are the ones the README names (none dropped by accident)."""
    ids = {contract["id"] for contract in CONTRACTS}
    assert {
        "engine-alone",
        "rooms-below-ui-and-ssh",
        "ui-not-ssh",
        "ssh-not-screens",
        "only-cli-wires",
        "cli-layers",
        "cluster-below-ui",
        "screens-apart",
        "app-owns-navigation",
        "present-pure",
        "seotda-tui-acyclic",
        "engine-acyclic",
    } <= ids


@pytest.mark.parametrize(
    "contract",
    [
        pytest.param(
            c["id"],
            marks=[pytest.mark.xfail(reason=PENDING[c["id"]], strict=True)]
            if c["id"] in PENDING
            else [],
        )
        for c in CONTRACTS
    ],
)
def test_contract_is_kept(contract: str, cache_dir: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", LINT, contract, str(cache_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr


#: Third-party packages whose internals only ``seotda_tui/tuning/`` may use (the developer
#: guide: behind a version and a feature check). import-linter cannot say it: it forbids an
#: external package only whole (``textual``, not ``textual._xterm_parser``).
GUARDED = ("textual", "rich", "asyncssh")


def _private_imports(path: Path) -> list[str]:
    """The ``textual._x``/``rich._x``/``asyncssh._x`` modules or names ``path`` imports."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            package, *rest = name.split(".")
            if package in GUARDED and any(part.startswith("_") for part in rest):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    return found


def test_third_party_internals_are_imported_only_in_tuning() -> None:
    package = ROOT / "seotda_tui"
    found = [
        hit
        for path in sorted(package.rglob("*.py"))
        if package / "tuning" not in path.parents
        for hit in _private_imports(path)
    ]
    assert not found, "\n".join(found)
    assert _private_imports(package / "tuning" / "xterm_parser.py")  # (the check sees them)
