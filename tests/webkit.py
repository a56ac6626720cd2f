"""Drive the browser's way in (``--web-port``) from tests, seeing what its terminal shows.

A :class:`WebClient` is what the page's script does (seotda_tui/web/static/app.js): it opens
the WebSocket with an ``Origin``, logs in with the JSON messages of
:mod:`seotda_tui.web.session`, then sends keys as binary frames and feeds every binary frame
it gets into a ``pyte`` screen, exactly as :class:`~tests.ssh_harness.SSHClient` does with an
SSH channel (it is one, with another transport), so ``wait_for``/``press``/``resize`` read the
same::

    async with ssh_server(tmp_path, factory) as server, web_listener(server) as web:
        async with web.connect("영희") as browser:
            await browser.wait_for("로비")
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from seotda_tui.ssh.keyless import SERVER_PASSWORD_PROMPT
from seotda_tui.web.server import WebServer, start_web

from .ssh_harness import DEFAULT, Passphrase, SSHClient, SSHHarness, default_passphrase


class WebRefused(Exception):
    """The server said no before a session (``message``: what the page would show)."""

    def __init__(self, message: str, prompts: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.message = message
        self.prompts = prompts  # every prompts message the server sent on the way


class WebClient(SSHClient):
    """One browser tab's terminal: binary frames in a pyte screen."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, size: tuple[int, int]) -> None:
        super().__init__(None, size)
        self.ws = ws
        self.prompts: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self._reader: asyncio.Task[None] | None = None

    def start_reading(self) -> None:
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self._received(msg.data)
        self.close_code = self.ws.close_code
        self.closed.set()

    async def send(self, data: bytes | str) -> None:
        await self.ws.send_bytes(data.encode() if isinstance(data, str) else data)
        await asyncio.sleep(0)

    async def resize(self, columns: int, lines: int) -> None:
        self.screen.resize(lines, columns)
        await self.ws.send_json({"type": "resize", "cols": columns, "rows": lines})

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader


class WebHarness:
    """Browsers for the listener on 127.0.0.1:``port`` (in-process, ``server``, or a
    subprocess's, e.g. a ``--workers N`` cluster's)."""

    def __init__(self, port: int, server: WebServer | None = None) -> None:
        self.port = port
        self.server = server
        self.http = aiohttp.ClientSession()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def open(
        self, *, origin: str | None = "", headers: dict[str, str] | None = None
    ) -> aiohttp.ClientWebSocketResponse:
        """A bare WebSocket (``origin`` "": the page's own; None: no Origin header)."""
        sent = dict(headers or {})
        if origin is not None:
            sent["Origin"] = origin or self.url
        return await self.http.ws_connect(f"{self.url}/ws", headers=sent, max_msg_size=0)

    async def log_in(
        self,
        name: str,
        *,
        passphrase: Passphrase = DEFAULT,
        password: str | None = None,
        room: str | None = None,
        size: tuple[int, int] = (80, 24),
        headers: dict[str, str] | None = None,
        languages: list[str] | None = None,
        link: str | None = None,
    ) -> WebClient:
        """Open a socket and log in as the page does; raises :class:`WebRefused`.

        Each passphrase prompt (by its kind, as the page fills them) is answered with ``passphrase`` (by default
        :func:`default_passphrase`, the SSH harness's, so a name gets in over either), or the
        next one of a list per round; the server-password prompt with ``password``."""
        if passphrase == DEFAULT:
            passphrase = default_passphrase(name)
        rounds = [passphrase] if isinstance(passphrase, str) else list(passphrase or [])
        ws = await self.open(headers=headers)
        login: dict[str, object] = {"type": "login", "name": name, "cols": size[0], "rows": size[1]}
        if room is not None:
            login["room"] = room
        if languages is not None:
            login["languages"] = languages
        if link is not None:  # a one-time browser link's token (the page's ?link=)
            login["link"] = link
        await ws.send_json(login)
        client = WebClient(ws, size)
        while True:
            msg = await asyncio.wait_for(ws.receive(), 10)
            if msg.type != aiohttp.WSMsgType.TEXT:
                await ws.close()
                raise WebRefused(f"closed ({msg.type!r}, {ws.close_code})", client.prompts)
            data = msg.json()
            if data["type"] == "ready":
                break
            if data["type"] == "refused":
                await ws.close()
                raise WebRefused(data["message"], client.prompts)
            assert data["type"] == "prompts", data
            client.prompts.append(data)
            answer = rounds.pop(0) if rounds else None
            assert len(data["kinds"]) == len(data["prompts"]), data
            for kind, text in zip(data["kinds"], data["prompts"]):  # the prompts say it too
                assert (kind == "server_password") == text.endswith(SERVER_PASSWORD_PROMPT)
            answers = [
                (password if kind == "server_password" else answer) or "" for kind in data["kinds"]
            ]
            await ws.send_json({"type": "answers", "answers": answers})
        client.start_reading()
        return client

    @asynccontextmanager
    async def connect(self, name: str, **options: Any) -> AsyncIterator[WebClient]:
        client = await self.log_in(name, **options)
        try:
            yield client
        finally:
            await client.close()


@asynccontextmanager
async def web_listener(ssh: SSHHarness) -> AsyncIterator[WebHarness]:
    """A browser listener on 127.0.0.1:<free port> beside ``ssh``'s server, as
    ``--web-port`` starts it (cli/process.py); closed afterwards."""
    assert ssh.handle is not None
    server = await start_web(ssh.handle.state)
    harness = WebHarness(server.port, server)
    try:
        yield harness
    finally:
        await harness.http.close()
        await server.close()
