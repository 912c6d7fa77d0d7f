"""The reference relying parties, run offline on a repository our CA wrote (../shared/docs/ORACLES.md):
rpki-client 8.2 (`-n`) and FORT 1.5.4 (standalone). Each returns what it accepted and what it logged.

Both run in a fresh directory under the system temporary directory, not pytest's tmp_path: that is
mode 0700, and rpki-client started as root drops privileges to _rpki-client, which must read it."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bgpsim.rpki.rov import VRP
from bgpsim.rpki.tal import Tal

RPKI_CLIENT = shutil.which("rpki-client") or ("/usr/sbin/rpki-client" if os.path.exists("/usr/sbin/rpki-client")
                                              else None)
FORT = shutil.which("fort")
NO_RPKI_CLIENT = "rpki-client is not installed (Debian package rpki-client)"
NO_FORT = "FORT is not installed (Debian package fort-validator)"


@dataclass
class Verdict:
    """What a reference relying party accepted, and its log."""

    vrps: set[VRP]
    router_keys: list[int] = field(default_factory=list)  # ASNs, sorted (rpki-client only: FORT skips them)
    aspas: dict[int, list[int]] = field(default_factory=dict)  # customer -> providers (rpki-client only)
    log: str = ""
    csv: str = ""
    seconds: float = 0.0  # the validator's own run, without preparing its cache
    json: dict = field(default_factory=dict)  # rpki-client's JSON output as it wrote it


def _asn(v) -> int:
    return int(str(v).removeprefix("AS"))


def _vrps(rows) -> set[VRP]:
    return {VRP(ipaddress.ip_network(r["prefix"]), r["maxLength"], _asn(r["asn"])) for r in rows}


def _local(out: Path, uri: str) -> Path:
    return out / uri[len("rsync://"):]


def rpki_client(out: Path, tal: Path, timeout: float = 600) -> Verdict:
    """rpki-client -n on the tree under `out`: the TA certificate goes to CACHE/ta/<TAL stem>/."""
    uri = Tal.load(tal).uris[0]
    with tempfile.TemporaryDirectory(prefix="bgpsim-rpki-client-") as w:
        work = Path(w)
        cache, outdir = work / "cache", work / "outdir"
        shutil.copytree(out, cache, ignore=shutil.ignore_patterns(".keys", "*.tal"))
        ta_dir = cache / "ta" / tal.stem
        ta_dir.mkdir(parents=True)
        shutil.copy(_local(out, uri), ta_dir / uri.rsplit("/", 1)[1])
        outdir.mkdir()
        tal = Path(shutil.copy(tal, work / tal.name))
        if os.geteuid() == 0:  # it drops privileges to _rpki-client, which must write OUTDIR
            for p in (work, tal, cache, outdir, *cache.rglob("*")):
                shutil.chown(p, "_rpki-client")
        t = time.perf_counter()
        proc = subprocess.run([RPKI_CLIENT, "-n", "-d", str(cache), "-t", str(tal), "-j", "-c", "-o", str(outdir)],
                              capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - t
        if proc.returncode != 0:
            raise AssertionError(f"rpki-client exited {proc.returncode}: {proc.stderr[-2000:]}")
        data = json.loads((outdir / "json").read_text())
        csv = (outdir / "csv").read_text()
    # 8.2 writes ASPAs per AFI under provider_authorizations; a provider without afiLimit is in both
    aspas: dict[int, list[int]] = {}
    for rows in data.get("provider_authorizations", {}).values():
        for a in rows:
            aspas.setdefault(_asn(a["customer_asid"]), []).extend(_asn(p) for p in a["providers"])
    aspas = {c: sorted(set(p)) for c, p in aspas.items()}
    return Verdict(_vrps(data["roas"]), sorted(_asn(k["asn"]) for k in data.get("bgpsec_keys", [])), aspas,
                   proc.stderr, csv, seconds, data)


def fort(out: Path, tal: Path, timeout: float = 600) -> Verdict:
    """FORT standalone on the tree under `out` (its layout is ours: <host>/<path>)."""
    with tempfile.TemporaryDirectory(prefix="bgpsim-fort-") as w:
        roas = Path(w) / "roas.json"
        t = time.perf_counter()
        proc = subprocess.run([
            FORT, "--mode=standalone", f"--tal={tal}", f"--local-repository={out}", "--rsync.enabled=false",
            "--http.enabled=false", f"--output.roa={roas}", "--output.format=json",
            "--validation-log.enabled=true", "--validation-log.output=console", "--validation-log.level=warning",
            "--log.level=error"], capture_output=True, text=True, timeout=timeout)
        seconds = time.perf_counter() - t
        if proc.returncode != 0 or not roas.exists():
            raise AssertionError(f"fort exited {proc.returncode}: {proc.stderr[-2000:]}")
        data = json.loads(roas.read_text())
    return Verdict(_vrps(data["roas"]), log=proc.stderr + proc.stdout, seconds=seconds)
