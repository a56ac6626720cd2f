"""One browser tab's WebSocket: a login like a keyless SSH login, then one player's session.

The wire protocol (one WebSocket at ``/ws``; every frame at most :data:`MAX_MESSAGE` bytes, a
larger one closes the socket with 1009):

Login (text frames, JSON objects, before anything else):

* browser → server, first: ``{"type": "login", "name": "철수", "room": "K7QX3",
  "cols": 120, "rows": 40, "languages": ["ko-KR", "en"], "link": "…"}``: the nickname, the
  room to go straight to (``?room=`` or ``#`` in the page's address; optional), the terminal's
  size, the browser's languages (``navigator.languages``: used when the upgrade request had no
  ``Accept-Language``), a one-time browser link's token (``?link=``; optional: only for a
  nickname held by an SSH key alone, which then gets in with no prompt);
* server → browser: ``{"type": "prompts", "message": "…", "prompts": ["닉네임 비밀번호 …", …],
  "kinds": ["passphrase"]}``: what a keyless SSH login's keyboard-interactive round asks (the
  nickname's passphrase; on first use a new one, twice; in ``--password`` mode the server
  password first), with the round's explanation, and what each prompt is (``server_password``,
  ``passphrase``, ``new_passphrase``, ``again``); asked again after a wrong answer, at most
  three rounds;
* browser → server: ``{"type": "answers", "answers": ["…", …]}``, one per prompt;
* server → browser: ``{"type": "ready"}`` (logged in: the terminal starts) or
  ``{"type": "refused", "message": "…"}`` followed by the close.

Then the terminal:

* binary frames, both ways: terminal bytes (UTF-8 text, escape sequences, mouse reports),
  exactly what an SSH channel carries;
* browser → server text frame ``{"type": "resize", "cols": 100, "rows": 30}``: a window change;
  any other text frame is ignored.

The server closes the socket when the session ends (its goodbye line is the last binary frame).
Every check is the SSH one on the same objects (:class:`~seotda_tui.ssh.server_state.ServerState`):
banned addresses, the connection rate and jail, the pending-login table, the passphrase
dialogue (:class:`~seotda_tui.ssh.keyless.KeylessLogin`: its name lock, hash line and
new-name limit), ``max_sessions``/``max_sessions_per_ip`` counted together with SSH logins. A
nickname held by an SSH key alone is refused here (a browser has no key) unless the login
carries a live one-time link its owner made over SSH (the lobby's ``u``,
:mod:`~seotda_tui.ssh.browser_links`): then it gets in as that key's login would, once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from ..i18n import ENGLISH, KOREAN, N_
from ..sanitize import clean_text, split_login
from ..ssh.auth import Proof
from ..ssh.bans import MSG_BANNED_ADDRESS
from ..ssh.keyless import KeylessLogin
from ..ssh.player import PlayerSession
from ..ssh.server_state import ServerState
from ..ssh.state import SessionContext

log = logging.getLogger("seotda.web")

#: The largest frame either way before login or after (bytes): a key, a paste's piece, a
#: mouse report, a login. Pastes arrive in pieces (xterm.js sends what it is given at once,
#: and the input cap drops what is over ``input_burst`` anyway).
MAX_MESSAGE = 64 * 1024
#: The longest text frame after login that is read at all (a resize message is ~40 bytes).
MAX_CONTROL = 256
#: Wrong passphrases on one socket, then it is closed (as an SSH connection's).
MAX_FAILURES = 6
_AUTH_FAIL_DELAY = 0.3
#: What a browser's terminal is: xterm.js speaks xterm with 24-bit colour.
TERM = "xterm-256color"
ENV = {"TERM": TERM, "COLORTERM": "truecolor"}

MSG_BUSY = N_(
    "지금은 들어올 수 없어요 (접속이 너무 많거나 너무 자주 접속했어요). 잠시 뒤에 다시 해 주세요."
)
MSG_JAILED = N_("로그인 실패가 너무 많아서 이 주소는 잠시 막혔어요. 잠시 뒤에 다시 해 주세요.")
MSG_KEY_ONLY_WEB = N_(
    "'{name}' 닉네임은 SSH 키로 지켜지고 있어서 브라우저에서는 쓸 수 없어요. "
    "그 키로 ssh 로 접속해서 로비의 u 로 브라우저 링크를 만들거나 다른 닉네임을 써 주세요."
)
MSG_LINK_SPENT = N_(
    "이 브라우저 링크는 이미 쓰였거나 만료됐어요 (10분, 한 번만). "
    "ssh 로비의 u 로 새 링크를 만들어 주세요."
)
MSG_KEYS_ONLY_SERVER = N_(
    "이 서버는 허용된 SSH 키로만 들어올 수 있어서 브라우저로는 접속할 수 없어요. ssh 로 접속해 주세요."
)
MSG_BAD_LOGIN = N_("로그인 정보를 읽을 수 없어요. 페이지를 새로 고친 뒤 다시 해 주세요.")
MSG_LOGIN_TIMEOUT = N_("로그인을 제한 시간 안에 마치지 못했어요. 다시 해 주세요.")
MSG_WRONG_TOO_OFTEN = N_("비밀번호가 여러 번 틀려서 접속을 끊어요.")
MSG_REFUSED = N_("접속할 수 없어요.")


def accepted_language(header: str) -> str | None:
    """English or Korean from an ``Accept-Language`` header: the first of the two by the
    browser's order of preference (None: it names neither)."""
    best: tuple[float, int, str] | None = None
    for index, part in enumerate(header.split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip().lower()
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        code = ENGLISH if tag.startswith("en") else KOREAN if tag.startswith("ko") else None
        if code is None or quality <= 0:
            continue
        if best is None or (-quality, index) < (-best[0], best[1]):
            best = (quality, index, code)
    return best[2] if best is not None else None


class LoginFailed(Exception):
    """The login ended without a player: ``reason`` for the log (one ``refused`` line, none
    for ``client_left`` or ``jailed``, whose ``jailed`` line is out already), ``message`` for the
    page, ``user`` the nickname it asked for, once known."""

    def __init__(self, reason: str, message: str, user: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.message = message
        self.user = user


@dataclass
class Login:
    """A logged-in browser: its nickname, the passphrase it proved, where it goes, its size."""

    name: str
    proof: Proof | None
    room: str | None
    size: tuple[int, int]
    languages: str = ""  # what the page said navigator.languages are, as Accept-Language
    key: str | None = None  # the SSH key a one-time browser link stood in for


def _languages(data: dict[str, Any]) -> str:
    value = data.get("languages")
    if not isinstance(value, list):
        return ""
    return ",".join(item[:35] for item in value[:8] if isinstance(item, str))


def _size(data: dict[str, Any]) -> tuple[int, int]:
    cols, rows = data.get("cols"), data.get("rows")
    if not isinstance(cols, int) or not isinstance(rows, int) or isinstance(cols, bool):
        return 80, 24
    return cols, rows


async def _message(
    ws: web.WebSocketResponse, until: float, say: Callable[[str], str]
) -> dict[str, Any]:
    """The next JSON object from the browser before ``until`` (loop time)."""
    left = until - asyncio.get_running_loop().time()
    try:
        msg = await asyncio.wait_for(ws.receive(), max(0.0, left))
    except TimeoutError:
        raise LoginFailed("login_timeout", say(MSG_LOGIN_TIMEOUT)) from None
    if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
        raise LoginFailed("client_left", "")
    if msg.type != WSMsgType.TEXT:
        raise LoginFailed("bad_message", say(MSG_BAD_LOGIN))
    try:
        data = json.loads(msg.data)
    except ValueError:
        raise LoginFailed("bad_message", say(MSG_BAD_LOGIN)) from None
    if not isinstance(data, dict):
        raise LoginFailed("bad_message", say(MSG_BAD_LOGIN))
    return data


class PendingWebLogin:
    """A browser not logged in yet, in the listener's pending-login table (shared with SSH)."""

    def __init__(self, peer_ip: str, ws: web.WebSocketResponse) -> None:
        self.peer_ip = peer_ip
        self._ws = ws
        self.stage = 1  # 1: connected, 2: answering the passphrase prompts

    def progress(self) -> int:
        return self.stage

    def evict(self) -> None:
        asyncio.get_running_loop().create_task(self._ws.close(code=1013))


def _prompt_kinds(count: int, *, server_password: bool) -> list[str]:
    """What each prompt of a keyless round asks, for the page (it fills the passphrase typed in
    its form into the right field): KeylessLogin's order, the server password first if any,
    then the passphrase, or a new one and again."""
    kinds = ["server_password"] if server_password else []
    left = count - len(kinds)
    kinds += ["passphrase"] if left == 1 else ["new_passphrase", "again"][:left]
    return kinds + ["other"] * (count - len(kinds))


async def log_in(
    ws: web.WebSocketResponse, state: ServerState, ip: str, pending: PendingWebLogin
) -> Login:
    """The login dialogue (see the module's protocol); raises :class:`LoginFailed`.

    On success the login is counted against ``max_sessions``/``max_sessions_per_ip`` (the
    caller gives its place back with ``state.limits.release(ip)``)."""
    policy = state.policy
    loop = asyncio.get_running_loop()
    until = loop.time() + (state.settings.login_grace or 60.0)
    first = await _message(ws, until, policy.say)
    name = first.get("name")
    if first.get("type") != "login" or not isinstance(name, str):
        raise LoginFailed("bad_message", policy.say(MSG_BAD_LOGIN))
    room = first.get("room")
    name = name.strip()[:64]
    room_text = clean_text(room.strip(), 64) if isinstance(room, str) else ""
    nickname, target = split_login(f"{name}+{room_text}" if room_text else name)
    holder = policy.name_state(nickname).holder
    if holder is not None and holder.passphrase is None and holder.key_fingerprint is not None:
        key = holder.key_fingerprint
        link = first.get("link")
        if not isinstance(link, str) or not link:
            message = policy.say(MSG_KEY_ONLY_WEB, name=nickname)
            raise LoginFailed("key_only_web", message, nickname)
        if not state.limits.redeem_browser_link(nickname, link[:128]):
            if state.auth_failed(ip, nickname, "web-link") or state.jail_remaining(ip) > 0:
                raise LoginFailed("jailed", policy.say(MSG_JAILED), nickname)
            raise LoginFailed("link_spent", policy.say(MSG_LINK_SPENT), nickname)
        refusal = state.check_login(ip, nickname, key, None)
        if refusal is not None:
            raise LoginFailed(*refusal, nickname)
        return Login(nickname, None, target, _size(first), _languages(first), key)
    if not policy.keyless_allowed:  # --authorized-keys without a password: keys only
        raise LoginFailed("keys_only", policy.say(MSG_KEYS_ONLY_SERVER), nickname)
    if holder is not None and holder.passphrase is None:
        message = policy.say(MSG_KEY_ONLY_WEB, name=nickname)
        raise LoginFailed("key_only_web", message, nickname)
    pending.stage = 2
    keyless = KeylessLogin(policy, nickname, ip)
    challenge = keyless.start()
    if keyless.refusal is not None:
        raise LoginFailed("name_locked", keyless.refusal, nickname)
    proof: Proof | None = None
    failures = 0
    while challenge is not True:
        if challenge is False:
            raise LoginFailed("keyless_auth", policy.say(MSG_REFUSED), nickname)
        _name, _instructions, _lang, prompts = challenge
        texts = [text for text, _echo in prompts]
        message, _, first_prompt = texts[0].rpartition("\n") if texts else ("", "", "")
        if texts:
            texts[0] = first_prompt
        kinds = _prompt_kinds(len(texts), server_password=policy.password is not None)
        await ws.send_json(
            {"type": "prompts", "message": message, "prompts": texts, "kinds": kinds}
        )
        reply = await _message(ws, until, policy.say)
        answers = reply.get("answers")
        if (
            reply.get("type") != "answers"
            or not isinstance(answers, list)
            or not all(isinstance(a, str) for a in answers)
        ):
            raise LoginFailed("bad_message", policy.say(MSG_BAD_LOGIN))
        verdict = await keyless.answer([a[:1024] for a in answers])
        if verdict.accepted:
            proof = verdict.proof
            break
        if verdict.failed:
            failures += 1
            if state.auth_failed(ip, nickname, "web-passphrase") or state.jail_remaining(ip) > 0:
                raise LoginFailed("jailed", policy.say(MSG_JAILED), nickname)
            await asyncio.sleep(_AUTH_FAIL_DELAY)
        if verdict.retry is not None and failures < MAX_FAILURES and not verdict.hang_up:
            challenge = verdict.retry
            continue
        reason = "password_guessing" if verdict.failed else "keyless_auth"
        raise LoginFailed(reason, verdict.banner or policy.say(MSG_WRONG_TOO_OFTEN), nickname)
    refusal = state.check_login(ip, nickname, None, proof)
    if refusal is not None:
        raise LoginFailed(*refusal, nickname)
    return Login(nickname, proof, target, _size(first), _languages(first))


class WebSession(PlayerSession):
    """A browser's session: the terminal bytes ride binary WebSocket frames."""

    kind = "web"

    def __init__(
        self,
        state: ServerState,
        ws: web.WebSocketResponse,
        login: Login,
        peer_ip: str,
        *,
        language: str | None,
        client: str,
        abort: Callable[[], None],
    ) -> None:
        super().__init__(state, login.name, peer_ip, client=client)
        self._ws = ws
        self._proof = login.proof
        self._key = login.key  # (a one-time link's: this session makes no links itself)
        self._room = login.room
        self._abort_socket = abort
        self._term = TERM
        self._link.resize(*login.size)
        if language is not None:
            self.language.set(language)
        self._out = bytearray()
        self._wake = asyncio.Event()
        self._closing = False

    # -- the socket -----------------------------------------------------------------------

    def _transport_write(self, data: bytes) -> None:
        self._out += data
        self._wake.set()

    def _pending_output(self) -> int:
        return len(self._out)

    def _transport_closing(self) -> bool:
        return self._closing or self._ws.closed

    def _abort(self) -> None:
        self._closing = True
        self._abort_socket()

    def _close(self, status: int) -> None:
        self._closing = True
        self._wake.set()

    async def send_loop(self) -> None:
        """Write what the app painted, as one frame per batch, until the session closes it."""
        ws = self._ws
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._out and not ws.closed:
                data = bytes(self._out)
                self._out.clear()
                try:
                    await ws.send_bytes(data)
                except (ConnectionError, RuntimeError):
                    self.lost()
                    return
            if self._closing and not self._out:
                await ws.close()
                return

    def control(self, text: str) -> None:
        """A text frame after login: a resize; anything else is ignored (unread if long: a
        resize is a few dozen bytes, and the input cap counts only the terminal's bytes)."""
        if len(text) > MAX_CONTROL:
            return
        try:
            data = json.loads(text)
        except ValueError:
            return
        if isinstance(data, dict) and data.get("type") == "resize":
            self.resized(*_size(data))

    # -- admission -------------------------------------------------------------------------

    async def _admit(self) -> SessionContext | None:
        policy = self._state.policy
        admission = policy.admit(self._username, self._key, self._peer_ip, self._proof)
        if admission.identity is None:
            await self._refuse(admission.refusal or self.say(MSG_REFUSED), admission.code or "")
            return None
        return await self._enter(admission.identity, dict(ENV), self._room)


async def serve_socket(
    ws: web.WebSocketResponse,
    state: ServerState,
    ip: str,
    *,
    accept_language: str,
    client: str,
    abort: Callable[[], None],
) -> None:
    """One WebSocket from its first frame to its close: the login, then the session (in the
    language of ``accept_language``, the upgrade request's header, else of the page's)."""
    policy = state.policy
    reason = state.check_new_connection(ip)
    bans = state.bans
    network = bans.address_ban(ip) if bans is not None else None
    if network is not None:
        state.refused(ip, "banned_address", ban=network)
        await _refuse(ws, policy.say(MSG_BANNED_ADDRESS))
        return
    pending = PendingWebLogin(ip, ws)
    evicted = None
    if reason is None:
        reason, evicted = state.pending.admit(ip, pending)
    if reason is not None:
        state.refused(ip, reason)
        await _refuse(ws, policy.say(MSG_JAILED if reason == "jailed" else MSG_BUSY))
        return
    if evicted is not None:
        state.refused(evicted.peer_ip, "evicted", by=ip)
        evicted.evict()
    try:
        login = await log_in(ws, state, ip, pending)
    except LoginFailed as failed:
        if failed.reason not in ("client_left", "jailed"):
            fields = {"user": failed.user} if failed.user else {}
            state.refused(ip, failed.reason, **fields)
        await _refuse(ws, failed.message)
        return
    finally:
        state.pending.discard(pending)
    if state.shutting_down:  # (it began while this login was answering its prompts)
        state.limits.release(ip)
        await _refuse(ws, policy.say(MSG_BUSY))
        return
    state.admitted += 1
    try:
        language = accepted_language(accept_language) or accepted_language(login.languages)
        await _play(ws, state, login, ip, language=language, client=client, abort=abort)
    finally:
        state.admitted -= 1
        state.limits.release(ip)


async def _play(
    ws: web.WebSocketResponse,
    state: ServerState,
    login: Login,
    ip: str,
    *,
    language: str | None,
    client: str,
    abort: Callable[[], None],
) -> None:
    session = WebSession(state, ws, login, ip, language=language, client=client, abort=abort)
    await ws.send_json({"type": "ready"})
    sender = asyncio.get_running_loop().create_task(session.send_loop())
    session.start()
    try:
        async for msg in ws:
            if msg.type == WSMsgType.BINARY:
                session.received(msg.data)
            elif msg.type == WSMsgType.TEXT:
                session.control(msg.data)
    finally:
        session.lost()
        sender.cancel()


async def _refuse(ws: web.WebSocketResponse, message: str) -> None:
    """Say why (if the socket is still open), then close it."""
    if ws.closed:
        return
    try:
        if message:
            await ws.send_json({"type": "refused", "message": message})
        await ws.close(code=1008 if message else 1000)
    except (ConnectionError, RuntimeError):
        pass
