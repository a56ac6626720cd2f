"""A removed widget leaves no reference cycles, so it is freed at once, not by a full collection.

Why: the server raises the GC thresholds (``seotda_tui.cli.process.GC_THRESHOLDS``) so that full
collections, which pause every session at once, are rare. Everything a screen makes lives long
enough to reach the old generation, and Textual leaves it in cycles when the screen closes: each
widget and its two ``Styles`` (``Styles.node``), the ``BoundAnimator`` of the widget and of its
styles, the widget's visual memos (``_layout_cache``, and a ``Static``'s ``__visual``: the visual keeps
the widget), its box-model
memo (an ``LRUCache``, whose entries are a ring of lists — ``clear()`` drops the ring but not
its links), the ``NodeList``'s memo of displayed children, the "virtual" ``DOMNode`` behind each
component class (restyling makes new ones and drops the old, each tied to its ``Styles``), and
on a screen its update timer (a bound method of the screen), its compositor's ``root`` and
the widgets waiting for a layout (keyed by the screen), and any timer the widget keeps in an
attribute (an ``Input``'s cursor blink: the timer's callback is a bound method of the widget;
one form opened and closed over SSH kept its name field, ~90 objects, each time). Help
closed 800 times by four sessions took a server from 322 MB to 3 GB (issue 30, BENCHMARKS.md).

An ended app (a session that closed) is the same: it, its animator, worker manager, logger
and driver point at each other; they are unlinked after ``App._shutdown`` (~650 KB and ~3,300
objects per ended lobby session stayed until a full collection).

One more cycle pins a whole screen: ``Compositor._arrange_root`` places widgets with a
recursive local function (a closure over itself, the map and the set of every widget). It is
garbage as soon as the arrangement returns and dies in the next young collection — unless a
collection ran while it was alive, which moves it (and, through it, the screen) toward the old
generation; on a busy server that is likely, an arrangement allocating thousands of objects.
No collection runs during an arrangement now (``gc`` is paused for that one synchronous call,
the collection it would have run comes right after), so it always dies young.

This unlinks the rest where Textual is done with the node — after ``Widget._message_loop_exit``
(its children are gone, it is unmounted and detached) — and unlinks a component class's old
virtual node when ``Stylesheet._process_component_classes`` replaces it; ``LRUCache.clear``
unlinks its ring. All are things Textual itself sets to ``None`` or empty elsewhere (a
``Styles`` made without a node, a cleared cache), so a late call on a removed widget finds
the state of a widget that was never styled, not a dangling one; a widget mounted again gets
its styles' links back (``MessagePump._attach``).

A guard (memory a stranger can grow), so ``stock_textual`` leaves it on. Fallback, if a
Textual release changes these names: the server lets CPython collect the old generation on
its own schedule again (``seotda_tui.cli.process.tune_garbage_collector``: a full collection each time
the old generation has grown by a quarter), paying its pauses instead.
"""

from __future__ import annotations

import gc
from functools import wraps
from typing import Any

from textual._compositor import Compositor
from textual.app import App
from textual.cache import LRUCache
from textual.css.styles import RenderStyles, Styles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from .override import Override, first_reason, no_attributes, wrong_parameters

#: Marks the wrappers, so that applying twice changes nothing.
MARK = "unlinks_cycles"


def unlink_styles(node: DOMNode) -> None:
    """Drop the references from ``node``'s styles back to it (and its components' nodes)."""
    node._css_styles.node = node._inline_styles.node = None
    node.styles._animate = None
    node._query_one_cache.clear()
    for component in node._component_styles.values():
        virtual = component.node
        if virtual is not None and virtual is not node:
            unlink_styles(virtual)


def unlink_widget(widget: Widget, components: list[RenderStyles]) -> None:
    """Break what ties a removed ``widget`` to itself (``components``: its component
    styles before Textual emptied them)."""
    unlink_styles(widget)
    for component in components:
        virtual = component.node
        if virtual is not None:
            unlink_styles(virtual)
    widget._box_model_cache.clear()
    widget._layout_cache.clear()
    widget._animate = None
    if isinstance(widget, Static):
        widget._Static__visual = None  # type: ignore[attr-defined]
    for value in vars(widget).values():
        if isinstance(value, Timer):  # stopped by Textual with the widget's other timers
            value._callback = None
    nodes = widget._nodes
    nodes._displayed_nodes = nodes._displayed_visible_nodes = (-1, [])
    if isinstance(widget, Screen):
        widget._Screen__update_timer = None  # type: ignore[attr-defined]
        widget._compositor.root = None
        widget._layout_widgets.clear()


def _drop(*args: object, **kwargs: object) -> None:
    """What an ended app logs (nothing: its log went to its own console)."""


def unlink_app(app: App[Any]) -> None:
    """Break what ties an ended ``app`` to itself: its styles, its animator (and that one's
    timer), its worker manager, its logger and its driver."""
    unlink_styles(app)
    app._animate = None  # type: ignore[assignment]
    animator = app._animator
    animator._timer._callback = None
    animator.app = None  # type: ignore[assignment]
    app._workers._app = None  # type: ignore[assignment]
    app._logger._log = _drop
    if app._driver is not None:
        app._driver._app = None  # type: ignore[assignment]


def unlink_removed_nodes() -> None:
    """Patch the six places (idempotent)."""
    exit_loop: Any = Widget._message_loop_exit
    if not getattr(exit_loop, MARK, False):

        @wraps(exit_loop)
        async def _message_loop_exit(self: Widget) -> None:
            components = list(self._component_styles.values())  # Textual empties it
            await exit_loop(self)
            unlink_widget(self, components)

        setattr(_message_loop_exit, MARK, True)
        Widget._message_loop_exit = _message_loop_exit  # type: ignore[method-assign]

    shutdown: Any = App._shutdown
    if not getattr(shutdown, MARK, False):

        @wraps(shutdown)
        async def _shutdown(self: App[Any]) -> None:
            await shutdown(self)
            unlink_app(self)

        setattr(_shutdown, MARK, True)
        App._shutdown = _shutdown  # type: ignore[method-assign]

    attach: Any = MessagePump._attach
    if not getattr(attach, MARK, False):

        @wraps(attach)
        def _attach(self: MessagePump, parent: MessagePump) -> None:
            attach(self, parent)
            if isinstance(self, DOMNode) and self._css_styles.node is None:  # mounted again
                self._css_styles.node = self._inline_styles.node = self

        setattr(_attach, MARK, True)
        MessagePump._attach = _attach  # type: ignore[method-assign]

    process: Any = Stylesheet._process_component_classes
    if not getattr(process, MARK, False):

        @wraps(process)
        def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
            old = list(node._component_styles.values())
            process(self, node)
            kept = {id(styles) for styles in node._component_styles.values()}
            for styles in old:
                virtual = styles.node
                if id(styles) not in kept and virtual is not None and virtual is not node:
                    unlink_styles(virtual)

        setattr(_process_component_classes, MARK, True)
        Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]

    arrange: Any = Compositor._arrange_root
    if not getattr(arrange, MARK, False):

        @wraps(arrange)
        def _arrange_root(
            self: Compositor, root: Widget, size: Any, visible_only: bool = True
        ) -> Any:
            if not gc.isenabled():
                return arrange(self, root, size, visible_only)
            gc.disable()  # no collection while its closure is alive: it dies young
            try:
                return arrange(self, root, size, visible_only)
            finally:
                gc.enable()

        setattr(_arrange_root, MARK, True)
        Compositor._arrange_root = _arrange_root  # type: ignore[method-assign]

    clear: Any = LRUCache.clear
    if not getattr(clear, MARK, False):

        @wraps(clear)
        def unlinking_clear(self: LRUCache[Any, Any]) -> None:
            for link in self._cache.values():
                link.clear()  # [prev, next, key, value]: the ring's links
            clear(self)

        setattr(unlinking_clear, MARK, True)
        LRUCache.clear = unlinking_clear  # type: ignore[method-assign]


def _shapes() -> str | None:
    cache: LRUCache[str, int] = LRUCache(2)
    cache.set("a", 1)
    link = cache._cache["a"]
    if not (isinstance(link, list) and len(link) == 4 and link[3] == 1):
        return "LRUCache links are not [prev, next, key, value] lists"
    widget, screen = Widget(), Screen[Any]()
    if not isinstance(widget._css_styles, Styles) or widget._css_styles.node is not widget:
        return "Widget._css_styles is not a Styles with the widget as node"
    if not isinstance(widget.styles, RenderStyles):
        return "Widget.styles is not a RenderStyles"
    if not isinstance(widget._layout_cache, dict) or not isinstance(widget._component_styles, dict):
        return "Widget._layout_cache or _component_styles is not a dict"
    return first_reason(
        lambda: no_attributes(Timer(widget, 1.0, callback=_drop), ["_callback"]),
        lambda: no_attributes(widget._box_model_cache, ["clear"]),
        lambda: no_attributes(widget._nodes, ["_displayed_nodes", "_displayed_visible_nodes"]),
        lambda: no_attributes(screen, ["_Screen__update_timer", "_compositor"]),
        lambda: None if isinstance(screen._layout_widgets, dict) else "no Screen._layout_widgets",
        lambda: no_attributes(screen._compositor, ["root"]),
        lambda: no_attributes(Static(), ["_Static__visual"]),
    )


def _app_shapes() -> str | None:
    app = App[Any]()
    return first_reason(
        lambda: no_attributes(app, ["_animate", "_animator", "_workers", "_logger", "_driver"]),
        lambda: no_attributes(app._animator, ["_timer", "app"]),
        lambda: no_attributes(app._animator._timer, ["_callback"]),
        lambda: no_attributes(app._workers, ["_app"]),
        lambda: no_attributes(app._logger, ["_log"]),
    )


def _missing() -> str | None:
    return first_reason(
        lambda: wrong_parameters(Widget, "_message_loop_exit", ["self"]),
        lambda: wrong_parameters(Stylesheet, "_process_component_classes", ["self", "node"]),
        lambda: wrong_parameters(MessagePump, "_attach", ["self", "parent"]),
        lambda: wrong_parameters(LRUCache, "clear", ["self"]),
        lambda: wrong_parameters(
            Compositor, "_arrange_root", ["self", "root", "size", "visible_only"]
        ),
        lambda: no_attributes(LRUCache(1), ["_cache"]),
        lambda: no_attributes(
            Widget(),
            [
                "_css_styles",
                "_inline_styles",
                "_component_styles",
                "_query_one_cache",
                "_box_model_cache",
                "_layout_cache",
                "_animate",
                "_nodes",
            ],
        ),
        lambda: wrong_parameters(App, "_shutdown", ["self"]),
        _shapes,
        _app_shapes,
    )


OVERRIDE = Override("unlinked_nodes", "textual", _missing, apply=unlink_removed_nodes, guard=True)
