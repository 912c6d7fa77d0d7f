"""GoBGP as the AS under test: its configuration (TOML), made from the scenario, and its process.

The same roles as BIRD's and FRR's (bgpsim.lab.bird): the AS on 127.0.0.1:PORT, passive toward each
neighbour. GoBGP applies a neighbour's own import and export policies to route-server clients alone;
an ordinary speaker's are global, so its policies tell the neighbours apart by neighbour sets (one per
relationship):
- import: LOCAL_PREF 200, 100, 50 by relationship, and the large community (ASN, 0, relationship);
  before that, with ROV, routes whose `rpki-validation-result` is invalid rejected (the VRPs from an RTR
  cache, `rpki-servers`), and with maxlen those in prefix sets of the prefixes too long;
- export: everything to a customer and to the collector (iBGP from 127.0.0.254), only customers' routes
  to a peer or a provider;
- max-prefix as a neighbour's `prefix-limit`; ties broken on the lowest BGP Identifier.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import free_port

from . import COLLECTOR, LOCAL_PREF, REL_CODE, Deployed, RouterProcess

GOBGPD = next((p for p in ("/usr/bin/gobgpd", "/usr/sbin/gobgpd") if Path(p).exists()), "/usr/bin/gobgpd")
GOBGP = next((p for p in ("/usr/bin/gobgp", "/usr/sbin/gobgp") if Path(p).exists()), "/usr/bin/gobgp")
FAMILIES = (("4", "0.0.0.0/0", 32), ("6", "::/0", 128))


def _statement(name: str, conditions: str, actions: str) -> str:
    return (f"  [[policy-definitions.statements]]\n    name = \"{name}\"\n{conditions}"
            f"    [policy-definitions.statements.actions]\n{actions}")


def _from(neighbour_set: str) -> str:
    return ("    [policy-definitions.statements.conditions.match-neighbor-set]\n"
            f'      neighbor-set = "{neighbour_set}"\n      match-set-options = "any"\n')


ACCEPT, REJECT = '      route-disposition = "accept-route"\n', '      route-disposition = "reject-route"\n'


def config(asn: int, port: int, neighbours: list[tuple[str, int, str]], deployed: Deployed) -> str:
    """gobgpd.toml: `neighbours` (address, ASN, relationship as seen from the router)."""
    out = [f'[global.config]\n  as = {asn}\n  router-id = "127.0.0.1"\n  port = {port}\n'
           '  local-address-list = ["127.0.0.1"]\n'
           # the lowest BGP Identifier breaks a tie (RFC 4271 section 9.1.2.2 f), as in the model; GoBGP's
           # default keeps the older of two external routes (RFC 5004)
           '[global.route-selection-options.config]\n  external-compare-router-id = true\n'
           '[global.apply-policy.config]\n  import-policy-list = ["import"]\n  default-import-policy = "reject-route"\n'
           '  export-policy-list = ["export"]\n  default-export-policy = "reject-route"\n']
    if deployed.rtr_port is not None:
        out.append(f'[[rpki-servers]]\n  [rpki-servers.config]\n    address = "127.0.0.1"\n    port = {deployed.rtr_port}\n')
    sets = {rel: [a for a, _asn, r in neighbours if r == rel] for rel in LOCAL_PREF} | {"collector": [COLLECTOR]}
    for name, addresses in sets.items():
        if addresses:
            out.append(f'[[defined-sets.neighbor-sets]]\n  neighbor-set-name = "{name}"\n'
                       f"  neighbor-info-list = [{', '.join(f'{chr(34)}{a}{chr(34)}' for a in addresses)}]\n")
    out.append('[[defined-sets.bgp-defined-sets.large-community-sets]]\n  large-community-set-name = "from-customer"\n'
               f'  large-community-list = ["^{asn}:0:1$"]\n')
    if deployed.longest:  # one family to a prefix set
        for (f, net, bits), longest in zip(FAMILIES, deployed.longest):
            out.append(f'[[defined-sets.prefix-sets]]\n  prefix-set-name = "too-long{f}"\n'
                       f'  [[defined-sets.prefix-sets.prefix-list]]\n    ip-prefix = "{net}"\n'
                       f'    masklength-range = "{longest + 1}..{bits}"\n')
    out.append('[[policy-definitions]]\n  name = "import"\n')
    if deployed.rtr_port is not None:
        out.append(_statement("rov", "    [policy-definitions.statements.conditions.bgp-conditions]\n"
                                     '      rpki-validation-result = "invalid"\n', REJECT))
    if deployed.longest:
        for f, _net, _bits in FAMILIES:
            out.append(_statement(f"maxlen{f}", "    [policy-definitions.statements.conditions.match-prefix-set]\n"
                                  f'      prefix-set = "too-long{f}"\n      match-set-options = "any"\n', REJECT))
    for rel, pref in LOCAL_PREF.items():
        if sets[rel]:
            out.append(_statement(
                f"mark-{rel}", _from(rel),
                ACCEPT + "    [policy-definitions.statements.actions.bgp-actions]\n"
                f"      set-local-pref = {pref}\n"
                "      [policy-definitions.statements.actions.bgp-actions.set-large-community]\n"
                '        options = "add"\n'
                "        [policy-definitions.statements.actions.bgp-actions.set-large-community.set-large-community-method]\n"
                f'          communities-list = ["{asn}:0:{REL_CODE[rel]}"]\n'))
    out.append('[[policy-definitions]]\n  name = "export"\n' + _statement("to-collector", _from("collector"), ACCEPT))
    if sets["customer"]:
        out.append(_statement("to-customers", _from("customer"), ACCEPT))
    out.append(_statement("customers-routes", "    [policy-definitions.statements.conditions.bgp-conditions.match-large-community-set]\n"
                          '      large-community-set = "from-customer"\n      match-set-options = "any"\n', ACCEPT))
    for address, peer_as, _rel in neighbours:
        out.append(f'[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "{address}"\n    peer-as = {peer_as}\n'
                   '  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n'
                   '  [neighbors.ebgp-multihop.config]\n    enabled = true\n    multihop-ttl = 2\n'
                   + "".join(f'  [[neighbors.afi-safis]]\n    [neighbors.afi-safis.config]\n      afi-safi-name = "{f}"\n'
                             + (f"    [neighbors.afi-safis.prefix-limit.config]\n      max-prefixes = "
                                f"{deployed.limits[address]}\n" if deployed.limits.get(address) else "")
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

