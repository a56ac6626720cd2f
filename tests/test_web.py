"""The browser's way in (``--web-port``, seotda_tui/web/): a WebSocket client with a pyte screen
(tests/webkit.py, what the page's script does) logs in with the same passphrase rule as SSH,
plays at the same table as a real SSH client, resizes, comes back to its seat, joins by code;
bad origins, oversized frames and junk are refused without harm to the server."""

from __future__ import annotations

import asyncio
import gzip
import logging
import socket
from contextlib import AsyncExitStack
from pathlib import Path

import aiohttp
import pytest

from seotda_tui.cluster.supervisor import WEB_FD
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ui.app import make_app_factory
from seotda_tui.web.server import (
    SECURITY_HEADERS,
    _networks,
    accepted_language,
    client_address,
    origin_allowed,
)
from seotda_tui.web.session import MAX_MESSAGE

from .ssh_harness import (
    ProbeFactory,
    connect,
    key_pair,
    keys_text,
    public_view,
    ssh_server,
    start_game,
    wait_until,
)
from .webkit import WebHarness, WebRefused, web_listener
from .workerkit import cluster

SIZE = (100, 30)


def manager() -> RoomManager:
    return RoomManager(clock=FakeClock(), seed_source=lambda: 7, reconnect_grace=30)


# ------------------------------------------------------------------------- pure parts


def test_client_address_trusts_x_forwarded_for_only_from_a_configured_proxy() -> None:
    trusted = _networks(("127.0.0.1", "10.0.0.0/8"))
    # from a stranger the header is the stranger's own words
    assert client_address("203.0.113.9", "198.51.100.7", trusted) == "203.0.113.9"
    # from the proxy: the last hop the proxies did not write themselves
    assert client_address("127.0.0.1", "198.51.100.7", trusted) == "198.51.100.7"
    assert client_address("127.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3", trusted) == (
        "198.51.100.7"
    )
    assert client_address("127.0.0.1", "not-an-address", trusted) == "127.0.0.1"
    assert client_address("127.0.0.1", None, trusted) == "127.0.0.1"
    assert client_address("::ffff:127.0.0.1", "2001:db8::1", trusted) == "2001:db8::1"


def test_origin_must_be_the_pages_own_host_or_configured() -> None:
    assert origin_allowed("http://game.example:8080", "game.example:8080", ())
    assert not origin_allowed("http://evil.example", "game.example:8080", ())
    assert not origin_allowed("null", "game.example", ())
    assert not origin_allowed("http://game.example", None, ())
    assert origin_allowed("https://seotda.example", "127.0.0.1:8080", ("https://seotda.example",))
    assert origin_allowed(None, "game.example", ())  # not a browser: no page to guard against


def test_accept_language_picks_english_or_korean_by_preference() -> None:
    assert accepted_language("en-US,en;q=0.9,ko;q=0.8") == "en"
    assert accepted_language("ko-KR,ko;q=0.9,en-US;q=0.8") == "ko"
    assert accepted_language("fr-FR,fr;q=0.9,en;q=0.5,ko;q=0.7") == "ko"
    assert accepted_language("de, fr") is None
    assert accepted_language("") is None
    assert accepted_language("en;q=0, ko;q=oops") is None


# ------------------------------------------------------------------------- the page


async def test_the_page_and_its_files_carry_security_headers_and_nothing_else_is_served(
    tmp_path: Path,
) -> None:
    async with ssh_server(tmp_path, ProbeFactory()) as server, web_listener(server) as web:
        async with web.http.get(f"{web.url}/?room=<script>alert(1)</script>") as page:
            assert page.status == 200
            html = await page.text()
            for name, value in SECURITY_HEADERS.items():
                assert page.headers[name] == value
            assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
            assert "script-src 'self';" in page.headers["Content-Security-Policy"]
        assert "<script>alert" not in html and "<script>" not in html  # no inline script
        assert 'src="static/vendor/xterm.js"' in html and "http" not in html.split("<body")[0]
        headers = {"Accept-Encoding": "gzip"}
        async with web.http.get(
            f"{web.url}/static/vendor/xterm.js", headers=headers, auto_decompress=False
        ) as js:
            assert js.status == 200 and js.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(await js.read()).startswith(b"!function")
            assert js.headers["X-Content-Type-Options"] == "nosniff"
        for path in ("/static/../ssh/server.py", "/static/vendor/xterm.js.map", "/web/server.py"):
            async with web.http.get(web.url + path) as missing:
                assert missing.status == 404, path
                assert missing.headers["X-Frame-Options"] == "DENY"


# ------------------------------------------------------------------------- a session


async def test_login_size_korean_input_resize_and_language(tmp_path: Path) -> None:
    factory = ProbeFactory()
    async with ssh_server(tmp_path, factory) as server, web_listener(server) as web:
        headers = {"Accept-Language": "en-GB,en;q=0.9"}
        async with web.connect("영희", size=(90, 30), headers=headers) as browser:
            # a new name: asked for a new passphrase, twice, as over SSH
            (first,) = browser.prompts
            assert first["kinds"] == ["new_passphrase", "again"] and "영희" in first["message"]
            await browser.wait_for("안녕 영희")
            await browser.wait_for("size=90x30")
            await browser.type("안녕")  # UTF-8 in binary frames, split or not
            await browser.send("하".encode()[:2])
            await browser.send("하".encode()[2:])
            await browser.wait_for("typed=안녕하")
            await browser.resize(120, 40)
            await browser.wait_for("size=120x40")
            app = factory.latest("영희")
            assert app.ctx.language.code == "en"
            assert app.ctx.color_system == "truecolor" and app.ctx.term_type == "xterm-256color"
        await wait_until(lambda: factory.latest("영희").disconnects, 15, "the app's end")
        # no Accept-Language on the upgrade (a browser that sends none): the page's languages
        async with web.connect("민수", languages=["en-US", "ko"]) as other:
            await other.wait_for("안녕 민수")
            assert factory.latest("민수").ctx.language.code == "en"
        # the name is now held by its passphrase: a wrong one is asked again, then refused
        with pytest.raises(WebRefused) as refused:
            await web.log_in("영희", passphrase=["틀린-비밀번호-1", "틀린-비밀번호-2", "틀린-3"])
        assert len(refused.value.prompts) == 3 and "틀렸어요" in refused.value.prompts[1]["message"]
        assert refused.value.prompts[0]["kinds"] == ["passphrase"]
        # and the right one gets in, over SSH too
        async with server.connect("영희") as ssh:
            await ssh.wait_for("안녕 영희")


async def test_a_key_bound_nickname_is_refused_from_the_browser(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.server")
    key = key_pair()
    async with ssh_server(tmp_path, ProbeFactory()) as server, web_listener(server) as web:
        async with server.connect("철수", key=key) as ssh:
            await ssh.wait_for("안녕 철수")
        with pytest.raises(WebRefused) as refused:
            await web.log_in("철수")
        assert "SSH 키로 지켜지고 있어서 브라우저에서는 쓸 수 없어요" in refused.value.message
        assert "held by an SSH key" in refused.value.message  # a Korean server says both
        assert refused.value.prompts == []  # no passphrase was asked for
        said = [record_fields(r) for r in caplog.records]
        lines = [f for f in said if f.get("event") == "refused" and f.get("ip") == "127.0.0.1"]
        assert [(f["reason"], f.get("user")) for f in lines] == [("key_only_web", "철수")]


async def test_password_mode_asks_the_server_password_and_keys_mode_lets_no_browser_in(
    tmp_path: Path,
) -> None:
    factory = ProbeFactory()
    async with (
        ssh_server(tmp_path / "pw", factory, password="서버-비밀번호") as server,
        web_listener(server) as web,
    ):
        with pytest.raises(WebRefused) as wrong:
            await web.log_in("영희", password="틀린-서버-비밀번호")
        assert "서버 비밀번호가 틀렸어요" in wrong.value.prompts[1]["message"]
        assert wrong.value.prompts[0]["kinds"] == ["server_password", "new_passphrase", "again"]
        async with web.connect("영희", password="서버-비밀번호") as browser:
            await browser.wait_for("안녕 영희")
    keys = tmp_path / "authorized_keys"
    keys.write_text(keys_text([key_pair()]))
    async with (
        ssh_server(tmp_path / "keys", factory, authorized_keys=keys) as server,
        web_listener(server) as web,
    ):
        with pytest.raises(WebRefused) as refused:
            await web.log_in("영희")
        assert "허용된 SSH 키로만" in refused.value.message and not refused.value.prompts
        assert server.handle.state.policy.store.holder("영희") is None  # no name taken


async def test_web_and_ssh_sessions_share_the_per_address_limit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seotda.server")
    factory = ProbeFactory()
    async with (
        ssh_server(tmp_path, factory, max_sessions_per_ip=1) as server,
        web_listener(server) as web,
    ):
        async with server.connect("철수") as ssh:
            await ssh.wait_for("안녕 철수")
            with pytest.raises(WebRefused) as refused:
                await web.log_in("영희")
            assert "1명까지" in refused.value.message
            server.handle.state.flush_refusals()  # (a repeat would be counted in a summary)
            said = [record_fields(r) for r in caplog.records]
            lines = [f for f in said if f.get("reason") == "ip_full"]
            assert [(f["event"], f.get("user")) for f in lines] == [("refused", "영희")]
        await wait_until(lambda: not server.handle.state.sessions, 15, "the SSH session's end")
        await wait_until(lambda: server.handle.state.admitted == 0, 15, "its place given back")
        async with web.connect("영희") as browser:
            await browser.wait_for("안녕 영희")


# ------------------------------------------------------------------------- hostile input


async def test_bad_origin_oversized_frames_and_junk_are_refused_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    factory = ProbeFactory()
    async with ssh_server(tmp_path, factory) as server, web_listener(server) as web:
        with pytest.raises(aiohttp.WSServerHandshakeError) as bad:
            await web.open(origin="http://evil.example")
        assert bad.value.status == 403
        # binary junk instead of a login: refused, closed
        ws = await web.open()
        await ws.send_bytes(b"\x00\xff\x1b[999999999;1H" * 10)
        reply = await asyncio.wait_for(ws.receive(), 10)
        assert reply.type == aiohttp.WSMsgType.TEXT and reply.json()["type"] == "refused"
        await ws.close()
        # a frame over the limit: closed with 1009 (message too big), before or after login
        ws = await web.open()
        await ws.send_bytes(b"x" * (MAX_MESSAGE + 1))
        closing = await asyncio.wait_for(ws.receive(), 10)
        assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 1009
        async with web.connect("영희") as browser:
            await browser.wait_for("안녕 영희")
            await browser.ws.send_str("{not json")
            await browser.ws.send_str('{"type": "resize", "cols": "wide", "rows": -5}')
            # a control frame longer than any resize is not even read
            await browser.ws.send_str('{"type": "resize", "cols": 50, "rows": 20}' + " " * 300)
            await asyncio.sleep(0.5)  # (window changes are coalesced 0.1 s apart)
            await browser.resize(90, 26)
            await browser.wait_for("size=90x26")
            assert b"size=50x20" not in browser.output
            # junk to the terminal parser (all but ctrl+c and ctrl+q, which quit the ProbeApp)
            await browser.send(bytes(b for b in range(256) if b not in (3, 17)) * 2)
            await browser.resize(95, 27)
            await browser.wait_for("size=95x27")  # the app still answers
            await browser.ws.send_bytes(b"z" * (MAX_MESSAGE + 1))
            await browser.wait_closed()
            assert browser.close_code == 1009
        # (the ProbeApp first works through the junk's keys, 8x took 2.5 s under load: generous)
        await wait_until(lambda: not server.handle.state.sessions, 20, "the session's end")
        async with web.connect("영희") as again:  # the server is fine, and so is the name
            await again.wait_for("안녕 영희")
            await again.type("ok")
            await again.wait_for("typed=ok")


# ------------------------------------------------------------------------- the game


async def test_a_hand_between_a_browser_and_an_ssh_player_then_the_browser_comes_back(
    tmp_path: Path,
) -> None:
    rooms = manager()
    async with (
        ssh_server(tmp_path, make_app_factory(rooms)) as server,
        web_listener(server) as web,
        AsyncExitStack() as stack,
    ):
        browser = await stack.enter_async_context(web.connect("영희", size=SIZE))
        ssh = await stack.enter_async_context(server.connect("철수", size=SIZE))
        clients = {"영희": browser, "철수": ssh}
        await browser.wait_for("영희님 환영해요")
        await ssh.wait_for("철수님 환영해요")
        await start_game(browser, "영희", ssh)
        view = lambda: public_view(rooms, "영희")  # noqa: E731
        for _ in range(2):  # 삥, then call: the first round is over
            actor = view().get("actor")
            assert actor is not None
            await clients[actor].wait_for("내 차례예요")
            await clients[actor].press("3" if _ == 0 else "4")
            await wait_until(lambda actor=actor: view().get("actor") != actor, what="the bet")
        await wait_until(lambda: view().get("street") == 1 and view().get("actor") is not None)
        for _ in range(2):  # both check the second round: the showdown
            nick = view().get("actor")
            assert nick is not None
            await clients[nick].wait_for("내 차례예요")
            await clients[nick].press("2")
            await wait_until(lambda nick=nick: view().get("actor") != nick, what=f"{nick}'s check")
        final = view()
        assert final.get("handPhase") == "handEnd" and final.get("showdown")
        for client in clients.values():  # every revealed hand, by name, on both screens
            for shown in final["showdown"]:
                await client.wait_for(shown["name"])
        for client in clients.values():
            await client.press(" ")
        await browser.wait_for("2판/20판")
        # the browser's tab is closed mid-game: its seat is kept, and a new tab sits in it
        await browser.close()
        offline = lambda: "영희" in rooms.room(rooms.room_of("영희")).offline  # noqa: E731
        await wait_until(offline, 15, "the seat kept for the closed tab")
        back = await stack.enter_async_context(web.connect("영희", size=SIZE))
        await back.wait_for("· 게임 중 ·")
        await wait_until(lambda: not offline(), 15, "the new tab in the seat")
        assert rooms.room_of("영희") == rooms.room_of("철수")


async def test_direct_join_by_code_and_a_wrong_code_lands_in_the_lobby(tmp_path: Path) -> None:
    rooms = manager()
    room = rooms.create_room("영희", "숨은 방", {}, private=True, listed=False)
    code = rooms.room_code(room.id, "영희")
    assert code is not None
    async with ssh_server(tmp_path, make_app_factory(rooms)) as server, web_listener(server) as web:
        async with web.connect("철수", room=code.lower()) as browser:
            await browser.wait_for("방장 영희님이 시작하기를")
            assert rooms.room_of("철수") == room.id
        wrong = "Z" * len(code) if code != "Z" * len(code) else "Y" * len(code)
        async with web.connect("민수", room=f"#{wrong}"[1:]) as lost:
            await lost.wait_for(f"'{wrong}' 방을 찾지 못했어요")
            assert rooms.room_of("민수") is None


async def test_a_shutdown_says_goodbye_to_the_browser_and_closes_its_socket(
    tmp_path: Path,
) -> None:
    factory = ProbeFactory()
    async with ssh_server(tmp_path, factory) as server, web_listener(server) as web:
        browser = await web.log_in("영희")
        await browser.wait_for("안녕 영희")
        await server.stop()  # what SIGTERM does (cli/process.py), the web sessions with the rest
        await browser.wait_for_output("서버 점검으로 잠시 후 종료돼요")
        await browser.wait_closed()
        assert factory.latest("영희").disconnects == ["server_shutdown"]
        await browser.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_with_workers_browser_sessions_live_in_the_workers_at_the_same_rooms(
    tmp_path: Path,
) -> None:
    port = free_port()
    async with cluster(tmp_path, 2, "--web-port", str(port)) as c:
        assert f"event=web_listening addr=127.0.0.1:{port}" in c.text()
        web = WebHarness(port)
        try:
            async with AsyncExitStack() as stack:
                browser = await stack.enter_async_context(web.connect("영희", size=SIZE))
                ssh = await stack.enter_async_context(connect(c.shared, "철수", size=SIZE))
                await browser.wait_for("영희님 환영해요")
                await ssh.wait_for("철수님 환영해요")
                await start_game(browser, "영희", ssh)  # one table, through the rooms process
                await c.wait_log(r"event=connect user=영희 .*via=web")
                # the page's socket is the parent's, held by the workers alone (the parent runs
                # no session, the rooms process has no socket): the session is in a worker
                children = c.children()
                assert len(children["worker"]) == 2
                for role, pids in children.items():
                    for pid in pids:
                        environ = Path(f"/proc/{pid}/environ").read_bytes()
                        assert (WEB_FD.encode() + b"=" in environ) == (role == "worker")
        finally:
            await web.http.close()


async def test_an_idle_browser_is_warned_then_let_go_as_over_ssh(tmp_path: Path) -> None:
    factory, clock = ProbeFactory(), FakeClock()
    async with (
        ssh_server(tmp_path, factory, clock=clock, idle_timeout=60.0, idle_warning=20.0) as server,
        web_listener(server) as web,
        web.connect("영희") as browser,
    ):
        await browser.wait_for("안녕 영희")
        clock.advance(40)
        await browser.wait_for_output("자동으로")  # the in-app warning
        await browser.type("a")  # a key from the page keeps it
        await browser.wait_for("typed=a")
        clock.advance(59)
        await browser.type("b")
        await browser.wait_for("typed=ab")
        clock.advance(60)
        await browser.wait_closed()
        assert "입력이 없어서 연결을 끊었어요" in browser.output_text
        assert factory.latest("영희").disconnects == ["idle"]


async def test_a_crash_in_a_browsers_app_ends_that_session_only(tmp_path: Path) -> None:
    factory = ProbeFactory()
    async with (
        ssh_server(tmp_path, factory) as server,
        web_listener(server) as web,
        server.connect("철수") as ssh,
        web.connect("영희") as browser,
    ):
        await ssh.wait_for("안녕 철수")
        await browser.wait_for("안녕 영희")
        await browser.type("!")  # the ProbeApp raises
        await browser.wait_closed(timeout=15)
        assert "문제가 생겨 게임 화면을 닫았어요" in browser.output_text
        assert factory.latest("영희").disconnects == ["app_crashed"]
        await ssh.type("x")  # the SSH player beside it goes on
        await ssh.wait_for("typed=x")
