"""Over real SSH (pyte screens, which measure with wcwidth as tmux does): blank-drawing
nicknames are refused, and emoji that terminals draw wider than rich measures never cut
another player's line short."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import asyncssh
import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory
from seotda_tui.ui.widgets.chatline import KEYS_LOBBY, hint_text

from .ssh_harness import ProbeFactory, SSHClient, SSHHarness, ssh_server

SIZE = (100, 30)


async def refused(server: SSHHarness, name: str) -> str:
    """Log in as ``name``; return what the terminal got before the server hung up."""
    async with server.connect(name) as c:
        await c.wait_closed()
        return c.output_text


@pytest.mark.parametrize("name", ["\u2800", "\u3164", "victim\u3164", "victim\u2800", "\uffa0"])
async def test_blank_nicknames_are_refused_in_korean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        # as a stock client sends it (SASLprep'd: U+3164 arrives as U+1160)...
        assert "보이지 않거나" in await refused(server, name)
        # ...and raw, as sent by a client that skips SASLprep
        monkeypatch.setattr(asyncssh.connection, "saslprep", lambda s: s)
        assert "보이지 않거나" in await refused(server, name)
        assert apps.apps == []


async def test_skin_tone_nickname_is_refused_in_korean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncssh's SASLprep (Unicode 3.2 tables) refuses any emoji as unassigned, on both
    ends; a client that skips it reaches our own check, which says why in Korean."""
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        with pytest.raises(asyncssh.saslprep.SASLPrepError):
            await server.open_connection("철수👍🏽")
        monkeypatch.setattr(asyncssh.connection, "saslprep", lambda s: s)
        assert "폭이 다르게" in await refused(server, "철수👍🏽")
        assert apps.apps == []


def row_with(client: SSHClient, text: str) -> str:
    (row,) = [line for line in client.text.splitlines() if text in line]
    return row


async def test_skin_tone_chat_leaves_the_rest_of_the_line_intact(tmp_path: Path) -> None:
    factory = make_app_factory(RoomManager(seed_source=lambda: 7))
    async with ssh_server(tmp_path, factory) as server, AsyncExitStack() as stack:
        a = await stack.enter_async_context(server.connect("영희", size=SIZE))
        b = await stack.enter_async_context(server.connect("철수", size=SIZE))
        await a.wait_for("영희님 환영해요")
        await b.wait_for("철수님 환영해요")
        await a.press("t")
        await a.wait_for("Enter 보내기")
        mark = len(a.output)
        await a.type("👍🏽👋🏿🇰🇷 1\ufe0f\u20e3 end of line: 끝")
        await a.wait_for_output("끝", since=mark)  # the input echoed it all before Enter
        await a.press("enter")
        sent = "영희: 👍👋 1 end of line: 끝"
        for client in (a, b):
            await client.wait_for(sent, timeout=15)
            await client.wait_for(hint_text(KEYS_LOBBY))
            # the chat bar: the latest message on the left, the key hints flush right;
            # a skin tone drawn 2 cells wider than laid out would push "글씨" off the edge
            bar = row_with(client, f"채팅 {sent}")
            assert bar.endswith(hint_text(KEYS_LOBBY))
            assert len(client.screen.buffer[client.text.splitlines().index(bar)]) == SIZE[0]
        assert "🏽".encode() not in bytes(b.output) and "🇰".encode() not in bytes(b.output)


@pytest.mark.parametrize("name", ["봇l(신중)", "봇I", "봇O강함"])
async def test_bot_lookalike_nicknames_are_refused(tmp_path: Path, name: str) -> None:
    """``봇1(신중)`` is a room bot's name; with a Latin l (or I, or O for 0) it reads the same."""
    apps = ProbeFactory()
    async with ssh_server(tmp_path, apps) as server:
        said = await refused(server, name)
        assert "봇 이름" in said and "너무 비슷해요" in said
        assert apps.apps == []
        async with server.connect("봇이") as c:  # 봇 then a letter that reads as none: fine
            await c.wait_for("안녕 봇이")
