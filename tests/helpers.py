"""Small graphs and runs for the tests."""

from __future__ import annotations

from pathlib import Path

from bgpsim.engine.events import EventQueue
from bgpsim.engine.timed import Delay, TimedEngine, Timing
from bgpsim.topology import _build

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"


def graph(p2c=(), p2p=(), name="test"):
    """A topology from (provider, customer) and (peer, peer) ASN pairs."""
    return _build(list(p2c), list(p2p), f"test:{name}", name=name)


def path_asns(topo, engine, p, asn):
    """The AS path AS `asn` would advertise for prefix p (itself first), as ASNs, or None."""
    adv = engine.adv[p][topo.index[asn]]
    return None if adv is None else tuple(int(topo.asns[x]) for x in adv)


def timed(topo, mrai=0.0, seed=1, policies=None, prefixes=None, **timing):
    """A timed engine on its own queue; MRAI off unless asked."""
    import ipaddress

    prefixes = prefixes or [ipaddress.ip_network("10.0.0.0/16"), ipaddress.ip_network("10.0.0.0/24")]
    t = Timing(mrai=mrai, **timing)
    q = EventQueue()
    return TimedEngine(topo, prefixes, t, seed, q, policies), q


FAST = dict(link_delay=Delay("constant", 0.01), processing_delay=Delay("constant", 0.001))
