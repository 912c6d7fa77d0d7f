"""`bgpdump -m` output (bgpdump 1.6), one line per route, byte for byte.

    TABLE_DUMP|time|B|peer|peer_as|prefix|as_path|origin|next_hop|local_pref|med|communities|AG|aggregator|
    TABLE_DUMP2|...same...         TABLE_DUMP2_AP|time|B|peer|peer_as|prefix|path_id|as_path|...
    BGP4MP|time|A|peer|peer_as|prefix|as_path|...|     BGP4MP|time|W|peer|peer_as|prefix
    BGP4MP|time|STATE|peer|peer_as|old_state|new_state
    BGP|time|A|peer|peer_as|prefix|as_path|origin|next_hop|local_pref|med<communities>|AG|aggregator|
    BGP|time|W|peer|peer_as|peer/length      (the deprecated BGP type, bgpdump's quirks kept)
BGP4MP_ET prints the time with microseconds; the _LOCAL and _AP variants show sent messages and
ADD-PATH ids (after the prefix). Absent LOCAL_PREF and MED print 0, an absent AS_PATH an empty
field, an absent ORIGIN "INCOMPLETE". Large communities are not printed (bgpdump -m prints them only
with -l).
"""

from __future__ import annotations

from typing import Iterable, TextIO

from bgpsim.wire.attributes import Attrs
from bgpsim.wire.communities import community_text
from .record import ANNOUNCE, STATE, WITHDRAW, Route

NO_NEXT_HOP = "255.255.255.255"  # bgpdump's inet_ntoa of its "unset" next hop
_ORIGIN = {0: "IGP", 1: "EGP"}
_NO_ATTRS = Attrs()


def _tail(attrs, nh: str | None, mrtd: bool = False) -> str:
    if attrs is None:  # an UPDATE with NLRI and no path attributes: bgpdump prints the defaults
        attrs = _NO_ATTRS
    fmt = attrs._fmt
    if fmt is None:
        fmt = attrs._fmt = {}
    key = ("BGP", nh) if mrtd else nh
    t = fmt.get(key)
    if t is None:
        agg = attrs.aggregator
        agg = f"{agg[0]} {agg[1]}" if agg is not None and agg[1] != "255.255.255.255" else ""
        comm = " ".join(map(community_text, attrs.communities)) if attrs.communities else ""
        lp = attrs.local_pref or 0
        med = attrs.med or 0
        head = f"{attrs.as_path_text if attrs.has_as_path else ''}|{_ORIGIN.get(attrs.origin, 'INCOMPLETE')}|"
        if nh == "":  # an MP next hop of an odd length: bgpdump prints no next hop, LOCAL_PREF or MED
            t = f"{head}{comm}|{'AG' if attrs.atomic_aggregate else 'NAG'}|{agg}|"
        else:  # bgpdump's line for the BGP type lacks the "|" between MED and the communities
            t = (f"{head}{NO_NEXT_HOP if nh is None else nh}|{lp}|{med}{'' if mrtd else '|'}{comm}|"
                 f"{'AG' if attrs.atomic_aggregate else 'NAG'}|{agg}|")
        fmt[key] = t
    return t


def line(r: Route) -> str:
    """bgpdump -m's line for one route (no newline)."""
    t = r.time if r.usec is None else f"{r.time}.{r.usec:06d}"
    kind = r.kind
    if kind == STATE:
        return f"{r.record}|{t}|STATE|{r.peer_ip}|{r.peer_as}|{r.old_state}|{r.new_state}"
    if r.record == "BGP":  # the deprecated BGP type (RFC 6396 appendix B)
        if kind == WITHDRAW:
            # bgpdump passes inet_ntoa() twice to one printf: its static buffer makes the prefix's
            # address print as the peer's
            return f"BGP|{t}|W|{r.peer_ip}|{r.peer_as}|{r.peer_ip}/{r.plen}"
        return f"BGP|{t}|A|{r.peer_ip}|{r.peer_as}|{r.prefix}|{_tail(r.attrs, r.next_hop, True)}"
    if kind == WITHDRAW:
        if r.path_id is None:
            return f"{r.record}|{t}|W|{r.peer_ip}|{r.peer_as}|{r.prefix}"
        return f"{r.record}|{t}|W|{r.peer_ip}|{r.peer_as}|{r.prefix}|{r.path_id}"
    letter = "A" if kind == ANNOUNCE else "B"
    if r.path_id is None:
        return f"{r.record}|{t}|{letter}|{r.peer_ip}|{r.peer_as}|{r.prefix}|{_tail(r.attrs, r.next_hop)}"
    return f"{r.record}|{t}|{letter}|{r.peer_ip}|{r.peer_as}|{r.prefix}|{r.path_id}|{_tail(r.attrs, r.next_hop)}"


def write(routes: Iterable[Route], out: TextIO) -> int:
    """Write the lines; return how many."""
    n = 0
    batch = []
    for r in routes:
        batch.append(line(r))
        if len(batch) >= 4096:
            out.write("\n".join(batch) + "\n")
            n += len(batch)
            batch.clear()
    if batch:
        out.write("\n".join(batch) + "\n")
        n += len(batch)
    return n
