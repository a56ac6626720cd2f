"""The command line and the settings (the first thing ``seotda-server`` does, and all that
``--check-config`` does): the argument parser, its help in the operator's language, and the
settings merged from built-in defaults < ``--config FILE`` < ``SEOTDA_*`` < flags, with the files
they name checked. Nothing here opens a data file or starts anything."""

from __future__ import annotations

import argparse
import gettext
import os
from collections.abc import Mapping
from pathlib import Path

import asyncssh

from .. import __version__
from ..config import KEYS, ConfigError, Settings, load_settings, text_value
from ..i18n import KOREAN, terminal_language, translations
from ..ssh.hostkey import HostKeyError, check_host_key_files


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
    parser.add_argument(
        "--verify-hand",
        type=Path,
        metavar="FILE",
        help=_(
            "딜 검증(verifiableDeals) 방의 공개된 딜 시드를 약속(SHA-256)과 공개된 카드에 맞춰 "
            "확인하고 끝내요. FILE: 이벤트 목록이나 판 기록의 JSON (docs/rules.md §8.4)"
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
