"""BIRD 2 as the AS under test: its configuration, made from the scenario, and its process.

The router speaks as AS `asn` on 127.0.0.1:PORT, passive toward each neighbour (bgpsim plays them, each
from its own loopback address, a multihop eBGP session). Its policies are the model's (Gao-Rexford):
- import: LOCAL_PREF by the neighbour's relationship (customer 200, peer 100, provider 50), so that a
  customer's route beats a peer's beats a provider's before the AS path length, as in the model; each
  route tagged with a large community (ASN, 0, relationship) for the export rule;
- export: to a customer every route, to a peer or a provider only customers' routes (RFC 7908's
  route leak is what the other way would be);
- with ROV, an import filter drops RPKI-invalid routes (RFC 6811), with the VRPs from an RTR cache
  (`bgpsim rtr serve`, RFC 8210), the routes kept as received (`import table`) so that new VRPs judge
  them again; with maxlen, prefixes longer than its limits; with max-prefix, a
  `receive limit` on the sessions that have one disables the session past it;
- its choices go to a collector, an iBGP session from 127.0.0.254 that gets every best route.
Next hops are resolved over the loopback (the made-up addresses the model's UPDATEs carry are routed
to `lo`), and ties are broken on the lowest BGP Identifier, which bgpsim orders as the model orders
the lowest neighbour ASN.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from bgpsim.base.errors import InputError

from . import COLLECTOR, LOCAL_PREF, REL_CODE, Deployed, RouterProcess

BIRD = shutil.which("bird") or "/usr/sbin/bird"
BIRDC = shutil.which("birdc") or "/usr/sbin/birdc"


def config(asn: int, port: int, neighbours: list[tuple[str, int, str]], deployed: Deployed) -> str:
    """bird.conf: `neighbours` (address, ASN, relationship as seen from the router)."""
    rtr_port = deployed.rtr_port
    out = ["router id 127.0.0.1;\nprotocol device {}\n",
           'protocol static lo4 { ipv4; route 100.64.0.0/10 via "lo"; }\n',
           'protocol static lo6 { ipv6; route 2001:db8::/32 via "lo"; }\n']
    drops = ""  # the import filters' rejections: ROV, maxlen
    if rtr_port is not None:
        out.append("roa4 table r4;\nroa6 table r6;\n"
                   f"protocol rpki cache {{ roa4 {{ table r4; }}; roa6 {{ table r6; }}; remote 127.0.0.1 port {rtr_port}; "
                   "retry keep 1; refresh keep 3600; expire 7200; }\n")
        drops = ("  if (net.type = NET_IP4 && roa_check(r4, net, bgp_path.last) = ROA_INVALID) then reject;\n"
               "  if (net.type = NET_IP6 && roa_check(r6, net, bgp_path.last) = ROA_INVALID) then reject;\n")
    if deployed.longest:
        v4, v6 = deployed.longest
        drops += (f"  if (net.type = NET_IP4 && net.len > {v4}) || (net.type = NET_IP6 && net.len > {v6}) then "
                "reject;\n")
    for rel, pref in LOCAL_PREF.items():
        out.append(f"filter from_{rel} {{\n{drops}  bgp_local_pref = {pref};\n"
                   f"  bgp_large_community.add(({asn}, 0, {REL_CODE[rel]}));\n  accept;\n}}\n")
    out.append(f"filter to_customer {{\n  bgp_large_community.delete([({asn}, 0, *)]);\n  accept;\n}}\n"
               f"filter to_other {{\n  if ({asn}, 0, 1) ~ bgp_large_community then {{\n"
               f"    bgp_large_community.delete([({asn}, 0, *)]);\n    accept;\n  }}\n  reject;\n}}\n")
    for k, (address, peer_as, rel) in enumerate(neighbours):
        export = "to_customer" if rel == "customer" else "to_other"
        limit = deployed.limits.get(address)
        limit = f"receive limit {limit} action disable; " if limit else ""
        # with ROV, the routes as received are kept, so that a change of the VRPs judges them again
        kept = "import table on; " if rtr_port is not None else ""
        channels = "".join(f"  {f} {{ import filter from_{rel}; export filter {export}; next hop self; "
                           f"igp table master{f[-1]}; {limit}{kept}}};\n" for f in ("ipv4", "ipv6"))
        out.append(f"protocol bgp n{k} {{\n  local 127.0.0.1 port {port} as {asn};\n  neighbor {address} as {peer_as};\n"
                   f"  passive on;\n  multihop;\n{channels}}}\n")
    out.append(f"protocol bgp collector {{\n  local 127.0.0.1 port {port} as {asn};\n  neighbor {COLLECTOR} as {asn};\n"
               "  passive on;\n  multihop;\n  ipv4 { import none; export all; };\n  ipv6 { import none; export all; };\n}\n")
    return "".join(out)


class Bird(RouterProcess):
    """BIRD 2 in directory `d` with the configuration `conf` (which names its port); stopped by `stop`."""

    name = "BIRD"
    roa_settle = 10.0  # it reloads the channels whose filters check ROAs some seconds after a change

    def __init__(self, d: Path, conf: str, port: int):
        if not Path(BIRD).exists():
            raise InputError("--router bird: BIRD 2 is not installed (Debian package bird2)")
        d.mkdir(parents=True, exist_ok=True)
        (d / "bird.conf").write_text(conf)
        self.sock = d / "bird.ctl"
        self._start([BIRD, "-f", "-c", str(d / "bird.conf"), "-s", str(self.sock), "-P", str(d / "bird.pid")],
                    d / "bird.log")

    def cli(self, *args: str) -> str:
        return subprocess.run([BIRDC, "-s", str(self.sock), *args], capture_output=True, text=True, timeout=10,
                              check=False).stdout

    def roas(self) -> int:
        """How many VRPs its ROA tables hold."""
        n = 0
        for table in ("r4", "r6"):
            for line in self.cli("show", "route", "table", table, "count").splitlines():
                if "routes for" in line:
                    n += int(line.split()[0])
        return n

