"""Defences: one policy class per mechanism, each citing its source. Both engines use them
(see `bgpsim.policy` for how)."""

from __future__ import annotations

from bgpsim.base.errors import InputError
from .aspa import ASPA
from .bgpsec import BGPsec
from .first_as import EnforceFirstAS
from .otc import OnlyToCustomers
from .path_end import PathEnd
from .peerlock import PeerlockLite
from .rov import ROV, PeerROV, ROVDeprefer

DEFENCES = {cls.name: cls for cls in (ROV, ROVDeprefer, PeerROV, ASPA, BGPsec, PathEnd, OnlyToCustomers,
                                      EnforceFirstAS, PeerlockLite)}


def defence(name: str, topo, adopters, vrps=None):
    """The defence called `name`, deployed by the AS indices `adopters`."""
    cls = DEFENCES.get(name)
    if cls is None:
        raise InputError(f"unknown policy {name!r}; want one of {', '.join(DEFENCES)}")
    return cls(topo, adopters, vrps)


__all__ = ["DEFENCES", "defence", "ROV", "ROVDeprefer", "PeerROV", "ASPA", "BGPsec", "PathEnd",
           "OnlyToCustomers", "EnforceFirstAS", "PeerlockLite"]
