"""One-time browser links (issue 35, Identity): a nickname held by an SSH key alone gets into the
browser only with a link its owner made in the ssh lobby (``u``): refused without one, let in
with a fresh one, refused when it is used again or has expired (on the server's injected
clock). Only a login that proved the key gets one (ssh/browser_links.py, seotda_tui/web/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ssh.browser_links import LINK_SECONDS, BrowserLinks, link_base
from seotda_tui.ui.app import make_app_factory

from .ssh_harness import SSHClient, connect, key_pair, ssh_server
from .test_web import free_port
from .webkit import WebHarness, WebRefused, web_listener
from .workerkit import cluster

SIZE = (100, 30)


def test_a_link_is_random_single_use_for_its_name_and_expires() -> None:
    clock = FakeClock()
    links = BrowserLinks(clock)
    first = links.issue("철수")
    assert len(first) >= 32 and first != links.issue("영희")
    assert not links.redeem("영희", first)  # another name: refused, and the link still works
    assert links.redeem("철수", first)
    assert not links.redeem("철수", first)  # once
    old, new = links.issue("철수"), links.issue("철수")
    assert not links.redeem("철수", old) and links.redeem("철수", new)  # the newest only
    late = links.issue("철수")
    clock.advance(LINK_SECONDS)
    assert not links.redeem("철수", late)
    clock.advance(1)
    links.issue("민수")  # (expired links are dropped as new ones are made)
    assert len(links) == 1


def test_the_links_address_is_the_public_origin_or_the_web_listeners() -> None:
    assert link_base(0, None, "0.0.0.0", (), "10.0.0.5") is None  # browser play is off
    assert link_base(8080, None, "0.0.0.0", (), "10.0.0.5") == "http://10.0.0.5:8080/"
    assert link_base(8080, "192.0.2.1", "0.0.0.0", (), "10.0.0.5") == "http://192.0.2.1:8080/"
    assert link_base(8080, None, "::", (), "2001:db8::1") == "http://[2001:db8::1]:8080/"
    origins = ("https://seotda.example", "https://other.example")
    assert link_base(8080, None, "0.0.0.0", origins, "10.0.0.5") == "https://seotda.example/"


async def make_link(ssh: SSHClient) -> str:
    """Press the lobby's u and read the link off the screen."""
    await ssh.press("u")
    await ssh.wait_for("?link=")
    found = re.search(r"http://\S+\?link=[A-Za-z0-9_-]+", ssh.text)
    assert found is not None, ssh.text
    return found.group(0)


async def test_a_key_bound_name_gets_into_the_browser_once_with_a_fresh_link(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    rooms = RoomManager(clock=clock)
    key, port = key_pair(), free_port()
    async with (
        ssh_server(tmp_path, make_app_factory(rooms), clock=clock, web_port=port) as server,
        web_listener(server) as web,
    ):
        async with server.connect("철수", key=key, size=SIZE) as ssh:
            await ssh.wait_for("철수님 환영해요")
            url = await make_link(ssh)
            assert "10분 안에 한 번만" in ssh.text
        assert url.startswith(f"http://127.0.0.1:{port}/?link=")
        token = url.rpartition("=")[2]
        with pytest.raises(WebRefused) as bare:  # no link: refused, and told how to get one
            await web.log_in("철수")
        assert "로비의 u 로 브라우저 링크를" in bare.value.message and not bare.value.prompts
        with pytest.raises(WebRefused) as wrong:
            await web.log_in("철수", link=token[:-2] + ("AA" if token[-2:] != "AA" else "BB"))
        assert "이미 쓰였거나 만료됐어요" in wrong.value.message
        with pytest.raises(WebRefused):  # another nickname's link is not this one's
            await web.log_in("영희", passphrase=None, link=token)
        async with web.connect("철수", link=token, size=SIZE) as browser:  # no prompt at all
            assert browser.prompts == []
            await browser.wait_for("철수님 환영해요")
            await browser.press("u")  # the browser's login proved no key: it makes no link
            await browser.wait_for("SSH 키로 접속했을 때만")
        with pytest.raises(WebRefused) as again:
            await web.log_in("철수", link=token)
        assert "이미 쓰였거나 만료됐어요" in again.value.message
        # a new link, left unused for longer than it lives
        async with server.connect("철수", key=key, size=SIZE) as ssh:
            await ssh.wait_for("철수님 환영해요")
            late = (await make_link(ssh)).rpartition("=")[2]
        clock.advance(LINK_SECONDS + 1)
        with pytest.raises(WebRefused) as expired:
            await web.log_in("철수", link=late)
        assert "이미 쓰였거나 만료됐어요" in expired.value.message
        # a passphrase login over ssh gets no link either (its name logs in with it)
        async with server.connect("민수", size=SIZE) as keyless:
            await keyless.wait_for("민수님 환영해요")
            await keyless.press("u")
            await keyless.wait_for("SSH 키로 접속했을 때만")


async def test_without_a_web_port_the_key_says_browser_play_is_off(tmp_path: Path) -> None:
    async with ssh_server(tmp_path, make_app_factory(RoomManager(clock=FakeClock()))) as server:
        async with server.connect("철수", key=key_pair(), size=SIZE) as ssh:
            await ssh.wait_for("철수님 환영해요")
            await ssh.press("u")
            await ssh.wait_for("브라우저 접속이 꺼져 있어요")


async def test_with_workers_a_link_made_at_one_worker_lets_the_browser_in_at_any(
    tmp_path: Path,
) -> None:
    """The links are kept by the rooms process: the browser may land on another worker than
    the SSH session that made its link (two workers, two links: each login is checked at
    whichever worker the kernel gave it, and each link works once)."""
    key, port = key_pair(), free_port()
    async with cluster(tmp_path, 2, "--web-port", str(port)) as c:
        web = WebHarness(port)
        try:
            for _ in range(2):
                async with connect(c.shared, "철수", key=key, size=SIZE) as ssh:
                    await ssh.wait_for("철수님 환영해요")
                    token = (await make_link(ssh)).rpartition("=")[2]
                async with web.connect("철수", link=token, size=SIZE) as browser:
                    await browser.wait_for("철수님 환영해요")
                with pytest.raises(WebRefused):
                    await web.log_in("철수", link=token)
            await c.wait_log(r"event=connect user=철수 .*via=web")
        finally:
            await web.http.close()
