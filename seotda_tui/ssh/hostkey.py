"""The server's SSH host key: made once, then reused so players never see a changed-key warning."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import asyncssh

log = logging.getLogger("seotda.hostkey")

HOST_KEY_NAME = "ssh_host_ed25519_key"


class HostKeyError(RuntimeError):
    """The host key can't be used safely; the message says what to do (Korean)."""


def _check_dir_mode(directory: Path) -> None:
    """Refuse a key folder other users can read, list or write (like OpenSSH's StrictModes)."""
    mode = stat.S_IMODE(directory.stat().st_mode)
    if mode & 0o077:
        raise HostKeyError(
            f"호스트 키 폴더 {directory} 의 권한({mode:04o})이 너무 열려 있어요. "
            f"다른 사용자가 접근할 수 있는 폴더의 키로는 서버를 시작하지 않아요. "
            f"'chmod 700 {directory}' 로 고친 뒤 다시 시작해 주세요."
        )


def _prepare_dir(directory: Path, key_exists: bool) -> None:
    """Create the key folder as 0700.

    A folder that has no key yet and is ours is tightened (a fresh git checkout makes
    ``hostkeys/`` 0755, and there is nothing in it to protect yet). Once a key exists,
    a folder others can get into is refused instead: the key may already have leaked.
    """
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = directory.stat()
    if not key_exists and st.st_mode & 0o077 and st.st_uid == os.getuid():
        os.chmod(directory, 0o700)
        log.info("호스트 키 폴더 권한을 0700으로 바꿨어요: %s", directory)
    _check_dir_mode(directory)


def _check_private_mode(path: Path) -> None:
    """Refuse a private key that other users could read (like OpenSSH does)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise HostKeyError(
            f"호스트 키 파일 {path} 의 권한({mode:04o})이 너무 열려 있어요. "
            f"다른 사용자가 읽을 수 있는 개인 키로는 서버를 시작하지 않아요. "
            f"'chmod 600 {path}' 로 고친 뒤 다시 시작해 주세요."
        )


def check_host_key_files(directory: Path) -> None:
    """The permission checks alone, creating nothing (for ``--check-config``)."""
    directory = Path(directory)
    path = directory / HOST_KEY_NAME
    if path.exists():
        _check_dir_mode(directory)
        _check_private_mode(path)


def _write_new_key(path: Path) -> None:
    """Generate an ed25519 key and publish it atomically (never half-written, never clobbering)."""
    key = asyncssh.generate_private_key("ssh-ed25519", comment="seotda-ssh host key")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key("openssh"))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # fails if another process won the race: keep theirs
        except FileExistsError:
            return
    finally:
        tmp.unlink(missing_ok=True)
    pub = path.with_name(path.name + ".pub")
    pub.write_bytes(key.export_public_key("openssh"))
    os.chmod(pub, 0o644)
    log.info("새 호스트 키를 만들었어요: %s", path)


def load_or_create_host_key(directory: Path) -> asyncssh.SSHKey:
    """Return the host key from ``directory``, creating it (0600, dir 0700) on first start."""
    directory = Path(directory)
    path = directory / HOST_KEY_NAME
    _prepare_dir(directory, path.exists())
    if not path.exists():
        _write_new_key(path)
    _check_private_mode(path)
    try:
        return asyncssh.read_private_key(path)
    except (OSError, asyncssh.KeyImportError) as exc:
        raise HostKeyError(f"호스트 키 파일 {path} 을 읽을 수 없어요: {exc}") from exc


def fingerprint(key: asyncssh.SSHKey) -> str:
    """SHA256 fingerprint in the form ssh-keygen -l and ssh's prompts show."""
    return key.get_fingerprint("sha256")
