#!/usr/bin/env python3
"""Run BGPy (bgpy-pkg 13.0.x) as a reference oracle for single attack trials.

Usage:
    python run_bgpy.py REQUEST.json            # prints JSON to stdout
    python run_bgpy.py REQUEST.json -o OUT.json

REQUEST.json is one request object or a list of them:

    {
      "graph": "/path/to/caida.as-rel2.txt[.bz2]",  # or "edges": [[a, b, rel], ...]
      "attack": "prefix" | "subprefix" | "forged-origin" | "squat" | "superprefix-prefix" |
                "non-routed-superprefix" | "non-routed-superprefix-prefix",
      "attacker": 666,
      "victim": 777,
      "policy": "rov" | "peer-rov" | "aspa" | "path-end" | "bgpsec" | "otc"
                | "enforce-first-as" | "none"   (or any class name exported by
                bgpy.simulation_engine, e.g. "ROVEnforceFirstAS"),
      "adopters": [asn, ...],

      # optional
      "victim_always_adopts": false,  # true = BGPy's native rule (victim is always
                                      # given the adopting policy); default false =
                                      # adopters are exactly "adopters"
      "include_routes": true          # false = omit the (large) "routes" map
    }

Graph lines are "a|b|-1" (a is the provider of customer b) or "a|b|0" (peers),
optionally followed by "|source" (CAIDA as-rel2); lines starting with '#' are
comments ("# input clique: ..." and "# IXP ASes: ..." are read as metadata).
"edges" entries use the same convention: [a, b, -1] or [a, b, 0].

Output, one object per request (a list if the input was a list):

    {"outcomes": {"asn": "attacker"|"victim"|"disconnected"|"loop", ...},
     "routes":   {"asn": {"prefix": [as_path...], ...}, ...}}

"outcomes" is BGPy's data-plane outcome (ASGraphAnalyzer, the one its metrics
use) for every AS in the graph; "routes" is every AS's Loc-RIB (AS paths as
BGPy stores them, i.e. starting with the AS itself). A request that fails
yields {"error": "..."} instead.

Graphs are parsed once per path and reused across requests; nothing is
downloaded (BGPy's CAIDA collector is bypassed).
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import sys
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

from frozendict import frozendict

import bgpy.simulation_engine as bgpy_engine
from bgpy.as_graphs import ASGraphInfo, CAIDAASGraph
from bgpy.as_graphs.base.links import CustomerProviderLink as CPLink
from bgpy.as_graphs.base.links import PeerLink
from bgpy.shared.enums import ASGroups, Outcomes, Plane, Relationships, SpecialPercentAdoptions
from bgpy.simulation_engine import (
    ASPA,
    ASRA,
    ASPAwN,
    BGP,
    BGPFull,
    BGPFullIgnoreInvalid,
    BGPFullSuppressWithdrawals,
    ROV,
    BGPiSec,
    BGPiSecTransitive,
    BGPiSecTransitiveOnlyToCustomers,
    BGPiSecTransitiveProConID,
    BGPSec,
    EdgeFilter,
    EnforceFirstAS,
    OnlyToCustomers,
    PathEnd,
    PeerROV,
    Policy,
    ProviderConeID,
    ROVEdgeFilter,
    ROVPPV1Lite,
    ROVPPV2ImprovedLite,
    ROVPPV2Lite,
    RoSTFull,
    SimulationEngine,
)
from bgpy.simulation_framework import (
    ASGraphAnalyzer,
    ForgedOriginPrefixHijack,
    NonRoutedPrefixHijack,
    NonRoutedSuperprefixHijack,
    NonRoutedSuperprefixPrefixHijack,
    PrefixHijack,
    ScenarioConfig,
    SubprefixHijack,
    SuperprefixPrefixHijack,
    ValidPrefix,
)

class PeerROVAsDocumented(PeerROV):
    """PeerROV as its docstring says: drop ROA-invalid routes received from a peer. (BGPy 13.0's
    PeerROV tests `ann.recv_relationship`, the sender's relationship to its previous hop.)"""

    name = "PeerROVAsDocumented"

    def _valid_ann(self, ann, recv_rel) -> bool:
        if self.ann_is_invalid_by_roa(ann) and recv_rel == Relationships.PEERS:
            return False
        return BGP._valid_ann(self, ann, recv_rel)


POLICIES: dict[str, type[Policy]] = {
    "none": BGP,
    "bgp": BGP,
    "rov": ROV,
    "peer-rov": PeerROV,
    "peer-rov-as-documented": PeerROVAsDocumented,
    "aspa": ASPA,
    "path-end": PathEnd,
    "bgpsec": BGPSec,
    "otc": OnlyToCustomers,
    "enforce-first-as": EnforceFirstAS,
    "edge-filter": EdgeFilter,
    "rov-edge-filter": ROVEdgeFilter,
    "asra": ASRA,
    "aspa-wn": ASPAwN,
    "provider-cone-id": ProviderConeID,
    "bgp-isec-transitive": BGPiSecTransitive,
    "bgp-isec-otc": BGPiSecTransitiveOnlyToCustomers,
    "bgp-isec-pcid": BGPiSecTransitiveProConID,
    "bgp-isec": BGPiSec,
    "rovpp-v1": ROVPPV1Lite,
    "rovpp-v2": ROVPPV2Lite,
    "rovpp-v2i": ROVPPV2ImprovedLite,
    "bgp-full": BGPFull,
    "bgp-full-ignore-invalid": BGPFullIgnoreInvalid,
    "bgp-full-suppress-withdrawals": BGPFullSuppressWithdrawals,
    "rost": RoSTFull,
}

OUTCOME_NAMES: dict[int, str] = {
    Outcomes.ATTACKER_SUCCESS.value: "attacker",
    Outcomes.VICTIM_SUCCESS.value: "victim",
    Outcomes.DISCONNECTED.value: "disconnected",
    Outcomes.DATA_PLANE_LOOP.value: "loop",
}


def _exact_adopters(ScenarioCls: type) -> type:
    """Scenario subclass whose victim is NOT force-adopted.

    BGPy's Scenario._default_adopters is the victim set, and
    Scenario.get_policy_cls gives those ASes AdoptPolicyCls before looking at
    anything else. Emptying it makes the adopters exactly
    override_adopting_asns.
    """

    class Exact(ScenarioCls):  # type: ignore[misc, valid-type]
        @cached_property
        def _default_adopters(self) -> frozenset[int]:
            return frozenset()

    Exact.__name__ = Exact.__qualname__ = f"Exact{ScenarioCls.__name__}"
    return Exact


_NATIVE_SCENARIOS: dict[str, type] = {
    "prefix": PrefixHijack,
    "subprefix": SubprefixHijack,
    "forged-origin": ForgedOriginPrefixHijack,
    "squat": NonRoutedPrefixHijack,
    "superprefix-prefix": SuperprefixPrefixHijack,
    "non-routed-superprefix": NonRoutedSuperprefixHijack,
    "non-routed-superprefix-prefix": NonRoutedSuperprefixPrefixHijack,
}
_EXACT_SCENARIOS: dict[str, type] = {
    name: _exact_adopters(cls) for name, cls in _NATIVE_SCENARIOS.items()
}


class WithdrawnPrefix(ValidPrefix):
    """The victim announces its prefix and, after the first round, withdraws it (the shape of
    BGPy's own engine tests of withdrawals, internal_config_002 and _007); two rounds."""

    min_propagation_rounds: int = 2

    def post_propagation_hook(self, engine, percent_adopt, trial, propagation_round) -> None:
        if propagation_round == 0:
            for asn in self.victim_asns:
                policy = engine.as_graph.as_dict[asn].policy
                own = policy.local_rib.pop(next(iter(policy.local_rib)))
                policy.withdraw_ann_from_neighbors(own.copy({"withdraw": True}))

    @cached_property
    def _default_adopters(self) -> frozenset[int]:
        return frozenset()


def run_withdrawal(engine: SimulationEngine, req: dict[str, Any]) -> dict[str, Any]:
    """`policies` ({asn: name}) on a `base` policy (default bgp-full-ignore-invalid); the victim
    announces and then withdraws; every AS's Loc-RIB after `rounds` rounds (default 2, BGPy's)."""
    victim = int(req["victim"])
    config = ScenarioConfig(
        ScenarioCls=WithdrawnPrefix,
        BasePolicyCls=resolve_policy(req.get("base", "bgp-full-ignore-invalid")),
        override_victim_asns=frozenset({victim}),
        override_attacker_asns=frozenset(),
        num_attackers=0,
        propagation_rounds=int(req.get("rounds", 2)),
        hardcoded_asn_cls_dict=frozendict({int(a): resolve_policy(n) for a, n in req.get("policies", {}).items()}),
    )
    scenario = WithdrawnPrefix(scenario_config=config, engine=engine)
    _run_rounds(engine, scenario)
    return {"routes": {str(a.asn): {prefix: list(ann.as_path) for prefix, ann in sorted(a.policy.local_rib.items())}
                       for a in sorted(engine.as_graph, key=lambda x: x.asn) if len(a.policy.local_rib)}}


def resolve_policy(name: str) -> type[Policy]:
    if name in POLICIES:
        return POLICIES[name]
    cls = getattr(bgpy_engine, name, None)
    if isinstance(cls, type) and issubclass(cls, Policy):
        return cls
    raise ValueError(f"unknown policy {name!r}; known: {sorted(POLICIES)}")


#########
# Graph #
#########


def _open_text(path: Path):
    if path.suffix == ".bz2":
        return bz2.open(path, "rt")
    if path.suffix == ".gz":
        return gzip.open(path, "rt")
    return path.open()


def _parse_lines(lines: Iterable[str]) -> ASGraphInfo:
    """Parses CAIDA serial-1/serial-2 lines into BGPy's ASGraphInfo"""

    cp: dict[tuple[int, int], CPLink] = {}
    peers: dict[tuple[int, int], PeerLink] = {}
    clique: set[int] = set()
    ixps: set[int] = set()
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("# input clique"):
                clique.update(int(x) for x in line.split(":")[-1].split())
            elif line.startswith("# IXP ASes"):
                ixps.update(int(x) for x in line.split(":")[-1].split())
            continue
        fields = line.split("|")
        if len(fields) < 3:
            raise ValueError(f"line {lineno}: malformed relationship {line!r}")
        a, b, rel = int(fields[0]), int(fields[1]), int(fields[2])
        _add_link(cp, peers, a, b, rel, f"line {lineno}")
    return _graph_info(cp, peers, clique, ixps)


def _add_link(cp, peers, a: int, b: int, rel: int, where: str) -> None:
    if a == b:
        raise ValueError(f"{where}: self link {a}")
    key = (min(a, b), max(a, b))
    if rel == -1:
        prev = cp.get(key)
        if prev is not None and prev.provider_asn != a:
            raise ValueError(f"{where}: {a}|{b} is provider->customer both ways")
        if key in peers:
            raise ValueError(f"{where}: {a}|{b} is both peer and provider/customer")
        cp[key] = CPLink(customer_asn=b, provider_asn=a)
    elif rel == 0:
        if key in cp:
            raise ValueError(f"{where}: {a}|{b} is both peer and provider/customer")
        peers[key] = PeerLink(a, b)
    else:
        raise ValueError(f"{where}: unknown relationship {rel}")


def _graph_info(cp, peers, clique, ixps) -> ASGraphInfo:
    return ASGraphInfo(
        customer_provider_links=frozenset(cp.values()),
        peer_links=frozenset(peers.values()),
        input_clique_asns=frozenset(clique),
        ixp_asns=frozenset(ixps),
    )


def graph_info_from_edges(edges: Iterable[Iterable[int]]) -> ASGraphInfo:
    cp: dict = {}
    peers: dict = {}
    for i, edge in enumerate(edges):
        a, b, rel = (int(x) for x in edge)
        _add_link(cp, peers, a, b, rel, f"edge {i}")
    return _graph_info(cp, peers, set(), set())


def graph_info_from_file(path: str | Path) -> ASGraphInfo:
    with _open_text(Path(path)) as f:
        return _parse_lines(f)


def build_engine(as_graph_info: ASGraphInfo) -> SimulationEngine:
    # Customer cones are only used for metrics/AS rank, not for propagation
    as_graph = CAIDAASGraph(as_graph_info, store_customer_cone_size=False, store_provider_cone_asns=True)
    return SimulationEngine(as_graph)


##########
# Trials #
##########


def _run_rounds(engine: SimulationEngine, scenario) -> None:
    """The scenario's rounds and hooks, as Simulation._run_chunk and EngineRunner.run_engine run them."""
    scenario.setup_engine(engine)
    for round_ in range(scenario.scenario_config.propagation_rounds):
        engine.run(propagation_round=round_, scenario=scenario)
        for hook in (scenario.pre_aggregation_hook, scenario.post_propagation_hook):
            hook(engine=engine, percent_adopt=0, trial=0, propagation_round=round_)


def run_drawn(engine: SimulationEngine, req: dict[str, Any]) -> dict[str, Any]:
    """BGPy draws the trial itself, as its Simulation does (`draw`: true): attacker and victim among
    its stubs-or-multihomed, and `percent` ("one": ONLY_ONE) of each adoption subcategory, from
    Python's `random` seeded with `seed`. The shares of each outcome among all ASes, and among the
    stubs-or-multihomed that adopt and that do not (attacker and victim aside, as BGPy's metrics)."""
    import random
    import time

    random.seed(int(req["seed"]))
    percent = SpecialPercentAdoptions.ONLY_ONE if req["percent"] == "one" else float(req["percent"])
    ScenarioCls = _NATIVE_SCENARIOS[req["attack"]]
    AdoptCls = resolve_policy(req.get("policy", "none"))
    config = ScenarioConfig(ScenarioCls=ScenarioCls, BasePolicyCls=BGP, AdoptPolicyCls=AdoptCls)
    t = time.perf_counter()
    scenario = ScenarioCls(scenario_config=config, percent_adoption=percent, engine=engine)
    _run_rounds(engine, scenario)
    plane = ASGraphAnalyzer(engine=engine, scenario=scenario, data_plane_tracking=True,
                            control_plane_tracking=False).analyze()[Plane.DATA.value]
    skip = scenario.attacker_asns | scenario.victim_asns
    edge = engine.as_graph.asn_groups[ASGroups.STUBS_OR_MH.value]
    adopting = {a.asn for a in engine.as_graph if isinstance(a.policy, AdoptCls)} if AdoptCls is not BGP else set()

    def shares(asns) -> dict[str, float] | None:
        asns = [a for a in asns if a not in skip]
        if not asns:
            return None
        return {name: sum(plane[a] == code for a in asns) / len(asns) for code, name in OUTCOME_NAMES.items()}

    return {"attacker": sorted(scenario.attacker_asns), "victim": sorted(scenario.victim_asns),
            "adopters": len(adopting), "seconds": time.perf_counter() - t,
            "all": shares(plane), "adopting_edge": shares(edge & adopting), "other_edge": shares(edge - adopting)}


def run_trial(engine: SimulationEngine, req: dict[str, Any]) -> dict[str, Any]:
    attack = req["attack"]
    if attack == "withdrawal":
        return run_withdrawal(engine, req)
    if req.get("draw"):
        return run_drawn(engine, req)
    table = _NATIVE_SCENARIOS if req.get("victim_always_adopts") else _EXACT_SCENARIOS
    if attack not in table:
        raise ValueError(f"unknown attack {attack!r}; known: {sorted(table)}")
    ScenarioCls = table[attack]
    attacker, victim = int(req["attacker"]), int(req["victim"])
    adopters = frozenset(int(x) for x in req.get("adopters", ()))
    as_dict = engine.as_graph.as_dict
    for asn in (attacker, victim, *adopters):
        if asn not in as_dict:
            raise ValueError(f"AS {asn} is not in the graph")
    if attacker == victim:
        raise ValueError("attacker and victim must differ")

    config = ScenarioConfig(
        ScenarioCls=ScenarioCls,
        BasePolicyCls=BGP,
        AdoptPolicyCls=resolve_policy(req.get("policy", "none")),
        override_attacker_asns=frozenset({attacker}),
        override_victim_asns=frozenset({victim}),
        override_adopting_asns=adopters,
    )
    scenario = ScenarioCls(scenario_config=config, engine=engine)
    _run_rounds(engine, scenario)

    analyzer = ASGraphAnalyzer(
        engine=engine,
        scenario=scenario,
        data_plane_tracking=True,
        control_plane_tracking=False,
    )
    data_plane = analyzer.analyze()[Plane.DATA.value]
    result: dict[str, Any] = {
        "outcomes": {
            str(asn): OUTCOME_NAMES[data_plane[asn]] for asn in sorted(data_plane)
        }
    }
    if req.get("include_routes", True):
        routes: dict[str, dict[str, list[int]]] = {}
        for as_obj in sorted(engine.as_graph, key=lambda x: x.asn):
            rib = as_obj.policy.local_rib
            if len(rib):
                routes[str(as_obj.asn)] = {
                    prefix: list(ann.as_path) for prefix, ann in sorted(rib.items())
                }
        result["routes"] = routes
    return result


class Oracle:
    """Caches one engine per graph so that many requests share a load"""

    def __init__(self) -> None:
        self._engines: dict[str, SimulationEngine] = {}

    def engine_for(self, req: dict[str, Any]) -> SimulationEngine:
        if "edges" in req:
            key = "edges:" + json.dumps(req["edges"])
            if key not in self._engines:
                self._engines[key] = build_engine(graph_info_from_edges(req["edges"]))
        else:
            key = "file:" + str(Path(req["graph"]).resolve())
            if key not in self._engines:
                self._engines[key] = build_engine(graph_info_from_file(req["graph"]))
        return self._engines[key]

    def run(self, req: dict[str, Any]) -> dict[str, Any]:
        try:
            return run_trial(self.engine_for(req), req)
        except Exception as e:  # report per request, keep the batch going
            return {"error": f"{type(e).__name__}: {e}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("request", help="JSON file with one request or a list")
    parser.add_argument("-o", "--output", help="write JSON here instead of stdout")
    args = parser.parse_args(argv)

    with open(args.request) as f:
        payload = json.load(f)
    oracle = Oracle()
    if isinstance(payload, list):
        out: Any = [oracle.run(req) for req in payload]
        failed = any("error" in r for r in out)
    else:
        out = oracle.run(payload)
        failed = "error" in out
    text = json.dumps(out, separators=(",", ":"))
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        sys.stdout.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
