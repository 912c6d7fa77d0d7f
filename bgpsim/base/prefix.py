"""IP prefixes (IPv4 and IPv6): strict parsing and the few operations scenarios need."""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

from .errors import InputError

Prefix = IPv4Network | IPv6Network
Address = IPv4Address | IPv6Address


def parse_prefix(text: object, source: str | None = None, where: str | int | None = None) -> Prefix:
    """'192.0.2.0/24' or '2001:db8::/32'; host bits must be zero and the length must be given."""
    if not isinstance(text, str) or "/" not in text:
        raise InputError(f"want a prefix like 192.0.2.0/24 or 2001:db8::/32, got {text!r}", source, where)
    try:
        return ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as e:
        raise InputError(f"bad prefix {text!r}: {e}", source, where) from None


def parse_address(text: object, source: str | None = None, where: str | int | None = None) -> Address:
    try:
        return ipaddress.ip_address(str(text).strip())
    except ValueError:
        raise InputError(f"want an IP address, got {text!r}", source, where) from None


def sub_prefix(prefix: Prefix) -> Prefix:
    """The sub-prefix a hijacker announces by default: the first /24 (IPv4) or /48 (IPv6) inside
    `prefix`, or its first half when `prefix` is already that long or longer."""
    target = 24 if prefix.version == 4 else 48
    length = max(target, prefix.prefixlen + 1)
    if length > prefix.max_prefixlen:
        raise InputError(f"{prefix} has no sub-prefix")
    return next(prefix.subnets(new_prefix=length))


def super_prefix(prefix: Prefix) -> Prefix:
    """The covering prefix a superprefix hijacker announces: 8 bits shorter (BGPy's 1.0.0.0/8 over
    1.2.0.0/16)."""
    if prefix.prefixlen <= 8:
        raise InputError(f"{prefix} is too short for a superprefix attack (want a prefix longer than /8)")
    return prefix.supernet(prefixlen_diff=8)


def halves(prefix: Prefix) -> list[Prefix]:
    """The two more-specifics a victim announces to win back its traffic."""
    if prefix.prefixlen >= prefix.max_prefixlen:
        raise InputError(f"{prefix} cannot be split into more-specifics")
    return list(prefix.subnets(prefixlen_diff=1))


def covers(outer: Prefix, inner: Prefix) -> bool:
    return outer.version == inner.version and inner.subnet_of(outer)
