"""What a client's address and key are to the server, and where it listens: the unit the
per-address limits count by (:func:`address_key`), an address or CIDR block of a ban
(:func:`address_network`), a key fingerprint (:func:`key_fingerprint`), and who can reach a
listening address (:func:`listen_scope`).

A leaf: the settings check their values with it, and the SSH limits, the bans, the rooms' own
limits and the start-up log read it, without importing the settings for it.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress


def key_fingerprint(text: str) -> str:
    """A key fingerprint as ``ssh-keygen -l`` prints it (``SHA256:`` + 43 base64 characters);
    the prefix may be given in any case. ValueError if it is not one."""
    text = text.strip()
    prefix, _, digest = text.partition(":")
    if prefix.upper() != "SHA256" or len(digest) != 43:
        raise ValueError(f"SHA256:… 형식의 키 지문이어야 해요 (ssh-keygen -l): {text!r}")
    try:
        raw = base64.b64decode(digest + "=", validate=True)
    except binascii.Error as exc:
        raise ValueError(f"키 지문의 base64 가 올바르지 않아요: {text!r}") from exc
    if len(raw) != 32:
        raise ValueError(f"키 지문의 길이가 올바르지 않아요: {text!r}")
    return "SHA256:" + digest


def address_network(text: str) -> str:
    """An IP address or CIDR block in its normal form (``10.0.0.0/8``, ``2001:db8::/32``;
    a bare address is its own /32 or /128). ValueError if it is neither."""
    try:
        return str(ipaddress.ip_network(text.strip(), strict=False))
    except ValueError as exc:
        raise ValueError(f"IP 주소나 CIDR(예: 203.0.113.0/24)이어야 해요: {text!r}") from exc


#: ``host`` values that listen on every network interface ("" is asyncio's way to say all).
EVERY_INTERFACE = frozenset({"", "0.0.0.0", "::"})
EVERY_INTERFACE_SCOPE, THIS_MACHINE_SCOPE, ONE_ADDRESS_SCOPE = (
    "every_interface",
    "this_machine",
    "one_address",
)


def listen_scope(host: str, port: int) -> tuple[str, str]:
    """Who can reach a server listening on ``host`` (the start-up line says it): the scope
    (every interface, this machine only, one address) and a sentence for the operator.

    Why: the default ``0.0.0.0`` is right for the server's users (it runs on a VPS for friends
    elsewhere, README "Running it for real"), but a test server on a laptop is then open to the
    whole café or office network, so the line says so and how to keep it on the machine."""
    host = host.strip()
    if host in EVERY_INTERFACE:
        return EVERY_INTERFACE_SCOPE, (
            f"listening on every network interface: anyone who can reach this machine on port "
            f"{port} can try to log in; to keep it on this machine only, start with --host "
            "127.0.0.1 (or SEOTDA_HOST, or [server] host in the config file)"
        )
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return THIS_MACHINE_SCOPE, (
            "listening on this machine only: players on other machines cannot connect "
            "(--host 0.0.0.0 opens it to every network interface)"
        )
    return ONE_ADDRESS_SCOPE, f"listening on {host} only: players connect to that address"


def address_key(ip: str) -> str:
    """The unit per-address limits count by: IPv4 address, or IPv6 /64 (IPv4-mapped → IPv4).

    (One home or one VPS usually owns a whole /64: per-address limits would be trivial to
    dodge otherwise.) Used by the SSH layer's limits and by the rooms' (private codes, rooms
    per address)."""
    try:
        addr = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return ip
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)
