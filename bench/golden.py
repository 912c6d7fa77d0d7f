"""Golden outputs: every command that writes, run on fixed inputs, so two versions can be compared
byte for byte (`diff -r`). Not a benchmark: it prints what it ran and where the outputs went.

Runs `python -m bgpsim ...` from --root (default: this checkout), so an older checkout (a `git
worktree` of an earlier commit) gives the "before" set:

    python bench/golden.py /tmp/golden-after --inputs /tmp/golden-inputs
    python bench/golden.py /tmp/golden-before --inputs /tmp/golden-inputs --root /tmp/base
    diff -r /tmp/golden-before /tmp/golden-after

--inputs holds what is generated once and shared by both runs (synthetic VRPs made from the real
pfx2as tables; a CA repository built from rpki.synthetic's spec at a fixed time; a copy of the
bundled scenarios, so that result.json names the same files): the second run
reuses it, so both validate the very same files. The `seconds` column of a sweep's results.csv is
wall time and is dropped; each command's exit status goes to status.txt.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DATA = HERE.parent / "shared" / "data"
CAIDA = DATA / "caida" / "20250901.as-rel2.txt.bz2"
MRT = DATA / "mrt"
ROUTINATOR = DATA / "rpki" / "vrp_format_examples" / "routinator_test_output"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="where the outputs go (must not exist)")
    ap.add_argument("--inputs", type=Path, required=True, help="generated inputs, made here if absent")
    ap.add_argument("--root", type=Path, default=HERE, help="the checkout whose code runs")
    ap.add_argument("--skip-large", action="store_true", help="leave out the runs on the 78,643-AS graph")
    args = ap.parse_args()
    root, out, inputs = args.root.resolve(), args.out.resolve(), args.inputs.resolve()
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(root)}
    status = []

    def bgpsim(name: str, *argv, stdout: Path | None = None) -> None:
        print(f"{name}: bgpsim {' '.join(map(str, argv))}", flush=True)
        with open(stdout, "wb") if stdout else open(os.devnull, "wb") as f:
            p = subprocess.run([sys.executable, "-m", "bgpsim", *map(str, argv)], cwd=root, env=env,
                               stdout=f, stderr=subprocess.PIPE)
        status.append(f"{name}: {p.returncode} {p.stderr.decode(errors='replace').strip()}")

    inputs.mkdir(parents=True, exist_ok=True)
    vrps = inputs / "vrps.csv"  # and the same VRPs as vrps.json (rpki-client) and vrps-rt.json (Routinator)
    if not vrps.exists():  # written by this checkout's script, whichever checkout runs
        subprocess.run([sys.executable, str(HERE / "bench" / "bench_validate.py"), "--write-vrps", str(inputs)],
                       env={**os.environ, "PYTHONPATH": str(HERE)}, cwd=HERE, check=True)
    repo = inputs / "repo"
    if not repo.exists():
        spec = inputs / "spec.toml"
        code = ("import sys\ntry:\n    from bgpsim.rpki.synthetic import synthetic_spec\n"
                "except ImportError:  # a checkout from before bgpsim.rpki\n    from rpki.synthetic import synthetic_spec\n"
                "sys.stdout.write(synthetic_spec(2000, 12, aspas=12, router_keys=4, aspa_profile='draft-13'))")
        spec.write_text(subprocess.run([sys.executable, "-c", code], env=env, cwd=root, check=True,
                                       capture_output=True, text=True).stdout)
        subprocess.run([sys.executable, "-m", "bgpsim", "rpki", "ca", "build", str(spec), "--out", str(repo),
                        "--now", "2026-01-01T00:00:00"], env=env, cwd=root, check=True, stdout=subprocess.DEVNULL)

    scenarios = inputs / "scenarios"  # a copy, so that result.json names the same files in both runs
    if not scenarios.exists():
        shutil.copytree(root / "scenarios", scenarios, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for scn in sorted(scenarios.glob("*.toml")):
        bgpsim(f"run-{scn.stem}", "run", scn, "--out", out / f"run-{scn.stem}", "--quiet")
        bgpsim(f"steady-{scn.stem}", "run", scn, "--engine", "steady", "--out", out / f"steady-{scn.stem}", "--quiet")
    youtube = ["--topology", CAIDA, "--attack", "subprefix", "--attacker", "17557", "--victim", "43515"]
    if not args.skip_large:
        bgpsim("run-youtube", "run", *youtube, "--out", out / "run-youtube", "--quiet")
        bgpsim("steady-youtube", "run", *youtube, "--engine", "steady", "--out", out / "steady-youtube", "--quiet")
    bgpsim("sweep", "sweep", "--trials", "3", "--attack", "subprefix,leak,intercept", "--policy", "none,rov,aspa",
           "--adoption", "0,50%,100%", "--out", out / "sweep", "--quiet")
    bgpsim("routes", "routes", "--out", out / "routes", "--quiet", "--workers", "1")

    bgpsim("validate-et", "validate", MRT / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz", "--vrps", vrps,
           "--relationships", CAIDA, "--out", out / "validate-et", "--quiet")
    for name in ("vrps.json", "vrps-rt.json"):  # the same VRPs in each tool's JSON
        bgpsim(f"validate-et-{name}", "validate", MRT / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz",
               "--vrps", inputs / name, "--out", out / f"validate-et-{name}", "--quiet")
    mixed = [MRT / "pyasn_data" / "rib.20140523.0600_firstMB.bz2", MRT / "pyasn_data" / "rib6.20151101.0600_firstMB.bz2",
             *sorted((MRT / "libbgpstream_test").iterdir()), *sorted((DATA / "pcap").glob("*BGP*.pcap")),
             DATA / "pcap" / "eveng_bgp.pcapng"]
    bgpsim("validate-mixed", "validate", *mixed, "--vrps", vrps, "--aspa", ROUTINATOR / "111.json",
           "--out", out / "validate-mixed", "--quiet")
    text = MRT / "ripe_bgpdump_testdata" / "expected_bgpdump_output" / "updates.20160811.1600.gz.bgp.gz"
    bgpsim("validate-text", "validate", text, "--vrps", ROUTINATOR / "111.csv", "--out", out / "validate-text", "--quiet")

    # every shared dump, capture and bgpdump text, as bgpdump prints it (warnings in status.txt), and
    # the smaller ones as JSON too
    (out / "dump").mkdir()
    sources = [p for p in sorted(MRT.rglob("*")) if p.is_file() and p.suffix not in (".md", ".txt", ".py")]
    sources += sorted(p for p in (DATA / "pcap").iterdir() if p.suffix in (".pcap", ".pcapng", ".cap"))
    for f in sources:
        name = str(f.relative_to(DATA)).replace("/", "_")
        bgpsim(f"dump-{name}", "dump", f, stdout=out / "dump" / f"{name}.bgpdump")
        if f.stat().st_size < 2**20:
            bgpsim(f"dump-json-{name}", "dump", "--format", "json", f, stdout=out / "dump" / f"{name}.json")

    (out / "rpki").mkdir()
    tal = repo / "ta.tal"
    for fmt in ("json", "csv", "bird2", "openbgpd"):
        bgpsim(f"rpki-validate-{fmt}", "rpki", "validate", "--tal", tal, "--repo", repo, "--time", "2026-01-02T00:00:00",
               "--format", fmt, "--workers", "1", stdout=out / "rpki" / f"validate.{fmt}")
    for src in ("111.json", "111.jsonext", "111.csv", "111.csvext", "111.csvcompat", "011.json"):
        for fmt in ("json", "csv", "bird2", "openbgpd"):
            bgpsim(f"rpki-vrps-{src}-{fmt}", "rpki", "vrps", "--vrps", ROUTINATOR / src, "--format", fmt,
                   stdout=out / "rpki" / f"vrps.{src}.{fmt}")
    bgpsim("rpki-vrps-slurm", "rpki", "vrps", "--vrps", ROUTINATOR / "011.json",
           "--slurm", DATA / "rpki" / "slurm" / "fort_demo.slurm", stdout=out / "rpki" / "vrps.slurm.json")

    results = out / "sweep" / "results.csv"
    if results.exists():
        rows = list(csv.reader(results.open()))
        drop = rows[0].index("seconds")
        with results.open("w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([c for i, c in enumerate(r) if i != drop] for r in rows)
    (out / "status.txt").write_text("\n".join(status) + "\n")
    print(f"outputs in {out}; exit statuses in {out / 'status.txt'}")


if __name__ == "__main__":
    main()
