"""The ROV++ paper's figures 6 to 9 (Morillo et al., NDSS 2021) with the settings of BGPy's
scripts/rovpp_partial_reproduction.py (docs/research/rovpp-reproduction.md), from `bgpsim sweep`,
beside BGPy 13.0 (its own venv, .venv-bgpy or $BGPY_PYTHON) drawing its own trials.

Both: ROV, ROV++ v1 and v2 (BGPy's Lite classes); sub-prefix hijacks (figures 6 to 8) and non-routed
prefix hijacks (`squat`, figure 9); adoption 10, 20, 50, 80 and 99 % of each subcategory, rounded up
(`--adopt subcategories`), the victim adopting; the data-plane outcome of every AS (figure 6) and of
the edge ASes that adopt (7) and that do not (8, 9). The script's first point, one AS of each
subcategory, is BGPy's ONLY_ONE; `bgpsim sweep` takes shares, so ours is 0 % there (the victim alone
adopts: three ASes fewer among 78,643).
Ours: --trials per point (default 50, the script's), on --workers processes. BGPy: --bgpy-trials per
point (default 5), on two processes; each of its trials draws attacker, victim and adopters from a
seed shared by the three policies, as ours do. With --no-bgpy, BGPy's points are those the last full
run left in docs/rovpp-reproduction.json.
Writes docs/figures/rovpp-fig6.png to -fig9.png and docs/rovpp-reproduction.json (every point:
mean and 90 % interval, ours and BGPy's); prints the table and the wall times.
Usage: python bench/rovpp_reproduction.py [--trials N] [--bgpy-trials K] [--workers W] [--no-bgpy] [--redraw]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"
POLICIES = ("rov", "rovpp-v1", "rovpp-v2")
LEVELS = (0, 10, 20, 50, 80, 99)  # percent; 0 stands for the script's ONLY_ONE (see above)
BGPY_LEVELS = ("one", 0.1, 0.2, 0.5, 0.8, 0.99)
Z90 = 1.6448536269514722
# figure -> (attack, our results.csv column, BGPy's group, what the paper plots)
FIGURES = {
    6: ("subprefix", "attacker_frac", "all", "sub-prefix hijack: every AS"),
    7: ("subprefix", "adopting_edge_attacker", "adopting_edge", "sub-prefix hijack: edge ASes that adopt"),
    8: ("subprefix", "other_edge_attacker", "other_edge", "sub-prefix hijack: edge ASes that do not adopt"),
    9: ("squat", "other_edge_attacker", "other_edge", "non-routed prefix hijack: edge ASes that do not adopt"),
}


def interval(xs: list[float]) -> dict:
    n = len(xs)
    mean = sum(xs) / n
    half = Z90 * math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) / math.sqrt(n) if n > 1 else 0.0
    return {"mean": round(mean, 6), "ci90": [round(mean - half, 6), round(mean + half, 6)], "trials": n}


def ours(trials: int, workers: int) -> tuple[dict, float]:
    from bgpsim.graph.topology import read_caida
    from bgpsim.sim.sweep import Sweep, run_sweep

    t = time.perf_counter()
    topo = read_caida(CAIDA)
    sw = Sweep(str(CAIDA), ("subprefix", "squat"), POLICIES, LEVELS, trials, adopt="subcategories")
    with tempfile.TemporaryDirectory() as tmp:
        summary = run_sweep(topo, sw, Path(tmp) / "sweep", workers=workers)
    wall = time.perf_counter() - t
    points = {}
    for cell in summary["cells"]:
        for fig, (attack, column, _, _) in FIGURES.items():
            if cell["attack"] == attack and cell[column] is not None:
                points[(fig, cell["policy"], cell["adoption"])] = {**cell[column], "trials": cell["trials"]}
    return points, wall


def bgpy(trials: int) -> tuple[dict, float, float]:
    py = os.environ.get("BGPY_PYTHON") or str(ROOT / ".venv-bgpy" / "bin" / "python")
    reqs = [{"graph": str(CAIDA), "attack": attack, "policy": policy, "percent": level, "seed": 1000 * t + k,
             "draw": True, "key": [attack, policy, LEVELS[k], t]}
            for attack in ("subprefix", "squat") for policy in POLICIES for k, level in enumerate(BGPY_LEVELS)
            for t in range(trials)]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for half in (0, 1):
            (Path(tmp) / f"r{half}.json").write_text(json.dumps(reqs[half::2]))
            procs.append(subprocess.Popen([py, str(ROOT / "tests" / "oracles" / "run_bgpy.py"), str(Path(tmp) / f"r{half}.json"),
                                           "-o", str(Path(tmp) / f"o{half}.json")]))
        for p in procs:
            p.wait()
        answers = [None] * len(reqs)
        for half in (0, 1):
            answers[half::2] = json.loads((Path(tmp) / f"o{half}.json").read_text())
    wall = time.perf_counter() - t0
    got: dict = {}
    for req, ans in zip(reqs, answers):
        if "error" in ans:
            raise SystemExit(f"BGPy failed: {ans['error']}")
        attack, policy, level, _ = req["key"]
        for fig, (fattack, _, group, _) in FIGURES.items():
            if fattack == attack and ans[group] is not None:
                got.setdefault((fig, policy, level), []).append(ans[group]["attacker"])
    per_trial = sorted(a["seconds"] for a in answers)[len(answers) // 2]
    return {k: interval(v) for k, v in got.items()}, wall, per_trial


def draw(points: dict, theirs: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = ROOT / "docs" / "figures"
    out.mkdir(parents=True, exist_ok=True)
    colours = {"rov": "#1f77b4", "rovpp-v1": "#ff7f0e", "rovpp-v2": "#2ca02c"}
    # coinciding curves must all show: each policy its own line, marker and size
    styles = {"rov": ("-", "o", 5), "rovpp-v1": ("--", "^", 9), "rovpp-v2": (":", "s", 4)}
    for fig, (_, _, _, title) in FIGURES.items():
        f, ax = plt.subplots(figsize=(6.4, 4.2))
        for policy in POLICIES:
            xs = [x for x in LEVELS if (fig, policy, x) in points]
            m = [100 * points[(fig, policy, x)]["mean"] for x in xs]
            lo = [100 * points[(fig, policy, x)]["ci90"][0] for x in xs]
            hi = [100 * points[(fig, policy, x)]["ci90"][1] for x in xs]
            line, marker, size = styles[policy]
            ax.plot(xs, m, linestyle=line, marker=marker, markersize=size, color=colours[policy], label=f"{policy} (bgpsim)")
            ax.fill_between(xs, lo, hi, color=colours[policy], alpha=0.15)
            bx = [x for x in LEVELS if (fig, policy, x) in theirs]
            if bx:
                bm = [100 * theirs[(fig, policy, x)]["mean"] for x in bx]
                err = [[bm[j] - 100 * theirs[(fig, policy, x)]["ci90"][0] for j, x in enumerate(bx)],
                       [100 * theirs[(fig, policy, x)]["ci90"][1] - bm[j] for j, x in enumerate(bx)]]
                ax.errorbar([x + 1.2 for x in bx], bm, yerr=err, fmt="x", color=colours[policy], alpha=0.8, capsize=3,
                            label=f"{policy} (BGPy 13.0, shifted right)")
        ax.set_xlabel("adoption (% of each subcategory; 0: the script's one AS of each)")
        ax.set_ylabel("hijacked (% of the group)")
        ax.set_title(f"ROV++ figure {fig}: {title}", fontsize=10)
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        f.tight_layout()
        f.savefig(out / f"rovpp-fig{fig}.png", dpi=120)
        plt.close(f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--bgpy-trials", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-bgpy", action="store_true")
    ap.add_argument("--redraw", action="store_true", help="draw the figures again from docs/rovpp-reproduction.json")
    args = ap.parse_args()
    if args.redraw:
        doc = json.loads((ROOT / "docs" / "rovpp-reproduction.json").read_text())
        key = lambda p: (p["figure"], p["policy"], p["adoption"])  # noqa: E731
        draw({key(p): p["bgpsim"] for p in doc["points"]}, {key(p): p["bgpy"] for p in doc["points"] if p["bgpy"]})
        return

    points, wall = ours(args.trials, args.workers)
    print(f"bgpsim sweep: {len(POLICIES) * len(LEVELS) * 2 * args.trials:,} trials in {wall:.1f} s on {args.workers} "
          f"processes (graph load included)")
    saved = ROOT / "docs" / "rovpp-reproduction.json"
    if args.no_bgpy:  # BGPy's points as the last full run left them
        old = json.loads(saved.read_text()) if saved.exists() else {"points": [], "bgpy": None}
        theirs = {(p["figure"], p["policy"], p["adoption"]): p["bgpy"] for p in old["points"] if p["bgpy"]}
        bwall, per_trial, bgpy_run = 0.0, 0.0, old["bgpy"]
        print("BGPy: not run; its points are the last run's" if theirs else "BGPy: not run")
    else:
        theirs, bwall, per_trial = bgpy(args.bgpy_trials)
        bgpy_run = {"trials": args.bgpy_trials, "seconds": round(bwall, 1)}
    if theirs and not args.no_bgpy:
        print(f"BGPy 13.0: {len(POLICIES) * len(LEVELS) * 2 * args.bgpy_trials:,} trials in {bwall:.0f} s on 2 "
              f"processes (median {per_trial:.1f} s a trial, graph builds aside)")
    print(f"{'figure':<7}{'policy':<10}{'adoption':>9}{'bgpsim %':>10}{'90 % interval':>18}{'BGPy %':>9}{'90 % interval':>18}")
    def span(x: dict) -> str:  # shares: the normal approximation's interval shown within 0 to 100 %
        lo, hi = (min(100.0, max(0.0, 100 * v)) for v in x["ci90"])
        return f"{lo:.1f}-{hi:.1f}"

    for (fig, policy, level), p in sorted(points.items()):
        th = theirs.get((fig, policy, level))
        line = f"{fig:<7}{policy:<10}{level:>8}%{100 * p['mean']:>10.1f}{span(p):>18}"
        if th:
            line += f"{100 * th['mean']:>9.1f}{span(th):>18}"
        print(line)
    doc = {"ours": {"trials": args.trials, "seconds": round(wall, 1)},
           "bgpy": bgpy_run if theirs else None,
           "points": [{"figure": fig, "policy": policy, "adoption": level, "bgpsim": p,
                       "bgpy": theirs.get((fig, policy, level))} for (fig, policy, level), p in sorted(points.items())]}
    saved.write_text(json.dumps(doc, indent=1) + "\n")
    draw(points, theirs)


if __name__ == "__main__":
    main()
