"""HOST:PORT as people write it: 127.0.0.1:8323, [2001:db8::1]:8323, or a name with a port."""

from __future__ import annotations

import ipaddress

from .errors import InputError


def host_port(text: str, want: str, numeric: bool = False) -> tuple[str, int]:
    """(host, port) of `text`; `numeric`: the host must be an address (where a server listens must be
    exact). A fault is an InputError: "`want`, got 'text'"."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        if numeric:
            ipaddress.ip_address(host)
        number = int(port)
        if not sep or not host or not 0 < number < 65536:
            raise ValueError
    except ValueError:
        raise InputError(f"{want}, got {text!r}") from None
    return host, number


def parse_listen(text: str, flag: str = "--listen") -> tuple[str, int]:
    """ADDRESS:PORT or [IPv6]:PORT: an address, not a name (where we listen must be exact)."""
    return host_port(text, f"{flag}: want ADDRESS:PORT (127.0.0.1:8323, [::1]:8323)", numeric=True)


def parse_networks(text: str, flag: str = "--allow") -> list:
    nets = []
    for part in text.split(","):
        try:
            nets.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise InputError(f"{flag}: want networks such as 192.0.2.0/24,2001:db8::/32, got {part.strip()!r}") from None
    return nets


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (for a service bgpsim starts itself)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
