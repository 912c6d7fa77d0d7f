"""The BGPsec_PATH path attribute (type 33) as a reader of routes sees it: decoded, and the AS path it
stands for.

RFC 8205 section 3: BGPsec_PATH replaces AS_PATH in an UPDATE between BGPsec speakers (the two are
mutually exclusive). Its value (a Secure_Path, then one or two Signature_Blocks) is decoded strictly by
`bgpsim.rpki.bgpsec.path.decode`; a fault there becomes a `WireError` at its offset in the bytes given.
RFC 8205 section 4.4: the AS_PATH a BGPsec speaker writes for a peer that does not speak BGPsec lists
each Secure_Path AS, most recent first, pCount times, in AS_SEQUENCE segments, and the segments whose
Confed_Segment flag is set in AS_CONFED_SEQUENCE segments; `path_of` gives that path, which readers
use as the route's effective AS path.

`bgpsim.rpki.bgpsec` is imported when the first BGPsec_PATH is met: ordinary route data never pays for
loading it.
"""

from __future__ import annotations

from . import WireError
from .aspath import AS_CONFED_SEQUENCE, AS_SEQUENCE

BGPSEC_PATH = 33  # IANA path attribute type (RFC 8205 section 3)
SECTION = "RFC 8205 section 3"


def parse_bgpsec_path(buf: bytes, v: int, e: int):
    """The `BgpsecPath` of the BGPsec_PATH value buf[v:e]; a fault is a WireError at its offset in `buf`."""
    from bgpsim.rpki.bgpsec.path import BgpsecError, decode

    try:
        return decode(buf[v:e])
    except BgpsecError as err:
        where = err.rfc or SECTION
        more = "" if where == SECTION else f" ({where})"
        raise WireError(f"BGPsec_PATH ({SECTION}): {err.reason}{more}", v + (err.offset or 0)) from None


def path_of(bgpsec) -> tuple:
    """RFC 8205 section 4.4: the AS path (segments, as `bgpsim.wire.aspath` paths) of a `BgpsecPath`:
    most recent AS first, each AS pCount times (none for pCount 0), runs of Confed_Segment ASes as
    AS_CONFED_SEQUENCE segments, the others as AS_SEQUENCE segments."""
    out = []
    stype, asns = None, []
    for s in bgpsec.segments:
        t = AS_CONFED_SEQUENCE if s.confed else AS_SEQUENCE
        if t != stype:
            if asns:
                out.append((stype, tuple(asns)))
            stype, asns = t, []
        asns += (s.asn,) * s.pcount
    if asns:
        out.append((stype, tuple(asns)))
    return tuple(out)
