"""Defences: one policy class per mechanism, each citing its source. Both engines use them
(see `bgpsim.policy` for how). A name may join several with "+" (`rov+maxlen`): see `combined`."""

from __future__ import annotations

from bgpsim.base.errors import InputError
from .aspa import ASPA
from .bgpsec import BGPsec
from .combined import Combined
from .filters import Bogon, MaxLength, MaxPrefix, PrefixList
from .first_as import EnforceFirstAS
from .otc import OnlyToCustomers
from .path_end import PathEnd
from .peerlock import PeerlockLite
from .rov import ROV, PeerROV, ROVDeprefer

DEFENCES = {cls.name: cls for cls in (ROV, ROVDeprefer, PeerROV, ASPA, BGPsec, PathEnd, OnlyToCustomers,
                                      EnforceFirstAS, PeerlockLite, MaxLength, Bogon, PrefixList, MaxPrefix)}
OPTIONS = {MaxLength: "longest", MaxPrefix: "headroom"}  # the one setting a defence takes, if any


def policy_name(name: str, what: str = "policy", none: bool = False) -> str:
    """`name` checked: one defence or several joined by "+", each once (or "none", if `none`); else an
    error that lists them."""
    if none and name == "none":
        return name
    parts = name.split("+") if isinstance(name, str) else [name]
    bad = [p for p in parts if p not in DEFENCES]
    if bad or len(set(parts)) != len(parts):
        why = f"unknown policy {bad[0]!r}" if bad else f"{name!r} names a policy twice"
        names = ", ".join((["none"] if none else []) + list(DEFENCES))
        raise InputError(f"{what}: {why}; want one of {names}, or several joined by '+' (rov+maxlen)")
    return name


def defence(name: str, topo, adopters, vrps=None, **settings):
    """The defence called `name` (see `policy_name`), deployed by the AS indices `adopters`;
    `settings`: those of OPTIONS (longest: maxlen's limits, headroom: max-prefix's), None for the default."""
    parts = []
    for part in policy_name(name).split("+"):
        cls = DEFENCES[part]
        given = settings.get(OPTIONS.get(cls, ""))
        parts.append(cls(topo, adopters, vrps, given) if given is not None else cls(topo, adopters, vrps))
    return parts[0] if len(parts) == 1 else Combined(parts)


__all__ = ["DEFENCES", "defence", "policy_name", "ROV", "ROVDeprefer", "PeerROV", "ASPA", "BGPsec", "PathEnd",
           "OnlyToCustomers", "EnforceFirstAS", "PeerlockLite", "MaxLength", "Bogon", "PrefixList", "MaxPrefix", "Combined"]
