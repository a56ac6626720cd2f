"""Server bans by key fingerprint or address: real asyncssh clients against the real server,
and the ``--ban-key``/``--ban-address``/``--unban``/``--list-bans`` CLI in another process
while the server runs (the ban applies to the next login, no restart)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

import pytest

from seotda_tui.addresses import address_network, key_fingerprint
from seotda_tui.config import ConfigError, load_settings
from seotda_tui.logs import record_fields
from seotda_tui.ssh.bans import MSG_BANNED_ADDRESS, MSG_BANNED_KEY, BanList, BanStore

from .ssh_harness import ProbeFactory, SSHHarness, attempt, key_pair, ssh_server

ROOT = Path(__file__).resolve().parents[1]


async def cli(server: SSHHarness, *flags: str) -> tuple[int, str, str]:
    """``seotda-server FLAGS`` against the server's data dir, in another process."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "seotda_tui", "--data-dir", str(server.data_dir),
        "--hostkey-dir", str(server.hostkey_dir), *flags,
        cwd=str(ROOT), env={k: v for k, v in os.environ.items() if not k.startswith("SEOTDA_")},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_a_key_banned_from_the_cli_is_refused_with_the_message_and_unban_lets_it_in(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key, other = key_pair(), key_pair()
    fp = key.get_fingerprint("sha256")
    async with ssh_server(tmp_path, ProbeFactory()) as server:
        first = await attempt(server.port, "kim", key=key)
        assert first.error is None  # binds kim to the key
        await first.close()
        code, out, _ = await cli(server, "--ban-key", fp)
        assert code == 0 and fp in out
        with caplog.at_level(logging.INFO, logger="seotda.server"):
            banned = await attempt(server.port, "kim", key=key)
        assert banned.error is not None
        assert any(MSG_BANNED_KEY in b for b in banned.banners)
        records = [record_fields(r) for r in caplog.records]
        (line,) = [r for r in records if str(r.get("reason")).startswith("banned")]
        assert line["event"] == "refused" and line["reason"] == "banned_key" and line["key"] == fp
        # the ban is on the key, not the name or the address: another key logs in elsewhere
        fine = await attempt(server.port, "lee", key=other)
        assert fine.error is None
        await fine.close()
        code, out, _ = await cli(server, "--unban", fp)
        assert code == 0 and "차단을 풀었어요" in out
        again = await attempt(server.port, "kim", key=key)
        assert again.error is None and not again.banners
        await again.close()


async def test_a_banned_address_is_refused_before_auth_keyless_or_not(tmp_path: Path) -> None:
    async with ssh_server(tmp_path, ProbeFactory()) as server:
        code, _, _ = await cli(server, "--ban-address", "127.0.0.0/8")
        assert code == 0
        for login in (
            attempt(server.port, "hv"),  # keyless: no passphrase round is even sent
            attempt(server.port, "kim", key=key_pair()),
        ):
            result = await login
            assert result.error is not None and not result.rounds
            assert any(MSG_BANNED_ADDRESS in b for b in result.banners)
        code, out, _ = await cli(server, "--list-bans")
        assert code == 0 and "address\t127.0.0.0/8\t데이터" in out
        code, _, _ = await cli(server, "--unban", "127.0.0.0/8")
        assert code == 0
        fine = await attempt(server.port, "hv")
        assert fine.error is None
        await fine.close()


async def test_bans_from_the_configuration(tmp_path: Path) -> None:
    key = key_pair()
    fp = key.get_fingerprint("sha256")
    async with ssh_server(tmp_path, ProbeFactory(), banned_keys=fp) as server:
        refused = await attempt(server.port, "kim", key=key)
        assert refused.error is not None
        assert any(MSG_BANNED_KEY in b for b in refused.banners)
        # the CLI (given the same settings) can't lift a ban the configuration makes
        code, _, err = await cli(server, "--banned-keys", fp, "--unban", fp)
        assert code == 1 and "banned by the configuration" in err
        code, out, _ = await cli(server, "--banned-keys", fp, "--list-bans")
        assert code == 0 and f"key\t{fp}\t설정 파일" in out
    async with ssh_server(tmp_path, ProbeFactory(), banned_addresses="127.0.0.1") as server:
        refused = await attempt(server.port, "hv")
        assert any(MSG_BANNED_ADDRESS in b for b in refused.banners)


async def test_the_cli_refuses_what_is_not_a_fingerprint_or_an_address(tmp_path: Path) -> None:
    async with ssh_server(tmp_path, ProbeFactory()) as server:
        code, _, err = await cli(server, "--ban-key", "MD5:aa:bb")
        assert code == 2 and "SHA256" in err
        code, _, err = await cli(server, "--ban-address", "300.1.2.3")
        assert code == 2 and "CIDR" in err
        code, out, _ = await cli(server, "--list-bans")
        assert code == 0 and "비어 있어요" in out
        code, _, _ = await cli(server, "--ban-address", "10.1.2.3")
        assert code == 0
        code, _, err = await cli(server, "--ban-address", "10.1.2.3/32")  # the same network
        assert code == 1 and "already banned" in err


def test_fingerprints_and_addresses_are_normalised() -> None:
    fp = key_pair().get_fingerprint("sha256")
    assert key_fingerprint("sha256:" + fp.split(":", 1)[1]) == fp
    for bad in ("", "SHA256:", "SHA256:" + "A" * 42, "SHA256:" + "!" * 43, "MD5:" + "A" * 43):
        with pytest.raises(ValueError):
            key_fingerprint(bad)
    assert address_network("203.0.113.7") == "203.0.113.7/32"
    assert address_network("203.0.113.7/24") == "203.0.113.0/24"
    assert address_network("2001:db8::1/32") == "2001:db8::/32"
    with pytest.raises(ValueError):
        address_network("example.com")


def test_settings_take_a_toml_list_or_a_comma_separated_text(tmp_path: Path) -> None:
    fp = key_pair().get_fingerprint("sha256")
    toml = tmp_path / "seotda.toml"
    toml.write_text(f'[bans]\nbanned_keys = ["{fp}"]\nbanned_addresses = ["10.0.0.0/8"]\n')
    settings = load_settings(toml)
    assert settings.banned_keys == (fp,) and settings.banned_addresses == ("10.0.0.0/8",)
    env = load_settings(env={"SEOTDA_BANNED_ADDRESSES": "10.0.0.1, 192.168.0.0/16"})
    assert env.banned_addresses == ("10.0.0.1/32", "192.168.0.0/16")
    with pytest.raises(ConfigError, match="--banned-keys"):
        load_settings(flags={"banned_keys": "not-a-fingerprint"})
    assert "banned_addresses = [" in settings.describe()


def test_address_bans_match_networks_and_mapped_addresses(tmp_path: Path) -> None:
    store = BanStore(tmp_path)
    try:
        bans = BanList(store, addresses=["198.51.100.0/24"])
        assert bans.address_ban("198.51.100.9") == "198.51.100.0/24"
        assert bans.address_ban("::ffff:198.51.100.9") == "198.51.100.0/24"
        assert bans.address_ban("198.51.101.1") is None
        assert bans.address_ban("not an address") is None
        assert bans.address_ban("2001:db8::5") is None
    finally:
        store.close()
