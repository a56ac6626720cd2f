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

The package is cut by what a start does, each module importing only those below it (import-linter's
``cli-layers``): :func:`main` here reads the command line (:mod:`.args`), checks the data folder
(:mod:`.data`), then runs an admin command and exits (:mod:`.admin`) or a process role: the single
process (:mod:`.single`) or, with ``--workers N``, the parent, the rooms process or a worker
(:mod:`.workers`). Both roles use :mod:`.housekeeping` (journal pruning, nickname expiry,
metrics) and :mod:`.process` (the shutdown budget and its watchdog, signals, the GC's tuning).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Mapping
from typing import NoReturn

from ..config import ConfigError
from ..logs import setup_logging
from .admin import edit_bans, release_nickname
from .args import parse_args, settings_from
from .data import check_data_files
from .single import run_single

__all__ = ["main", "run"]


def main(argv: list[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """The settings, then an admin command or a server role: the exit code."""
    # Captured before any Textual app exists: apps redirect sys.stdout/sys.stderr
    # process-wide while they run, so logging must hold on to the real stream.
    real_stderr = sys.stderr
    env = dict(os.environ if environ is None else environ)  # read once, here
    args = parse_args(argv, env)
    if args.verify_hand is not None:  # issue 36: needs no settings, no data, no server
        from .verify import verify_file

        return verify_file(args.verify_hand, sys.stdout)
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
        from .workers import cluster_main

        return cluster_main(sys.argv[1:] if argv is None else argv, settings, env, real_stderr)
    return run_single(settings, real_stderr)


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
