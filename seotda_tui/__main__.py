"""``seotda-server`` / ``python -m seotda_tui``: start the SSH game server."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TextIO

from .hostkey import HostKeyError
from .server import AppFactory, ServerConfig, start_server

log = logging.getLogger("seotda")

# Captured before any Textual app exists: apps redirect sys.stdout/sys.stderr
# process-wide while they run, so logging must hold on to the real stream.
_REAL_STDERR: TextIO | None = sys.__stderr__


def setup_logging(level: int = logging.INFO) -> None:
    """Log to the real stderr, whatever sys.stderr is later replaced with."""
    handler = logging.StreamHandler(_REAL_STDERR)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    # asyncssh logs every channel request at INFO; keep its warnings only.
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


def build_app_factory(reconnect_grace: float) -> AppFactory:
    """The real game: one RoomManager shared by every player's SeotdaApp.

    Raises ImportError while the game screens don't exist yet.
    """
    from seotda_tui.app import SeotdaApp
    from seotda_tui.rooms import RoomManager

    manager = RoomManager(reconnect_grace=reconnect_grace)

    def factory(identity, ctx):  # type: ignore[no-untyped-def]
        return SeotdaApp(manager=manager, identity=identity)

    return factory


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="seotda-server", description="섯다 SSH 서버: 친구들이 ssh 로 접속해서 함께 섯다를 쳐요."
    )
    parser.add_argument("--host", default="0.0.0.0", help="들을 주소 (기본 0.0.0.0)")
    parser.add_argument("--port", type=int, default=2222, help="들을 포트 (기본 2222, 0이면 아무 빈 포트)")
    parser.add_argument("--hostkey-dir", type=Path, default=Path("hostkeys"),
                        help="호스트 키를 두는 폴더 (기본 hostkeys/)")
    parser.add_argument("--data-dir", type=Path, default=Path("data"),
                        help="SQLite 파일을 두는 폴더 (기본 data/)")
    parser.add_argument("--password", default=os.environ.get("SEOTDA_PASSWORD") or None,
                        help="모두가 함께 쓰는 서버 비밀번호 (환경 변수 SEOTDA_PASSWORD 로도 줄 수 있어요)")
    parser.add_argument("--authorized-keys", type=Path, default=None, metavar="FILE",
                        help="이 파일(authorized_keys 형식)에 있는 키만 받아요")
    parser.add_argument("--reconnect-grace", type=float, default=60.0, metavar="SECONDS",
                        help="연결이 끊긴 플레이어의 자리를 지켜 주는 시간 (기본 60초)")
    return parser.parse_args(argv)


async def serve(config: ServerConfig) -> None:
    """Run until SIGINT/SIGTERM, then shut down politely."""
    handle = await start_server(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        log.info("종료 신호를 받았어요. 접속한 플레이어에게 알리고 닫을게요.")
        await handle.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    setup_logging()
    try:
        factory = build_app_factory(args.reconnect_grace)
    except ImportError as exc:
        log.error("게임 화면이 아직 준비되지 않았어요 (%s).", exc)
        return 2
    config = ServerConfig(
        app_factory=factory,
        host=args.host,
        port=args.port,
        hostkey_dir=args.hostkey_dir,
        data_dir=args.data_dir,
        password=args.password,
        authorized_keys=args.authorized_keys,
        reconnect_grace=args.reconnect_grace,
    )
    try:
        asyncio.run(serve(config))
    except HostKeyError as exc:
        log.error("%s", exc)
        return 1
    except (OSError, ValueError) as exc:  # port in use, unreadable --authorized-keys, ...
        log.error("서버를 시작할 수 없어요: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
