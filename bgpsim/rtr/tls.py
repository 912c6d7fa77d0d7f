"""RTR over TLS (RFC 8210 section 9; draft-ietf-sidrops-8210bis-27 section 9): the cache's certificate
and key, and the client's trust in it. Each file is loaded when the options are read, so a wrong one
is an error before any connection."""

from __future__ import annotations

import ssl

from bgpsim.base.datafiles import check_input
from bgpsim.base.errors import InputError


def server_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    """--tls-cert and --tls-key (PEM), both or neither; None without them (plain TCP)."""
    if not cert and not key:
        return None
    if not cert or not key:
        raise InputError("--tls-cert and --tls-key go together: the certificate and its private key (PEM)")
    check_input(cert, "--tls-cert")
    check_input(key, "--tls-key")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError, ValueError) as e:
        raise InputError(f"--tls-cert {cert}, --tls-key {key}: want a PEM certificate and its private key "
                         f"({getattr(e, 'reason', None) or e})") from None
    return ctx


def client_context(tls: bool, cafile: str | None) -> ssl.SSLContext | None:
    """--tls (the system's trusted CAs) with --cafile for a private CA; None for plain TCP."""
    if cafile and not tls:
        raise InputError("--cafile is used only with --tls")
    if not tls:
        return None
    if cafile:
        check_input(cafile, "--cafile")
    try:
        return ssl.create_default_context(cafile=cafile)
    except (ssl.SSLError, OSError, ValueError) as e:
        raise InputError(f"--cafile {cafile}: want PEM CA certificates ({getattr(e, 'reason', None) or e})") from None
