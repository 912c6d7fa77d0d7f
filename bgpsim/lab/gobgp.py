"""GoBGP as the AS under test: its configuration (TOML), made from the scenario, and its process.

The same roles as BIRD's and FRR's (bgpsim.lab.bird): the AS on 127.0.0.1:PORT, passive toward each
neighbour; an import policy per relationship that sets LOCAL_PREF (200, 100, 50) and adds the large
community (ASN, 0, relationship); an export policy that passes a customer everything and a peer or a
provider only customers' routes; ties broken on the lowest BGP Identifier; ROV from an RTR cache (`rpki-servers`, and an import statement that
rejects `rpki-validation-result = "invalid"`) where the scenario deploys it; a collector on iBGP from
127.0.0.254.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import free_port

from . import COLLECTOR, LOCAL_PREF, REL_CODE, RouterProcess

GOBGPD = next((p for p in ("/usr/bin/gobgpd", "/usr/sbin/gobgpd") if Path(p).exists()), "/usr/bin/gobgpd")
GOBGP = next((p for p in ("/usr/bin/gobgp", "/usr/sbin/gobgp") if Path(p).exists()), "/usr/bin/gobgp")


def _statement(name: str, conditions: str, actions: str) -> str:
    return (f"  [[policy-definitions.statements]]\n    name = \"{name}\"\n{conditions}"
            f"    [policy-definitions.statements.actions]\n{actions}")


def config(asn: int, port: int, neighbours: list[tuple[str, int, str]], rtr_port: int | None) -> str:
    """gobgpd.toml: `neighbours` (address, ASN, relationship as seen from the router)."""
    out = [f'[global.config]\n  as = {asn}\n  router-id = "127.0.0.1"\n  port = {port}\n'
           '  local-address-list = ["127.0.0.1"]\n'
           # the lowest BGP Identifier breaks a tie (RFC 4271 section 9.1.2.2 f), as in the model; GoBGP's
           # default keeps the older of two external routes (RFC 5004)
           '[global.route-selection-options.config]\n  external-compare-router-id = true\n']
    if rtr_port is not None:
        out.append(f'[[rpki-servers]]\n  [rpki-servers.config]\n    address = "127.0.0.1"\n    port = {rtr_port}\n')
    out.append('[[defined-sets.bgp-defined-sets.large-community-sets]]\n  large-community-set-name = "from-customer"\n'
               f'  large-community-list = ["^{asn}:0:1$"]\n')
    for rel, pref in LOCAL_PREF.items():
        out.append(f'[[policy-definitions]]\n  name = "from-{rel}"\n')
        if rtr_port is not None:
            out.append(_statement(f"rov-{rel}", "    [policy-definitions.statements.conditions.bgp-conditions]\n"
                                         '      rpki-validation-result = "invalid"\n',
                                  '      route-disposition = "reject-route"\n'))
        out.append(_statement(
            f"mark-{rel}", "",
            '      route-disposition = "accept-route"\n'
            "    [policy-definitions.statements.actions.bgp-actions]\n"
            f"      set-local-pref = {pref}\n"
            "      [policy-definitions.statements.actions.bgp-actions.set-large-community]\n"
            '        options = "add"\n'
            "        [policy-definitions.statements.actions.bgp-actions.set-large-community.set-large-community-method]\n"
            f'          communities-list = ["{asn}:0:{REL_CODE[rel]}"]\n'))
    out.append('[[policy-definitions]]\n  name = "to-other"\n' + _statement(
        "to-other-customers", "    [policy-definitions.statements.conditions.bgp-conditions.match-large-community-set]\n"
                          '      large-community-set = "from-customer"\n      match-set-options = "any"\n',
        '      route-disposition = "accept-route"\n') + _statement("to-other-rest", "", '      route-disposition = "reject-route"\n'))
    for address, peer_as, rel in neighbours:
        out.append(f'[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "{address}"\n    peer-as = {peer_as}\n'
                   '  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n'
                   '  [neighbors.ebgp-multihop.config]\n    enabled = true\n    multihop-ttl = 2\n'
                   '  [neighbors.apply-policy.config]\n'
                   f'    import-policy-list = ["from-{rel}"]\n    default-import-policy = "reject-route"\n'
                   + ('    default-export-policy = "accept-route"\n' if rel == "customer" else
                      '    export-policy-list = ["to-other"]\n    default-export-policy = "reject-route"\n')
                   + "".join(f'  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "{f}"\n'
                             for f in ("ipv4-unicast", "ipv6-unicast")))
    out.append(f'[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "{COLLECTOR}"\n    peer-as = {asn}\n'
               '  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n'
               + "".join(f'  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "{f}"\n'
                         for f in ("ipv4-unicast", "ipv6-unicast")))
    return "".join(out)


class GoBGP(RouterProcess):
    """gobgpd in directory `d` with the configuration `conf` (which names its port); its gRPC API on a free
    port; stopped by `stop`."""

    name = "GoBGP"

    def __init__(self, d: Path, conf: str, port: int):
        if not Path(GOBGPD).exists():
            raise InputError("--router gobgp: GoBGP is not installed (Debian package gobgpd)")
        d.mkdir(parents=True, exist_ok=True)
        (d / "gobgpd.toml").write_text(conf)
        self.api = free_port()
        self._start([GOBGPD, "-f", str(d / "gobgpd.toml"), "--api-hosts", f"127.0.0.1:{self.api}", "--pprof-disable"],
                    d / "gobgpd.log")
        time.sleep(0.3)

    def cli(self, *args: str) -> str:
        return subprocess.run([GOBGP, "-u", "127.0.0.1", "-p", str(self.api), *args], capture_output=True, text=True,
                              timeout=10, check=False).stdout

    def roas(self) -> int:
        """How many VRPs its RPKI table holds."""
        return sum(1 for family in ("ipv4", "ipv6") for line in self.cli("rpki", "table", "-a", family).splitlines()
                   if "/" in line.split(" ", 1)[0])

