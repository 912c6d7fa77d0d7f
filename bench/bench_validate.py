"""Benchmark: `bgpsim validate` on real MRT dumps beside `bgpdump -m` printing the same files.

The dumps: ../shared/data/mrt/ripe_bgpdump_testdata/updates.et-header.2015.gz (577,744 routes, a full
table from one RIS peer, BGP4MP_ET) and ../shared/data/mrt/pyasn_data/rib.20140523.0600_firstMB.bz2 (a
RouteViews TABLE_DUMP_V2 RIB, 270,005 routes). The VRPs: synthetic but realistic, made from the real
pfx2as tables (rpki.synthetic.pfx2as_vrps: 902,604 VRPs), written three ways: Routinator/rpki-client
CSV, rpki-client JSON (with `expires`) and Routinator JSON. Every command runs as a subprocess in the
same run; printed: wall time, CPU time and peak RSS of each, and the ratio of each `bgpsim validate`
to `bgpdump -m` on the same dump; then the peak RSS of validating the update dump once and twice
over (twice the routes, the same prefixes: memory should not grow with the length of the dump).
Beside them, the floor of any run of the command as it is built: a Python process that imports
what `bgpsim validate` imports and decompresses the dump as it does (bzip2 by several threads),
nothing else; and the two parts every run needs before its last check, each alone: the dump read
into batches (start-up, imports, decompression, the core's reading) and the VRPs read and indexed.
With the command's CPU time they show how far two CPUs can take it (docs/validate.md, "Less CPU").
Every run writes its output directory anew (the previous one is removed beforehand, untimed:
replacing an old output would add deleting its 90 MB to the run). Figures only; nothing is asserted.

Usage: python bench/bench_validate.py [--dump FILE ...] [--repeat K]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

from bgpsim.rpki.synthetic import pfx2as_vrps  # noqa: E402
from measure import compiled, timed  # noqa: E402


IMPORTS = "import sys; import bgpsim.cli, bgpsim.validate.check as check, bgpsim.validate.load; "  # `validate`'s
# the floor: start-up, the imports of `bgpsim validate`, the dump decompressed (bgpsim.mrt.stream)
FLOOR = IMPORTS + "from bgpsim.mrt.stream import Chunks; [None for _ in Chunks(sys.argv[1])]"
# the dump read into batches (what the command's reading thread does), nothing checked
READ = IMPORTS + ("from bgpsim.mrt.reader import MRTReader; "
                  "[None for _ in MRTReader(sys.argv[1], lambda w: None).batches(check.BATCH)]")
# the VRPs read and indexed (what the command's VRP thread does), nothing else
VRPS = ("import sys; import bgpsim.cli; from bgpsim import _core; _core.hold_freed_memory(); "
        "from bgpsim.validate.load import load_vrps; load_vrps(sys.argv[1])")


def write_vrps(work: Path) -> dict[str, Path]:
    """The synthetic VRPs as CSV, rpki-client JSON and Routinator JSON."""
    vrps = pfx2as_vrps([DATA / "pfx2as" / "ipasn_20140513.dat.gz", DATA / "pfx2as" / "ipasn6_20151101.dat.gz"])
    files = {"CSV": work / "vrps.csv", "rpki-client JSON": work / "vrps.json", "Routinator JSON": work / "vrps-rt.json"}
    with open(files["CSV"], "w") as f:
        f.write("ASN,IP Prefix,Max Length,Trust Anchor\n")
        f.writelines(f"AS{v.asn},{v.prefix},{v.max_length},synthetic\n" for v in vrps)
    with open(files["rpki-client JSON"], "w") as f:  # as rpki-client 8.2 writes it (output-json.c)
        f.write('{\n\t"metadata": {\n\t\t"buildmachine": "bench",\n\t\t"buildtime": "2025-09-01T00:00:00Z"\n\t},'
                '\n\t"roas": [\n')
        f.write(",\n".join(f'\t\t{{ "asn": {v.asn}, "prefix": "{v.prefix}", "maxLength": {v.max_length}, '
                           f'"ta": "synthetic", "expires": 1757000000 }}' for v in vrps))
        f.write('\n\t],\n\t"bgpsec_keys": [\n\t],\n\t"aspas": [\n\t]\n}\n')
    with open(files["Routinator JSON"], "w") as f:  # as Routinator writes `--format json`
        f.write('{\n  "metadata": {\n    "generated": 1756684800,\n    "generatedTime": "2025-09-01T00:00:00Z"\n  },'
                '\n  "roas": [\n')
        f.write(",\n".join(f'    {{ "asn": "AS{v.asn}", "prefix": "{v.prefix}", "maxLength": {v.max_length}, '
                           f'"ta": "synthetic" }}' for v in vrps))
        f.write("\n  ]\n}\n")
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", type=Path, action="append",
                    help="MRT dump (repeatable; default: the 2015 update dump and the 2014 RIB)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--write-vrps", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write_vrps:
        write_vrps(args.write_vrps)
        return
    dumps = args.dump or [DATA / "mrt" / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz",
                          DATA / "mrt" / "pyasn_data" / "rib.20140523.0600_firstMB.bz2"]
    compiled()  # as an installed package has it
    work = Path(tempfile.mkdtemp(prefix="bgpsim-bench-validate-"))
    try:
        # made in a child: a forked child's peak RSS counts its parent's memory before exec
        subprocess.run([sys.executable, __file__, "--write-vrps", str(work)], check=True)
        files = {"CSV": work / "vrps.csv", "rpki-client JSON": work / "vrps.json", "Routinator JSON": work / "vrps-rt.json"}
        count = sum(1 for _ in open(files["CSV"])) - 1
        print(f"VRPs: {count:,} (synthetic, from the pfx2as tables): "
              + ", ".join(f"{k} {v.stat().st_size / 2**20:.0f} MiB" for k, v in files.items()))
        for kind, vrps in files.items():
            w, c, _ = timed([sys.executable, "-c", VRPS, str(vrps)])
            print(f"  {kind} VRPs read and indexed alone: {w:.2f} s wall, {c:.2f} s CPU")
        for dump in dumps:
            print(f"\n{dump.name}")
            for _ in range(args.repeat):
                w = None
                if shutil.which("bgpdump"):
                    w, c, m = timed(["bgpdump", "-m", str(dump)])
                    print(f"  bgpdump -m:                        {w:6.2f} s wall, {c:6.2f} s CPU, {m:6.0f} MB peak RSS")
                else:
                    print("  bgpdump: not installed (Debian package bgpdump)")
                fw, fc, _ = timed([sys.executable, "-c", FLOOR, str(dump)])
                ratio = f", {fw / w:.2f}x bgpdump's wall time" if w else ""
                print(f"  floor (start, imports, decompress):{fw:6.2f} s wall, {fc:6.2f} s CPU{ratio}")
                rw, rc, _ = timed([sys.executable, "-c", READ, str(dump)])
                ratio = f", {rw / w:.2f}x bgpdump's wall time" if w else ""
                print(f"  the dump read, nothing checked:    {rw:6.2f} s wall, {rc:6.2f} s CPU{ratio}")
                for kind, vrps in files.items():
                    shutil.rmtree(work / "out", ignore_errors=True)  # each run writes a new directory
                    ow, oc, om = timed([sys.executable, "-m", "bgpsim.cli", "validate", str(dump), "--vrps", str(vrps),
                                        "--out", str(work / "out"), "--quiet"])
                    ratio = f", {ow / w:.2f}x bgpdump's wall time" if w else ""
                    print(f"  bgpsim validate, {kind + ' VRPs:':22s}{ow:6.2f} s wall, {oc:6.2f} s CPU, {om:6.0f} MB "
                          f"peak RSS{ratio}")
        twice = [sys.executable, "-m", "bgpsim.cli", "validate", str(dumps[0]), str(dumps[0]), "--vrps",
                 str(files["CSV"]), "--out", str(work / "out"), "--quiet"]
        shutil.rmtree(work / "out", ignore_errors=True)
        tw, _, tm = timed(twice)
        print(f"\n{dumps[0].name} twice over (twice the routes): {tw:6.2f} s wall, {tm:6.0f} MB peak RSS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
