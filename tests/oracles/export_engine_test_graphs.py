#!/usr/bin/env python3
"""Export BGPy's engine-test topologies as CAIDA-format edge files.

Usage:
    python export_engine_test_graphs.py OUT_DIR [--check]

BGPy ships its engine-test configs in bgpy/tests/engine_tests/engine_test_configs/
(examples/ex_config_NNN.py, internals/internal_config_NNN.py). Each is an
EngineTestConfig whose .as_graph_info is a bgpy.as_graphs.ASGraphInfo
(customer_provider_links / peer_links / unlinked_asns) and whose
.scenario_config is a ScenarioConfig. The wheel does not ship the expected
outputs (engine_test_outputs/ is generated on first run).

For every config this writes OUT_DIR/<name>.as-rel.txt ("p|c|-1", "a|b|0").
For configs expressible as a run_bgpy request (PrefixHijack, SubprefixHijack,
ForgedOriginPrefixHijack; BGP plus at most one other non-Full policy class) it
also writes OUT_DIR/requests.json (run_bgpy requests, adopters = ASes that
BGPy itself gives the non-BGP class, victim included) and
OUT_DIR/expected.json (outcomes + Loc-RIBs from BGPy run natively on the
config, the same way bgpy.utils.EngineRunner does). With --check, run_bgpy is
run on requests.json in-process and compared with expected.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bgpy.as_graphs import CAIDAASGraph
from bgpy.shared.enums import Plane
from bgpy.simulation_engine import BGP, SimulationEngine
from bgpy.simulation_framework import (
    ASGraphAnalyzer,
    ForgedOriginPrefixHijack,
    PrefixHijack,
    SubprefixHijack,
)
from bgpy.tests.engine_tests.engine_test_configs import engine_test_configs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_bgpy  # noqa: E402

ATTACKS = {
    PrefixHijack: "prefix",
    SubprefixHijack: "subprefix",
    ForgedOriginPrefixHijack: "forged-origin",
}
POLICY_KEYS = {cls: key for key, cls in run_bgpy.POLICIES.items() if key != "bgp"}


def caida_lines(info) -> list[str]:
    lines = [f"{x.provider_asn}|{x.customer_asn}|-1" for x in info.customer_provider_links]
    lines += [f"{a}|{b}|0" for a, b in (x.peer_asns for x in info.peer_links)]
    return sorted(lines, key=lambda s: [int(v) for v in s.split("|")])


def native_run(conf):
    """Runs the config exactly like bgpy.utils.EngineRunner.run_engine"""

    sc = conf.scenario_config
    as_graph = CAIDAASGraph(as_graph_info=conf.as_graph_info, BasePolicyCls=sc.BasePolicyCls)
    engine = SimulationEngine(as_graph)
    scenario = sc.ScenarioCls(scenario_config=sc, engine=engine)
    scenario.setup_engine(engine)
    for round_ in range(sc.propagation_rounds):
        engine.run(propagation_round=round_, scenario=scenario)
    outcomes = ASGraphAnalyzer(engine=engine, scenario=scenario).analyze()[
        Plane.DATA.value
    ]
    return engine, scenario, outcomes


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)

    requests, expected = [], []
    for conf in engine_test_configs:
        graph_path = out / f"{conf.name}.as-rel.txt"
        header = f"# BGPy engine test {conf.name}: {' '.join(conf.desc.split())}\n"
        graph_path.write_text(header + "\n".join(caida_lines(conf.as_graph_info)) + "\n")

        sc = conf.scenario_config
        attack = ATTACKS.get(sc.ScenarioCls)
        if attack is None or sc.propagation_rounds != 1:
            continue
        engine, scenario, outcomes = native_run(conf)
        used = {type(a.policy) for a in engine.as_graph} - {BGP}
        if len(used) > 1 or not used <= set(POLICY_KEYS):
            continue
        policy_cls = next(iter(used), BGP)
        adopters = sorted(
            a.asn for a in engine.as_graph if type(a.policy) is policy_cls
        ) if used else []
        requests.append(
            {
                "name": conf.name,
                "graph": str(graph_path.resolve()),
                "attack": attack,
                "attacker": next(iter(scenario.attacker_asns)),
                "victim": next(iter(scenario.victim_asns)),
                "policy": POLICY_KEYS.get(policy_cls, "none"),
                "adopters": adopters,
            }
        )
        expected.append(
            {
                "outcomes": {
                    str(k): run_bgpy.OUTCOME_NAMES[v] for k, v in sorted(outcomes.items())
                },
                "routes": {
                    str(a.asn): {
                        p: list(ann.as_path) for p, ann in sorted(a.policy.local_rib.items())
                    }
                    for a in sorted(engine.as_graph, key=lambda x: x.asn)
                    if len(a.policy.local_rib)
                },
            }
        )
    (out / "requests.json").write_text(json.dumps(requests, indent=1) + "\n")
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(f"wrote {len(engine_test_configs)} graphs, {len(requests)} requests to {out}")

    if args.check:
        oracle = run_bgpy.Oracle()
        bad = 0
        for req, exp in zip(requests, expected, strict=True):
            got = oracle.run(req)
            ok = got == exp
            bad += not ok
            print(("OK  " if ok else "DIFF"), req["name"], req["policy"], req["adopters"])
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
