"""The room calls as the wire carries them, derived from :class:`~seotda_tui.rooms.RoomService`.

Why derived: the hub serves the room API and the worker forwards it; written by hand that was a
string table in the hub, a method in the remote and a codec per argument, all kept in step by
eye. Here each of the Protocol's methods becomes one :class:`RoomCall`: its name (the frame's
``op``), its parameters in order (the frame's ``a``; keyword-only ones too, by position) and a
codec per argument and for the answer, chosen from its type hints. A new method in
``rooms/api.py`` is served and forwarded with no edit here, unless it takes or gives a type no
codec knows (then importing this module fails, naming it).

A callback parameter (``subscribe_room``, ``subscribe_lobby``) travels as the worker's
subscription id: the hub serves those calls itself (its pushes name that id).
"""

from __future__ import annotations

import collections.abc
import inspect
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from engine import Options, OptionsError

from ..rooms import RoomSummary
from ..rooms.api import room_calls
from . import protocol as wire

#: How one value crosses: (to the wire, from the wire); ``None`` = as it is (JSON keeps it).
Codec = tuple[Callable[[Any], object], Callable[[Any], object]] | None
_PLAIN = (str, int, float, bool, type(None))


def _options_to_wire(options: Options | Mapping[str, object]) -> dict[str, object]:
    return dict(options.to_dict() if isinstance(options, Options) else options)


def _options_from_wire(data: object) -> object:
    """The manager reads the dict itself (``Options.from_dict``: its refusal is the player's)."""
    if not isinstance(data, dict):
        raise OptionsError("방 설정이 잘못됐어요")
    return data


def _plain(kind: type) -> Codec:
    """Plain values go as they are, but one of another type is a bad call (not a bad worker)."""
    if kind is bool:
        return (lambda v: v, bool)  # (JSON keeps booleans; a worker's 0/1 meant the same)

    def checked(value: object) -> object:
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return (lambda v: v, checked)


def _maybe(inner: Codec) -> Codec:
    if inner is None:
        return None
    to_wire, from_wire = inner
    return (
        lambda v: None if v is None else to_wire(v),
        lambda d: None if d is None else from_wire(d),
    )


def codec(hint: object) -> Codec:
    """The codec of a type hint of the room API (``TypeError`` for one it cannot carry)."""
    if hint is RoomSummary:
        return (wire.summary_to_wire, wire.summary_from_wire)
    if hint in _PLAIN:
        return _plain(hint)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if Options in args:  # Options | Mapping[str, object]: the rules, as their dict
            return (_options_to_wire, _options_from_wire)
        present = [a for a in args if a is not type(None)]
        if all(_json_object(a) for a in present):  # e.g. the engine's Action (TypedDicts)
            return None
        if len(present) == 1:
            optional = codec(present[0])
            if present[0] in _PLAIN:  # str | None: None, or a str
                assert optional is not None
                check = optional[1]
                return (lambda v: v, lambda d: None if d is None else check(d))
            return _maybe(optional)
    if origin is list and len(args) == 1:
        item = codec(args[0])
        if item is None:
            return None
        to_item, from_item = item
        return (lambda v: [to_item(x) for x in v], lambda d: [from_item(x) for x in d])
    if _json_object(hint):  # events, a game action: JSON objects
        return None
    raise TypeError(f"no wire codec for {hint!r}")


@dataclass(frozen=True)
class RoomCall:
    """One method of the room API on the wire (see the module doc)."""

    name: str
    params: tuple[inspect.Parameter, ...]  # without self
    codecs: tuple[Codec, ...]  # one per parameter; a callback's is None (its subscription id)
    answer: Codec
    signature: inspect.Signature

    def to_wire(self, *args: object, **kwargs: object) -> list[object]:
        """The frame's arguments: every parameter by position, defaults filled in."""
        if kwargs or len(args) != len(self.params):  # (all given by position: the usual call)
            bound = self.signature.bind(None, *args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())[1:]
        return [v if c is None else c[0](v) for v, c in zip(args, self.codecs)]

    def from_wire(self, data: list[object]) -> tuple[list[object], dict[str, object]]:
        """The method's arguments from a frame's (positional, keyword-only); a count its
        parameters cannot take is a ``TypeError`` (the hub answers ``fail``)."""
        if len(data) > len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, got {len(data)}")
        positional: list[object] = []
        keywords: dict[str, object] = {}
        for param, value, conv in zip(self.params, data, self.codecs):
            value = value if conv is None else conv[1](value)
            if param.kind is inspect.Parameter.KEYWORD_ONLY:
                keywords[param.name] = value
            else:
                positional.append(value)
        return positional, keywords

    def answer_to_wire(self, value: object) -> object:
        return value if self.answer is None else self.answer[0](value)

    def answer_from_wire(self, data: object) -> object:
        return data if self.answer is None else self.answer[1](data)


def _call(name: str, method: Callable[..., object]) -> RoomCall:
    hints = get_type_hints(method)
    signature = inspect.signature(method)
    params = tuple(signature.parameters.values())[1:]
    codecs = tuple(None if _callback(hints[p.name]) else codec(hints[p.name]) for p in params)
    answer = None if _callback(hints["return"]) else codec(hints["return"])  # (unsubscribe)
    return RoomCall(name, params, codecs, answer, signature)


def _json_object(hint: object) -> bool:
    """A dict the JSON carries as it is (a TypedDict of the engine's, or a plain mapping)."""
    return is_typeddict(hint) or get_origin(hint) in (dict, collections.abc.Mapping)


def _callback(hint: object) -> bool:
    return get_origin(hint) is collections.abc.Callable


#: The room API's calls by name (the frame's ``op``), in rooms/api.py's order.
ROOM_CALLS: dict[str, RoomCall] = {
    name: _call(name, method) for name, method in room_calls().items()
}
