"""``seotda-server`` / ``python -m seotda_tui``: start the SSH game server.

Settings come from (later wins) built-in defaults < ``--config FILE`` (TOML) < ``SEOTDA_*``
environment variables < command-line flags; every setting is all three (see
:mod:`seotda_tui.config` and ``deploy/seotda.toml.example``). The environment is read once,
here, at start-up. ``--check-config`` prints the effective settings (password masked) and
exits 0, or prints what is wrong and exits 2. ``--release-nickname NAME`` frees a nickname
in the configured ``data_dir`` (its SSH key binding or passphrase) so the next first login
may take it, with a fresh record and hand history unless ``--keep-records``; refused while the
journal has the name in a seat of a running game. Safe while the server runs (the store is
read per login). ``--ban-key FP``,
``--ban-address ADDR``, ``--unban FP|ADDR`` and ``--list-bans`` edit or show the data dir's bans
the same way (see :mod:`seotda_tui.ssh.bans`): the running server reads them on every login.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import gettext
import inspect
import logging
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO, TypeVar, cast

import asyncssh

from . import __version__
from .config import (
    KEYS,
    ConfigError,
    Settings,
    address_network,
    key_fingerprint,
    load_settings,
    text_value,
)
from .dbcheck import DataFileProblem
from .i18n import KOREAN, terminal_language, translations
from .logs import log_event, setup_logging
from .sanitize import validate_nickname
from .ssh.hostkey import HostKeyError, check_host_key_files
from .ssh.server import ServerConfig, start_server
from .ssh.state import AppFactory
from .ssh.store import DB_NAME, NicknameStore

if TYPE_CHECKING:
    from .metrics import Exporter
    from .rooms import RoomManager
    from .rooms.records import GameRecords

T = TypeVar("T")

log = logging.getLogger("seotda")

Cleanup = Callable[[], Awaitable[None] | None]


def build_app_factory(settings: Settings) -> tuple[AppFactory, Cleanup]:
    """The real game: one RoomManager shared by every player's SeotdaApp.

    The manager gets ``reconnect_grace`` and ``room_defaults``, the apps the ``motd``
    (and they register the idle-exempt hook themselves, see ``app.make_app_factory``).
    Returns the factory and the manager's ``close``, run after the last session ended at
    shutdown.
    """
    from seotda_tui.ui.app import make_app_factory

    manager = build_manager(settings)
    factory = make_app_factory(manager, motd=settings.motd)
    return cast(AppFactory, factory), manager.close


def build_manager(settings: Settings) -> RoomManager:
    """The one room manager (of the process, or of the rooms process with ``--workers N``)."""
    from seotda_tui.rooms import RoomManager
    from seotda_tui.rooms.journal import Journal

    # The journal: every game is recorded as it is played; a restart resumes unfinished ones.
    return RoomManager(
        reconnect_grace=settings.reconnect_grace,
        room_defaults=settings.room_defaults,
        max_rooms=settings.max_rooms,
        max_rooms_per_address=settings.max_rooms_per_address,
        journal=opened(journal_path(settings), lambda: Journal(journal_path(settings))),
        records=opened(records_path(settings), lambda: open_records(settings)),
    )


def open_records(settings: Settings) -> GameRecords:
    """Players' records, for the names the identity store holds (its own connection to it,
    read at each game's end, so a name released meanwhile is no longer counted)."""
    from seotda_tui.rooms.records import GameRecords
    from seotda_tui.rooms.records_db import RecordStore

    identities = NicknameStore(settings.data_dir)
    return GameRecords(
        RecordStore(records_path(settings)),
        lambda nick: identities.holder(nick) is not None,
        on_close=identities.close,
    )


class DataFileError(Exception):
    """A data file that could not be opened at start-up, with its path for the one-line message."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.path, self.cause = path, cause


def opened(path: Path, open_: Callable[[], T]) -> T:
    """``open_()``, with a failure to open ``path`` raised as :class:`DataFileError`."""
    try:
        return open_()
    except (sqlite3.Error, OSError, DataFileProblem) as exc:
        raise DataFileError(path, exc) from exc


def records_path(settings: Settings) -> Path:
    from seotda_tui.rooms.records_db import DB_NAME as RECORDS_DB

    return settings.data_dir / RECORDS_DB


def journal_path(settings: Settings) -> Path:
    return settings.data_dir / "games.sqlite3"


def check_data_files(settings: Settings) -> str | None:
    """The data folder, the journal, the nickname store and the records, checked before
    anything opens them: the one-line message for the first that cannot be used as it is (no
    write access, empty, damaged, written by a newer version: see :mod:`seotda_tui.dbcheck`),
    or None."""
    from seotda_tui.dbcheck import DataFileProblem, check_data_dir, check_database
    from seotda_tui.rooms.journal import SCHEMA_VERSION as JOURNAL_SCHEMA
    from seotda_tui.rooms.records_db import SCHEMA_VERSION as RECORDS_SCHEMA
    from seotda_tui.ssh.store import DB_NAME
    from seotda_tui.ssh.store import SCHEMA_VERSION as STORE_SCHEMA

    files = (
        (journal_path(settings), JOURNAL_SCHEMA),
        (settings.data_dir / DB_NAME, STORE_SCHEMA),
        (records_path(settings), RECORDS_SCHEMA),
    )
    try:
        check_data_dir(settings.data_dir)
        for path, known in files:
            check_database(path, known)
    except DataFileProblem as exc:
        return str(exc)
    return None


def unopenable_message(path: Path, exc: BaseException) -> str:
    """One line for a data file that is sound (see :func:`check_data_files`) but cannot be
    opened or set up: no write access (said as such), a full disk; a problem the store found
    itself (a newer version's file) says what it is."""
    from seotda_tui.dbcheck import open_failure_message

    if isinstance(exc, DataFileProblem):
        return str(exc)
    return open_failure_message(path, exc)


#: How often the running server drops games finished more than ``journal_keep_days`` ago.
JOURNAL_PRUNE_SECONDS = 3600.0


@contextlib.asynccontextmanager
async def journal_pruning(
    settings: Settings, every: float = JOURNAL_PRUNE_SECONDS
) -> AsyncIterator[None]:
    """Prune the journal now (before anyone connects: a first big prune blocks nobody), then
    every ``every`` seconds until the server stops.

    Its own connection to the journal file, because the room manager's is out of reach here;
    both are only used from the event loop's thread, so their transactions never overlap.
    """
    if settings.journal_keep_days <= 0:
        yield
        return
    from seotda_tui.rooms.journal import Journal
    from seotda_tui.rooms.recording import prune_journal

    journal = Journal(journal_path(settings))
    prune_journal(journal, settings.journal_keep_days)

    async def hourly() -> None:
        while True:
            await asyncio.sleep(every)
            prune_journal(journal, settings.journal_keep_days)

    task = asyncio.create_task(hourly(), name="journal-prune")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        journal.close()


#: Names freed per sweep at most (the rest wait for the next hour): each opens the journal and
#: the records on the event loop's thread, ~4 ms a name (50: a 0.2 s pause at most, hourly).
EXPIRE_PER_SWEEP = 50


def expire_nicknames(settings: Settings) -> list[str]:
    """Free the names nobody used after the day they were registered, ``nickname_expiry_days``
    on (:meth:`NicknameStore.expired`), as ``--release-nickname`` does: their records and hand
    history go too, and one still seated in a running game waits. Each is logged."""
    if settings.nickname_expiry_days <= 0 or not (settings.data_dir / DB_NAME).exists():
        return []
    days = settings.nickname_expiry_days
    freed: list[str] = []
    try:
        store = NicknameStore(settings.data_dir)
        try:
            for nickname in store.expired(days, EXPIRE_PER_SWEEP):
                if seated_games(settings, nickname) or not store.release_expired(nickname, days):
                    continue
                games, results = forget_nickname(settings, nickname)
                log_event(
                    log, "name_expired", user=nickname, days=days, games=games, results=results
                )
                freed.append(nickname)
        finally:
            store.close()
    except sqlite3.Error as exc:  # housekeeping: the next sweep tries again
        log_event(log, "name_expiry_failed", level=logging.WARNING, error=str(exc))
    return freed


@contextlib.asynccontextmanager
async def nickname_expiry(
    settings: Settings, every: float = JOURNAL_PRUNE_SECONDS
) -> AsyncIterator[None]:
    """:func:`expire_nicknames` now and every ``every`` seconds until the server stops (in the
    process that keeps the rooms: the only one, or the rooms process of ``--workers N``)."""
    if settings.nickname_expiry_days <= 0:
        yield
        return
    expire_nicknames(settings)

    async def hourly() -> None:
        while True:
            await asyncio.sleep(every)
            expire_nicknames(settings)

    task = asyncio.create_task(hourly(), name="nickname-expiry")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def help_translations(environ: Mapping[str, str]) -> gettext.NullTranslations:
    """The catalogue ``--help`` speaks: the operator's locale (:func:`i18n.terminal_language`),
    English unless it is Korean. A checkout whose English catalogue is not compiled yet
    (before ``make i18n``) gets the Korean source texts rather than a crash."""
    language = terminal_language(environ)
    try:
        return translations(language)
    except RuntimeError:
        return translations(KOREAN)


def build_parser(environ: Mapping[str, str] | None = None) -> argparse.ArgumentParser:
    """The command line, its help in the operator's language (``environ``: the process's)."""
    _ = help_translations(os.environ if environ is None else environ).gettext
    parser = argparse.ArgumentParser(
        prog="seotda-server",
        description=_(
            "섯다 SSH 서버: 친구들이 ssh 로 접속해서 함께 섯다를 쳐요. "
            "설정 우선순위: 기본값 < --config 파일 < SEOTDA_* 환경 변수 < 명령행 옵션."
        ),
        epilog=_("바뀐 점: CHANGELOG.md. 서버 운영: deploy/SELF_HOSTING.md."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"seotda-server {__version__}",
        help=_("버전을 보여 주고 끝내요"),
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help=_("TOML 설정 파일"))
    parser.add_argument(
        "--check-config",
        action="store_true",
        help=_("설정을 검사하고 실제로 쓰일 값을 보여 준 뒤 끝내요"),
    )
    parser.add_argument(
        "--release-nickname",
        metavar="NAME",
        help=_(
            "닉네임의 SSH 키 등록이나 비밀번호를 지워서 다시 처음처럼 쓸 수 있게 하고 끝내요 "
            "(서버가 돌고 있어도 돼요). 그 닉네임의 전적과 지난 게임 기록도 지워서, 다음에 그 "
            "닉네임을 갖는 사람은 아무것도 물려받지 않아요. 진행 중인 게임에 자리가 있는 "
            "닉네임은 게임이 끝난 뒤에 풀 수 있어요"
        ),
    )
    parser.add_argument(
        "--keep-records",
        action="store_true",
        help=_(
            "--release-nickname 과 함께: 같은 사람이 돌아오는 걸 확인했을 때, 전적과 지난 "
            "게임 기록을 지우지 않고 남겨요"
        ),
    )
    bans = parser.add_argument_group(_("접속 차단 (서버가 돌고 있어도 돼요: 다음 접속부터 적용)"))
    bans.add_argument(
        "--ban-key",
        metavar="FP",
        action="append",
        help=_("이 키 지문(ssh-keygen -l 이 보여 주는 SHA256:…)의 접속을 막고 끝내요"),
    )
    bans.add_argument(
        "--ban-address",
        metavar="ADDR",
        action="append",
        help=_("이 주소(IP 나 203.0.113.0/24 같은 CIDR)의 접속을 막고 끝내요"),
    )
    bans.add_argument(
        "--unban",
        metavar="FP|ADDR",
        action="append",
        help=_("--ban-key/--ban-address 를 풀고 끝내요"),
    )
    bans.add_argument("--list-bans", action="store_true", help=_("차단 목록을 보여 주고 끝내요"))
    settings = parser.add_argument_group(
        _("설정 (TOML 파일의 키와 같은 이름; 환경 변수 SEOTDA_<이름>)")
    )
    defaults = Settings()
    for key in KEYS:
        sample = getattr(defaults, key.name)
        text = _(key.help)
        if sample not in (None, "", ()):
            text = _("{help} (기본 {default})").format(help=text, default=sample)
        switch = {"nargs": "?", "const": "true"} if isinstance(sample, bool) else {}
        settings.add_argument(
            "--" + key.name.replace("_", "-"),
            dest=key.name,
            default=None,
            metavar="VALUE",
            help=_("{help}; 환경 변수 {variable}")
            .format(help=text, variable=f"SEOTDA_{key.name.upper()}")
            .replace("%", "%%"),
            **switch,  # type: ignore[arg-type]
        )
    return parser


def parse_args(
    argv: list[str] | None = None, environ: Mapping[str, str] | None = None
) -> argparse.Namespace:
    return build_parser(environ).parse_args(argv)


def settings_from(args: argparse.Namespace, environ: Mapping[str, str]) -> Settings:
    """Merge file < environment < flags (flags arrive as text and are typed like the env)."""
    flags = {
        key.name: text_value(key.name, raw)
        for key in KEYS
        if (raw := getattr(args, key.name)) is not None
    }
    settings = load_settings(args.config, environ, flags)
    check_files(settings)
    return settings


def check_files(settings: Settings) -> None:
    """Problems with files the settings name, as ConfigErrors naming the setting."""
    if settings.authorized_keys is not None:
        try:
            asyncssh.read_authorized_keys(str(settings.authorized_keys))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"authorized_keys: {settings.authorized_keys} 을(를) 읽을 수 없어요: {exc}"
            ) from exc
    try:
        check_host_key_files(settings.hostkey_dir)
    except HostKeyError as exc:
        raise ConfigError(f"hostkey_dir: {exc}") from exc


def release_nickname(settings: Settings, name: str, keep_records: bool = False) -> int:
    """``--release-nickname``: free ``name`` in the store; 0 if it was held, 1 if unknown or
    still seated in a running game (the journal says so: the next holder would get the seat
    and its cards). Unless ``keep_records``, the name's records and hand history go too, so
    whoever takes it next inherits nothing of the last holder's."""
    try:
        nickname = validate_nickname(name)  # the form it was stored in (NFC, jamo)
    except ValueError:
        nickname = name
    seated = seated_games(settings, nickname)
    if seated:
        print(
            f"'{nickname}' 닉네임은 아직 진행 중인 게임에 자리가 있어요 ({len(seated)}판). "
            "게임이 끝나거나 그 사람이 나간 뒤에 다시 해 주세요. "
            f"(Nickname '{nickname}' still holds a seat in a running game; not released.)",
            file=sys.stderr,
        )
        return 1
    holder = None
    if (settings.data_dir / DB_NAME).exists():  # else nothing is registered: don't create it
        store = NicknameStore(settings.data_dir)
        try:
            holder = store.release(nickname)
        finally:
            store.close()
    if holder is None:
        print(f"'{nickname}' 닉네임은 등록되어 있지 않아요 (unknown nickname).", file=sys.stderr)
        return 1
    what = "SSH 키 등록 (SSH key binding)" if holder.key_fingerprint else "비밀번호 (passphrase)"
    print(
        f"'{nickname}' 닉네임을 해제했어요: {what}을(를) 지웠어요. 다음에 처음 접속하는 사람이 "
        f"쓸 수 있어요. (Released nickname '{nickname}'.)"
    )
    if keep_records:
        print("전적과 지난 게임 기록은 남겨 뒀어요. (Records and hand history kept.)")
    else:
        games, results = forget_nickname(settings, nickname)
        print(
            f"전적 {results}판과 지난 게임 {games}판의 기록을 지웠어요. "
            f"(Deleted {results} recorded results and {games} games of hand history.)"
        )
    return 0


def seated_games(settings: Settings, nickname: str) -> list[str]:
    """The journal's running games in which ``nickname`` still has a seat."""
    from seotda_tui.rooms.journal import Journal

    if not journal_path(settings).exists():
        return []
    journal = Journal(journal_path(settings))
    try:
        return journal.seated_in_open_games(nickname)
    finally:
        journal.close()


def forget_nickname(settings: Settings, nickname: str) -> tuple[int, int]:
    """A released name's hand history and records go: (games, results) removed."""
    from seotda_tui.rooms.journal import Journal
    from seotda_tui.rooms.records_db import RecordStore

    games = results = 0
    if journal_path(settings).exists():
        journal = Journal(journal_path(settings))
        try:
            games = journal.forget_nickname(nickname)
        finally:
            journal.close()
    if records_path(settings).exists():
        records = RecordStore(records_path(settings))
        try:
            results = records.forget(nickname)
        finally:
            records.close()
    return games, results


def edit_bans(settings: Settings, args: argparse.Namespace) -> int:
    """``--ban-key``/``--ban-address``/``--unban``/``--list-bans`` on the data dir's store:
    0 when every change was made (or the list shown), 1 if one was already so, 2 if one
    does not parse."""
    from .ssh.bans import ADDRESS, KEY, Ban, BanList, BanStore, parse_ban

    try:
        wanted = [
            *(Ban(KEY, key_fingerprint(fp), "database") for fp in args.ban_key or ()),
            *(Ban(ADDRESS, address_network(a), "database") for a in args.ban_address or ()),
        ]
        unwanted = [parse_ban(text) for text in args.unban or ()]
    except ValueError as exc:
        print(f"차단 설정 오류: {exc}", file=sys.stderr)
        return 2
    code = 0
    store = BanStore(settings.data_dir)
    try:
        for ban in wanted:
            if store.add(ban):
                print(f"차단했어요: {ban.value} (banned)")
            else:
                print(f"이미 차단돼 있어요: {ban.value} (already banned)", file=sys.stderr)
                code = 1
        for ban in unwanted:
            if store.remove(ban):
                print(f"차단을 풀었어요: {ban.value} (unbanned)")
            elif ban.value in (settings.banned_keys + settings.banned_addresses):
                print(
                    f"{ban.value} 은(는) 설정 파일의 banned_keys/banned_addresses 에 있어요. "
                    "설정에서 지우고 서버를 다시 시작해 주세요 (banned by the configuration).",
                    file=sys.stderr,
                )
                code = 1
            else:
                print(f"차단 목록에 없어요: {ban.value} (not banned)", file=sys.stderr)
                code = 1
        if args.list_bans:
            every = BanList(store, settings.banned_keys, settings.banned_addresses)
            listed = every.config_bans() + store.all()
            for ban in listed:
                where = "설정 파일" if ban.source == "config" else "데이터"
                print(f"{ban.kind}\t{ban.value}\t{where}")
            if not listed:
                print("차단 목록이 비어 있어요 (no bans).")
    finally:
        store.close()
    return code


#: The promise: SIGTERM → process gone within this many seconds, whatever the load.
SHUTDOWN_SECONDS = 10.0
# Kept back from the budget for what comes after the shutdown proper (the journal pruner
# stopping, asyncio.run's own teardown, the process exit, a loop busy when the signal came).
_EXIT_MARGIN = 1.0
# Kept back from the server's close for the cleanup (the room manager's close).
_CLEANUP_SLICE = 0.5
# When the watchdog ends the process if the polite shutdown has not (seconds after the signal).
_WATCHDOG_AT = SHUTDOWN_SECONDS - 0.5

_watchdog: threading.Timer | None = None


def _arm_watchdog(seconds: float) -> None:
    """Exit (0, as for a finished shutdown) in ``seconds`` whatever the event loop is doing.

    A thread, because the case it is for is a loop too busy to keep its own deadlines: e.g.
    hundreds of apps ending at once on a slow shared CPU, each a queue of callbacks that the
    shutdown coroutine waits behind. Whatever is cut short then is no worse than a crash,
    which the journal and the store survive (SQLite transactions).
    """
    global _watchdog

    def overrun() -> None:
        log_event(log, "shutdown_overrun", level=logging.WARNING, seconds=SHUTDOWN_SECONDS)
        for handler in logging.getLogger().handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        os._exit(0)

    _watchdog = threading.Timer(seconds, overrun)
    _watchdog.daemon = True
    _watchdog.start()


def _disarm_watchdog() -> None:
    global _watchdog
    if _watchdog is not None:
        _watchdog.cancel()
        _watchdog = None


async def serve(config: ServerConfig, cleanup: Cleanup | None = None) -> None:
    """Run until SIGINT/SIGTERM, then shut down politely (within ``SHUTDOWN_SECONDS``).

    Meanwhile the game journal is pruned and unused nicknames expire, at start-up and hourly
    (see :func:`journal_pruning`, :func:`nickname_expiry`), and with ``metrics_port`` the
    metrics and ``/healthz`` are served (:mod:`seotda_tui.metrics`).
    """
    settings = config.settings
    exporter = metrics_exporter(settings)
    try:
        async with (
            journal_pruning(settings),
            nickname_expiry(settings),
            memory_sampling(settings, "main"),
        ):
            await _serve_until_signal(config, cleanup, exporter)
    finally:
        if exporter is not None:
            exporter.close()


def metrics_exporter(settings: Settings) -> Exporter | None:
    """One process's metrics listener (unhealthy until its SSH listener is up), if asked for."""
    if not settings.metrics_port:
        return None
    from .metrics import Exporter

    return Exporter(settings.metrics_host, settings.metrics_port)


def memory_sampling(
    settings: Settings, process: str
) -> contextlib.AbstractAsyncContextManager[None]:
    """The process's resident memory for the metrics (only when they are served)."""
    if not settings.metrics_port:
        return contextlib.nullcontext()
    from .metrics import memory_sampling as sampling

    return sampling(process)


async def _serve_until_signal(
    config: ServerConfig, cleanup: Cleanup | None, exporter: Exporter | None = None
) -> None:
    handle = await start_server(config)
    if exporter is not None:  # (the rooms are in this process: up while it runs)
        exporter.healthy = handle.accepting
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[float] = loop.create_future()

    def on_signal() -> None:  # the budget starts when the signal arrives
        if not stop.done():
            stop.set_result(loop.time())

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    try:
        await stop
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        # One budget for every step below, counted from the signal.
        since = stop.result() if stop.done() and not stop.cancelled() else loop.time()
        _arm_watchdog(max(0.0, since + _WATCHDOG_AT - loop.time()))
        deadline = since + SHUTDOWN_SECONDS - _EXIT_MARGIN
        log_event(log, "signal", action="shutdown")
        await handle.close(timeout=max(0.0, deadline - _CLEANUP_SLICE - loop.time()))
        if cleanup is not None:
            try:
                result = cleanup()
                if inspect.isawaitable(result):
                    await asyncio.wait_for(result, max(0.0, deadline - loop.time()))
            except Exception:
                log_event(log, "cleanup_error", level=logging.ERROR, exc_info=True)


#: Many Textual apps hold millions of objects; with CPython's default thresholds (700, 10, 10)
#: full collections ran every few seconds and froze the loop for every player for up to 1.9 s
#: (BENCHMARKS.md). A large last threshold makes full collections rare; the first two bound
#: the young generations (≤ 100 k objects), so a collection pauses everyone for ≤ ~0.17 s
#: (``(50_000, 20, …)`` let them reach 1 M objects and 0.6 s pauses, for the same total cost,
#: though with ~15–25 % less memory: shorter-lived cycles died young; BENCHMARKS.md).
#: This is the server process's own setting, made once at start-up, never per session.
#: What these thresholds leave to a full collection must not be garbage: a closed screen's
#: widgets are, in cycles Textual leaves, unless tuning's ``unlinked_nodes`` unlinks them
#: (help opened and closed 800 times by four sessions grew a server 322 MB → 3 GB; issue 30).
GC_THRESHOLDS = (10_000, 10, 1000)
#: Where ``unlinked_nodes`` cannot apply (a Textual release changed what it unlinks): a full
#: collection becomes due every ten generation-1 passes, and CPython runs it only once the old
#: generation has grown by a quarter since the last one. Closed screens are then freed at the
#: cost of those pauses (their length at 50–300 sessions: BENCHMARKS.md).
FALLBACK_GC_THRESHOLDS = (10_000, 10, 10)


def tune_garbage_collector(stock: bool = False) -> None:
    """Raise the thresholds, and move what start-up made (modules, classes, the parsed
    configuration — ~0.5 M objects that live as long as the process) out of the collected
    generations, so a full collection walks only the sessions' objects. ``stock``: the
    ``stock_textual`` setting (the tuning is installed here, first, to know which applies)."""
    from . import tuning

    tuning.install(stock=stock)
    unlinked = tuning.enabled("unlinked_nodes")
    gc.set_threshold(*(GC_THRESHOLDS if unlinked else FALLBACK_GC_THRESHOLDS))
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    # Captured before any Textual app exists: apps redirect sys.stdout/sys.stderr
    # process-wide while they run, so logging must hold on to the real stream.
    real_stderr = sys.stderr
    env = dict(os.environ if environ is None else environ)  # read once, here
    args = parse_args(argv, env)
    try:
        settings = settings_from(args, env)
    except ConfigError as exc:
        print(f"설정 오류: {exc}", file=real_stderr)
        return 2
    if args.check_config:
        print(settings.describe())
        return 0
    damaged = check_data_files(settings)
    if damaged is not None:
        print(damaged, file=real_stderr)
        return 1
    if args.release_nickname is not None:
        return release_nickname(settings, args.release_nickname, args.keep_records)
    if args.ban_key or args.ban_address or args.unban or args.list_bans:
        return edit_bans(settings, args)
    setup_logging(real_stderr, settings.log_level, settings.log_format)
    if settings.workers >= 2:  # one process is the default: nothing of this is on its path
        return cluster_main(sys.argv[1:] if argv is None else argv, settings, env, real_stderr)
    try:
        factory, cleanup = build_app_factory(settings)
    except ImportError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="app_missing", error=str(exc))
        return 2
    except DataFileError as exc:  # e.g. a full disk or a read-only data dir
        print(unopenable_message(exc.path, exc.cause), file=real_stderr)
        return 1
    config = ServerConfig(app_factory=factory, settings=settings)
    tune_garbage_collector(settings.stock_textual)
    try:
        asyncio.run(serve(config, cleanup))
    except HostKeyError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="hostkey", error=str(exc))
        return 1
    except (sqlite3.Error, DataFileProblem) as exc:  # the nickname store could not be opened
        from seotda_tui.ssh.store import DB_NAME

        print(unopenable_message(settings.data_dir / DB_NAME, exc), file=real_stderr)
        return 1
    except (OSError, ValueError) as exc:  # port in use, unreadable --authorized-keys, ...
        log_event(log, "startup_failed", level=logging.ERROR, reason="error", error=str(exc))
        return 1
    finally:
        _disarm_watchdog()  # only now: it also covers asyncio.run's own teardown
    return 0


def cluster_main(
    argv: list[str], settings: Settings, env: Mapping[str, str], real_stderr: TextIO
) -> int:
    """``--workers N``: this process is the parent, the rooms process or a worker
    (:mod:`seotda_tui.cluster`), as the parent said in the environment."""
    from .cluster.supervisor import ROLE, Supervisor

    role = env.get(ROLE)
    try:
        if role == "hub":
            return run_hub(settings, env)
        if role == "worker":
            return run_worker(settings, env)
        from .ssh.hostkey import load_or_create_host_key

        load_or_create_host_key(settings.hostkey_dir)  # once, before the workers read it
        return Supervisor(argv, settings, env).run()
    except DataFileError as exc:
        print(unopenable_message(exc.path, exc.cause), file=real_stderr)
        return 1
    except HostKeyError as exc:
        log_event(log, "startup_failed", level=logging.ERROR, reason="hostkey", error=str(exc))
        return 1
    except (OSError, ValueError) as exc:  # port in use, no hub, ...
        log_event(log, "startup_failed", level=logging.ERROR, reason="error", error=str(exc))
        return 1
    finally:
        _disarm_watchdog()


def run_hub(settings: Settings, env: Mapping[str, str]) -> int:
    """The rooms process: the manager, the chat, the global limits and the journal pruning."""
    import time

    from .cluster.hub import GlobalLimits, Hub
    from .cluster.supervisor import RESTARTED, SOCKET, exit_with_parent
    from .rooms.chat import ChatHub
    from .ssh.admission import PendingLogins
    from .ssh.guessing import NameGuard
    from .ssh.limits import AuthJail, ConnectLimiter
    from .ssh.registration import Registrations

    manager = build_manager(settings)
    progress: dict[object, int] = {}  # how far each worker's pending login got, as it reported
    limits = GlobalLimits(
        settings.max_sessions,
        settings.max_sessions_per_ip,
        AuthJail(settings.auth_failures, settings.auth_jail_seconds, time.monotonic),
        ConnectLimiter(settings.connect_rate, settings.connect_burst, time.monotonic),
        PendingLogins(
            settings.max_pending_logins_per_ip,
            settings.max_pending_logins,
            lambda key: progress.get(key, 0),
        ),
        names=NameGuard(settings.name_failures, settings.name_lock_seconds, time.monotonic),
        registrations=Registrations(settings.registrations_per_ip, time.monotonic),
        progress=progress,
    )
    # (a restarted one waits for every worker to say what it holds before admitting logins)
    restarted_with = settings.workers if RESTARTED in env else 0
    hub = Hub(manager, ChatHub(), limits, restarted_with=restarted_with)

    async def serve_hub() -> None:
        orphaned = asyncio.create_task(exit_with_parent(workdir=Path(env[SOCKET]).parent))
        async with (
            journal_pruning(settings),
            nickname_expiry(settings),
            memory_sampling(settings, "rooms"),
        ):
            manager.subscribe_lobby(lambda _rooms: None)()  # in the loop: arms resumed rooms
            await hub.listen(Path(env[SOCKET]))
            await until_signal()
            await hub.close()
        orphaned.cancel()

    try:
        asyncio.run(serve_hub())
    finally:
        manager.close()
    return 0


async def until_signal() -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


def run_worker(settings: Settings, env: Mapping[str, str]) -> int:
    """A worker: SSH sessions and their apps on the inherited socket, rooms at the hub."""
    from .cluster.link import HubLink
    from .cluster.remote import RemoteChat, RemoteRoomManager
    from .cluster.supervisor import SOCKET, WORKER, exit_with_parent, inherited_listener, own_port
    from .cluster.worker_limits import ClusterRegistry, RemoteLimits
    from .rooms.history import GameHistory
    from .rooms.journal import Journal
    from .ui.app import make_app_factory

    link = HubLink(Path(env[SOCKET]), int(env.get(WORKER, "0")))
    records = opened(records_path(settings), lambda: open_records(settings))
    journal = opened(journal_path(settings), lambda: Journal(journal_path(settings)))
    manager = RemoteRoomManager(link, settings.room_defaults, records, GameHistory(journal))
    factory = make_app_factory(manager, motd=settings.motd, chat=RemoteChat(link))
    port = own_port(env)
    config = ServerConfig(
        app_factory=cast(AppFactory, factory),
        settings=settings,
        sock=inherited_listener(env),
        also_listen=("127.0.0.1", port) if port is not None else None,
        limits=RemoteLimits(link, settings),
        registry=ClusterRegistry(link),
    )

    def cleanup() -> None:
        link.close()
        records.close()
        journal.close()

    async def serve_worker() -> None:
        orphaned = asyncio.create_task(exit_with_parent())
        await link.start()
        async with memory_sampling(settings, f"worker{env.get(WORKER, '0')}"):
            await _serve_until_signal(config, cleanup)
        orphaned.cancel()

    tune_garbage_collector(settings.stock_textual)
    asyncio.run(serve_worker())
    return 0


def run() -> NoReturn:
    """The ``seotda-server`` program: :func:`main`, then exit without tearing the interpreter
    down. By then the store and the journal are closed and the log is flushed; what is left
    is freeing hundreds of MB of objects one by one, which took 1.5–2 s after a shutdown with
    200–300 sessions (BENCHMARKS.md) and would eat into the 10 s promise for nothing."""
    code = main()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    os._exit(code)
