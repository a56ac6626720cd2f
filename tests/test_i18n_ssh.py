"""The session's language over real SSH: the client's LANG, ``L``, the server's
``default_language``, and the choice remembered for the identity across a reconnect."""

from __future__ import annotations

from pathlib import Path

import asyncssh

from seotda_tui.rooms import RoomManager
from seotda_tui.ssh.store import NicknameStore
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import ssh_server

ENGLISH_LOBBY = "Seotda lobby · welcome, "
KOREAN_LOBBY = "님 환영해요"
EN = {"LANG": "en_US.UTF-8"}


async def test_lang_en_sees_english_and_L_switches_to_korean_and_back(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("alice", env=EN) as client:
            await client.wait_for(ENGLISH_LOBBY + "alice")
            assert "No rooms yet" in client.text and "아직 방이 없어요" not in client.text
            await client.press("L")
            await client.wait_for("alice" + KOREAN_LOBBY)
            await client.wait_for("아직 방이 없어요")
            await client.press("L")
            await client.wait_for(ENGLISH_LOBBY + "alice")
            # a room opened in English: the waiting room speaks English too
            await client.press("n")
            await client.wait_for("New room · Tab move")
            await client.press("enter")
            await client.wait_for("alice's room · waiting")
            await client.wait_for("q leave")


async def test_no_lang_is_korean_and_another_lang_is_korean(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("bob") as client:
            await client.wait_for("bob" + KOREAN_LOBBY)
        async with server.connect("carol", env={"LANG": "de_DE.UTF-8"}) as client:
            await client.wait_for("carol" + KOREAN_LOBBY)
        async with server.connect(
            "dave", env={"LC_ALL": "en_GB.UTF-8", "LANG": "ko_KR.UTF-8"}
        ) as c:
            await c.wait_for(ENGLISH_LOBBY + "dave")  # LC_ALL wins over LANG, as in a shell


async def test_default_language_applies_when_the_client_sends_nothing(tmp_path: Path) -> None:
    """(By key: the harness answers only the Korean passphrase prompts; the English ones
    have their own test in test_i18n.py.)"""
    manager = RoomManager(seed_source=lambda: 7)
    factory = make_app_factory(manager)
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with ssh_server(tmp_path, factory, default_language="en") as server:
        async with server.connect("erin", key=key) as client:
            await client.wait_for(ENGLISH_LOBBY + "erin")
        async with server.connect("frank", key=key, env={"LANG": "ko_KR.UTF-8"}) as client:
            await client.wait_for("frank" + KOREAN_LOBBY)


async def test_the_choice_survives_a_reconnect_for_the_identity(tmp_path: Path) -> None:
    manager = RoomManager(seed_source=lambda: 7)
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("gina", key=key) as client:  # Korean: no LANG
            await client.wait_for("gina" + KOREAN_LOBBY)
            await client.press("L")
            await client.wait_for(ENGLISH_LOBBY + "gina")
        async with server.connect("gina", key=key) as client:  # still no LANG: remembered
            await client.wait_for(ENGLISH_LOBBY + "gina")
            await client.press("L")
            await client.wait_for("gina" + KOREAN_LOBBY)
        async with server.connect("gina", key=key, env=EN) as client:  # the choice beats LANG
            await client.wait_for("gina" + KOREAN_LOBBY)
    store = NicknameStore(tmp_path / "data")
    try:
        assert store.language("gina") == "ko"
    finally:
        store.close()


async def test_goodbye_in_the_session_language(tmp_path: Path) -> None:
    """The session's own last line follows ``L`` too (the app and the session share one
    language holder): a second login under the same name replaces the first."""
    manager = RoomManager(seed_source=lambda: 7)
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with ssh_server(tmp_path, make_app_factory(manager)) as server:
        async with server.connect("hana", key=key, env=EN) as first:
            await first.wait_for(ENGLISH_LOBBY + "hana")
            async with server.connect("hana", key=key, env=EN) as second:
                await second.wait_for(ENGLISH_LOBBY + "hana")
                await first.wait_for_output("The same nickname connected from elsewhere")
