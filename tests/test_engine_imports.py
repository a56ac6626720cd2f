"""engine/ has no import circle (type-checking and function-level imports count too) and imports
nothing but the standard library and itself. Run as a script to list the circles it finds."""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def engine_imports(root: Path = ENGINE) -> dict[str, set[str]]:
    """Module name → every module it imports, anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for path in sorted(root.glob("*.py")):
        name = path.stem
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    targets.add(node.module or "")
                elif node.module:  # from .x import y
                    targets.add(f"engine.{node.module}")
                else:  # from . import x, y
                    targets.update(f"engine.{alias.name}" for alias in node.names)
        graph[name] = targets
    return graph


def _local(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    return {
        m: {t.removeprefix("engine.") for t in ts if t.startswith("engine.") and t != "engine"}
        for m, ts in graph.items()
    }


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of two or more, or a self-import (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_circles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}, "b": set()}) == [["a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_engine_has_no_import_circle() -> None:
    graph = _local(engine_imports())
    assert {"game", "views", "types"} <= graph.keys()
    assert "views" in graph["game"]  # the old circle's one direction is still there
    assert cycles(graph) == []


def test_engine_imports_only_the_standard_library() -> None:
    outside = {
        (module, target)
        for module, targets in engine_imports().items()
        for target in targets
        if target.split(".")[0] not in ("engine", "__future__", *sys.stdlib_module_names)
    }
    assert outside == set()


if __name__ == "__main__":
    print(cycles(_local(engine_imports())) or "no import circle in engine/")
