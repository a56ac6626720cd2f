"""Drive the real SSH server from tests, seeing exactly what a player's terminal shows.

Reusable by any test that wants to play through SSH::

    async with ssh_server(tmp_path, app_factory) as server:
        async with server.connect("철수") as c:
            await c.wait_for("로비")
            await c.press("down", "enter")
            await c.type("안녕")

The server runs in-process on 127.0.0.1 with an ephemeral port and temporary
host-key and data folders. Keyword arguments are server settings (any
:class:`~seotda_tui.config.Settings` field, e.g. ``password="x"``,
``max_sessions=2``, ``idle_timeout=0.5``), validated like flags; ``clock=``
(a :class:`~seotda_tui.clock.FakeClock`) replaces the server's one time source: the rate
limits and what waits, such as the idle timer. ``shutdown_notice`` defaults to 0 here. Each client is a real asyncssh client that asks
for a PTY; everything it receives is fed into a ``pyte`` screen, so
``wait_for`` checks what a person would see.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import struct
import subprocess
import termios
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh
import pyte
from textual.app import App, ComposeResult
from textual.events import Key, Resize
from textual.widgets import Static
from wcwidth import wcwidth

from engine.types import View
from seotda_tui import tuning
from seotda_tui.config import load_settings
from seotda_tui.rooms import RoomManager
from seotda_tui.ssh.auth import Identity
from seotda_tui.ssh.keyless import (
    CONFIRM_PROMPT,
    NEW_PASSPHRASE_PROMPT,
    PASSPHRASE_PROMPT,
    SERVER_PASSWORD_PROMPT,
)
from seotda_tui.ssh.limits import AuthJail
from seotda_tui.ssh.login_limits import LocalLimits
from seotda_tui.ssh.server import ServerConfig, ServerHandle, start_server
from seotda_tui.ssh.state import AppFactory, DisconnectReason, SessionContext

DEFAULT_TIMEOUT = 10.0  # generous: a busy CI box, not a speed target

KEYS: dict[str, bytes] = {
    "enter": b"\r",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "escape": b"\x1b",
    "backspace": b"\x7f",
    "space": b" ",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "delete": b"\x1b[3~",
    "ctrl+c": b"\x03",
    "ctrl+d": b"\x04",
    "ctrl+q": b"\x11",
}


async def wait_until(check: Any, timeout: float = 5.0, what: str = "the condition") -> None:
    """Poll server-side state until ``check()`` holds (the keys travel over a real socket);
    fail naming ``what`` after a generous ``timeout`` (seconds, not a speed target)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, f"timed out after {timeout}s waiting for {what}"
        await asyncio.sleep(0.02)


async def quiet(client: SSHClient, settle: float = 0.25, limit: float = 3.0) -> None:
    """Wait until the client has received nothing for ``settle`` seconds (at most ``limit``).

    A wall-clock wait by nature: "no more frames" is the absence of an event, and the frames
    come from Textual's own timers. Used only to count bytes from, or up to, a calm screen."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    last = len(client.output)
    while loop.time() < end:
        await asyncio.sleep(settle)
        if len(client.output) == last:
            return
        last = len(client.output)


async def start_game(host: Any, host_name: str, guest: SSHClient) -> None:
    """``host_name``'s terminal (an :class:`SSHClient` or a :class:`PtyClient`) opens a room with
    the default options, ``guest`` joins it from the lobby, the host starts the game."""
    await host.press("n")
    await host.wait_for("새 방 만들기")
    await host.press("enter")
    await host.wait_for("대기 중")
    await guest.wait_for(f"{host_name}의 방")
    await guest.press("enter")
    await host.wait_for("님이 앉았어요")
    await host.press("s")
    for client in (host, guest):
        await client.wait_for("· 게임 중 ·")


def public_view(manager: RoomManager, nick: str) -> View:
    """The game as a spectator of ``nick``'s room sees it (the manager's public query)."""
    room_id = manager.room_of(nick)
    assert room_id is not None, f"{nick} is in no room"
    view = manager.game_view(room_id, "")
    assert view is not None, "the game has not started"
    return view


def default_passphrase(username: str) -> str:
    """The passphrase a keyless test client uses for ``username`` unless told otherwise."""
    return f"{username}-비밀번호-1234"


DEFAULT = "<default passphrase>"  # sentinel: use default_passphrase(username)
Passphrase = str | list[str] | None


class _Auth(asyncssh.SSHClient):
    """Client-side auth like OpenSSH's: keyboard-interactive prompts answered from what it
    was given: the server password (if any) and the nickname passphrase.

    ``passphrase`` is one passphrase (for one round), a list (one per round, e.g. wrong
    ones then the right one), or None (answer no passphrase prompt). Every
    keyboard-interactive round is recorded in ``rounds`` (its instructions and the text
    leading its first prompt, where the server explains) and every auth banner in
    ``banners``, to assert on what the server said.
    """

    def __init__(
        self, username: str, password: str | None, passphrase: Passphrase = DEFAULT
    ) -> None:
        self._password = password
        if passphrase == DEFAULT:
            passphrase = default_passphrase(username)
        self._passphrases = [passphrase] if isinstance(passphrase, str) else list(passphrase or [])
        self._password_sent = False
        self.banners: list[str] = []
        self.rounds: list[str] = []

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        if not prompts:
            return []
        # what the round says: its instructions, and the text that leads its first prompt
        self.rounds.append("\n".join(text for text in (instructions, prompts[0][0]) if text))
        answers: list[str] = []
        passphrase = self._passphrases.pop(0) if self._passphrases else None
        for prompt, _echo in prompts:
            if prompt.endswith(SERVER_PASSWORD_PROMPT):
                answer = self._password
            elif prompt.endswith((PASSPHRASE_PROMPT, NEW_PASSPHRASE_PROMPT, CONFIRM_PROMPT)):
                answer = passphrase
            else:
                answer = None
            if answer is None:
                return None  # give up (asyncssh would ask forever)
            answers.append(answer)
        return answers

    def password_auth_requested(self) -> str | None:
        if self._password is None or self._password_sent:
            return None
        self._password_sent = True
        return self._password


class _Session(asyncssh.SSHClientSession[bytes]):
    def __init__(self, client: SSHClient) -> None:
        self._client = client

    def data_received(self, data: bytes, datatype: int | None) -> None:
        self._client._received(data)

    def exit_status_received(self, status: int) -> None:
        self._client.exit_status = status

    def connection_lost(self, exc: Exception | None) -> None:
        self._client.closed.set()


class SSHClient:
    """One player's terminal: a PTY session rendered into a pyte screen."""

    def __init__(self, conn: asyncssh.SSHClientConnection, size: tuple[int, int]) -> None:
        self.conn = conn
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.screen = pyte.Screen(*size)
        self._stream = pyte.ByteStream(self.screen)
        self.output = bytearray()  # everything received, raw
        self.exit_status: int | None = None
        self.closed = asyncio.Event()

    def _received(self, data: bytes) -> None:
        self.output += data
        self._stream.feed(data)

    # -- looking ----------------------------------------------------------------

    @property
    def text(self) -> str:
        """The screen as lines of text (wide characters appear once).

        Like ``pyte.Screen.display``, but a stale right half of an overwritten wide
        character (an empty cell, on which ``display`` raises IndexError) shows as a space.
        """
        return screen_text(self.screen)

    @property
    def output_text(self) -> str:
        return self.output.decode("utf-8", "replace")

    async def _until(self, check: Any, what: str, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not check():
            if loop.time() > deadline:
                raise AssertionError(
                    f"{what} 이(가) {timeout}초 안에 나오지 않았어요. 화면:\n{self.text}"
                )
            await asyncio.sleep(0.02)

    async def wait_for(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until ``text`` is visible on the screen."""
        await self._until(lambda: text in self.text, repr(text), timeout)

    async def wait_gone(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        await self._until(lambda: text not in self.text, f"사라진 {text!r}", timeout)

    async def wait_for_output(
        self, text: str, timeout: float = DEFAULT_TIMEOUT, since: int = 0
    ) -> None:
        """Wait until ``text`` has been received at all (even if since overdrawn), in the output
        from byte ``since`` on (e.g. ``len(client.output)`` before a key: its echo)."""
        wanted = text.encode()
        await self._until(lambda: wanted in self.output[since:], repr(text), timeout)

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        await asyncio.wait_for(self.closed.wait(), timeout)

    # -- typing -----------------------------------------------------------------

    async def send(self, data: bytes | str) -> None:
        assert self.chan is not None
        self.chan.write(data.encode() if isinstance(data, str) else data)
        await asyncio.sleep(0)

    async def press(self, *keys: str, pause: float = 0.05) -> None:
        """Press named keys (see KEYS) or single characters, one at a time."""
        for key in keys:
            await self.send(KEYS.get(key, key))
            await asyncio.sleep(pause)

    async def type(self, text: str) -> None:
        await self.send(text)

    async def resize(self, columns: int, lines: int) -> None:
        assert self.chan is not None
        self.screen.resize(lines, columns)
        self.chan.change_terminal_size(columns, lines)
        await asyncio.sleep(0)


class SSHHarness:
    """A running server plus helpers to connect to it."""

    def __init__(self, tmp_path: Path, app_factory: AppFactory, **overrides: Any) -> None:
        self.tmp_path = tmp_path
        self.app_factory = app_factory
        self.overrides = overrides
        self.hostkey_dir = tmp_path / "hostkeys"
        self.data_dir = tmp_path / "data"
        self.handle: ServerHandle | None = None

    @property
    def port(self) -> int:
        assert self.handle is not None
        return self.handle.port

    @property
    def jail(self) -> AuthJail:
        """The auth-failure jail of this one-process server's own limits."""
        assert self.handle is not None and isinstance(self.handle.state.limits, LocalLimits)
        return self.handle.state.limits.jail

    async def start(self) -> ServerHandle:
        flags = dict(self.overrides)
        extra = {k: flags.pop(k) for k in ("clock",) if k in flags}
        flags.setdefault("shutdown_notice", 0.0)
        settings = load_settings(
            env={k: v for k, v in os.environ.items() if k == tuning.STOCK_ENV},
            flags={
                "host": "127.0.0.1",
                "port": 0,
                "hostkey_dir": self.hostkey_dir,
                "data_dir": self.data_dir,
                **flags,
            },
        )
        config = ServerConfig(app_factory=self.app_factory, settings=settings, **extra)
        self.handle = await start_server(config)
        return self.handle

    async def stop(self) -> None:
        if self.handle is not None:
            await self.handle.close()
            self.handle = None

    async def open_connection(
        self,
        username: str,
        *,
        key: asyncssh.SSHKey | None = None,
        password: str | None = None,
        passphrase: Passphrase = DEFAULT,
        **options: Any,
    ) -> asyncssh.SSHClientConnection:
        """A bare authenticated connection (for exec/SFTP/forwarding tests)."""
        return await open_connection(
            self.port, username, key=key, password=password, passphrase=passphrase, **options
        )

    @asynccontextmanager
    async def connect(
        self,
        username: str,
        *,
        key: asyncssh.SSHKey | None = None,
        password: str | None = None,
        passphrase: Passphrase = DEFAULT,
        term_type: str | None = "xterm-256color",
        size: tuple[int, int] = (80, 24),
        env: Mapping[str, str] | None = None,
        local_ip: str | None = None,
    ) -> AsyncIterator[SSHClient]:
        """Log in as ``username`` and open a shell (with a PTY unless term_type is None);
        ``local_ip`` (e.g. ``127.0.0.2``) is the address the server sees it come from."""
        async with connect(
            self.port,
            username,
            key=key,
            password=password,
            passphrase=passphrase,
            term_type=term_type,
            size=size,
            env=env,
            local_ip=local_ip,
        ) as client:
            yield client


async def open_connection(
    port: int,
    username: str,
    *,
    key: asyncssh.SSHKey | None = None,
    password: str | None = None,
    passphrase: Passphrase = DEFAULT,
    host: str = "127.0.0.1",
    client: type[_Auth] | None = None,
    **options: Any,
) -> asyncssh.SSHClientConnection:
    """A bare authenticated connection to any server (in-process or not); ``client``: an
    :class:`_Auth` subclass that does more on the way (it answers the same prompts)."""
    settings: dict[str, Any] = {"agent_path": None, "known_hosts": None, "config": None}
    conn, _ = await asyncssh.create_connection(
        lambda: (client or _Auth)(username, password, passphrase),
        host,
        port,
        username=username,
        client_keys=[key] if key is not None else None,
        **(settings | options),
    )
    return conn


@dataclass
class Attempt:
    """The outcome of a login attempt: the connection, or the error; banners either way."""

    conn: asyncssh.SSHClientConnection | None
    error: Exception | None
    banners: list[str]
    rounds: list[str]  # instructions of each keyboard-interactive round

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            await self.conn.wait_closed()


async def attempt(
    port: int,
    username: str,
    *,
    key: asyncssh.SSHKey | None = None,
    password: str | None = None,
    passphrase: Passphrase = DEFAULT,
    host: str = "127.0.0.1",
    timeout: float = DEFAULT_TIMEOUT,
    **options: Any,
) -> Attempt:
    """Try to log in; never raises for a refusal (see ``Attempt.error``)."""
    auth = _Auth(username, password, passphrase)
    try:
        conn, _ = await asyncio.wait_for(
            asyncssh.create_connection(
                lambda: auth,
                host,
                port,
                username=username,
                client_keys=[key] if key is not None else None,
                agent_path=None,
                known_hosts=None,
                config=None,
                **options,
            ),
            timeout,
        )
    except (OSError, asyncssh.Error) as exc:
        return Attempt(None, exc, auth.banners, auth.rounds)
    return Attempt(conn, None, auth.banners, auth.rounds)


@asynccontextmanager
async def connect(
    port: int,
    username: str,
    *,
    key: asyncssh.SSHKey | None = None,
    password: str | None = None,
    passphrase: Passphrase = DEFAULT,
    term_type: str | None = "xterm-256color",
    size: tuple[int, int] = (80, 24),
    env: Mapping[str, str] | None = None,
    host: str = "127.0.0.1",
    local_ip: str | None = None,
) -> AsyncIterator[SSHClient]:
    """Log in as ``username`` to ``host:port`` and open a shell (PTY unless term_type is None).

    A keyless login answers the nickname-passphrase prompts with ``passphrase``
    (by default :func:`default_passphrase`, so the same name always gets in again).
    """
    local: dict[str, Any] = {"local_addr": (local_ip, 0)} if local_ip else {}
    conn = await open_connection(
        port, username, key=key, password=password, passphrase=passphrase, host=host, **local
    )
    client = SSHClient(conn, size)
    try:
        client.chan, _ = await conn.create_session(
            lambda: _Session(client),
            term_type=term_type,
            term_size=size if term_type else None,
            env={k: v for k, v in (env or {}).items()},  # (asyncssh types keys str | bytes)
            encoding=None,
        )
        yield client
    finally:
        conn.close()
        await conn.wait_closed()


@asynccontextmanager
async def ssh_server(
    tmp_path: Path, app_factory: AppFactory, **overrides: Any
) -> AsyncIterator[SSHHarness]:
    """Start the server on 127.0.0.1:<free port>; stop it (and every session) afterwards."""
    harness = SSHHarness(tmp_path, app_factory, **overrides)
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


def key_pair() -> asyncssh.SSHKey:
    """A fresh ed25519 client key."""
    return asyncssh.generate_private_key("ssh-ed25519")


def keys_text(keys: Iterable[asyncssh.SSHKey]) -> str:
    """authorized_keys file content for ``keys``."""
    return "".join(k.export_public_key("openssh").decode() for k in keys)


# -- a tiny app for testing the transport itself ---------------------------------


class ProbeApp(App[None]):
    """Shows who you are, what you typed and the size it believes the terminal has.

    Keys: ``!`` raises an exception (to test crash isolation), ``ctrl+q`` quits.
    """

    CSS = "Static { height: 1; }"

    def __init__(self, identity: Identity, ctx: SessionContext) -> None:
        super().__init__()
        self.identity = identity
        self.ctx = ctx
        self.typed = ""
        self.disconnects: list[DisconnectReason] = []
        ctx.add_disconnect_callback(self.disconnects.append)

    def compose(self) -> ComposeResult:
        yield Static(f"안녕 {self.identity.nickname}", id="hello")
        yield Static("typed=", id="typed")
        yield Static("", id="size")

    def on_resize(self, event: Resize) -> None:
        self.query_one("#size", Static).update(f"size={event.size.width}x{event.size.height}")

    def on_key(self, event: Key) -> None:
        if event.character == "!":
            raise RuntimeError("probe app exploded on purpose")
        if event.character and event.character.isprintable():
            self.typed += event.character
            self.query_one("#typed", Static).update(f"typed={self.typed}")


class ProbeFactory:
    """An app factory that remembers every app it made."""

    def __init__(self) -> None:
        self.apps: list[ProbeApp] = []

    def __call__(self, identity: Identity, ctx: SessionContext) -> ProbeApp:
        app = ProbeApp(identity, ctx)
        self.apps.append(app)
        return app

    def latest(self, nickname: str) -> ProbeApp:
        return [a for a in self.apps if a.identity.nickname == nickname][-1]


def screen_text(screen: pyte.Screen) -> str:
    """A pyte screen as lines of text (wide characters appear once, stale halves as spaces)."""
    lines = []
    for y in range(screen.lines):
        row = screen.buffer[y]
        cells: list[str] = []
        skip = False
        for x in range(screen.columns):
            if skip:
                skip = False
                continue
            data = row[x].data or " "
            cells.append(data)
            skip = wcwidth(data[0]) == 2
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)


# -- a stock SSH client program (ssh, plink, dbclient) on a real PTY ------------------------


class PtyClient:
    """A client program run on a pseudo-terminal of ``size``, its output fed to a pyte screen.

    The program gets the PTY as its controlling terminal (``setsid -c``), so it prompts
    and switches to raw mode exactly as in a person's terminal. Use as an async context
    manager; the program is killed (by its pid) on exit.
    """

    def __init__(
        self, argv: list[str], env: Mapping[str, str], size: tuple[int, int] = (100, 30)
    ) -> None:
        self.argv = argv
        self.env = dict(env)
        self.size = size
        columns, lines = size
        self.screen = pyte.Screen(columns, lines)
        self._stream = pyte.ByteStream(self.screen)
        self.output = b""
        self._seen = 0  # output before this offset was answered by :meth:`answer`
        self._fd = -1
        self.proc: subprocess.Popen[bytes] | None = None

    async def __aenter__(self) -> PtyClient:
        master, slave = os.openpty()
        columns, lines = self.size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        try:
            self.proc = subprocess.Popen(
                ["setsid", "-c", *self.argv],
                stdin=slave, stdout=slave, stderr=slave, env=self.env, close_fds=True,
            )  # fmt: skip
        finally:
            os.close(slave)
        self._fd = master
        asyncio.get_running_loop().add_reader(master, self._readable)
        return self

    async def __aexit__(self, *exc: object) -> None:
        asyncio.get_running_loop().remove_reader(self._fd)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait, 10)
        os.close(self._fd)

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 65536)
        except OSError:  # EIO: the program closed the terminal
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._fd)
            return
        self.output += data
        self._stream.feed(data)

    @property
    def text(self) -> str:
        return screen_text(self.screen)

    async def _until(self, check: Any, what: str, timeout: float) -> None:
        try:
            await wait_until(check, timeout)
        except AssertionError:
            raise AssertionError(
                f"{self.argv[0]}: {what} not seen in {timeout}s; screen:\n{self.text}\n"
                f"last output: {self.output[-600:]!r}"
            ) from None

    async def wait_for(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Until ``text`` is on the screen."""
        await self._until(lambda: text in self.text, repr(text), timeout)

    async def answer(self, prompt: str, reply: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait for ``prompt`` in output not yet answered, then type ``reply`` and Return."""
        wanted = prompt.encode()
        await self._until(lambda: wanted in self.output[self._seen :], repr(prompt), timeout)
        self._seen = len(self.output)
        await self.send(reply + "\r")

    async def send(self, data: bytes | str) -> None:
        os.write(self._fd, data.encode() if isinstance(data, str) else data)
        await asyncio.sleep(0)

    async def press(self, *keys: str, pause: float = 0.05) -> None:
        for key in keys:
            await self.send(KEYS.get(key, key.encode()))
            await asyncio.sleep(pause)
