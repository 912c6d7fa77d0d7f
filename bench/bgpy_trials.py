"""Run inside BGPy's venv by bench_steady.py: time BGPy's graph build and each trial, and return its
outcomes, so the benchmark measures BGPy and checks agreement in the same run.
Usage: .venv-bgpy/bin/python bench/bgpy_trials.py REQUESTS.json OUT.json"""

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "oracles"))
import run_bgpy  # noqa: E402

reqs = json.loads(Path(sys.argv[1]).read_text())
t = time.perf_counter()
engine = run_bgpy.build_engine(run_bgpy.graph_info_from_file(reqs[0]["graph"]))
load = time.perf_counter() - t
out = []
for req in reqs:
    t = time.perf_counter()
    try:
        res = run_bgpy.run_trial(engine, {**req, "include_routes": False})
    except Exception as e:  # BGPy's own failure (its ROVPPV2ImprovedLite): reported, the rest run
        out.append({"seconds": time.perf_counter() - t, "error": f"{type(e).__name__}: {e}"})
        continue
    out.append({"seconds": time.perf_counter() - t, "outcomes": res["outcomes"]})
Path(sys.argv[2]).write_text(json.dumps({"load_s": load, "trials": out,
                                          "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
