"""Benchmark: BGPsec with real signatures in the timed engine, on the 2025 Internet graph (78,643 ASes).

Runs the real command in a child process per case, as a user would:
    bgpsim run --topology ../shared/data/caida/20250901.as-rel2.txt.bz2 \
               --attack forged-origin-subprefix --attacker 17557 --victim 43515 \
               --policy bgpsec --adoption SHARE [--crypto]
for SHARE 0.1 and 1.0, each with the abstract policy (no signatures) and with --crypto, and prints
wall time, the child's peak memory (max RSS), the outcome, and the crypto object: signatures made,
verified and reused, the seconds spent on each, and verifications per second. For scale, the
library's own rates on one core are measured in the same run (ECDSA P-256 signing, RFC 6979, and
verifying a prehashed SHA-256 digest, as bgpsim does). Figures only; nothing is asserted.
Usage: python bench/bench_bgpsec.py [--shares 0.1,1.0] [--repeat N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"
ARGS = ["--topology", str(CAIDA), "--attack", "forged-origin-subprefix", "--attacker", "17557", "--victim", "43515",
        "--policy", "bgpsec"]


def run(share: float, crypto: bool, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "bgpsim", "run", *ARGS, "--adoption", str(share), "--out", str(out), "--json", "--quiet"]
    if crypto:
        cmd.append("--crypto")
    # the peak RSS of this child alone: run it under a fresh python that reports its child's rusage
    probe = ("import resource,subprocess,sys,time;t=time.perf_counter();"
             "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);w=time.perf_counter()-t;"
             "r=resource.getrusage(resource.RUSAGE_CHILDREN);"
             "sys.stderr.write(p.stderr);print(w,r.ru_maxrss,p.returncode);print(p.stdout)")
    p = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, env=env)
    head, _, body = p.stdout.partition("\n")
    wall, rss, code = head.split()
    if code != "0":
        raise SystemExit(f"bgpsim run failed ({code}): {p.stderr[-2000:]}")
    r = json.loads(body)
    return {"wall_s": float(wall), "peak_rss_mb": int(rss) / 1024, "messages": r["messages"],
            "attacker_share": r["outcome"]["attacker"], "crypto": r.get("crypto")}


def library_rates(n: int = 4000) -> tuple[float, float]:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

    key = ec.generate_private_key(ec.SECP256R1())
    msgs = [os.urandom(200) for _ in range(n)]
    t = time.perf_counter()
    sigs = [key.sign(m, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)) for m in msgs]
    sign_rate = n / (time.perf_counter() - t)
    pub, algo = key.public_key(), ec.ECDSA(Prehashed(hashes.SHA256()))
    t = time.perf_counter()
    for m, s in zip(msgs, sigs):
        pub.verify(s, hashlib.sha256(m).digest(), algo)
    return sign_rate, n / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shares", default="0.1,1.0", help="adoption shares to run (default 0.1,1.0)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    sign_rate, verify_rate = library_rates()
    print(f"library, one core: {sign_rate:,.0f} signatures/s, {verify_rate:,.0f} verifications/s")
    with tempfile.TemporaryDirectory(prefix="bgpsim-bench-bgpsec-") as tmp:
        for share in (float(x) for x in a.shares.split(",")):
            for rep in range(a.repeat):
                for crypto in (False, True):
                    r = run(share, crypto, Path(tmp) / f"out-{share}-{crypto}-{rep}")
                    line = (f"adoption {share:>4.0%} {'crypto  ' if crypto else 'abstract'}: wall {r['wall_s']:6.1f} s, "
                            f"peak {r['peak_rss_mb']:6.0f} MB, {r['messages']:,} messages, attacker share "
                            f"{r['attacker_share']:.4f}")
                    c = r["crypto"]
                    if c:
                        rate = c["verified"] / c["verify_seconds"] if c["verify_seconds"] else 0.0
                        line += (f"; {c['signatures']:,} signatures ({c['sign_seconds']:.1f} s), "
                                 f"{c['verified']:,} verified + {c['reused']:,} reused ({c['verify_seconds']:.1f} s, "
                                 f"{rate:,.0f} verified/s incl. lookups), {c['updates_signed']:,} UPDATEs signed, "
                                 f"{c['updates_verified']:,} checked")
                    print(line, flush=True)


if __name__ == "__main__":
    main()
