"""Server settings from one TOML file, ``SEOTDA_*`` environment variables and flags.

Precedence (later wins): built-in defaults < TOML file (``--config``) < environment < flags.
Every setting has one name used in all three places: TOML ``[section] key``, environment
``SEOTDA_KEY`` (upper case), flag ``--key`` (dashes). A bad value raises ``ConfigError`` naming the
key and where it came from; ``seotda-server --check-config`` prints the effective settings.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from os import PathLike, fspath
from pathlib import Path
from typing import Any

from engine import Options, OptionsError

from .addresses import address_network, key_fingerprint
from .i18n import N_


class ConfigError(ValueError):
    """A setting that cannot be used; the message names the key."""


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("양의 정수여야 해요 (must be a positive integer)")
    return value


def _non_negative_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("0 이상의 정수여야 해요 (must be an integer ≥ 0)")
    return value


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ValueError("0..65535 사이의 정수여야 해요 (must be a port number)")
    return value


def _non_negative_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError("0 이상의 수여야 해요 (must be a number ≥ 0)")
    return float(value)


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"true 나 false 여야 해요: {value!r}")


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("문자열이어야 해요 (must be a string)")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value in (None, "") else _text(value)


def _path(value: Any) -> Path:
    if isinstance(value, PathLike):
        value = fspath(value)
    return Path(_text(value)).expanduser()


def _optional_path(value: Any) -> Path | None:
    return None if value in (None, "") else _path(value)


def _list_of(item: Callable[[str], str]) -> Callable[[Any], tuple[str, ...]]:
    """A TOML list of strings, or one comma-separated string (environment, flags)."""

    def parse(value: Any) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [part for part in value.split(",") if part.strip()]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError("문자열 목록이어야 해요 (must be a list of strings)")
        return tuple(dict.fromkeys(item(v) for v in value))

    return parse


def _origin(text: str) -> str:
    """A browser origin (``https://game.example.com``, ``http://host:8080``): scheme and host
    (and port) only, lower-cased as browsers send it. ValueError if it is not one."""
    value = text.strip().lower().rstrip("/")
    scheme, sep, rest = value.partition("://")
    if scheme not in ("http", "https") or not sep or not rest or "/" in rest or "@" in rest:
        raise ValueError(f"http(s)://호스트[:포트] 형식이어야 해요 (an origin): {text!r}")
    return value


def _choice(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"{', '.join(choices)} 중 하나여야 해요 (must be one of them)")
        return str(value)

    return parse


@dataclass(frozen=True)
class _Key:
    section: str
    name: str
    parse: Callable[[Any], Any]
    help: str  # a Korean msgid: ``--help`` shows it in the operator's language (cli/args.py)


KEYS: tuple[_Key, ...] = (
    _Key(
        "server", "host", _text, N_("들을 주소 (0.0.0.0 = 모든 네트워크, 127.0.0.1 = 이 컴퓨터만)")
    ),
    _Key("server", "port", _port, N_("들을 포트 (0 = 빈 포트)")),
    _Key("server", "hostkey_dir", _path, N_("호스트 키 폴더")),
    _Key("server", "data_dir", _path, N_("SQLite 데이터 폴더")),
    _Key("server", "journal_keep_days", _non_negative_int, N_("끝난 게임 보관 일수 (0 = 영구)")),
    _Key("server", "motd", _text, N_("로비에 보여 줄 안내 문구")),
    _Key(
        "server",
        "default_language",
        _choice("ko", "en"),
        N_("클라이언트가 LANG/LC_ALL을 보내지 않을 때의 화면 언어 (ko, en)"),
    ),
    _Key(
        "server", "shutdown_notice", _non_negative_number, N_("종료 전 알림 후 기다리는 시간(초)")
    ),
    _Key("server", "stock_textual", _bool, N_("Textual 최적화를 끄고 기본 경로로 (문제 확인용)")),
    _Key(
        "server", "compression", _bool, N_("SSH 압축(zlib@openssh.com)도 제공 (BENCHMARKS.md 참고)")
    ),
    _Key("server", "workers", _positive_int, N_("SSH 세션을 돌릴 프로세스 수 (1 = 한 프로세스)")),
    _Key(
        "metrics",
        "metrics_port",
        _port,
        N_("Prometheus 지표(/metrics)와 /healthz 를 줄 HTTP 포트 (0 = 끔)"),
    ),
    _Key("metrics", "metrics_host", _text, N_("지표 HTTP 포트가 들을 주소")),
    _Key("web", "web_port", _port, N_("브라우저로 접속하는 웹 터미널의 HTTP 포트 (0 = 끔)")),
    _Key("web", "web_host", _optional_text, N_("웹 포트가 들을 주소 (비우면 host 와 같음)")),
    _Key(
        "web",
        "web_allowed_origins",
        _list_of(_origin),
        N_("웹소켓을 열 수 있는 다른 출처 목록 (https://example.com; 같은 호스트는 늘 허용)"),
    ),
    _Key(
        "web",
        "web_trusted_proxies",
        _list_of(address_network),
        N_("X-Forwarded-For 를 믿을 리버스 프록시 주소 목록 (IP, CIDR)"),
    ),
    _Key("auth", "auth_mode", _choice("open", "password", "keys"), N_("인증 방식")),
    _Key("auth", "password", _optional_text, N_("공용 서버 비밀번호 (password 모드)")),
    _Key("auth", "authorized_keys", _optional_path, N_("허용 키 파일 (keys 모드)")),
    _Key("limits", "max_sessions", _positive_int, N_("동시 접속 상한")),
    _Key("limits", "max_sessions_per_ip", _positive_int, N_("IP당 동시 접속 상한")),
    _Key("limits", "max_rooms", _positive_int, N_("동시에 열린 방 상한")),
    _Key(
        "limits", "max_rooms_per_address", _positive_int, N_("한 주소(IP)에서 방장으로 연 방 상한")
    ),
    _Key("limits", "connect_rate", _non_negative_number, N_("IP당 초당 새 연결 (토큰 버킷 속도)")),
    _Key("limits", "connect_burst", _positive_int, N_("IP당 연결 버스트 (토큰 버킷 크기)")),
    _Key("limits", "auth_failures", _positive_int, N_("차단까지 허용하는 인증 실패 횟수")),
    _Key("limits", "auth_jail_seconds", _non_negative_number, N_("인증 실패 차단 시간(초)")),
    _Key(
        "limits",
        "handshake_grace",
        _non_negative_number,
        N_(
            "키 교환에서 서버 응답까지 제한 시간(초, 0 = login_grace 만; 그 뒤 호스트 키 확인은 login_grace)"
        ),
    ),
    _Key("limits", "login_grace", _non_negative_number, N_("SSH 로그인 전체 제한 시간(초)")),
    _Key("limits", "max_pending_logins", _positive_int, N_("로그인 중인 연결 전체 상한")),
    _Key("limits", "max_pending_logins_per_ip", _positive_int, N_("IP당 로그인 중인 연결 상한")),
    _Key(
        "limits",
        "max_refused_logins",
        _positive_int,
        N_("거절 이유를 보여 주는 중인 로그인 상한 (max_sessions 와 따로, 넘으면 바로 끊음)"),
    ),
    _Key(
        "limits",
        "refused_login_grace",
        _non_negative_number,
        N_("거절된 로그인이 이유를 읽을 세션을 여는 제한 시간(초)"),
    ),
    _Key(
        "limits",
        "name_failures",
        _positive_int,
        N_("한 닉네임의 비밀번호가 (모든 주소에서 합쳐) 이만큼 틀리면 그 닉네임을 잠금"),
    ),
    _Key(
        "limits",
        "name_lock_seconds",
        _non_negative_number,
        N_("닉네임 잠금 시간(초, 0 = 끔; 그 닉네임으로 로그인했던 주소는 잠겨도 들어옴)"),
    ),
    _Key(
        "limits",
        "registrations_per_ip",
        _non_negative_int,
        N_("IP당 시간당 새 닉네임 수 (0 = 무제한)"),
    ),
    _Key(
        "limits",
        "nickname_expiry_days",
        _non_negative_int,
        N_("등록한 날 뒤로 한 번도 안 쓴 닉네임을 풀어 주는 일수 (0 = 영구)"),
    ),
    _Key(
        "limits",
        "max_refused_requests",
        _positive_int,
        N_("연결당 거절된 요청(포워딩, exec, 알 수 없는 요청) 상한, 넘으면 연결을 끊음"),
    ),
    _Key("limits", "idle_timeout", _non_negative_number, N_("로비 무활동 종료 시간(초, 0 = 끔)")),
    _Key("limits", "idle_warning", _non_negative_number, N_("무활동 종료 전 경고 시간(초)")),
    _Key("limits", "keepalive_interval", _non_negative_number, N_("SSH keepalive 간격(초)")),
    _Key("limits", "keepalive_count_max", _positive_int, N_("응답 없는 keepalive 허용 횟수")),
    _Key("limits", "input_rate", _positive_int, N_("세션당 입력 바이트/초 상한")),
    _Key("limits", "input_burst", _positive_int, N_("세션당 입력 버스트 바이트")),
    _Key(
        "limits",
        "reconnect_grace",
        _non_negative_number,
        N_("끊긴 플레이어를 접속으로 칠 시간(초)"),
    ),
    _Key(
        "bans", "banned_keys", _list_of(key_fingerprint), N_("접속을 막을 키 지문 목록 (SHA256:…)")
    ),
    _Key(
        "bans",
        "banned_addresses",
        _list_of(address_network),
        N_("접속을 막을 주소 목록 (IP, CIDR)"),
    ),
    _Key("log", "log_level", _choice("debug", "info", "warning", "error"), N_("로그 수준")),
    _Key("log", "log_format", _choice("kv", "json"), N_("로그 형식 (key=value 또는 JSON)")),
)
_BY_NAME = {k.name: k for k in KEYS}


@dataclass(frozen=True)
class Settings:
    """The effective server settings (defaults are what a 1-vCPU VPS survives)."""

    host: str = "0.0.0.0"
    port: int = 2222
    hostkey_dir: Path = Path("hostkeys")
    data_dir: Path = Path("data")
    journal_keep_days: int = 30
    motd: str = ""
    default_language: str = "ko"  # seotda_tui/i18n.py: when the client sends no LANG/LC_ALL
    shutdown_notice: float = 2.0
    stock_textual: bool = False  # seotda_tui/tuning/: every speed-up off
    compression: bool = False  # offer zlib@openssh.com: off, see BENCHMARKS.md "SSH clients"
    workers: int = 1  # ≥2: sessions in that many processes, rooms in one (seotda_tui/cluster/)
    metrics_port: int = 0  # off; seotda_tui/metrics.py (README "Metrics and health")
    metrics_host: str = "127.0.0.1"  # for the operator's Prometheus, not the players: see README
    web_port: int = 0  # off; seotda_tui/web/ (README "Play in a browser")
    web_host: str | None = None  # None: the SSH listener's host
    web_allowed_origins: tuple[str, ...] = ()  # besides the page's own host
    web_trusted_proxies: tuple[str, ...] = ()  # whose X-Forwarded-For names the client
    auth_mode: str = "open"
    password: str | None = None
    authorized_keys: Path | None = None
    max_sessions: int = 200
    max_sessions_per_ip: int = 8
    max_rooms: int = 100  # rooms open at once (the next one is refused); rooms/manager.py
    max_rooms_per_address: int = 3  # rooms whose hosts connect from one address (IPv6: /64)
    connect_rate: float = 1.0
    connect_burst: int = 10
    auth_failures: int = 15
    auth_jail_seconds: float = 300.0
    handshake_grace: float = 6.0
    login_grace: float = 60.0  # a first keyless login reads, then types a passphrase twice
    max_pending_logins: int = 128
    max_pending_logins_per_ip: int = 8
    # A login refused after auth (look-alike name, server full): shown why, then closed.
    max_refused_logins: int = 32  # at once, apart from max_sessions; past it: hung up at once
    refused_login_grace: float = 10.0  # to open the session that shows why (plink waits)
    name_failures: int = 10  # wrong passphrases for one name, from every address together
    name_lock_seconds: float = 600.0  # then keyless logins to it wait this long (0 = off)
    registrations_per_ip: int = 10  # new nicknames per address per hour (0 = unlimited)
    nickname_expiry_days: int = 90  # a name not used after its first day is freed (0 = never)
    max_refused_requests: int = 20  # forwardings, exec, unknown requests; then hung up
    idle_timeout: float = 1800.0
    idle_warning: float = 60.0
    keepalive_interval: float = 15.0
    keepalive_count_max: int = 4
    input_rate: int = 4096
    input_burst: int = 16384
    reconnect_grace: float = 60.0
    #: Fixed bans from the configuration; bans added with ``--ban-key``/``--ban-address`` are
    #: in the data dir's database instead (:mod:`seotda_tui.ssh.bans`).
    banned_keys: tuple[str, ...] = ()
    banned_addresses: tuple[str, ...] = ()
    log_level: str = "info"
    log_format: str = "kv"
    room_defaults: Options = field(default_factory=Options)

    def describe(self) -> str:
        """The effective settings as TOML-like text (passwords masked)."""
        lines: list[str] = []
        section = None
        for key in KEYS:
            if key.section != section:
                section = key.section
                lines.append(f"[{section}]")
            value = getattr(self, key.name)
            if key.name == "password" and value:
                value = "********"
            lines.append(f"{key.name} = {_show(value)}")
        lines.append("[room_defaults]")
        lines += [f"{k} = {_show(v)}" for k, v in self.room_defaults.to_dict().items()]
        return "\n".join(lines)


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return '""'
    if isinstance(value, (int, float)):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _from_env_text(key: _Key, raw: str) -> Any:
    """Environment values are text: read numbers for numeric keys."""
    sample = getattr(Settings(), key.name)
    if isinstance(sample, bool):
        return raw.lower() in ("1", "true", "yes", "on")
    if isinstance(sample, int):
        try:
            return int(raw)
        except ValueError:
            return raw
    if isinstance(sample, float):
        try:
            return float(raw)
        except ValueError:
            return raw
    return raw


def text_value(name: str, raw: str) -> Any:
    """A command-line or environment string for setting ``name``, typed like its default
    (validation happens in :func:`load_settings`, which names the flag or variable)."""
    return _from_env_text(_BY_NAME[name], raw)


def load_settings(
    config_file: Path | None = None,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Settings:
    """Merge defaults < TOML < environment < flags; ``flags`` values of None are "not given"."""
    values: dict[str, Any] = {}
    room: dict[str, Any] = {}
    if config_file is not None:
        values, room = _read_toml(config_file)
    for key in KEYS:
        raw = (env or {}).get(f"SEOTDA_{key.name.upper()}")
        if raw is not None:
            values[key.name] = _parse(key, _from_env_text(key, raw), f"SEOTDA_{key.name.upper()}")
    for name, value in (flags or {}).items():
        if value is None:
            continue
        flag_key = _BY_NAME.get(name)
        if flag_key is None:
            raise ConfigError(f"알 수 없는 설정이에요: --{name.replace('_', '-')}")
        values[name] = _parse(flag_key, value, f"--{name.replace('_', '-')}")
    if "auth_mode" not in values:  # inferred from the secret given (a key list wins)
        if values.get("authorized_keys"):
            values["auth_mode"] = "keys"
        elif values.get("password"):
            values["auth_mode"] = "password"
    try:
        defaults = Options.from_dict(room)
    except OptionsError as exc:
        raise ConfigError(f"[room_defaults]: {exc}") from exc
    settings = Settings(**values, room_defaults=defaults)
    if settings.auth_mode == "password" and not settings.password:
        raise ConfigError('auth_mode = "password" 에는 password 설정이 필요해요')
    if settings.auth_mode == "keys" and settings.authorized_keys is None:
        raise ConfigError('auth_mode = "keys" 에는 authorized_keys 설정이 필요해요')
    # A secret that would silently go unused is a mistake worth stopping for.
    if settings.auth_mode == "open" and (settings.password or settings.authorized_keys):
        raise ConfigError(
            'auth_mode = "open" 인데 password 나 authorized_keys 가 설정돼 있어요 '
            "(auth_mode 를 password 나 keys 로 바꾸거나 그 설정을 지워 주세요)"
        )
    if settings.auth_mode == "password" and settings.authorized_keys is not None:
        raise ConfigError(
            'auth_mode = "password" 에서는 authorized_keys 를 쓰지 않아요 '
            '(허용 키 목록과 비밀번호를 함께 쓰려면 auth_mode = "keys")'
        )
    return settings


def _parse(key: _Key, value: Any, where: str) -> Any:
    try:
        return key.parse(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def _read_toml(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"설정 파일이 없어요: {path}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: TOML 형식이 올바르지 않아요: {exc}") from exc
    values: dict[str, Any] = {}
    sections = {k.section for k in KEYS} | {"room_defaults"}
    for section, table in data.items():
        if section not in sections or not isinstance(table, dict):
            raise ConfigError(f"{path}: 알 수 없는 설정 구역이에요: [{section}]")
        if section == "room_defaults":
            continue
        for name, value in table.items():
            key = _BY_NAME.get(name)
            if key is None or key.section != section:
                raise ConfigError(f"{path}: 알 수 없는 설정이에요: [{section}] {name}")
            values[name] = _parse(key, value, f"{path}: [{section}] {name}")
    return values, dict(data.get("room_defaults", {}))
