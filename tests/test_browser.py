"""The browser's way in (``--web-port``) in a real browser: Playwright drives Debian's Chromium
(``/usr/bin/chromium``, headless; nothing is downloaded: ``.ci/run`` installs the package) at the
page the server serves. It logs in with the nickname form, joins a private room by its link
(``?room=CODE``), plays a whole hand with an SSH player (a real asyncssh client with a PTY and a
pyte screen) by pressing keys, reads what the terminal shows from the page (xterm.js's rows),
refits the terminal when the window changes and saves a screenshot (its path is printed).

One browser per module (each test opens a fresh context in it); skipped, saying why, only when
``/usr/bin/chromium`` is not there.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import (
    ProbeFactory,
    default_passphrase,
    key_pair,
    public_view,
    ssh_server,
    wait_until,
)
from .test_web import free_port
from .test_web_links import make_link
from .webkit import web_listener

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing (Debian's chromium package; .ci/run installs it as root)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: The terminal's rows as xterm.js's DOM renderer draws them (one <div> a row), as text.
ROWS_JS = """() => Array.from(document.querySelectorAll('#terminal .xterm-rows > div'),
    (row) => row.textContent.replace(/\\u00a0/g, ' ')).join('\\n')"""
#: The terminal's size in cells, as the page's xterm.js has it.
SIZE_JS = """() => { const rows = document.querySelectorAll('#terminal .xterm-rows > div');
    const box = document.querySelector('#terminal .xterm-screen');
    return [rows.length, box ? Math.round(box.getBoundingClientRect().width) : 0]; }"""
TIMEOUT = 10.0  # (every wait: a loaded CI box runs these beside the rest of the suite)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        # (--accept-lang: a context's locale= reaches the page's requests, not the WebSocket's
        # upgrade, which carries the browser's own languages, as a Korean user's Chromium would)
        chromium = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--accept-lang=ko-KR,ko"]
        )
        try:
            yield chromium
        finally:
            await chromium.close()


def manager() -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 7, reconnect_grace=30)


class BrowserPlayer:
    """A tab at the page, read and typed into like an :class:`~tests.ssh_harness.SSHClient`."""

    def __init__(self, page: Page) -> None:
        self.page = page

    async def text(self) -> str:
        return str(await self.page.evaluate(ROWS_JS))

    async def wait_for(self, text: str, timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while text not in (shown := await self.text()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on the page's terminal:\n{shown}")
            await asyncio.sleep(0.05)

    async def press(self, *keys: str) -> None:
        for key in keys:
            await self.page.keyboard.press({" ": "Space", "enter": "Enter"}.get(key, key))

    async def log_in(self, name: str, passphrase: str) -> None:
        """The nickname form; a new name's second prompt (again) is typed when it is asked."""
        page = self.page
        await page.fill("#name", name)
        await page.fill("#passphrase", passphrase)
        await page.click("#enter")
        again = page.locator("#prompt-1")
        terminal = page.locator("#terminal .xterm-rows")
        await again.or_(terminal).first.wait_for(timeout=TIMEOUT * 1000)
        if await again.is_visible():
            assert await page.input_value("#prompt-0") == passphrase  # filled from the form
            await again.fill(passphrase)
            await page.click("#enter")
        await terminal.wait_for(timeout=TIMEOUT * 1000)


async def open_tab(browser: Browser, url: str, size: tuple[int, int], **options: Any) -> Page:
    context = await browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale="ko-KR", **options
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.errors = errors  # type: ignore[attr-defined]
    await page.goto(url)
    return page


async def test_chromium_and_ssh_play_a_whole_hand_joined_by_link(
    tmp_path: Path, browser: Browser
) -> None:
    rooms = manager()
    async with (
        ssh_server(tmp_path, make_app_factory(rooms)) as server,
        web_listener(server) as web,
        AsyncExitStack() as stack,
    ):
        # the SSH host makes a private, unlisted room in the form; his table shows its code
        ssh = await stack.enter_async_context(server.connect("철수", size=(100, 30)))
        await ssh.wait_for("철수님 환영해요")
        await ssh.press("n")
        await ssh.wait_for("새 방 만들기")
        # from the name back past the scrolling form and its two buttons to the last choice,
        # 공개 여부: public → private, listed → private, unlisted
        await ssh.press(*["shift+tab"] * 4, "right", "right", "enter")
        await ssh.wait_for("방 코드 ")
        found = re.search(r"방 코드 ([A-Z0-9]+)", ssh.text)
        assert found is not None, ssh.text
        code = found.group(1)
        room_id = rooms.room_of("철수")
        assert room_id is not None and rooms.room_code(room_id, "철수") == code
        summary = rooms.room(room_id)
        assert summary is not None and summary.private and not summary.listed
        # the friend opens the link he sent: the form says which room, then the table
        page = await open_tab(browser, f"{web.url}/?room={code}", (1200, 760))
        assert await page.text_content("#room-code") == code
        tab = BrowserPlayer(page)
        await tab.log_in("영희", default_passphrase("영희"))
        await tab.wait_for("방장 철수님이 시작하기를")
        assert rooms.room_of("영희") == room_id
        await ssh.wait_for("영희")
        await ssh.press("s")
        await tab.wait_for("· 게임 중 ·")
        await ssh.wait_for("· 게임 중 ·")
        players: dict[str, Any] = {"영희": tab, "철수": ssh}
        view = lambda: public_view(rooms, "영희")  # noqa: E731
        for key in ("3", "4"):  # 삥, then call: the first round is over
            actor = view().get("actor")
            assert actor is not None
            await players[actor].wait_for("내 차례예요")
            await players[actor].press(key)
            await wait_until(lambda a=actor: view().get("actor") != a, TIMEOUT, f"{actor}'s bet")
        await wait_until(lambda: view().get("street") == 1 and view().get("actor"), TIMEOUT)
        for _ in range(2):  # both check the second round: the showdown
            actor = view().get("actor")
            assert actor is not None
            await players[actor].wait_for("내 차례예요")
            await players[actor].press("2")
            await wait_until(lambda a=actor: view().get("actor") != a, TIMEOUT, f"{actor}'s check")
        final = view()
        assert final.get("handPhase") == "handEnd" and final.get("showdown")
        for shown in final["showdown"]:  # both hands, by name, on both screens
            await tab.wait_for(shown["name"])
            await ssh.wait_for(shown["name"])
        for player in players.values():
            await player.press(" ")
        await tab.wait_for("2판/")
        await ssh.wait_for("2판/")
        shot = tmp_path / "browser-table.png"
        await page.screenshot(path=str(shot))
        # (sys.stdout is the in-process apps' while they run: Textual's driver logs its prints)
        print(f"screenshot: {shot}", file=sys.__stdout__, flush=True)
        assert shot.stat().st_size > 10_000
        assert page.errors == []  # type: ignore[attr-defined]
        await page.context.close()


async def test_the_terminal_refits_the_window_and_says_when_it_is_too_small(
    tmp_path: Path, browser: Browser
) -> None:
    factory = ProbeFactory()
    async with ssh_server(tmp_path, factory) as server, web_listener(server) as web:
        page = await open_tab(browser, web.url, (1000, 600))
        tab = BrowserPlayer(page)
        await tab.log_in("영희", default_passphrase("영희"))
        await tab.wait_for("안녕 영희")
        rows, width = await page.evaluate(SIZE_JS)
        assert rows >= 24
        app = lambda: factory.latest("영희")  # noqa: E731
        await wait_until(lambda: app().size.height == rows, TIMEOUT, "the app at the page's rows")
        await tab.press("a", "b")  # keys typed on the page reach the app
        await tab.wait_for("typed=ab")
        # Korean through an input method: a syllable composed (ㅎ, 하, 한), then committed
        cdp = await page.context.new_cdp_session(page)
        for composing in ("ㅎ", "하", "한"):
            await cdp.send(
                "Input.imeSetComposition",
                {"text": composing, "selectionStart": 1, "selectionEnd": 1},
            )
        await cdp.send("Input.insertText", {"text": "한"})
        # (xterm.js reads the committed text a moment later: the next key waits for it, as a
        # typist's would; sent at once under load, it went out first: "글한글")
        await tab.wait_for("typed=ab한")
        await page.keyboard.insert_text("글")  # and text inserted at once (a paste, a phone)
        await tab.wait_for("typed=ab한글")
        await page.set_viewport_size({"width": 1400, "height": 900})
        await wait_until(
            lambda: app().size.height > rows, TIMEOUT, "the app's rows after the refit"
        )
        bigger, wider = await page.evaluate(SIZE_JS)
        assert bigger > rows and wider > width
        await tab.wait_for(f"size={app().size.width}x{bigger}")  # the app's own line, redrawn
        assert await page.locator("#too-small").is_hidden()
        await page.set_viewport_size({"width": 320, "height": 200})  # too small even at 7 px
        await page.locator("#too-small").wait_for(state="visible", timeout=TIMEOUT * 1000)
        await page.set_viewport_size({"width": 740, "height": 360})  # a phone held sideways
        await page.locator("#too-small").wait_for(state="hidden", timeout=TIMEOUT * 1000)
        assert page.errors == []  # type: ignore[attr-defined]
        await page.context.close()


async def test_a_key_held_name_opens_its_one_time_link_in_chromium(
    tmp_path: Path, browser: Browser
) -> None:
    port = free_port()
    factory = make_app_factory(manager())
    async with ssh_server(tmp_path, factory, web_port=port) as server, web_listener(server) as web:
        async with server.connect("철수", key=key_pair(), size=(100, 30)) as ssh:
            await ssh.wait_for("철수님 환영해요")
            url = await make_link(ssh)  # the lobby's u
        assert url.startswith(f"{web.url}/?link=")
        page = await open_tab(browser, url, (1000, 600))
        assert "link=" not in page.url  # spent by the login: taken out of the address bar
        assert "닉네임만 쓰면 돼요" in (await page.text_content("#message") or "")
        await page.fill("#name", "철수")  # no passphrase: the link stands in for the key
        await page.click("#enter")
        tab = BrowserPlayer(page)
        await tab.wait_for("철수님 환영해요")
        await page.reload()  # the same tab again: the link is spent
        await page.fill("#name", "철수")
        await page.click("#enter")
        await page.locator("#message").filter(has_text="SSH 키로").wait_for(timeout=TIMEOUT * 1000)
        assert page.errors == []  # type: ignore[attr-defined]
        await page.context.close()
