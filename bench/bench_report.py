"""Benchmark: the report of the YouTube incident on the 2025 Internet graph (78,643 ASes): its size,
and how long headless Chromium takes to open it and to move its slider.

Runs `bgpsim incident youtube-2008` (the graph from ../shared/data/caida), then opens report.html in
the Debian chromium through Playwright with every network request blocked, and prints: the file's
size; the time from navigation to the step view's first drawing (load); the time to move the slider
to ten moments in turn (per move). Figures only; nothing is asserted.
Usage: python bench/bench_report.py [--repeat N] [--incident NAME]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--incident", default="youtube-2008")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "BGPSIM_DATA": str(DATA)}
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bgpsim", "incident", args.incident, "--out", str(out), "--quiet"],
                       env=env, check=True)
        print(f"bgpsim incident {args.incident}: {time.perf_counter() - t:.1f} s wall")
        report = out / "report.html"
        print(f"report.html: {report.stat().st_size / 1e6:.2f} MB")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/lib/chromium/chromium")
            for k in range(args.repeat):
                ctx = browser.new_context(viewport={"width": 1100, "height": 1400})
                asked = []
                ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                          else (asked.append(r.request.url), r.abort()))
                page = ctx.new_page()
                t = time.perf_counter()
                page.goto(report.as_uri())
                page.wait_for_function("document.getElementById('clock').textContent.length > 0")
                load = time.perf_counter() - t
                top = int(page.get_attribute("#slider", "max"))
                t = time.perf_counter()
                for m in range(1, 11):
                    page.fill("#slider", str(top * m // 10))
                move = (time.perf_counter() - t) / 10
                print(f"  run {k + 1}: load {load:.2f} s, slider move {move * 1000:.0f} ms, requests to servers: {len(asked)}")
                ctx.close()
            browser.close()


if __name__ == "__main__":
    main()
