"""FRR's bgpd as the AS under test: its configuration, made from the scenario, and its process.

The same roles as BIRD's (bgpsim.lab.bird): the AS on 127.0.0.1:PORT, passive toward each neighbour,
LOCAL_PREF 200, 100 and 50 by relationship and a large community (ASN, 0, relationship) set by an
inbound route-map, exports by an outbound route-map that passes a customer everything and a peer or a
provider only customers' routes, ROV from an RTR cache (FRR's rpki module, RFC 6811 and 8210) where
the scenario deploys it (with soft-reconfiguration inbound, so that new VRPs judge kept routes again),
maxlen as prefix-lists of the prefixes too long, max-prefix as `maximum-prefix N force` (every prefix
received counts, as in the model), and a collector on iBGP from 127.0.0.254. bgpd runs without zebra
(-Z), so next hops need no route. Ties: `bgp bestpath compare-routerid`, since FRR otherwise keeps the older
of two external routes (RFC 5004) where the model, and RFC 4271, take the lowest BGP Identifier.
`coalesce-time 10`: FRR holds what it first sends a peer for a coalesce time (a second by default,
more with many peers), long enough for a short run to end before the collector hears anything.
"""

from __future__ import annotations

import contextlib
import ipaddress
import shutil
import subprocess
from pathlib import Path

from bgpsim.base.errors import InputError

from . import COLLECTOR, LOCAL_PREF, REL_CODE, Deployed, RouterProcess

BGPD = next((p for p in ("/usr/lib/frr/bgpd", "/usr/sbin/bgpd") if Path(p).exists()), "/usr/lib/frr/bgpd")
VTYSH = shutil.which("vtysh") or "/usr/bin/vtysh"


def config(asn: int, port: int, neighbours: list[tuple[str, int, str]], deployed: Deployed) -> str:
    """bgpd.conf: `neighbours` (address, ASN, relationship as seen from the router)."""
    rtr_port = deployed.rtr_port
    out = []
    if rtr_port is not None:
        out.append(f"rpki\n rpki polling_period 3600\n rpki retry_interval 1\n rpki cache 127.0.0.1 {rtr_port} "
                   "preference 1\nexit\n")
    out.append(f"bgp large-community-list standard from-customer permit {asn}:0:1\n")
    if deployed.longest:
        v4, v6 = deployed.longest
        out.append(f"ip prefix-list too-long seq 5 permit 0.0.0.0/0 ge {v4 + 1}\n"
                   f"ipv6 prefix-list too-long6 seq 5 permit ::/0 ge {v6 + 1}\n")
    for rel, pref in LOCAL_PREF.items():
        if rtr_port is not None:
            out.append(f"route-map from-{rel} deny 5\n match rpki invalid\nexit\n")
        if deployed.longest:
            out.append(f"route-map from-{rel} deny 6\n match ip address prefix-list too-long\nexit\n"
                       f"route-map from-{rel} deny 7\n match ipv6 address prefix-list too-long6\nexit\n")
        out.append(f"route-map from-{rel} permit 10\n set local-preference {pref}\n"
                   f" set large-community {asn}:0:{REL_CODE[rel]} additive\nexit\n")
    out.append("route-map to-customer permit 10\n set large-comm-list from-customer delete\nexit\n"
               "route-map to-other permit 10\n match large-community from-customer\n"
               " set large-comm-list from-customer delete\nexit\nroute-map to-other deny 20\nexit\n")
    out.append(f"router bgp {asn}\n bgp router-id 127.0.0.1\n no bgp ebgp-requires-policy\n no bgp network import-check\n"
               " bgp bestpath compare-routerid\n coalesce-time 10\n")
    for address, peer_as, _rel in neighbours:
        out.append(f" neighbor {address} remote-as {peer_as}\n neighbor {address} passive\n"
                   f" neighbor {address} ebgp-multihop 2\n")
    out.append(f" neighbor {COLLECTOR} remote-as {asn}\n neighbor {COLLECTOR} passive\n")
    for family in ("ipv4", "ipv6"):
        out.append(f" address-family {family} unicast\n")
        for address, _peer_as, rel in neighbours:
            out.append(f"  neighbor {address} activate\n  neighbor {address} route-map from-{rel} in\n"
                       f"  neighbor {address} route-map to-{'customer' if rel == 'customer' else 'other'} out\n")
            if rtr_port is not None:  # the routes as received kept: a change of the VRPs judges them again
                out.append(f"  neighbor {address} soft-reconfiguration inbound\n")
            if deployed.limits.get(address):
                out.append(f"  neighbor {address} maximum-prefix {deployed.limits[address]} force\n")
        out.append(f"  neighbor {COLLECTOR} activate\n exit-address-family\n")
    out.append("exit\n")
    return "".join(out)


class Frr(RouterProcess):
    """FRR's bgpd in directory `d` with the configuration `conf` (the rpki module loaded when it has
    ROV), listening on `port`; stopped by `stop`."""

    name = "FRR"

    def __init__(self, d: Path, conf: str, port: int):
        if not Path(BGPD).exists():
            raise InputError("--router frr: FRR is not installed (Debian packages frr and frr-rpki-rtrlib)")
        d.mkdir(parents=True, exist_ok=True)
        self.dir = d
        (d / "bgpd.conf").write_text(conf)
        modules = ["-M", "rpki"] if conf.startswith("rpki\n") else []
        self._start([BGPD, *modules, "-f", str(d / "bgpd.conf"), "-Z", "-S", "-p", str(port), "-l", "127.0.0.1",
                     "--vty_socket", str(d), "-i", str(d / "bgpd.pid")], d / "bgpd.log")

    def cli(self, command: str) -> str:
        return subprocess.run([VTYSH, "--vty_socket", str(self.dir), "-d", "bgpd", "-c", command], capture_output=True,
                              text=True, timeout=10, check=False).stdout

    def roas(self) -> int:
        """How many VRPs its RPKI table holds (a line each: prefix, lengths, AS)."""
        n = 0
        for line in self.cli("show rpki prefix-table").splitlines():
            with contextlib.suppress(ValueError, IndexError):
                ipaddress.ip_address(line.split()[0])
                n += 1
        return n

