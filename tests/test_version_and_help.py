"""``seotda-server --version`` and ``--help`` (issue 33 item 4): the version has one home
(``seotda_tui.__version__``, read by pyproject and named by the changelog's newest release), and
the help speaks the operator's language: English, Korean when the locale is Korean."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from seotda_tui import __version__, cli
from seotda_tui.cli.args import build_parser
from seotda_tui.i18n import ENGLISH, KOREAN, terminal_language

ROOT = Path(__file__).resolve().parent.parent
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")


def test_version_prints_the_one_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"], environ={})
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"seotda-server {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_the_package_and_the_changelog_take_the_version_from_one_place() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]  # no second copy to forget
    assert "version" in project["project"]["dynamic"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "seotda_tui.__version__"
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases[0] == __version__  # the newest entry is this version
    assert releases == sorted(releases, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


@pytest.mark.parametrize(
    ("env", "language"),
    [
        ({}, ENGLISH),
        ({"LANG": "C.UTF-8"}, ENGLISH),
        ({"LANG": "en_GB.UTF-8"}, ENGLISH),
        ({"LANG": "ko_KR.UTF-8"}, KOREAN),
        ({"LANG": "ko_KR.UTF-8", "LC_ALL": "C"}, ENGLISH),  # LC_ALL first
        ({"LANG": "C", "LC_MESSAGES": "ko_KR.UTF-8"}, KOREAN),  # then LC_MESSAGES
        ({"LANG": "ko_KR.UTF-8", "LC_ALL": ""}, KOREAN),  # an empty one does not count
    ],
)
def test_the_help_language_follows_the_locale(env: dict[str, str], language: str) -> None:
    assert terminal_language(env) == language


def test_help_is_english_by_default_and_every_line_of_it_is() -> None:
    text = build_parser({"LANG": "C.UTF-8"}).format_help()
    assert not HANGUL.findall(text), [line for line in text.splitlines() if HANGUL.search(line)]
    assert "address to listen on" in text and "environment variable SEOTDA_HOST" in text
    assert "show the version and exit" in text and "CHANGELOG.md" in text
    assert "(default 2222)" in text


def test_help_is_korean_when_the_locale_is() -> None:
    text = build_parser({"LANG": "ko_KR.UTF-8"}).format_help()
    assert "들을 주소" in text and "환경 변수 SEOTDA_HOST" in text and "(기본 2222)" in text
    assert "버전을 보여 주고 끝내요" in text
    assert "address to listen on" not in text


def test_the_installed_command_answers_version_and_help() -> None:
    """The real program (python -m seotda_tui), as an operator's shell runs it."""
    base = [sys.executable, "-m", "seotda_tui"]
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    version = subprocess.run([*base, "--version"], env=env, capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip() == f"seotda-server {__version__}"
    helped = subprocess.run([*base, "--help"], env=env, capture_output=True, text=True)
    assert helped.returncode == 0 and "address to listen on" in helped.stdout
    korean = subprocess.run(
        [*base, "--help"], env={**env, "LANG": "ko_KR.UTF-8"}, capture_output=True, text=True
    )
    assert korean.returncode == 0 and "들을 주소" in korean.stdout
