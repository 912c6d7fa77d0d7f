"""Benchmark: do the figures of the twelve bundled incidents read, replayed in full on the 2025 Internet
graph (78,643 ASes)?

Loads the graph once (../shared/data/caida/20250901.as-rel2.txt.bz2, or --topology), replays each
incident on the timed engine as `bgpsim incident` does, draws the figures `bgpsim incident` writes
(timeline.png; traffic.png under the incidents' cone weighting; no topology picture at this size), and
runs the check tests/test_figures_read.py runs on the teaching graph: bgpsim.viz.canvas.crowding (a
label over another label or over the data, an empty panel) and bgpsim.viz.timeaxis.idle_zooms (a zoom
panel that does not show its burst). Prints, per figure, what it found ("reads" when nothing), and the
seconds the replay and the drawing took. Figures only; nothing is asserted.
Usage: python bench/bench_figures.py [--topology FILE] [--only NAME,...] [--out DIR (writes the PNGs)]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", default=str(GRAPH))
    ap.add_argument("--only", help="incident names, comma-separated (default: all)")
    ap.add_argument("--out", help="write each figure as NAME.KIND.png here")
    args = ap.parse_args()

    from bgpsim.graph.topology import load_topology
    from bgpsim.sim import incident as inc
    from bgpsim.sim.plan import resolve
    from bgpsim.sim.run import simulate
    from bgpsim.viz.canvas import crowding, save
    from bgpsim.viz.timeaxis import idle_zooms
    from bgpsim.viz.timeline import timeline_plot, traffic_plot

    t = time.perf_counter()
    topo = load_topology(args.topology)
    print(f"graph: {topo.name}, {topo.n:,} ASes, loaded in {time.perf_counter() - t:.1f} s")
    names = args.only.split(",") if args.only else inc.names()
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    total = bad = 0
    for name in names:
        scn = inc.load_incident(inc.find(name), topology=args.topology).scenario
        t = time.perf_counter()
        run = simulate(resolve(scn, topo))
        replay = time.perf_counter() - t
        print(f"{name}: replayed in {replay:.1f} s ({len(run.timeline):,} timeline rows, {len(run.marks)} marks, "
              f"settled at t = {run.converged_at:.1f} s)")
        figures = {"timeline": lambda: timeline_plot(run.timeline, run.marks, title=f"{name}: where traffic goes",
                                                     end=run.converged_at)}
        if run.traffic.weighting != "uniform":
            figures["traffic"] = lambda: traffic_plot(run.timeline, run.marks, run.traffic.weighting,
                                                      end=run.converged_at)
        for kind, plot in figures.items():
            t = time.perf_counter()
            fig = plot()
            found = crowding(fig) + idle_zooms(fig)
            took = time.perf_counter() - t
            total += 1
            bad += bool(found)
            print(f"  {kind}.png ({len(fig.axes) - 1} zoom panels; drawn and checked in {took:.1f} s): "
                  + ("reads" if not found else f"{len(found)} problems"))
            for f in found:
                print(f"    {f}")
            if out:
                save(fig, out / f"{name}.{kind}.png")
    print(f"{total - bad} of {total} figures read")


if __name__ == "__main__":
    main()
