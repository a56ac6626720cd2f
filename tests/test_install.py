"""The package as a self-hoster installs it: built from the tracked files alone, installed in a
fresh venv outside the checkout, its ``seotda-server`` plays a hand over SSH in Korean and English.

``pip install .`` of a clean clone (what ``pipx install`` and ``uv tool install`` do) once gave a
server that stopped at start: the ``.mo`` catalogues were made only by ``make i18n``, never by the
build. setup.py now compiles them into every build (Babel is a build requirement). The copy holds
only what git tracks (or would), so the checkout's own (git-ignored) ``.mo`` cannot leak in.
``python -m build`` makes the sdist and then the wheel from that sdist, so the sdist is checked
to carry what a build needs too. One test, ~20 s: most of it is building and installing, with packages from pip's cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from .ssh_harness import DEFAULT_TIMEOUT, SSHClient, connect, wait_until
from .test_i18n_ssh import ENGLISH_LOBBY, KOREAN_LOBBY
from .test_resume_e2e import ROOT, server

MO = "seotda_tui/locale/en/LC_MESSAGES/seotda.mo"
WEB_FILES = [
    f"seotda_tui/web/static/{name}"
    for name in ("index.html", "app.js", "app.css", "vendor/xterm.js", "vendor/xterm.css")
    + ("vendor/addon-fit.js", "vendor/LICENSE-xterm", "vendor/LICENSE-addon-fit")
]
PO = "seotda_tui/locale/en/LC_MESSAGES/seotda.po"
#: What each language's player sees at the steps of a hand (the texts from the catalogue).
TEXTS = {
    "ko": {"turn": "내 차례예요", "ping": "3 삥", "hand_over": "판이 끝났어요", "wins": " 승리 +",
           "next": "2판/20판"},
    "en": {"turn": "Your turn!", "ping": "3 Ping", "hand_over": "Hand over", "wins": " wins +",
           "next": "Hand 2/20"},
}  # fmt: skip


def _run(*argv: str | Path, cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _tracked_copy(target: Path) -> Path:
    """The files git would have in the next commit, as they are in the work tree, copied to
    ``target``: the tracked ones and new ones not ignored (a module a change adds before it is
    committed), never an ignored one (the checkout's ``.mo``, ``.venv``, data)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no tracked files to build from")
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():  # (a tracked file deleted in the work tree is left out)
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _built(tmp: Path) -> Path:
    """sdist, then the wheel from it; both checked for the catalogues. The wheel's path."""
    source = _tracked_copy(tmp / "src")
    assert not list(source.rglob("*.mo")), "a .mo is tracked in git: it must come from the build"
    dist = tmp / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, source, cwd=tmp)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
    assert PO in names and "setup.py" in names and MO not in names, names
    with zipfile.ZipFile(wheel) as archive:
        assert MO in archive.namelist()
        # the browser's page and the vendored xterm.js with its licence (--web-port)
        assert set(WEB_FILES) <= set(archive.namelist()), archive.namelist()
    return wheel


async def _play_a_hand(clients: dict[str, SSHClient]) -> None:
    """``host`` (Korean) opens a room, ``guest`` (English) sits, the host starts; the first to
    act pings, the other calls; in the second round the first dies: the other wins the pot.
    Every step is read off each player's screen in that player's language."""
    host, guest = clients["ko"], clients["en"]
    await host.press("n")
    await host.wait_for("새 방 만들기")
    await host.press("enter")
    await host.wait_for("대기 중")
    await guest.wait_for("영희의 방")
    await guest.wait_for("waiting")
    await guest.press("enter")
    await host.wait_for("alice님이 앉았어요")
    await host.press("s")
    for language, client in clients.items():
        await client.wait_for(TEXTS[language]["ping"])
    turns = lambda: [lang for lang, c in clients.items() if TEXTS[lang]["turn"] in c.text]  # noqa: E731
    await wait_until(lambda: turns(), DEFAULT_TIMEOUT, "the first turn")
    (first,) = turns()
    second = "en" if first == "ko" else "ko"
    await clients[first].press("3")  # 삥 / Ping
    await clients[second].wait_for(TEXTS[second]["turn"])
    await clients[second].press("4")  # 콜 / Call: the first round is over
    await clients[first].wait_for(TEXTS[first]["turn"])
    await clients[first].press("1")  # 다이 / Die: the hand ends, the other wins
    winner = {"ko": "영희", "en": "alice"}[second]
    for language, client in clients.items():
        await client.wait_for(TEXTS[language]["hand_over"])
        await client.wait_for(winner + TEXTS[language]["wins"])
        await client.press(" ")
    for language, client in clients.items():
        await client.wait_for(TEXTS[language]["next"])


async def test_a_wheel_from_the_tracked_files_installs_and_plays_in_both_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _built(tmp_path)
    venv = tmp_path / "venv"  # outside the checkout; pip runs from the tests' venv (faster)
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel, cwd=tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    where = subprocess.run(
        [python, "-c", "import seotda_tui; print(seotda_tui.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, env=dict(os.environ), check=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout

    program = [str(venv / "bin" / "seotda-server")]
    async with server(tmp_path, "installed", program=program, cwd=tmp_path) as running:
        async with AsyncExitStack() as stack:
            clients = {
                "ko": await stack.enter_async_context(
                    connect(running.port, "영희", env={"LANG": "ko_KR.UTF-8"})
                ),
                "en": await stack.enter_async_context(
                    connect(running.port, "alice", env={"LANG": "en_US.UTF-8"})
                ),
            }
            await clients["ko"].wait_for("영희" + KOREAN_LOBBY)
            await clients["en"].wait_for(ENGLISH_LOBBY + "alice")
            await _play_a_hand(clients)
