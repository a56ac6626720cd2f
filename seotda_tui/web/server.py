"""``--web-port N``: the browser's way in, an aiohttp listener in the game's own process.

It serves one page (``static/index.html``: a nickname form and a terminal drawn by the vendored
xterm.js, ``static/vendor/``) and one WebSocket (``/ws``) per player, each a session exactly like
an SSH channel (:mod:`.session`) on the SSH listener's own state: the same rooms, limits, auth
store, registry and shutdown. Nothing on the page comes from the request: the files are read once
at start-up and served as they are (gzip when the browser takes it), with security headers on
every answer (:data:`SECURITY_HEADERS`). The WebSocket is refused to a page from another origin
(:func:`origin_allowed`), and the client's address is the socket's peer unless that peer is a
configured trusted proxy (:func:`client_address`).
"""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import logging
import socket
from dataclasses import dataclass, field
from importlib import resources
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler

from ..config import Settings
from ..logs import log_event
from ..sanitize import clean_text
from ..ssh.server_state import ServerState
from .session import MAX_MESSAGE, accepted_language, serve_socket

__all__ = ["accepted_language", "build_app", "client_address", "origin_allowed", "start_web"]

log = logging.getLogger("seotda.web")

#: No inline script, nothing from elsewhere, never in a frame. Styles may be inline: xterm.js
#: sets its theme and measures with <style> elements it creates itself.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

#: The files the page needs, by the path it asks for: (file in the package, content type).
FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
    "/static/vendor/xterm.js": ("vendor/xterm.js", "text/javascript; charset=utf-8"),
    "/static/vendor/xterm.css": ("vendor/xterm.css", "text/css; charset=utf-8"),
    "/static/vendor/addon-fit.js": ("vendor/addon-fit.js", "text/javascript; charset=utf-8"),
}

#: Seconds a closing listener gives open WebSockets (the sessions were ended before).
_SHUTDOWN_TIMEOUT = 1.0


@dataclass(frozen=True)
class _File:
    body: bytes
    gzipped: bytes
    content_type: str


def load_files() -> dict[str, _File]:
    """The page's files, read from the package once."""
    root = resources.files(__package__).joinpath("static")
    files = {}
    for path, (name, content_type) in FILES.items():
        body = root.joinpath(name).read_bytes()
        files[path] = _File(body, gzip.compress(body, 9, mtime=0), content_type)
    return files


def _networks(items: tuple[str, ...]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(item, strict=False) for item in items]


def _within(ip: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return any(addr in net for net in networks)


def client_address(
    peer: str,
    forwarded_for: str | None,
    trusted: list[ipaddress.IPv4Network | ipaddress.IPv6Network],
) -> str:
    """The player's address: the socket's peer, unless the peer is a trusted proxy; then the
    last address in ``X-Forwarded-For`` that is not itself a trusted proxy (what the first
    proxy saw; anything to its left was written by the client and may be made up)."""
    if not forwarded_for or not _within(peer, trusted):
        return peer
    for hop in reversed(forwarded_for.split(",")[-16:]):
        hop = hop.strip()
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a malformed header: trust nothing in it
        if not _within(hop, trusted):
            return hop
    return peer


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket from a page on ``origin`` may be opened: the page's own host (the
    ``Host`` it asked) or a configured origin. No ``Origin`` at all is not a browser (every
    browser sends one with a WebSocket), so there is no other site's page to guard against."""
    if origin is None:
        return True
    origin = origin.strip().lower()
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and host is not None and parts.netloc == host.lower()


@dataclass(eq=False)
class WebServer:
    """The running listener: its port, and how to stop it."""

    port: int
    runner: web.AppRunner
    sites: list[web.BaseSite] = field(default_factory=list)

    async def stop_accepting(self) -> None:
        for site in self.sites:
            await site.stop()
        self.sites.clear()

    async def close(self) -> None:
        await self.stop_accepting()
        await self.runner.cleanup()


def build_app(state: ServerState) -> web.Application:
    """The routes: the page's files and ``/ws``."""
    settings = state.settings
    files = load_files()
    trusted = _networks(settings.web_trusted_proxies)

    @web.middleware
    async def headers(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            for name, value in SECURITY_HEADERS.items():
                exc.headers.setdefault(name, value)
            raise
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    async def page(request: web.Request) -> web.StreamResponse:
        item = files.get(request.path)
        if item is None:
            raise web.HTTPNotFound()
        zipped = "gzip" in request.headers.get("Accept-Encoding", "")
        response = web.Response(body=item.gzipped if zipped else item.body)
        response.headers["Content-Type"] = item.content_type
        response.headers["Vary"] = "Accept-Encoding"
        response.headers["Cache-Control"] = "no-cache" if request.path == "/" else "max-age=3600"
        if zipped:
            response.headers["Content-Encoding"] = "gzip"
        return response

    async def socket_(request: web.Request) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        peer_ip = str(peer[0]) if peer else ""
        ip = client_address(peer_ip, request.headers.get("X-Forwarded-For"), trusted)
        host = request.headers.get("Host")
        if _within(peer_ip, trusted):
            host = request.headers.get("X-Forwarded-Host", host)
        if not origin_allowed(request.headers.get("Origin"), host, settings.web_allowed_origins):
            state.refused(ip, "bad_origin", origin=clean_text(request.headers["Origin"], 80))
            raise web.HTTPForbidden(text="origin not allowed\n")
        ws = web.WebSocketResponse(
            max_msg_size=MAX_MESSAGE,
            heartbeat=settings.keepalive_interval or None,
            compress=False,
        )
        await ws.prepare(request)
        transport = request.transport

        def abort() -> None:
            if transport is not None:
                transport.abort()

        await serve_socket(
            ws,
            state,
            ip,
            accept_language=request.headers.get("Accept-Language", ""),
            client=clean_text(request.headers.get("User-Agent", ""), 128),
            abort=abort,
        )
        return ws

    app = web.Application(middlewares=[headers], client_max_size=MAX_MESSAGE)
    app.router.add_get("/ws", socket_)
    for path in FILES:
        app.router.add_get(path, page)
    return app


async def start_web(state: ServerState, sock: socket.socket | None = None) -> WebServer:
    """Listen on ``web_host:web_port`` (or on ``sock``, a worker's inherited socket)."""
    settings: Settings = state.settings
    runner = web.AppRunner(
        build_app(state),
        access_log=None,
        handle_signals=False,
        shutdown_timeout=_SHUTDOWN_TIMEOUT,
    )
    await runner.setup()
    host = settings.web_host if settings.web_host is not None else settings.host
    site: web.BaseSite
    if sock is not None:
        site = web.SockSite(runner, sock)
    else:
        site = web.TCPSite(runner, host or None, settings.web_port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    server = getattr(site, "_server", None)
    sockets = getattr(server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else settings.web_port
    if sock is None:
        log_event(log, "web_listening", addr=f"{host}:{port}")
    await asyncio.sleep(0)
    return WebServer(port, runner, [site])
