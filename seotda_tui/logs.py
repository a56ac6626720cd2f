"""Structured log lines: ``key=value`` (logfmt-like) or one JSON object per line.

Any module logs an *event* with fields::

    from seotda_tui.logs import log_event
    log_event(log, "room_created", room="r1", host="철수", players=1)
    log_event(log, "session_error", level=logging.ERROR, exc_info=True, user="영희")

which comes out (``log_format = "kv"``) as::

    ts=2025-01-02T03:04:05.678Z level=info logger=seotda.rooms event=room_created room=r1 \
        host=철수 players=1       (one line in the log)

or (``log_format = "json"``) as ``{"ts": ..., "level": "info", "logger": ..., "event": ..., ...}``.
Plain ``log.info("text %s", x)`` records still work: they carry ``msg=...`` instead of an event.
Tracebacks go into an ``exc`` field, escaped, so every record stays one line.

Never pass secrets or card values as fields: the formatter writes whatever it is given. Values
are escaped (quotes, backslashes, control and other non-printable characters), so a hostile user
name cannot forge a log line or send escape sequences to an operator's terminal.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from .addresses import EVERY_INTERFACE_SCOPE, listen_scope

_EVENT = "seotda_event"
_FIELDS = "seotda_fields"
_HANDLER_MARK = "_seotda_handler"
_BASE_KEYS = ("ts", "level", "logger", "event", "msg", "exc")


def log_event(
    logger: logging.Logger,
    event: str,
    /,
    *,
    level: int = logging.INFO,
    exc_info: Any = None,
    **fields: Any,
) -> None:
    """Log ``event`` with ``fields`` as one structured record (cheap when the level is off)."""
    if logger.isEnabledFor(level):
        logger.log(level, "%s", event, exc_info=exc_info, extra={_EVENT: event, _FIELDS: fields})


def record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The structured content of a record: event (or msg) and fields (for formatters, tests)."""
    out: dict[str, Any] = {}
    event = getattr(record, _EVENT, None)
    if event is not None:
        out["event"] = event
        for key, value in getattr(record, _FIELDS, {}).items():
            out[key if key not in _BASE_KEYS else f"field_{key}"] = value
    else:
        out["msg"] = record.getMessage()
    return out


def _timestamp(record: logging.LogRecord) -> str:
    t = time.gmtime(record.created)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(record.msecs):03d}Z"


def _escape(text: str) -> str:
    """Quote a value if it needs it; escape anything that is not plainly printable."""
    if text and all(ch.isprintable() and ch not in ' "=\\' for ch in text):
        return text
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == " " or ch.isprintable():
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def _kv_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.3f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return str(value)
    return _escape(str(value))


def _safe_json_text(text: str) -> str:
    """JSON keeps non-ASCII as is; also escape C1 controls and other non-printables."""
    return "".join(ch if ch.isprintable() or ch in "\n\t" else f"\\u{ord(ch):04x}" for ch in text)


class KeyValueFormatter(logging.Formatter):
    """``ts=... level=... logger=... event=... k=v ...`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [
            f"ts={_timestamp(record)}",
            f"level={record.levelname.lower()}",
            f"logger={_escape(record.name)}",
        ]
        parts += [f"{_escape(k)}={_kv_value(v)}" for k, v in record_fields(record).items()]
        exc = self._exception_text(record)
        if exc:
            parts.append(f"exc={_escape(exc)}")
        return " ".join(parts)

    def _exception_text(self, record: logging.LogRecord) -> str:
        text = ""
        if record.exc_info:
            text = self.formatException(record.exc_info)
        if record.stack_info:
            text = (text + "\n" if text else "") + self.formatStack(record.stack_info)
        return text


class JsonFormatter(KeyValueFormatter):
    """One JSON object per line (non-ASCII kept, control characters escaped)."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        for key, value in record_fields(record).items():
            data[key] = _safe_json_text(value) if isinstance(value, str) else value
        exc = self._exception_text(record)
        if exc:
            data["exc"] = exc
        return json.dumps(data, ensure_ascii=False, default=str)


FORMATTERS: Mapping[str, type[logging.Formatter]] = {"kv": KeyValueFormatter, "json": JsonFormatter}


def setup_logging(stream: TextIO | None, level: str = "info", fmt: str = "kv") -> logging.Handler:
    """Send every log record to ``stream`` in the chosen format; replaces a previous call's handler.

    ``stream`` should be the real stderr captured at start-up: Textual apps replace
    ``sys.stderr`` process-wide while they run.
    """
    handler = logging.StreamHandler(stream)
    handler.setFormatter(FORMATTERS[fmt]())
    setattr(handler, _HANDLER_MARK, True)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler


def log_listen_scope(host: str, port: int, bound: Iterable[tuple[Any, ...]] = ()) -> None:
    """The start-up line that says who can reach the server (:func:`addresses.listen_scope`): a
    warning when it is every network interface. ``bound``: the sockets' own addresses."""
    scope, note = listen_scope(host, port)
    sockets = ",".join(f"[{a[0]}]:{a[1]}" if ":" in str(a[0]) else f"{a[0]}:{a[1]}" for a in bound)
    log_event(
        logging.getLogger("seotda"),
        "listen_scope",
        level=logging.WARNING if scope == EVERY_INTERFACE_SCOPE else logging.INFO,
        scope=scope,
        addr=f"{host}:{port}",
        **({"sockets": sockets} if sockets else {}),
        note=note,
    )
