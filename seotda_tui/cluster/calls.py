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

An answer may carry moments (a :class:`RoomSummary`'s grace ends): its codec takes ``now``, the
sender's clock when encoding and the receiver's when decoding (the wire carries seconds left,
:mod:`.protocol`). Arguments carry none (a method taking a summary fails at import).
"""

from __future__ import annotations

import collections.abc
import inspect
import math
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from engine import Options, OptionsError

from ..rooms import RoomSummary
from ..rooms.api import room_calls
from . import protocol as wire
from .shape import checker

#: How one value crosses: (to the wire, from the wire), each given the value and ``now`` (the
#: clock time its moments are counted from); ``None`` = as it is (JSON keeps it).
Codec = tuple[Callable[[Any, float], object], Callable[[Any, float], object]] | None
_NO_NOW = math.nan  # what an argument's codecs are given: arguments carry no moments
_PLAIN = (str, int, float, bool, type(None))


def _options_to_wire(options: Options | Mapping[str, object], _now: float) -> dict[str, object]:
    return dict(options.to_dict() if isinstance(options, Options) else options)


def _options_from_wire(data: object, _now: float) -> object:
    """The manager reads the dict itself (``Options.from_dict``: its refusal is the player's)."""
    if not isinstance(data, dict):
        raise OptionsError("방 설정이 잘못됐어요")
    return data


def _plain(kind: type) -> Codec:
    """Plain values go as they are, but one of another type is a bad call (not a bad worker)."""
    if kind is bool:
        return (lambda v, _: v, lambda d, _: bool(d))  # (JSON keeps booleans; 0/1 meant the same)

    def checked(value: object, _now: float) -> object:
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return (lambda v, _: v, checked)


def _shaped(hint: object) -> Codec:
    """A JSON value (an event, a game action, a list of them) goes as it is, and is checked
    against its type when it arrives (``shape.ShapeError``, a ValueError: an argument that
    does not fit is a bad call, answered ``fail``; an answer, a hub the worker cannot use)."""
    check = checker(hint)

    def arrived(data: object, _now: float) -> object:
        check(data)
        return data

    return (lambda v, _: v, arrived)


def _maybe(inner: Codec) -> Codec:
    if inner is None:
        return None
    to_wire, from_wire = inner
    return (
        lambda v, now: None if v is None else to_wire(v, now),
        lambda d, now: None if d is None else from_wire(d, now),
    )


def codec(hint: object, *, moments: bool = True) -> Codec:
    """The codec of a type hint of the room API (``TypeError`` for one it cannot carry;
    ``moments=False``: for an argument, which is sent with no clock to count from)."""
    if hint is RoomSummary:
        if not moments:
            raise TypeError("a RoomSummary argument (its grace ends need the clock's now)")
        return (wire.summary_to_wire, wire.summary_from_wire)
    if hint in _PLAIN:
        return _plain(hint)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        if Options in args:  # Options | Mapping[str, object]: the rules, as their dict
            return (_options_to_wire, _options_from_wire)
        present = [a for a in args if a is not type(None)]
        if all(_json_object(a) for a in present):  # e.g. the engine's Action (TypedDicts)
            return _shaped(hint)
        if len(present) == 1:
            optional = codec(present[0], moments=moments)
            if present[0] in _PLAIN:  # str | None: None, or a str
                assert optional is not None
                check = optional[1]
                return (lambda v, _: v, lambda d, now: None if d is None else check(d, now))
            return _maybe(optional)
    if origin is list and len(args) == 1:
        if _json_object(args[0]) or args[0] in _PLAIN:  # e.g. the log: checked as a whole
            return _shaped(hint)
        item = codec(args[0], moments=moments)
        if item is None:
            return None
        to_item, from_item = item
        return (
            lambda v, now: [to_item(x, now) for x in v],
            lambda d, now: [from_item(x, now) for x in d],
        )
    if _json_object(hint):  # a game action: a JSON object
        return _shaped(hint)
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
        return [v if c is None else c[0](v, _NO_NOW) for v, c in zip(args, self.codecs)]

    def from_wire(self, data: list[object]) -> tuple[list[object], dict[str, object]]:
        """The method's arguments from a frame's (positional, keyword-only); a count its
        parameters cannot take is a ``TypeError`` (the hub answers ``fail``)."""
        if len(data) > len(self.params):
            raise TypeError(f"{self.name} takes {len(self.params)} arguments, got {len(data)}")
        positional: list[object] = []
        keywords: dict[str, object] = {}
        for param, value, conv in zip(self.params, data, self.codecs):
            value = value if conv is None else conv[1](value, _NO_NOW)
            if param.kind is inspect.Parameter.KEYWORD_ONLY:
                keywords[param.name] = value
            else:
                positional.append(value)
        return positional, keywords

    def answer_to_wire(self, value: object, now: float) -> object:
        """The answer as the hub sends it (``now``: the hub's clock)."""
        return value if self.answer is None else self.answer[0](value, now)

    def answer_from_wire(self, data: object, now: float) -> object:
        """The answer as the worker reads it (``now``: the worker's clock)."""
        return data if self.answer is None else self.answer[1](data, now)


def _call(name: str, method: Callable[..., object]) -> RoomCall:
    hints = get_type_hints(method)
    signature = inspect.signature(method)
    params = tuple(signature.parameters.values())[1:]
    codecs = tuple(
        None if _callback(hints[p.name]) else codec(hints[p.name], moments=False) for p in params
    )
    answer = None if _callback(hints["return"]) else codec(hints["return"])  # (unsubscribe)
    return RoomCall(name, params, codecs, answer, signature)


def _json_object(hint: object) -> bool:
    """A dict the JSON carries as it is (a TypedDict of the engine's, a union of them such as
    an event, or a plain mapping)."""
    if get_origin(hint) in (Union, types.UnionType):
        return all(_json_object(a) for a in get_args(hint))
    return is_typeddict(hint) or get_origin(hint) in (dict, collections.abc.Mapping)


def _callback(hint: object) -> bool:
    return get_origin(hint) is collections.abc.Callable


#: The room API's calls by name (the frame's ``op``), in rooms/api.py's order.
ROOM_CALLS: dict[str, RoomCall] = {
    name: _call(name, method) for name, method in room_calls().items()
}
