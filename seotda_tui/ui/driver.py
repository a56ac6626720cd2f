"""A Textual driver whose terminal is one SSH channel, so many apps share one process.

Textual's own Linux driver owns the process's tty: it reads stdin in a thread,
installs SIGWINCH/SIGTSTP handlers and changes termios. None of that is
per-player, so this driver does none of it: bytes arrive from asyncssh on the
event loop, go through an incremental UTF-8 decoder (Hangul can be split
across packets) into Textual's ``XTermParser`` (see ``tuning/xterm_parser.py``), and output
goes back to the channel. Window-change requests become ``Resize`` events.

:func:`prepare_app` also neutralises the few process-wide things
``App.run_async`` does (see its docstring), and sets the colour depth from the
*client's* TERM/COLORTERM instead of the server's environment: every console renders in
truecolor and the driver lowers the colours of what it sends (see ``colour_isolation``).
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, TextIO, cast

from rich.console import Console
from textual import constants, events
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import InBandWindowResize
from textual.widgets import Input

from .. import tuning
from ..metrics import ActionLatency
from ..sanitize import ZWJ
from ..tuning.colour_depth import set_colour_depth
from ..tuning.crash_report import WithheldReport
from ..tuning.stray_output import capture_stray_output
from ..tuning.xterm_parser import NAME as TEXTUALS_PARSER
from ..tuning.xterm_parser import new_parser, parse_error, reads_kitty_keys
from .colour_isolation import (
    RENDER_COLOR_SYSTEM,
    colour_lowering,
    remember_client_color_system,
)

log = logging.getLogger("seotda.driver")

# Bounds for client-supplied sizes: a hostile client must not make the
# compositor allocate a million-cell screen.
MAX_COLUMNS = 500
MAX_ROWS = 200
# Input typed before the app is ready is kept, up to this much.
MAX_EARLY_INPUT = 64 * 1024
# Keys and mouse events are dropped while this many messages already wait in the
# app's (and its screen's, and the focused widget's) queues. Textual works through a
# queue without yielding to other tasks, so a long queue in one app would stall
# every other player's screen; this bounds that stall to a few milliseconds.
MAX_PENDING_EVENTS = 64
# A session's window changes reach its app at most this often (seconds); those in between are
# coalesced into the last size, which always arrives. Each one relays out and repaints the
# whole screen: a client sending 570 a second used 62 % of a core (issue 30).
RESIZE_INTERVAL = 0.1
# Kitty keyboard protocol flags, as textual.drivers.linux_driver requests them.
_KITTY_FLAGS = 0b00001 | 0b01000 | 0b10000


def clamp_size(width: int, height: int) -> tuple[int, int]:
    """Keep a client's terminal size within sane bounds (0 means "unknown" → 80×24)."""
    width = width or 80
    height = height or 24
    return max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS))


def color_system_for(term: str | None, env: Mapping[str, str]) -> str | None:
    """Colour depth for one session from the TERM/COLORTERM/NO_COLOR its client sent.

    Returns ``"truecolor"``, ``"256"``, ``"standard"`` (16 colours) or None (no colour).
    """
    term = (term or "").lower()
    if "NO_COLOR" in env or term in ("dumb", "unknown"):
        return None
    if env.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    if term.endswith(("-direct", "-truecolor", "-24bit")):
        return "truecolor"
    if "256col" in term:
        return "256"
    return "standard"


_MOUSE_MODES = (1000, 1003, 1015, 1006)
_LEAVE_SCREEN = "\x1b[?1049l\x1b[?25h\x1b[?1004l"  # main screen, cursor on, no focus events

#: Everything an app's driver may have switched on, switched off (paste, wrap, mouse, kitty
#: keys, alternate screen, cursor, focus): what a session writes when its app cannot end in
#: time, so the player's terminal is usable again without the app's own teardown.
TERMINAL_RESET = (
    "\x1b[?2004l\x1b[?7h"
    + "".join(f"\x1b[?{mode}l" for mode in _MOUSE_MODES)
    + "\x1b[<u"
    + _LEAVE_SCREEN
)


class ChannelLink:
    """Glue between one SSH channel and the driver Textual will build for it.

    The session owns it: it calls :meth:`feed` and :meth:`resize` with what the
    client sends, and the driver registers itself here when Textual creates it.
    """

    def __init__(self, write: Callable[[bytes], None], size: tuple[int, int]) -> None:
        self.write = write
        self.size = clamp_size(*size)
        self.driver: SSHDriver | None = None
        #: Turns the app's (truecolor) output into the client's colour depth; None: as it is.
        self.lower_colours: Callable[[str], str] | None = None
        self._early: list[bytes] = []
        self._early_len = 0

    def feed(self, data: bytes) -> None:
        if self.driver is not None and self.driver.input_enabled:
            self.driver.feed(data)
        elif self._early_len + len(data) <= MAX_EARLY_INPUT:
            self._early.append(data)
            self._early_len += len(data)

    def take_early_input(self) -> bytes:
        data = b"".join(self._early)
        self._early.clear()
        self._early_len = 0
        return data

    def resize(self, width: int, height: int) -> None:
        self.size = clamp_size(width, height)
        if self.driver is not None:
            self.driver.resize(*self.size)


class SSHDriver(Driver):
    """Textual driver writing to, and reading from, a :class:`ChannelLink`."""

    def __init__(
        self,
        app: App[Any],
        *,
        link: ChannelLink,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=False, mouse=mouse, size=link.size)
        self._link = link
        # Textual's XTermParser where tuning/xterm_parser.py found it as it expects, else a
        # parser of public names (no kitty keys then: not asked for).
        self._textuals_parser = tuning.enabled(TEXTUALS_PARSER)
        self._parser = new_parser(self._textuals_parser)
        self._parse_error = parse_error(self._textuals_parser)
        self.parser_resets = 0  # input the parser choked on (see _parse)
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._input_enabled = False
        self._tick_handle: asyncio.TimerHandle | None = None
        self._resize_handle: asyncio.TimerHandle | None = None
        self._last_resize = -RESIZE_INTERVAL  # loop time of the last Resize posted
        self.resizes_posted = 0
        self._output: list[str] = []
        self._flush_handle: asyncio.Handle | None = None
        self.dropped_events = 0  # keys/mouse events dropped because the app was backlogged
        #: The app's key → screen timing (the game's app has one): told of input and frames.
        latency = getattr(app, "action_latency", None)
        self._latency = latency if isinstance(latency, ActionLatency) else None
        link.driver = self

    @property
    def _kitty_keys(self) -> bool:
        return not constants.DISABLE_KITTY_KEY and reads_kitty_keys(self._textuals_parser)

    @property
    def input_enabled(self) -> bool:
        return self._input_enabled

    # -- output ---------------------------------------------------------------

    def write(self, data: str) -> None:
        """Queue output until :meth:`flush` (Textual calls it after each frame; anything else
        is flushed before the loop's next turn). A frame is written as three pieces (start of
        synchronized output, the frame, its end) and each channel write is an SSH packet of its
        own: one encryption and one ``send`` instead of three."""
        if not self._output:
            self._flush_handle = self._loop.call_soon(self.flush)
        self._output.append(data)

    def flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._output:
            data = "".join(self._output)
            self._output.clear()
            if self._link.lower_colours is not None:
                data = self._link.lower_colours(data)
            self._link.write(data.encode("utf-8", "replace"))
            if self._latency is not None and self._latency.due:
                self._latency.written()

    def start_application_mode(self) -> None:
        write = self.write
        write("\x1b[?1049h")  # alternate screen
        self._set_mouse(True)
        write("\x1b[?25l")  # hide cursor
        write("\x1b[?1004h")  # focus in/out reports
        if self._kitty_keys:
            write(f"\x1b[>{_KITTY_FLAGS}u")
        write("\x1b[?2026$p")  # ask whether synchronized output is supported
        write("\x1b[?2004h")  # bracketed paste
        write("\x1b[?7l")  # no line wrap
        self.flush()
        self._input_enabled = True
        # No Resize here: until its first one the app reads its size from this driver (kept
        # current by window changes), and a first Resize relays out and repaints every screen
        # in full even at the same size: the lobby, already drawn, was drawn again per login.
        early = self._link.take_early_input()
        if early:
            self.feed(early)

    def disable_input(self) -> None:
        self._input_enabled = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if self._resize_handle is not None:
            self._resize_handle.cancel()
            self._resize_handle = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        write = self.write
        write("\x1b[?2004l")
        write("\x1b[?7h")
        self._set_mouse(False)
        if self._kitty_keys:
            write("\x1b[<u")
        write(_LEAVE_SCREEN)
        self.flush()  # before the session writes its goodbye line

    def _set_mouse(self, on: bool) -> None:
        if self._mouse:
            flag = "h" if on else "l"
            for mode in _MOUSE_MODES:
                self.write(f"\x1b[?{mode}{flag}")

    # -- input ----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Decode and parse bytes from the client; runs on the event loop."""
        if not self._input_enabled:
            return
        if self._latency is not None:
            self._latency.key()
        text = self._decode(data)
        if not text:  # only part of a multi-byte character so far; "" would mean EOF
            return
        if self._parse(lambda: self._parser.feed(text)):
            self._schedule_tick()

    def _schedule_tick(self) -> None:
        """Let the parser time out a lone ESC (the Escape key) once no more bytes follow."""
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(constants.ESCAPE_DELAY + 0.02, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        if self._input_enabled:
            self._parse(self._parser.tick)

    def _parse(self, messages: Callable[[], Iterable[Any]]) -> bool:
        """Dispatch what the parser makes of the input; False if it gave up on it.

        Textual's parser raises more than ParseError on some hostile sequences (e.g.
        ``ESC[97;1:3u`` raises ValueError) and is a dead generator afterwards, so every later
        key would fail: such input is dropped and the parser replaced, for this session only.
        """
        typed: list[events.Key] = []  # printable keys of this read, for a focused text input
        try:
            for message in messages():
                if self._typed_into_input(message):
                    typed.append(message)
                    continue
                self._flush_typed(typed)
                self._dispatch(message)
        except self._parse_error:
            return False
        except Exception:
            self.parser_resets += 1
            if self.parser_resets == 1:
                log.warning("클라이언트 입력을 해석하지 못해 버렸어요 (이 세션만)")
            self._parser = new_parser(self._textuals_parser)
            return False
        finally:
            self._flush_typed(typed)
        return True

    def _typed_into_input(self, message: Any) -> bool:
        """A printable key while a text input has the focus (see :meth:`_flush_typed`)."""
        if not (isinstance(message, events.Key) and message.character):
            return False
        if not (message.is_printable or message.character == ZWJ):  # (a ZWJ is not printable:
            return False  # as a key alone the input dropped it, parting 👨‍👩‍👧 into 👨👩👧)
        try:
            return isinstance(self._app.screen.focused, Input)
        except Exception:  # no screen yet, or it is being torn down
            return False

    def _flush_typed(self, typed: list[events.Key]) -> None:
        """Printable keys that came in one read while a text input had the focus: one key
        goes as it came, more go as one paste (what the input does with either is the same).
        Sent key by key, a line pasted by a terminal without bracketed paste (or typed by
        tmux send-keys) filled the queue, and every key past :data:`MAX_PENDING_EVENTS` was
        dropped: chat stopped at ~64 characters (issue 32 item 5)."""
        if not typed:
            return
        if len(typed) == 1:
            self._dispatch(typed[0])
        elif not self._backlogged():
            self.process_message(events.Paste("".join(key.character or "" for key in typed)))
        else:
            self.dropped_events += len(typed)
        typed.clear()

    def _dispatch(self, message: Any) -> None:
        # Sizes come only from SSH window-change requests; an in-band resize
        # sequence typed by the client must not resize the app.
        if isinstance(message, (events.Resize, InBandWindowResize)):
            return
        if isinstance(message, (events.Key, events.MouseEvent)) and self._backlogged():
            self.dropped_events += 1
            return
        self.process_message(message)

    def _backlogged(self) -> bool:
        app = self._app
        pending = app.message_queue_size
        try:
            screen = app.screen
            pending += screen.message_queue_size
            focused = screen.focused
            if focused is not None:
                pending += focused.message_queue_size
        except Exception:  # no screen yet, or it is being torn down
            pass
        return pending >= MAX_PENDING_EVENTS

    def send_message(self, message: Any) -> None:
        # Everything happens on the loop thread, so post directly.
        self._app.post_message(message)

    def resize(self, width: int, height: int) -> None:
        """A window change: posted at once if none was in the last :data:`RESIZE_INTERVAL`,
        else once that has passed, with whatever size is the latest by then."""
        self._size = (width, height)
        if not self._input_enabled or self._resize_handle is not None:
            return  # (a pending one will post the latest size)
        wait = self._last_resize + RESIZE_INTERVAL - self._loop.time()
        if wait > 0:
            self._resize_handle = self._loop.call_later(wait, self._resize_later)
        else:
            self._post_resize(width, height)

    def _resize_later(self) -> None:
        self._resize_handle = None
        if self._input_enabled:
            self._post_resize(*self._link.size)  # the latest (the link keeps it)

    def _post_resize(self, width: int, height: int) -> None:
        self._last_resize = self._loop.time()
        self.resizes_posted += 1
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    # -- things that must not happen on the server's machine --------------------

    def open_url(self, url: str, new_tab: bool = True) -> None:
        log.info("앱이 URL 열기를 요청했지만 서버에서는 열지 않아요: %s", url)

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        """Refuse: saving "downloads" (e.g. screenshots) would write files on the server."""
        binary.close()
        error = PermissionError("SSH 세션에서는 파일을 저장할 수 없어요.")
        self._app.post_message(events.DeliveryFailed(key=delivery_key, exception=error, name=name))


# -- making an App safe to run next to others --------------------------------------


class _LogStream(io.TextIOBase):
    """A text stream that forwards whole lines to a logger (never to sys.stdout)."""

    def __init__(self, logger: logging.Logger, level: int, *, per_write: bool = False) -> None:
        self._logger = logger
        self._level = level
        self._per_write = per_write  # one record per write() (a whole traceback), not per line
        self._buffer = ""
        self._busy = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self._busy:  # a logging handler wrote to sys.stdout/err, i.e. to us
            if sys.__stderr__ is not None:
                sys.__stderr__.write(text)
            return len(text)
        self._buffer += text
        if self._per_write:
            lines, self._buffer = ["\n" + self._buffer], ""
        else:
            *lines, self._buffer = self._buffer.split("\n")
        self._busy = True
        try:
            for line in lines:
                if line.strip():
                    self._logger.log(self._level, "%s", line.rstrip())
        finally:
            self._busy = False
        return len(text)

    def flush(self) -> None:
        if self._buffer:
            self.write("\n")


# App.run_async wraps the app in contextlib.redirect_stdout/stderr. Those are
# process-wide and, with apps starting and ending in any order, restore each
# other's objects. Giving every app this same capture object makes whatever
# is left in sys.stdout harmless (it logs), and nothing keeps a dead app alive.
_STRAY_OUTPUT = _LogStream(logging.getLogger("seotda.app.stdout"), logging.WARNING)
_running_apps = 0
_streams_before: tuple[Any, Any] = (None, None)


def prepare_app(app: App[Any], link: ChannelLink, color_system: str | None) -> None:
    """Point ``app`` at ``link`` and make it a good neighbour in a shared process.

    * the driver is an :class:`SSHDriver` bound to this session's channel;
    * colour depth comes from the session, not from the server's os.environ (applied to the
      output, so that styles and rows shared with other sessions hold no depth of their own);
    * stray print()s and Textual's crash reports go to the log, not to
      another player's screen or the server's stdout; crash reports without
      local variables, which could hold the player's cards (``tuning/crash_report.py``;
      while that guard is off, only a line saying a report was withheld).
    """

    def driver_factory(app: App[Any], **kwargs: Any) -> SSHDriver:
        return SSHDriver(app, link=link, **kwargs)

    app.driver_class = driver_factory  # type: ignore[assignment]
    set_colour_depth(app, RENDER_COLOR_SYSTEM, no_color=color_system is None)
    link.lower_colours = colour_lowering(color_system)
    remember_client_color_system(app, color_system)
    if color_system is None:
        app.no_color = True
    if tuning.enabled("stray_output"):
        capture_stray_output(app, cast(IO[str], _STRAY_OUTPUT))
    crash_log = logging.getLogger("seotda.app")
    if tuning.enabled("crash_report"):
        reports: io.TextIOBase = _LogStream(crash_log, logging.ERROR, per_write=True)
    else:  # fail closed: the report could hold locals
        reports = WithheldReport(crash_log)
    app.error_console = Console(
        file=cast(IO[str], reports),
        width=120,
        color_system=None,
        markup=False,
        highlight=False,
        force_terminal=False,
    )


async def run_app(app: App[Any], link: ChannelLink) -> None:
    """Run a prepared app to completion; restores sys.stdout/err when the last app ends."""
    global _running_apps, _streams_before
    if _running_apps == 0:
        _streams_before = (sys.stdout, sys.stderr)
    _running_apps += 1
    try:
        await app.run_async(size=link.size, mouse=True)
    finally:
        _running_apps -= 1
        if _running_apps == 0:
            if sys.stdout is _STRAY_OUTPUT:
                sys.stdout = _streams_before[0]
            if sys.stderr is _STRAY_OUTPUT:
                sys.stderr = _streams_before[1]
