"""Which model is right: every bundled scenario (or incident) in the lab, each router in three roles
(the victim's provider, the attacker's neighbour, a transit AS that is neither), with and without ROV.

    python bench/lab_survey.py [--routers bird,frr,gobgp] [--scenarios NAME,...] [--incidents] [--jobs 2]

Each run is `bgpsim lab SCENARIO --router R --as ASN --format json`, once as the scenario deploys its
defence at that AS and once with ROV turned the other way (`--policy rov` where it has none, `--policy
none` where it has ROV, maxlen or max-prefix). A scenario's clock runs at a pace that plays it in
about ten seconds (at least 40 times real time). One line per run, then the counts: runs whose router
settled on the model's route for every prefix (and closed the sessions the model closes), and of
those, runs that made the model's changes on the way too. An AS deploying a defence no router plays
(BGPsec) is counted as refused.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BGPSIM_DATA", str(ROOT.parent / "shared" / "data" / "caida"))  # the incidents' graph

from bgpsim.sim.plan import resolve  # noqa: E402
from bgpsim.sim.scenario import bundled_scenarios, load_scenario  # noqa: E402


def roles(path: Path) -> tuple[dict[str, int], object]:
    """role -> ASN: the victim's provider, the attacker's neighbour, a transit AS that is neither."""
    scn = load_scenario(path)
    plan = resolve(scn)
    topo, asn = plan.topo, lambda i: int(plan.topo.asns[i])
    out = {}
    providers = sorted(topo.providers[plan.v], key=asn)
    if providers:
        out["victim's provider"] = asn(providers[0])
    if plan.a is not None:
        near = sorted(topo.providers[plan.a] + topo.peers[plan.a], key=asn)
        near = [i for i in near if asn(i) not in out.values()] or near
        if near:
            out["attacker's neighbour"] = asn(near[0])
    taken = set(out.values()) | {scn.victim, plan.attacker}
    above = [j for i in providers for j in topo.providers[i] + topo.peers[i]]
    transit = sorted((i for i in above if asn(i) not in taken and topo.customers[i]), key=asn)
    if transit:
        out["transit"] = asn(transit[0])
    return out, plan


def horizon(plan) -> float:
    scn = plan.scn
    times = [0.0]
    if scn.attack is not None:
        times += [scn.attack.start or 0.0, scn.attack.stop or 0.0]
    times += [e.at for e in scn.events]
    return max(times)


def policies(plan, asn: int) -> list[str | None]:
    """The scenario's own deployment at `asn` (None), and ROV turned the other way."""
    x = plan.topo.index[asn]
    deployed = plan.scn.defence.policy if plan.scn.defence and x in plan.adopters else None
    if deployed is None:
        other = "rov" if plan.scn.defence is None or plan.scn.defence.policy == "rov" else None
        return [None] + ([other] if other and x != plan.a else [])
    return [None, "none"]


def run(path: Path, router: str, asn: int, policy, pace: float) -> dict:
    argv = [sys.executable, "-m", "bgpsim", "lab", str(path), "--router", router, "--as", str(asn), "--pace",
            f"{pace:g}", "--format", "json", "--quiet"] + (["--policy", policy] if policy else [])
    t = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    took = time.monotonic() - t
    if p.returncode == 2:
        return {"refused": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit 2", "seconds": took}
    doc = json.loads(p.stdout)
    rows = doc["prefixes"]
    return {"policy": doc["policy"], "settled": sum(r["settled_same"] for r in rows), "prefixes": len(rows),
            "changes": all(r["same_changes"] for r in rows), "sessions": doc["sessions_closed"]["same"],
            "differ": [r["prefix"] for r in rows if not r["settled_same"]], "seconds": took}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--routers", default="bird,frr,gobgp")
    ap.add_argument("--scenarios", help="names (default: every bundled scenario)")
    ap.add_argument("--incidents", action="store_true", help="the incidents instead of the teaching scenarios")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if a.incidents:
        found = {p.stem: p for p in sorted((ROOT / "bgpsim" / "scenarios" / "incidents").glob("*.toml"))}
    else:
        found = bundled_scenarios()
    names = a.scenarios.split(",") if a.scenarios else sorted(found)
    work = []
    for name in names:
        who, plan = roles(Path(found[name]))
        pace = max(40.0, horizon(plan) / 10)
        for role, asn in who.items():
            for policy in policies(plan, asn):
                for router in a.routers.split(","):
                    work.append((name, role, asn, router, policy, pace))
    counts = {"runs": 0, "settled": 0, "changes": 0, "refused": 0}

    def one(w):
        name, role, asn, router, policy, pace = w
        return w, run(Path(found[name]), router, asn, policy, pace)

    with ThreadPoolExecutor(a.jobs) as pool:
        for (name, role, asn, router, policy, pace), r in pool.map(one, work):
            head = f"{name:<28} {role:<21} AS{asn:<7} {router:<6} {policy or '(scenario)':<11}"
            if "refused" in r:
                counts["refused"] += 1
                print(f"{head} refused: {r['refused']}", flush=True)
                continue
            same = r["settled"] == r["prefixes"] and r["sessions"]
            counts["runs"] += 1
            counts["settled"] += same
            counts["changes"] += same and r["changes"]
            print(f"{head} deploys {r['policy']:<10} {r['settled']}/{r['prefixes']} settled same, "
                  f"{'same' if r['changes'] else 'other'} changes{'' if r['sessions'] else ', sessions DIFFER'}"
                  f"{'' if same else ' DIFFERENT: ' + ', '.join(r['differ'])}  ({r['seconds']:.0f} s, x{pace:g})",
                  flush=True)
    print(f"{counts['runs']} runs: {counts['settled']} settled on the model's routes (and sessions), "
          f"{counts['changes']} of them with the model's changes too; {counts['refused']} refused")


if __name__ == "__main__":
    main()
