"""docs/rules.md is the rules document the code cites (issue 33 item 2).

Every section number written after a section sign in the engine, the UI, the tests, the
top-level Markdown files and docs/ must name a numbered heading of docs/rules.md, and every
heading of docs/rules.md must be one this test can read (``## 5. …``, ``### 5.4 …``,
``#### 5.1.8 …``), so a reference cannot point at a section that is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SIGN = "\u00a7"  # the section sign, spelled so this file cites nothing by accident
#: Where references are looked for: these folders (recursively) and the top-level Markdown.
SCANNED_DIRS = ("engine", "seotda_tui", "tests", "docs")
SUFFIXES = frozenset({".py", ".md", ".po", ".pot", ".tcss", ".toml", ".cfg"})

NUMBER = r"\d+(?:\.\d+)*"
#: A reference or a range of them: "§5.4", "§5.1.8", "§5.6–5.7", "§4–§8".
REFERENCE = re.compile(rf"{SIGN}\s*({NUMBER})(?:\s*[–-]\s*{SIGN}?\s*({NUMBER}))?")
#: "RFC 4253 §7" is that RFC's section, not ours.
FOREIGN = re.compile(r"RFC\s*\d+\s*$")
HEADING = re.compile(rf"^(#{{2,4}}) ({NUMBER})\.? \S")


def sections(text: str) -> tuple[list[str], list[str]]:
    """The section numbers of a rules document, and its problems: a heading that is not
    ``#``s + number + title, a number whose depth does not match its level, a number twice,
    or a subsection without its parent."""
    numbers: list[str] = []
    problems: list[str] = []
    fenced = False
    titles = 0
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        if line.startswith("# "):
            titles += 1
            if titles > 1 or numbers:
                problems.append(f"line {n}: a second title: {line!r}")
            continue
        match = HEADING.match(line)
        if match is None:
            problems.append(f"line {n}: a heading without a section number: {line!r}")
            continue
        level, number = len(match[1]), match[2]
        parts = number.split(".")
        if len(parts) != level - 1:
            problems.append(f"line {n}: {number} under {'#' * level} (depth {len(parts)})")
        if number in numbers:
            problems.append(f"line {n}: section {number} again")
        if len(parts) > 1 and ".".join(parts[:-1]) not in numbers:
            problems.append(f"line {n}: section {number} before its parent")
        numbers.append(number)
    return numbers, problems


def references(text: str) -> list[str]:
    """The section numbers ``text`` cites (both ends of a range)."""
    found: list[str] = []
    for match in REFERENCE.finditer(text):
        if FOREIGN.search(text[: match.start()][-20:]):
            continue
        found += [number for number in match.groups() if number]
    return found


def scanned_files() -> list[Path]:
    files = sorted(ROOT.glob("*.md"))
    for folder in SCANNED_DIRS:
        files += sorted(
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in SUFFIXES and p.is_file() and "__pycache__" not in p.parts
        )
    return files


def dangling(known: set[str]) -> list[str]:
    """Every ``path:line: §number`` in the scanned files that names no section in ``known``."""
    missing = []
    for path in scanned_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for number in references(line):
                if number not in known:
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {SIGN}{number}")
    return missing


def test_rules_doc_headings_all_parse():
    numbers, problems = sections(RULES.read_text(encoding="utf-8"))
    assert not problems, "docs/rules.md:\n" + "\n".join(problems)
    # the topics the engine is built from are all there
    for number in ("2", "3", "5.1.8", "5.4", "5.5", "6.1", "6.2", "6.3", "6.6", "8.5", "12"):
        assert number in numbers


def test_every_section_reference_points_to_a_section():
    numbers, _ = sections(RULES.read_text(encoding="utf-8"))
    missing = dangling(set(numbers))
    assert not missing, "no such section in docs/rules.md:\n" + "\n".join(missing)
    # the scan really reads the code: the engine cites the doc by number many times
    cited = [n for p in scanned_files() for n in references(p.read_text(encoding="utf-8"))]
    assert len(cited) > 100 and {"5.4", "6.3", "8.5"} <= set(cited)


def test_a_reference_to_a_missing_section_is_found():
    text = f"see {SIGN}5.4 and {SIGN} 6.1–6.2, {SIGN}4–{SIGN}8, {SIGN}5.1.8. RFC 4253 {SIGN}7"
    assert references(text) == ["5.4", "6.1", "6.2", "4", "8", "5.1.8"]
    numbers, _ = sections(RULES.read_text(encoding="utf-8"))
    assert "99.1" not in numbers
    assert [n for n in references(f"({SIGN}99.1)") if n not in numbers] == ["99.1"]
    # a range's far end counts too
    assert [n for n in references(f"{SIGN}5.4–5.99") if n not in numbers] == ["5.99"]


def test_a_heading_the_test_cannot_read_is_a_problem():
    good = "# Title\n\n## 1. 개요\n\n### 1.1 용어\n\n#### 1.1.1 학교\n"
    assert sections(good) == (["1", "1.1", "1.1.1"], [])
    for bad in (
        "# T\n## 개요\n",  # no number
        "# T\n## 1. A\n## 1. B\n",  # twice
        "# T\n## 1. A\n#### 1.2 B\n",  # depth does not match the level
        "# T\n## 1. A\n### 2.1 B\n",  # no parent
        "# T\n## 1. A\n# Another title\n",
    ):
        assert sections(bad)[1], bad
    # a fenced block is not a heading
    assert sections("# T\n```\n# comment\n```\n## 1. A\n") == (["1"], [])


def test_nothing_points_to_the_original_spec_outside_the_repository():
    old = "shared" + "/spec"
    assert [str(p.relative_to(ROOT)) for p in scanned_files() if old in p.read_text("utf-8")] == []
    assert "docs/rules.md" in (ROOT / "README.md").read_text(encoding="utf-8")
