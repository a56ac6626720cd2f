"""Every override of a textual/rich internal, in one place, each checked before it is used.

One process carries hundreds of Textual apps; Textual is built for one. The modules here close
that gap by overriding private names of Textual and rich, which may change in any release, so
:func:`install` (called at server start, by ``seotda_tui.testing`` and by the tests' conftest)
first compares the installed versions with :data:`TESTED` and asks each override whether the
names it needs are still there in the shape it expects. Where not, that override stays off,
Textual's stock path runs, and one warning line says which and why. ``stock_textual`` (flag
``--stock-textual``, ``SEOTDA_STOCK_TEXTUAL=1``, TOML ``stock_textual = true``) turns every
speed-up off; the guards stay on (they have no stock equivalent that is safe).

Speed-ups (figures from BENCHMARKS.md, 60 players unless said):

``compositor``
    Overrides ``Compositor.render_partial_update`` and ``ChopsUpdate.render_segments``
    (``textual._compositor``; each screen's ``_compositor``). Renders only the widgets and rows
    under the changed cells, skips occluded widgets, sends only the changed spans: −15 % frame
    time, then 3.2 → 2.1 ms per frame in-process; bytes per action 1,477 → 1,208 B, idle
    74 → 25 B/s per player (items 9, 14, 16).
``strip_caches``
    Replaces ``Strip.__init__`` (its five unused ``FIFOCache`` slots; the divide and filter
    caches made on first use) and wraps ``Strip.divide`` (no ``[self]`` cycle) and
    ``Strip.apply_filter``. RSS 417 → 301 MiB, GC generation-1 passes halved, then ~5 s →
    0.6 s of GC per run (items 11, 17); with the cells change, p95 at 300 players over two
    workers 149–212 → 91–106 ms, RSS −100 MiB (item 35). Needs ``Strip.__slots__`` with
    those names.
``layout_once``
    Wraps ``Widget._size_updated`` (exact signature): a widget that cannot scroll takes its new
    virtual size without asking for a second layout; one layout per seat at a game start,
    not two (item 27).
``stylesheet``
    Overrides ``Stylesheet._parse_rules`` (exact signature; reads ``Stylesheet._variables``):
    one parse of each CSS source per server; login CPU −20–30 % (item 10).
``unpinned_caches``
    Replaces the ``lru_cache`` memos on ``StylesCache.get_inner_outer`` and
    ``XTermParser._parse_extended_key`` (``textual._styles_cache``, ``textual._xterm_parser``)
    with ones that do not keep ``self``: ~1.5 MiB held per new-room form opened, and every left
    table's rows, freed (item 30).
``paint_now``
    Reads ``App._batch_count``, a screen's ``_compositor``, ``_dirty_widgets`` and the
    ``_layout/_scroll/_repaint_required`` flags, calls ``Screen._on_timer_update``: a push is
    painted in its own handler (``BaseScreen.paint_now``); push → frame p50 22–30 → 12–16 ms
    at 300 sessions, CPU per action 34 → 28 ms (item 26).
``shared_rows``
    No private name: ``TextLines.render_lines`` hands its shared rows to the compositor
    instead of the styles cache's per-widget copies (where no box model applies). At 60
    players the busiest idle screen 807 → 106 B/s; CPU per action within the noise (item 33).

``measure_later``
    Reads ``Widget._layout_updates`` (a key of the box model's cache) and calls
    ``_clear_arrangement_cache`` on the auto-sized ancestors: a ``Line`` whose new text keeps its
    height forgets its old measures without a layout; Textual's way, ``refresh(layout=True)``,
    lays the screen out each time (its fallback). Correctness first: without forgetting, a
    later layout at a width seen before reused the old text's height (issue 36). Buys one
    screen layout per action at a six-player table, in-process: 1.00 → 0 layouts and ~6 ms of
    CPU per action at 80×24 (of ~30–35 ms for the six screens), 3.92 → 3.75 at 120×30.

Guards (stay on with ``stock_textual``; where one cannot apply, its safe fallback is used):

``crash_report``
    Wraps rich's public ``Traceback.extract`` so that no traceback has locals (a player's cards);
    checked by extracting one after patching. Fallback: each app's error console logs one line
    per crash and drops the report.
``stray_output``
    Sets ``App._capture_stdout``/``_capture_stderr`` to one shared logging stream
    (``driver.prepare_app``). Fallback: Textual's own per-app capture (prints reach no screen).

``colour_depth``
    Sets ``Console._color_system`` (one render depth for every session; the driver lowers each
    frame to its client's, see ``seotda_tui/ui/colour_isolation.py``) and appends Textual's
    ``NoColor`` to ``App._filters`` for NO_COLOR clients. Fallback: the depth rich chose from
    the server's environment, the same for all; the lowering still applies.

``unlinked_nodes``
    Wraps ``Widget._message_loop_exit``, ``App._shutdown``, ``Stylesheet._process_component_classes``,
    ``LRUCache.clear``, ``MessagePump._attach`` and ``Compositor._arrange_root``: a removed widget's
    and an ended app's cycles (its ``Styles.node``, animators, memos, the
    virtual nodes of its component classes; a screen's update timer and compositor root) are
    unlinked, so it is freed at once instead of waiting in the old generation for a full
    collection that the raised GC thresholds make rare: help opened and closed 800 times by
    four sessions grew a server 322 MB → 3 GB (issue 30). Fallback: the server lowers the last
    GC threshold so CPython collects the old generation on its own (``cli.process.tune_garbage_collector``).

``xterm_parser``
    Builds each session's input parser from ``textual._xterm_parser.XTermParser`` (and catches
    ``textual._parser.ParseError``), as Textual's own drivers do: nothing public turns terminal
    bytes into events. Checked by its signatures and by parsing ``a``, Enter and Up. Stays on
    with ``stock_textual`` (it is Textual's stock path). Fallback: ``PublicParser``, of public
    names only (typed text, editing and function keys, Ctrl/Alt, paste, focus, SGR mouse; no
    kitty keys, which the driver then does not ask for). It buys no speed (the fallback reads
    ~7× cheaper, both a few µs a read): it buys Textual's own reading of every terminal.

Not overrides, and not here: ``pyproject.toml`` bounds the versions so that an untested release
is not installed by accident. ``ui/present/fit.py`` measures wrapped rows with Textual's public
``Content.wrap`` (it used ``textual._wrap``, which wrapped some lines elsewhere than a widget
draws them).

Adding an override: a module here with an ``OVERRIDE`` (:class:`~.override.Override`), and its
name in :data:`MODULES`.
"""

from __future__ import annotations

import importlib
import logging
import os
from importlib import metadata
from typing import Any

from ..logs import log_event
from .override import Override

log = logging.getLogger(__name__)

#: The override modules, in the order they are installed.
MODULES = (
    "compositor",
    "strip_caches",
    "layout_once",
    "stylesheet",
    "unpinned_caches",
    "paint_now",
    "shared_rows",
    "measure_later",
    "crash_report",
    "stray_output",
    "colour_depth",
    "unlinked_nodes",
    "xterm_parser",
)

#: The minor versions every override was written and tested against (see pyproject.toml).
TESTED = {"textual": "8.2", "rich": "15.0", "asyncssh": "2.24"}

#: Environment variable that asks for the stock path (also a server setting, ``stock_textual``).
STOCK_ENV = "SEOTDA_STOCK_TEXTUAL"

_active: dict[str, Override] = {}
_report: dict[str, str | None] | None = None  # every override → why it is off (None: on)
_stock: bool | None = None


def stock_from_env(environ: Any = None) -> bool:
    """Whether ``SEOTDA_STOCK_TEXTUAL`` asks for the stock path (as the setting reads it)."""
    value = (os.environ if environ is None else environ).get(STOCK_ENV, "")
    return str(value).lower() in ("1", "true", "yes", "on")


def install(*, stock: bool | None = None) -> dict[str, str | None]:
    """Apply every override that can apply (``stock``: only the guards; None: from the
    environment). Once per process: the process-wide patches cannot be taken back, so a later
    call asking for the other mode logs a warning and changes nothing.

    Returns each override's name with the reason it is off, or None where it is on."""
    global _report, _stock
    if stock is None:
        stock = stock_from_env()
    if _report is not None:
        if stock != _stock:
            log_event(log, "tuning_already_installed", level=logging.WARNING, stock=_stock)
        return dict(_report)
    report: dict[str, str | None] = {}
    for name in MODULES:
        reason = _install_one(name, stock)
        report[name] = reason
    _report, _stock = report, stock
    off = {name: why for name, why in report.items() if why is not None}
    problems = {name: why for name, why in off.items() if why != "stock_textual"}
    if problems:
        why = "; ".join(f"{name}: {reason}" for name, reason in problems.items())
        log_event(log, "tuning_off", level=logging.WARNING, overrides=",".join(problems), why=why)
    log_event(log, "tuning", stock=stock, on=",".join(_active) or "-")
    return dict(report)


def _install_one(name: str, stock: bool) -> str | None:
    """Install one override module; the reason it stays off, or None."""
    try:
        override: Override = importlib.import_module(f"{__name__}.{name}").OVERRIDE
    except Exception as error:  # e.g. a private module that no longer exists
        return f"import failed: {type(error).__name__}: {error}"
    if stock and not override.guard:
        return "stock_textual"
    try:
        reason = _untested(override.package) or override.missing()
        if reason is None:
            override.apply()
    except Exception as error:  # a check or patch that met a changed internal
        reason = f"{type(error).__name__}: {error}"
    if reason is None:
        _active[override.name] = override
    return reason


def _untested(package: str) -> str | None:
    try:
        version = metadata.version(package)
    except metadata.PackageNotFoundError:
        return f"{package} is not installed"
    tested = TESTED[package]
    if version != tested and not version.startswith(tested + "."):
        return f"{package} {version} is not the tested {tested}.x"
    return None


def enabled(name: str) -> bool:
    """Whether override ``name`` is on (False before :func:`install`: everything stock)."""
    return name in _active


def app_created(app: Any) -> None:
    """Give a new app every per-app override that is on (from its ``__init__``)."""
    for override in _active.values():
        if override.on_app is not None:
            override.on_app(app)


def screen_created(screen: Any) -> None:
    """Give a new screen every per-screen override that is on (from its ``__init__``)."""
    for override in _active.values():
        if override.on_screen is not None:
            override.on_screen(screen)
