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
oracle = run_bgpy.Oracle()
t = time.perf_counter()
oracle.engine_for(reqs[0])  # the graph, built once and timed apart
load = time.perf_counter() - t
out = []
for req in reqs:
    t = time.perf_counter()
    res = oracle.run({**req, "include_routes": False})  # BGPy's own failures come back as {"error": ...}
    out.append({"seconds": time.perf_counter() - t, **res})
Path(sys.argv[2]).write_text(json.dumps({"load_s": load, "trials": out,
                                          "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
