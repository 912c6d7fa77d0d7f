"""Defences: one policy class per mechanism, each citing its source. Both engines use them
(see `bgpsim.policy` for how). A name may join several with "+" (`rov+maxlen`): see `combined`.
`aspa`, `bgpsec` and `path-end` include ROV, as BGPy's do (`includes_rov`); `label` names them so
(`rov+aspa`), and `aspa-alone`, `bgpsec-alone` and `path-end-alone` are the mechanisms without it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from bgpsim.base.errors import InputError
from .aspa import ASPA, ASPAAlone
from .asra import ASRA, ASPAwN
from .bgp_isec import BGPiSec, BGPiSecOTC, BGPiSecPCID, BGPiSecTransitive
from .bgpsec import BGPsec, BGPsecAlone
from .combined import Combined
from .edge_filter import EdgeFilter, ROVEdgeFilter
from .filters import HEADROOM, LONGEST, Bogon, MaxLength, MaxPrefix, PrefixList, longest_limits, positive
from .first_as import EnforceFirstAS
from .otc import OnlyToCustomers
from .path_end import PathEnd, PathEndAlone
from .peerlock import PeerlockLite
from .provider_cone import ProviderConeID
from .rov import ROV, PeerROV, ROVDeprefer
from .rovpp import ROVPPV1, ROVPPV2, ROVPPV2i
from .withdrawals import BGPFull, BGPFullIgnoreInvalid, BGPFullSuppressWithdrawals, RoST

DEFENCES = {cls.name: cls for cls in (ROV, ROVDeprefer, PeerROV, ASPA, ASPAAlone, BGPsec, BGPsecAlone, PathEnd,
                                      PathEndAlone, OnlyToCustomers, EnforceFirstAS, PeerlockLite, MaxLength, Bogon,
                                      PrefixList, MaxPrefix, EdgeFilter, ROVEdgeFilter, ASRA, ASPAwN,
                                      ProviderConeID, BGPiSecTransitive, BGPiSecOTC, BGPiSecPCID, BGPiSec, ROVPPV1, ROVPPV2,
                                      ROVPPV2i, BGPFull, BGPFullIgnoreInvalid, BGPFullSuppressWithdrawals, RoST)}


@dataclass(frozen=True)
class Setting:
    """A setting of one defence: a scenario's [defence] key, --KEY on the command line, and the keyword
    of the defence's constructor."""

    policy: type
    read: Callable  # a value from TOML or the command line; a ValueError says what was wanted
    default: object
    words: Callable  # the value in a sentence of the report

    def applies(self, policy: str) -> bool:
        return self.policy.name in policy.split("+")


SETTINGS = {
    "longest": Setting(MaxLength, longest_limits, LONGEST,
                       lambda v: f"maxlen accepts prefixes up to /{v[0]} for IPv4 and /{v[1]} for IPv6"),
    "max_prefix": Setting(MaxPrefix, positive, HEADROOM,
                          lambda v: f"max-prefix allows {v:,} prefixes beyond a neighbour's usual"),
}


def policy_name(name: str, what: str = "policy", none: bool = False) -> str:
    """`name` checked: one defence or several joined by "+", each once (or "none", if `none`); else an
    error that lists them."""
    if none and name == "none":
        return name
    parts = name.split("+") if isinstance(name, str) else [name]
    bad = [p for p in parts if not isinstance(p, str) or p not in DEFENCES]
    if bad or len(set(parts)) != len(parts):
        why = f"unknown policy {bad[0]!r}" if bad else f"{name!r} names a policy twice"
        names = ", ".join((["none"] if none else []) + list(DEFENCES))
        raise InputError(f"{what}: {why}; want one of {names}, or several joined by '+' (rov+maxlen)")
    return name


def includes_rov(part: str) -> bool:
    return getattr(DEFENCES.get(part), "includes_rov", False)


def checks_roas(name: str) -> bool:
    """Whether the defence `name` (one, or several joined by "+") judges routes by their ROAs."""
    return any(getattr(DEFENCES.get(p), "checks_roas", False) or includes_rov(p) for p in name.split("+"))


def says_rov(name: str) -> bool:
    """Whether the name itself says ROV is in: a part `rov`, or one named for it (rovpp-v1, rov-edge-filter)."""
    return any(p.startswith("rov") for p in name.split("+"))


def label(name: str) -> str:
    """`name` as tables and legends show it: saying that ROV is in it when a part includes ROV
    (`aspa` -> `rov+aspa`). The label is itself a policy name that means the same."""
    parts = name.split("+")
    if says_rov(name) or not any(includes_rov(p) for p in parts):
        return name
    return "+".join(["rov", *parts])


def defence(name: str, topo, adopters, vrps=None, **settings):
    """The defence called `name` (see `policy_name`), deployed by the AS indices `adopters`, with
    `settings` (of SETTINGS) for the defences that take them."""
    names = policy_name(name).split("+")
    if any(includes_rov(p) for p in names):  # rov+aspa is aspa: one class, the one BGPy's tests check
        names = [p for p in names if p != "rov"]
    parts = []
    for part in names:
        cls = DEFENCES[part]
        parts.append(cls(topo, adopters, vrps, **{k: v for k, v in settings.items() if SETTINGS[k].policy is cls}))
    return parts[0] if len(parts) == 1 else Combined(parts)


def settings_text(policy: str, settings: dict) -> str:
    """The settings of the defences in `policy` (defaults included), in words for the report."""
    return "; ".join(s.words(settings.get(k, s.default)) for k, s in SETTINGS.items() if s.applies(policy))


__all__ = ["DEFENCES", "SETTINGS", "checks_roas", "defence", "includes_rov", "label", "policy_name", "says_rov", "settings_text", "ROV",
           "ROVDeprefer", "PeerROV", "ASPA", "ASPAAlone", "BGPsec", "BGPsecAlone", "PathEnd", "PathEndAlone",
           "OnlyToCustomers", "EnforceFirstAS", "PeerlockLite", "MaxLength", "Bogon", "PrefixList", "MaxPrefix",
           "EdgeFilter", "ROVEdgeFilter", "ASRA", "ASPAwN", "ProviderConeID", "BGPiSecTransitive", "BGPiSecOTC", "BGPiSecPCID", "BGPiSec", "ROVPPV1",
           "ROVPPV2", "ROVPPV2i", "BGPFull", "BGPFullIgnoreInvalid", "BGPFullSuppressWithdrawals", "RoST",
           "Combined"]
