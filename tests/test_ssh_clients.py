"""Stock SSH clients (OpenSSH ``ssh``, PuTTY's ``plink``, dropbear's ``dbclient``) on a real
PTY against the real server: to the lobby and through one betting action, by key and by
passphrase (set on first use, then given again).

A client that is not installed makes its tests SKIP with the package to install; they never
pass without it. ``.ci/run`` installs putty-tools and dropbear-bin when it runs as root.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import (
    PtyClient,
    SSHHarness,
    key_pair,
    public_view,
    ssh_server,
    start_game,
    wait_until,
)

SIZE = (100, 30)
PASSPHRASE = "stock-client-pass-1"
#: The ASCII part of each keyboard-interactive prompt: dbclient drops every non-ASCII byte.
NEW_PROMPT = "(new passphrase): "
AGAIN_PROMPT = "again): "
GIVE_PROMPT = "(passphrase): "
PLINK_ANTISPOOF = "Press Return to begin session"


@dataclass(frozen=True)
class Client:
    """How to run one client program: its argv for a key login and for a keyless one."""

    name: str
    package: str
    key_argv: Callable[[Path, int, str, str], list[str]]  # (key dir, port, fingerprint, user)
    keyless_argv: Callable[[int, str, str], list[str]]  # (port, fingerprint, user)
    prepare_key: Callable[[Path], None]  # writes this client's key file(s) into the dir


def _openssh_key(d: Path) -> None:
    path = d / "id_ed25519"
    path.write_bytes(key_pair().export_private_key("openssh"))
    path.chmod(0o600)


def _ppk(d: Path) -> None:
    _openssh_key(d)
    subprocess.run(
        ["puttygen", str(d / "id_ed25519"), "-O", "private", "-o", str(d / "id.ppk")],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip


def _dropbear_key(d: Path) -> None:
    subprocess.run(
        ["dropbearkey", "-t", "ed25519", "-f", str(d / "id_dropbear")],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip


_SSH_OPTS = [
    "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
    "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes",
]  # fmt: skip

CLIENTS = [
    Client(
        "ssh",
        "openssh-client",
        lambda d, port, fp, user: [  # -C asks for compression: the server offers none
            "ssh",
            *_SSH_OPTS,
            "-C",
            "-i",
            str(d / "id_ed25519"),
            "-p",
            str(port),
            f"{user}@127.0.0.1",
        ],  # fmt: skip
        lambda port, fp, user: [
            "ssh",
            *_SSH_OPTS,
            "-o",
            "PubkeyAuthentication=no",
            "-p",
            str(port),
            f"{user}@127.0.0.1",
        ],  # fmt: skip
        _openssh_key,
    ),
    Client(
        "plink",
        "putty-tools",
        lambda d, port, fp, user: [
            "plink",
            "-ssh",
            "-noagent",
            "-hostkey",
            fp,
            "-P",
            str(port),
            "-i",
            str(d / "id.ppk"),
            f"{user}@127.0.0.1",
        ],  # fmt: skip
        lambda port, fp, user: [
            "plink",
            "-ssh",
            "-noagent",
            "-hostkey",
            fp,
            "-P",
            str(port),
            f"{user}@127.0.0.1",
        ],
        _ppk,
    ),
    Client(
        "dbclient",
        "dropbear-bin",
        lambda d, port, fp, user: [
            "dbclient",
            "-y",
            "-y",
            "-i",
            str(d / "id_dropbear"),
            "-p",
            str(port),
            f"{user}@127.0.0.1",
        ],  # fmt: skip
        lambda port, fp, user: ["dbclient", "-y", "-y", "-p", str(port), f"{user}@127.0.0.1"],
        _dropbear_key,
    ),
]


def _installed(client: Client) -> Client:
    if shutil.which(client.name) is None:
        pytest.skip(f"{client.name} not installed: apt install {client.package}")
    if shutil.which("setsid") is None:
        pytest.skip("setsid not installed: apt install util-linux")
    return client


@pytest.fixture(params=CLIENTS, ids=[c.name for c in CLIENTS])
def client(request: pytest.FixtureRequest) -> Client:
    return _installed(request.param)


def _env(home: Path) -> dict[str, str]:
    """A clean environment: no agent, an empty home (PuTTY/OpenSSH/dropbear keep state there)."""
    home.mkdir(exist_ok=True)
    return {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }


@asynccontextmanager
async def table(tmp_path: Path) -> AsyncIterator[tuple[SSHHarness, RoomManager]]:
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30)
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        yield server, manager


async def pass_antispoof(real: PtyClient, client: Client) -> None:
    """plink on a terminal asks for Return after *every* login, whatever the server does
    (PuTTY 0.78 ssh/connection2.c: its fallback anti-spoofing prompt, shown whenever stdin
    is a terminal and neither -batch nor -no-antispoof is given). Press it once."""
    if client.name == "plink":
        await real.answer(PLINK_ANTISPOOF, "")


async def play_one_action(
    server: SSHHarness, manager: RoomManager, real: PtyClient, nick: str
) -> None:
    """``nick`` (the stock client) opens a room, a harness player joins, the game starts and
    ``nick`` makes one betting action with its keys, which the engine records."""
    await real.wait_for(f"{nick}님 환영해요")
    async with server.connect("guest", size=SIZE) as guest:
        await guest.wait_for("guest님 환영해요")
        await start_game(real, nick, guest)
        view = lambda: public_view(manager, nick)  # noqa: E731
        if view().get("actor") == "guest":
            await guest.wait_for("내 차례예요")
            await guest.press("3")  # 삥
            await wait_until(lambda: view().get("actor") == nick, what=f"{nick}'s turn")
            key, kind = "4", "call"  # 콜
        else:
            key, kind = "3", "ping"  # 삥
        await real.wait_for("내 차례예요")
        await real.press(key)
        seat = lambda: next(s for s in view()["seats"] if s["id"] == nick)  # noqa: E731
        await wait_until(lambda: seat().get("lastAction") is not None, what=f"{nick}'s bet")
        assert seat().get("lastAction", {})["type"] == kind  # type: ignore[index]


async def test_key_login_reaches_the_lobby_and_bets(tmp_path: Path, client: Client) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    client.prepare_key(keys)
    async with table(tmp_path) as (server, manager):
        assert server.handle is not None
        nick = f"{client.name}key"
        argv = client.key_argv(keys, server.port, server.handle.fingerprint, nick)
        async with PtyClient(argv, _env(tmp_path / "home"), SIZE) as real:
            await pass_antispoof(real, client)
            await play_one_action(server, manager, real, nick)
        holder = server.handle.state.policy.store.holder(nick)
        assert holder is not None and holder.key_fingerprint is not None


async def test_passphrase_set_then_given_again_and_bets(tmp_path: Path, client: Client) -> None:
    async with table(tmp_path) as (server, manager):
        assert server.handle is not None
        nick = f"{client.name}pw"
        argv = client.keyless_argv(server.port, server.handle.fingerprint, nick)
        env = _env(tmp_path / "home")
        async with PtyClient(argv, env, SIZE) as first:  # first use: set it, asked twice
            await first.answer(NEW_PROMPT, PASSPHRASE)
            await first.answer(AGAIN_PROMPT, PASSPHRASE)
            await pass_antispoof(first, client)
            await first.wait_for(f"{nick}님 환영해요")
        holder = server.handle.state.policy.store.holder(nick)
        assert holder is not None and holder.passphrase is not None
        async with PtyClient(argv, env, SIZE) as again:  # returning: asked once
            await again.answer(GIVE_PROMPT, PASSPHRASE)
            await pass_antispoof(again, client)
            await play_one_action(server, manager, again, nick)
            assert NEW_PROMPT not in again.output.decode("utf-8", "replace")


async def test_wrong_passphrase_is_refused_for_every_client(tmp_path: Path, client: Client) -> None:
    async with table(tmp_path) as (server, _manager):
        assert server.handle is not None
        nick = f"{client.name}x"
        await server.handle.state.policy.register_passphrase(nick, "the-right-one-1")
        argv = client.keyless_argv(server.port, server.handle.fingerprint, nick)
        async with PtyClient(argv, _env(tmp_path / "home"), SIZE) as real:
            await real.answer(GIVE_PROMPT, "not-the-right-one")
            await real.answer(GIVE_PROMPT, "still-wrong-one")  # after "남은 기회 2번"
            await wait_until(lambda: server.jail.failures("127.0.0.1") == 2)
            assert f"{nick}님 환영해요" not in real.text


# -- a failed handshake leaves one line in the log ----------------------------------------


def _handshake_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [
        fields
        for r in caplog.records
        if (fields := record_fields(r)).get("reason") == "handshake_failed"
    ]


async def test_failed_key_exchanges_are_logged_once_per_address(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with table(tmp_path) as (server, _manager):
        with caplog.at_level(logging.INFO, logger="seotda.server"):
            for _ in range(3):  # a client that offers only a kex the server doesn't
                with pytest.raises(asyncssh.KeyExchangeFailed):
                    await asyncssh.connect(
                        "127.0.0.1", server.port, known_hosts=None, username="old",
                        kex_algs=["diffie-hellman-group1-sha1"], config=None,
                    )  # fmt: skip
            await wait_until(lambda: len(_handshake_lines(caplog)) >= 1)
            # an absence (no line for the repeats) and a tally with no public count: a moment
            await asyncio.sleep(0.2)
            lines = _handshake_lines(caplog)
            assert [(e["event"], e["ip"], e["stage"]) for e in lines] == [
                ("refused", "127.0.0.1", "kex")
            ]
            assert str(lines[0]["client"]).startswith("SSH-2.0-AsyncSSH_")
            assert "No matching key exchange" in str(lines[0]["error"])
            assert server.handle is not None
            server.handle.state.flush_refusals()  # the repeats: one summary line
            summary = [e for e in _handshake_lines(caplog) if e["event"] == "refused_summary"]
            assert [(e["ip"], e["count"]) for e in summary] == [("127.0.0.1", 2)]


async def test_garbage_after_the_version_is_logged_with_the_client_version(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with table(tmp_path) as (server, _manager):
        with caplog.at_level(logging.INFO, logger="seotda.server"):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"SSH-2.0-Evil\x1b[2J_1.0\r\n" + b"\x00\x00\x00\x0c" + b"\xff" * 12)
            await writer.drain()
            await asyncio.wait_for(reader.read(), 10)  # the server hangs up
            writer.close()
            await wait_until(lambda: len(_handshake_lines(caplog)) == 1)
            (line,) = _handshake_lines(caplog)
            assert line["stage"] == "kex" and line["ip"] == "127.0.0.1"
            assert line["client"] == "SSH-2.0-Evil_1.0"  # the escape sequence is not logged


async def test_plink_pw_logs_a_returning_name_in_without_typing(tmp_path: Path) -> None:
    """``plink -pw`` (scripts): nothing is typed. PuTTY answers the one keyboard-interactive
    prompt of a returning name with it (PuTTY tries keyboard-interactive before password)."""
    plink = _installed(CLIENTS[1])
    async with table(tmp_path) as (server, manager):
        assert server.handle is not None
        nick = "plinkpw"
        await server.handle.state.policy.register_passphrase(nick, PASSPHRASE)
        argv = plink.keyless_argv(server.port, server.handle.fingerprint, nick)
        argv[1:1] = ["-pw", PASSPHRASE]
        async with PtyClient(argv, _env(tmp_path / "home"), SIZE) as real:
            await pass_antispoof(real, plink)
            await play_one_action(server, manager, real, nick)
