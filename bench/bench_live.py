"""Benchmark: route updates validated per second end to end through a real mosquitto on 127.0.0.1.

`bgpsim monitor` listens (a subprocess); `bgpsim stream publish --flat-out` sends a real dump
(updates.20160811.1600.gz, 16,795 UPDATEs) as one MQTT message per UPDATE, then again with --batch N
(N RIS Live objects per message). Printed per case: the publisher's rate, and the monitor's rate from
its first to its last message (summary.json's feed object), with whether its routes.csv equals
`bgpsim validate`'s on the same dump. The broker is started from tests/mqtt_broker.py (Debian
packages mosquitto and mosquitto-clients). Figures only; nothing is asserted.
Usage: python bench/bench_live.py [--batch 100] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the broker the tests run

from mqtt_broker import Broker  # noqa: E402

DUMP = ROOT.parent / "shared" / "data" / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.140.252.0/22,24,synthetic\n"


def bgpsim(*args) -> list[str]:
    return [sys.executable, "-m", "bgpsim", *map(str, args)]


def case(broker: Broker, work: Path, name: str, batch: int, vrps: Path, reference: Path) -> str:
    out = work / name
    mon = subprocess.Popen(bgpsim("monitor", "--broker", broker.url("plain"), "--vrps", vrps, "--out", out,
                                  "--topic", name, "--client-id", name, "--until-idle", 3, "--quiet"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)  # subscribed by then (the retained status says so; a fixed wait keeps this short)
    t = time.perf_counter()
    pub = subprocess.run(bgpsim("stream", "publish", DUMP, "--broker", broker.url("plain"), "--topic", name,
                                "--flat-out", "--batch", batch), capture_output=True, text=True, check=True)
    publish_s = time.perf_counter() - t
    mon.communicate(timeout=600)
    feed = json.loads((out / "summary.json").read_text())["feed"]
    same = (out / "routes.csv").read_bytes() == reference.read_bytes()
    rate = re_rate(pub.stderr)
    return (f"{name}: {feed['updates']:,} updates in {feed['messages']:,} messages; publisher {rate}; "
            f"monitor {feed['updates_per_second']:,} updates/s ({feed['seconds']:.2f} s first to last message, "
            f"{publish_s:.2f} s publishing); routes.csv equal to validate's: {same}")


def re_rate(text: str) -> str:
    import re

    m = re.search(r"\(([\d,]+ updates/s)\)", text)
    return m.group(1) if m else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bgpsim-bench-live-") as tmp:
        work = Path(tmp)
        vrps = work / "vrps.csv"
        vrps.write_text(VRPS)
        subprocess.run(bgpsim("validate", DUMP, "--vrps", vrps, "--out", work / "reference", "--quiet"), check=True)
        with Broker(work / "mosquitto", tls=False, password=False) as broker:
            for r in range(a.repeat):
                print(case(broker, work, f"single-{r}", 1, vrps, work / "reference" / "routes.csv"), flush=True)
                print(case(broker, work, f"batch{a.batch}-{r}", a.batch, vrps, work / "reference" / "routes.csv"),
                      flush=True)


if __name__ == "__main__":
    main()
