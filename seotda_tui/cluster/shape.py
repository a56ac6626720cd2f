"""Checked decodes: a value read off the wire has the shape its type says before anything uses it.

Why derived from the types: the frames carry the engine's views and events, the rooms' events
and results, as JSON; a hand-written check per shape would drift from the TypedDicts as they
grow. :func:`checker` compiles a type hint once into a function that walks a decoded JSON value
and raises :class:`ShapeError` naming the first place that does not fit (a missing key, a wrong
type, a kind no event has), so a malformed message is refused where it arrives instead of
failing later in a screen. Keys a TypedDict does not declare are let through (they are the
protocol version's concern, not a type's). :func:`typed` gives the value as its type once checked.

Knows what the room API's types are made of: ``object``, None, bool, int, float (an int too),
str, ``Literal``, unions (a union of TypedDicts told apart by their ``type`` literal is looked
up, not tried), ``list``, ``tuple`` (a JSON array of that length), ``dict``/``Mapping``
(string keys) and TypedDicts (``NotRequired`` keys may be absent). Anything else is a
``TypeError`` when compiled: a bug in the hint, not in the peer.
"""

from __future__ import annotations

import collections.abc
import types
from collections.abc import Callable
from typing import (
    Any,
    Literal,
    NotRequired,
    Required,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

T = TypeVar("T")
Check = Callable[[object], None]

_CHECKS: dict[object, Check] = {}


class ShapeError(ValueError):
    """A value that does not have its type's shape; ``str()`` says where and what."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.path: list[str] = []
        self.message = message

    def within(self, step: str) -> ShapeError:
        self.path.insert(0, step)
        return self

    def __str__(self) -> str:
        where = "".join(self.path).lstrip(".")
        return f"{where}: {self.message}" if where else self.message


def check(hint: object, value: object, what: str = "") -> None:
    """Raise :class:`ShapeError` (its place prefixed with ``what``) unless ``value`` fits ``hint``."""
    try:
        checker(hint)(value)
    except ShapeError as exc:
        if what:
            exc.within(what)
        raise


def typed(hint: type[T], value: object, what: str = "") -> T:
    """``value`` once it fits ``hint`` (a TypedDict, ``list[RoomEvent]``, str …), as that type."""
    check(hint, value, what)
    return cast(T, value)


def checker(hint: object) -> Check:
    """The check of ``hint``, compiled once."""
    found = _CHECKS.get(hint)
    if found is None:
        found = _CHECKS[hint] = _compile(hint)
    return found


def _kind(value: object) -> str:
    return type(value).__name__


def _instance(kind: type | tuple[type, ...], name: str, no_bool: bool = False) -> Check:
    def check(value: object) -> None:
        if not isinstance(value, kind) or (no_bool and isinstance(value, bool)):
            raise ShapeError(f"expected {name}, got {_kind(value)}")

    return check


def _anything(value: object) -> None:
    pass


def _none(value: object) -> None:
    if value is not None:
        raise ShapeError(f"expected null, got {_kind(value)}")


def _compile(hint: object) -> Check:
    if hint is object or hint is Any:
        return _anything
    if hint is None or hint is type(None):
        return _none
    if hint is bool:
        return _instance(bool, "bool")
    if hint is int:
        return _instance(int, "int", no_bool=True)
    if hint is float:
        return _instance((int, float), "number", no_bool=True)
    if hint is str:
        return _instance(str, "str")
    if is_typeddict(hint):
        return _typeddict(hint)
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return _literal(args)
    if origin in (Union, types.UnionType):
        return _union(args)
    if origin is list:
        return _list(checker(args[0]), _EXACT.get(args[0]))
    if origin is tuple:
        return _tuple(tuple(checker(a) for a in args))
    if origin in (dict, collections.abc.Mapping):
        return _dict(checker(args[1]) if args else _anything)
    raise TypeError(f"no shape check for {hint!r}")


def _literal(values: tuple[object, ...]) -> Check:
    allowed = {(type(v), v) for v in values}  # (True is not 1, nor "1" 1)

    def check(value: object) -> None:
        try:
            ok = (type(value), value) in allowed
        except TypeError:  # unhashable: a list or an object
            ok = False
        if not ok:
            raise ShapeError(f"expected one of {', '.join(map(repr, values))}, got {value!r:.40}")

    return check


def _list(item: Check, exact: tuple[type, ...] | None) -> Check:
    def check(value: object) -> None:
        if not isinstance(value, list):
            raise ShapeError(f"expected list, got {_kind(value)}")
        if exact is not None and all(type(x) in exact for x in value):
            return
        for i, x in enumerate(value):
            try:
                item(x)
            except ShapeError as exc:
                raise exc.within(f"[{i}]") from None

    return check


def _tuple(items: tuple[Check, ...]) -> Check:
    def check(value: object) -> None:
        if not isinstance(value, (list, tuple)) or len(value) != len(items):
            raise ShapeError(f"expected an array of {len(items)}, got {value!r:.40}")
        for i, (x, item) in enumerate(zip(value, items)):
            try:
                item(x)
            except ShapeError as exc:
                raise exc.within(f"[{i}]") from None

    return check


def _dict(item: Check) -> Check:
    def check(value: object) -> None:
        if not isinstance(value, dict):
            raise ShapeError(f"expected object, got {_kind(value)}")
        for key, x in value.items():
            if not isinstance(key, str):
                raise ShapeError(f"expected text keys, got {_kind(key)}")
            try:
                item(x)
            except ShapeError as exc:
                raise exc.within(f".{key}") from None

    return check


def _fields(hint: object) -> list[tuple[str, object, bool]]:
    """A TypedDict's (key, hint, required). Read from the hints, not ``__required_keys__``
    (Python 3.11 gets those wrong for ``NotRequired`` under ``from __future__ import
    annotations``)."""
    fields = []
    for key, field in get_type_hints(hint, include_extras=True).items():
        required = True
        while get_origin(field) in (NotRequired, Required):
            required = get_origin(field) is Required
            (field,) = get_args(field)
        fields.append((key, field, required))
    return fields


#: Checks a TypedDict's field runs inline (isinstance, no call): most fields are these. A bool
#: is an int to isinstance, so those kinds are checked by exact type (JSON gives no subclasses).
_EXACT: dict[object, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    bool: (bool,),
    float: (int, float),
    str | None: (str, type(None)),
    int | None: (int, type(None)),
}


def _typeddict(hint: object) -> Check:
    name = getattr(hint, "__name__", "object")
    fields = [(key, _EXACT.get(f), checker(f), required) for key, f, required in _fields(hint)]

    def check(value: object) -> None:
        if not isinstance(value, dict):
            raise ShapeError(f"expected {name}, got {_kind(value)}")
        for key, exact, field, required in fields:
            if key in value:
                if exact is not None and type(value[key]) in exact:
                    continue
                try:
                    field(value[key])
                except ShapeError as exc:
                    raise exc.within(f".{key}") from None
            elif required:
                raise ShapeError(f"{name} without {key!r}")

    return check


def _union(members: tuple[object, ...]) -> Check:
    if type(None) in members:
        rest = tuple(m for m in members if m is not type(None))
        inner = checker(rest[0] if len(rest) == 1 else Union[rest])  # noqa: UP007 - a runtime value

        def optional(value: object) -> None:
            if value is not None:
                inner(value)

        return optional
    by_type = _by_type(members)
    if by_type is not None:
        return by_type
    checks = [checker(m) for m in members]

    def any_of(value: object) -> None:
        errors = []
        for check in checks:
            try:
                check(value)
            except ShapeError as exc:
                errors.append(str(exc))
            else:
                return
        raise ShapeError(" or ".join(errors))

    return any_of


def _by_type(members: tuple[object, ...]) -> Check | None:
    """A union of TypedDicts each with a required ``type`` literal (the events): the member is
    looked up by the value's ``type`` (members sharing a literal are tried in turn)."""
    table: dict[object, list[Check]] = {}
    for member in members:
        if not is_typeddict(member):
            return None
        kind = get_type_hints(member, include_extras=True).get("type")
        if get_origin(kind) is not Literal:
            return None
        for literal in get_args(kind):
            table.setdefault(literal, []).append(checker(member))

    def check(value: object) -> None:
        if not isinstance(value, dict):
            raise ShapeError(f"expected an event, got {_kind(value)}")
        kind = value.get("type")
        found = table.get(kind) if isinstance(kind, str) else None
        if found is None:
            raise ShapeError(f"unknown type {kind!r:.40}")
        last: ShapeError | None = None
        for member in found:
            try:
                member(value)
            except ShapeError as exc:
                last = exc
            else:
                return
        assert last is not None
        raise last

    return check
