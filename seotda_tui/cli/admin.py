"""The admin commands: each changes or shows the data folder's stores and exits, safe while the
server runs (it reads them on every login). ``--release-nickname NAME`` [``--keep-records``]
frees a name (see :func:`release_nickname`); ``--ban-key FP``, ``--ban-address ADDR``,
``--unban FP|ADDR`` and ``--list-bans`` edit or show the bans (:mod:`seotda_tui.ssh.bans`)."""

from __future__ import annotations

import argparse
import sys

from ..addresses import address_network, key_fingerprint
from ..config import Settings
from ..sanitize import validate_nickname
from ..ssh.store import DB_NAME, NicknameStore
from .data import journal_path, records_path


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
    from ..ssh.bans import ADDRESS, KEY, Ban, BanList, BanStore, parse_ban

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
