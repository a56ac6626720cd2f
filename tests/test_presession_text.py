"""Text before a session, over real SSH with a PTY (issue 32 item 2): every line ends CR LF.
The PTY's terminal is raw, so a bare LF only moves down: the English line under a Korean
refusal started where the Korean one ended (column 69 for a nickname with a space)."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from .ssh_harness import ProbeFactory, SSHClient, _Session, key_pair, ssh_server

SIZE = (80, 24)


def _starts_a_line(client: SSHClient, text: str) -> None:
    """``text`` is on the screen, at column 0 of its row."""
    rows = client.text.splitlines()
    assert any(row.startswith(text) for row in rows), "\n".join(rows)


async def _shell(conn: asyncssh.SSHClientConnection) -> SSHClient:
    """A PTY shell on an already authenticated connection, rendered by pyte."""
    client = SSHClient(conn, SIZE)
    client.chan, _ = await conn.create_session(
        lambda: _Session(client), term_type="xterm-256color", term_size=SIZE, encoding=None
    )
    return client


@pytest.mark.parametrize(
    ("name", "english"),
    [
        ("bad name", "'bad name' cannot be used as a nickname"),
        ("abcdefghijklmnopq", "'abcdefghijklmnopq' cannot be used as a nickname"),  # 17 cells
    ],
)
async def test_a_refused_nickname_reads_in_both_languages_from_column_0(
    tmp_path: Path, name: str, english: str
) -> None:
    async with ssh_server(tmp_path, ProbeFactory()) as server, server.connect(name) as c:
        await c.wait_closed()
        _starts_a_line(c, f"'{name}' 은(는) 쓸 수 없는 닉네임이에요")
        _starts_a_line(c, english)
        assert "\n" not in c.output_text.replace("\r\n", "")


async def test_a_refusal_made_when_the_session_opens_ends_its_lines_with_cr_lf(
    tmp_path: Path,
) -> None:
    """Two keys log in as one new name; the first to open its session takes it, so the second
    is refused by its session (not at login), through the session's own writer."""
    async with ssh_server(tmp_path, ProbeFactory()) as server:
        first = await server.open_connection("새이름", key=key_pair())
        second = await server.open_connection("새이름", key=key_pair())
        try:
            owner = await _shell(first)
            await owner.wait_for("안녕 새이름")  # its session has claimed the name
            late = await _shell(second)
            await late.wait_closed()
            _starts_a_line(late, "'새이름' 닉네임은 등록된 SSH 키로만 접속할 수 있어요")
            _starts_a_line(late, "The nickname '새이름' can only be used with its registered")
            assert "\n" not in late.output_text.replace("\r\n", "")
        finally:
            for conn in (first, second):
                conn.close()
                await conn.wait_closed()
