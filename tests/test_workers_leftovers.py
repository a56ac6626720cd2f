"""What ``--workers N`` leaves in the temporary folder when its parent is killed -9: the next
start removes a dead server's folder and ``hub.sock``, and never a live server's.

Real servers as subprocesses (tests/workerkit.py), each with its own short ``TMPDIR`` (a unix
socket's path has a length limit, which pytest's tmp_path can pass).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from seotda_tui.cluster.supervisor import remove_stale_workdirs

from .ssh_harness import attempt
from .workerkit import cluster, kill_9


@pytest.fixture
def tmpdir_short() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="sl", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def workdirs(tmp: Path) -> set[Path]:
    return set(tmp.glob("seotda-cluster-*"))


def old_style_socket(tmp: Path, name: str, *, listening: bool) -> tuple[Path, socket.socket]:
    """A folder as an older version named it (no pid), with a socket file made a while ago:
    a listener, or one whose owner is gone (the file stays, connections are refused)."""
    folder = tmp / name
    folder.mkdir()
    path = folder / "hub.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    if listening:
        server.listen()
    else:
        server.close()
    past = time.time() - 600
    os.utime(path, (past, past))
    return folder, server


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def aged(path: Path) -> Path:
    past = time.time() - 600
    os.utime(path, (past, past))
    return path


def test_only_folders_whose_owner_is_gone_and_socket_refuses_are_removed(
    tmpdir_short: Path,
) -> None:
    tmp, gone, alive = tmpdir_short, dead_pid(), os.getppid()
    listening: list[socket.socket] = []

    def made(name: str, sock: str | None = None, *, age: bool = True) -> Path:
        folder = tmp / name
        folder.mkdir()
        if sock is not None:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(str(folder / "hub.sock"))
            if sock == "listening":
                server.listen()
                listening.append(server)
            else:
                server.close()
            if age:
                aged(folder / "hub.sock")
        return aged(folder) if age else folder

    try:
        stale = {
            made(f"seotda-cluster-{gone}-a", "refusing"),
            made(f"seotda-cluster-{gone}-b"),  # its hub removed the socket a while ago
            made("seotda-cluster-old", "refusing"),
        }
        kept = {
            made(f"seotda-cluster-{gone}-c", "listening"),  # its hub outlived the parent
            made(f"seotda-cluster-{gone}-d", age=False),  # a hub being restarted right now
            made(f"seotda-cluster-{alive}-e", "refusing"),  # a live parent's
            made("seotda-cluster-new", "refusing", age=False),  # bound, not yet listening
            made("seotda-cluster-old2", "listening"),
        }
        other = made(f"seotda-cluster-{gone}-f")
        (other / "notes.txt").write_text("not a parent's")  # never removed with the folder
        (tmp / "seotda-cluster-link").symlink_to(tmp / f"seotda-cluster-{gone}-a")
        assert set(remove_stale_workdirs(tmp)) == stale
        assert not any(folder.exists() for folder in stale)
        assert all(folder.exists() for folder in kept) and (other / "notes.txt").exists()
    finally:
        for server in listening:
            server.close()


async def test_the_next_start_removes_what_a_parent_killed_9_left_and_no_live_servers(
    tmp_path: Path, tmpdir_short: Path
) -> None:
    env = {"TMPDIR": str(tmpdir_short)}
    busy_old, busy = old_style_socket(tmpdir_short, "seotda-cluster-old2", listening=True)
    try:
        async with cluster(tmp_path, 2, tag="live", environ=env) as live:
            (live_dir,) = workdirs(tmpdir_short) - {busy_old}
            # a server killed -9 whole (the parent and every child): nothing could tidy up
            async with cluster(tmp_path, 2, tag="dead", environ=env) as dead:
                (dead_dir,) = workdirs(tmpdir_short) - {busy_old, live_dir}
                children = dead.children()
                for pid in [dead.proc.pid, *children["hub"], *children["worker"]]:
                    kill_9(pid)
                await dead.proc.wait()
            assert (dead_dir / "hub.sock").exists()  # what the issue found
            stale_old, _ = old_style_socket(tmpdir_short, "seotda-cluster-old1", listening=False)
            async with cluster(tmp_path, 2, tag="next", environ=env) as following:
                assert not dead_dir.exists()
                assert not stale_old.exists()
                assert (live_dir / "hub.sock").exists() and (busy_old / "hub.sock").exists()
                assert following.text().count("event=stale_workdir_removed") == 2
                # and the live server still serves
                tried = await attempt(live.shared, "영희")
                try:
                    assert tried.conn is not None, tried.error
                finally:
                    await tried.close()
    finally:
        busy.close()


async def test_a_parents_children_remove_its_folder_when_it_is_killed_9(
    tmp_path: Path, tmpdir_short: Path
) -> None:
    """The rooms process, stopping by itself once its parent is gone, removes its socket and
    the parent's folder: nothing is left for the next start to clean."""
    async with cluster(tmp_path, 2, environ={"TMPDIR": str(tmpdir_short)}) as c:
        (folder,) = workdirs(tmpdir_short)
        children = c.children()
        kill_9(c.proc.pid)
        await c.proc.wait()
        loop = asyncio.get_running_loop()
        until = loop.time() + 20
        pids = children["hub"] + children["worker"]
        while any(Path(f"/proc/{pid}").exists() for pid in pids) and loop.time() < until:
            await asyncio.sleep(0.1)
        assert not folder.exists()
