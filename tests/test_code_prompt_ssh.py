"""The lobby's room-code prompt over real SSH (issue 32 item 1): ``c``, or Enter on a listed
private room, drew only the box's borders: typed letters never appeared and nothing said what
to type. Its line now reads "방 코드:" with the code as it is typed and the keys after it, at
80×24 and 120×40, in Korean and English."""

from __future__ import annotations

from pathlib import Path

import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import SSHClient, ssh_server

TEXTS = {
    "ko": {
        "label": "방 코드:",
        "keys": "Enter 들어가기",
        "lobby": "님 환영해요",
        "room": "비밀 방",
    },
    "en": {"label": "Room code:", "keys": "Enter go in", "lobby": "welcome, ", "room": "비밀 방"},
}
ENV = {"ko": None, "en": {"LANG": "en_US.UTF-8"}}
SIZES = [(80, 24), (120, 40)]


def prompt_line(client: SSHClient, label: str) -> str:
    return next((line for line in client.text.splitlines() if label in line), "")


async def typed_in_prompt(client: SSHClient, texts: dict[str, str], typed: str) -> None:
    """The prompt's line shows its label and keys, then the letters as they are typed."""
    await client.wait_for(texts["label"])
    assert texts["keys"] in prompt_line(client, texts["label"]), client.text
    await client.type(typed)
    await client.wait_for(typed)
    line = prompt_line(client, texts["label"])  # the label stays beside the typed code
    assert typed in line and texts["keys"] in line, client.text


@pytest.mark.parametrize("language", ["ko", "en"])
async def test_the_code_prompt_shows_its_label_and_the_typed_code(
    tmp_path: Path, language: str
) -> None:
    texts = TEXTS[language]
    m = RoomManager(seed_source=lambda: 7)
    room = m.create_room("영희", "비밀 방", {}, private=True, listed=True)
    code = m.room_code(room.id, "영희")
    assert code is not None
    async with ssh_server(tmp_path, make_app_factory(m)) as server:
        for n, size in enumerate(SIZES):
            nick = f"철수{n}"
            async with server.connect(nick, size=size, env=ENV[language]) as client:
                await client.wait_for(texts["lobby"])
                await client.wait_for(texts["room"])
                await client.press("c")  # any room's code
                await typed_in_prompt(client, texts, "ab2c")
                await client.press("escape")
                await client.wait_gone(texts["label"])
                await client.press("enter")  # the listed private room asks its code
                await typed_in_prompt(client, texts, code.lower())
                await client.press("enter")
                await client.wait_for(code)  # in the room: the title shows its code
                await client.wait_gone(texts["label"])
                assert m.room_of(nick) == room.id
            m.leave(room.id, nick)
