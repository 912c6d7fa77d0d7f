"""Where alerts go, each to a real receiver started here on 127.0.0.1: rsyslog (Debian package rsyslog)
over UDP and TCP, parsing our RFC 5424 messages; an HTTP server taking the webhook's POSTs (and
refusing some, which are tried again); a file per group, resumed by a monitor started again on its
output. The alerts come from a dump replayed with a watch list (tests/test_ris_live.py's)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import SHARED

ROOT = Path(__file__).resolve().parent.parent
UPDATES = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
RSYSLOGD = shutil.which("rsyslogd") or ("/usr/sbin/rsyslogd" if Path("/usr/sbin/rsyslogd").exists() else None)
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64500,192.140.252.0/22,24,synthetic\n"


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def inputs(tmp_path):
    if not UPDATES.exists():
        pytest.skip(f"shared data not found: {UPDATES}")
    from test_ris_live import watch_file

    (tmp_path / "vrps.csv").write_text(VRPS)
    text = watch_file(tmp_path / "watch.toml").read_text()
    # two groups: the first three watched prefixes to "noc", the rest to the default group
    parts = text.split("[[prefix]]\n")
    text = "[[prefix]]\n".join(p + ('group = "noc"\n' if 0 < i <= 3 else "") for i, p in enumerate(parts))
    (tmp_path / "watch.toml").write_text(text)
    return tmp_path


def monitor(inputs: Path, out: Path, *more) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgpsim", "monitor", "--replay", UPDATES, "--vrps", inputs / "vrps.csv",
                           "--watch", inputs / "watch.toml", "--out", out, "--quiet", *map(str, more)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture
def rsyslog(tmp_path):
    if RSYSLOGD is None:
        pytest.skip("needs rsyslogd (Debian package rsyslog)")
    udp, tcp = free_port(socket.SOCK_DGRAM), free_port()
    d = tmp_path / "rsyslog"
    d.mkdir()
    (d / "rsyslog.conf").write_text(
        f'global(workDirectory="{d}")\nmodule(load="imudp")\nmodule(load="imtcp")\n'
        f'input(type="imudp" address="127.0.0.1" port="{udp}")\ninput(type="imtcp" address="127.0.0.1" port="{tcp}")\n'
        'template(name="t" type="string" string="%pri%|%app-name%|%msgid%|%structured-data%|%msg%\\n")\n'
        f'action(type="omfile" file="{d}/received.log" template="t")\n')
    proc = subprocess.Popen([RSYSLOGD, "-n", "-f", str(d / "rsyslog.conf"), "-i", str(d / "pid")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(100):  # listening once TCP connects
        try:
            socket.create_connection(("127.0.0.1", tcp), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    yield udp, tcp, d / "received.log"
    proc.terminate()
    proc.wait(10)


def received(log: Path, n: int) -> list[list[str]]:
    for _ in range(100):
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= n:
            break
        time.sleep(0.1)
    return [line.split("|", 4) for line in lines]


@pytest.mark.parametrize("scheme", ["udp", "tcp"])
def test_syslog_to_rsyslog(inputs, rsyslog, scheme):
    udp, tcp, log = rsyslog
    port = udp if scheme == "udp" else tcp
    run = monitor(inputs, inputs / "out", "--syslog", f"{scheme}://127.0.0.1:{port}")
    assert run.returncode == 0, run.stderr
    alerts = [json.loads(x) for x in (inputs / "out" / "alerts.jsonl").read_text().splitlines()]
    got = received(log, len(alerts))
    assert len(got) == len(alerts) >= 10
    for (pri, app, msgid, sd, msg), a in zip(got, alerts):
        assert (pri, app, msgid) == ("130", "bgpsim", a["kind"])  # local0.crit: a hijack
        assert sd == (f'[alert@32473 prefix="{a["prefix"]}" origin="{a["observed_origin"]}" peer="{a["peer"]}" '
                      f'group="{a["group"]}"]')
        assert msg.startswith(f"ALERT {a['kind']}: {a['prefix']} from AS{a['observed_origin']}")
    summary = json.loads((inputs / "out" / "summary.json").read_text())["alerts"]
    assert summary["syslog"] == {"sent": len(alerts), "failed": 0}


def test_syslog_over_tcp_that_is_not_there_is_an_error_before_any_work(inputs):
    run = monitor(inputs, inputs / "out", "--syslog", f"tcp://127.0.0.1:{free_port()}")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "--syslog tcp://127.0.0.1:" in run.stderr
    assert not (inputs / "out").exists()


class Receiver:
    """A local HTTP server taking POSTs (aiohttp); it answers the first `refuse` with 503."""

    def __init__(self, refuse: int = 0):
        import asyncio

        self.posts: list[dict] = []
        self.refuse = refuse
        self.loop = asyncio.new_event_loop()
        self.port = free_port()
        ready = threading.Event()

        def serve():
            from aiohttp import web

            async def take(request):
                body = await request.json()
                if self.refuse > 0:
                    self.refuse -= 1
                    return web.Response(status=503)
                self.posts.append(body)
                return web.Response(text="ok")

            asyncio.set_event_loop(self.loop)
            app = web.Application()
            app.router.add_post("/hook", take)
            runner = web.AppRunner(app)
            self.loop.run_until_complete(runner.setup())
            self.loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_webhook_posts_every_alert_in_order_and_tries_again(inputs):
    hook = Receiver(refuse=2)
    try:
        run = monitor(inputs, inputs / "out", "--webhook", f"http://127.0.0.1:{hook.port}/hook")
        assert run.returncode == 0, run.stderr
    finally:
        hook.close()
    alerts = [json.loads(x) for x in (inputs / "out" / "alerts.jsonl").read_text().splitlines()]
    assert [p["alert"] for p in hook.posts] == alerts and len(alerts) >= 10
    assert all(p["text"].startswith(f"ALERT {p['alert']['kind']}: ") for p in hook.posts)  # Slack shows "text"
    summary = json.loads((inputs / "out" / "summary.json").read_text())["alerts"]
    assert summary["webhook"] == {"sent": len(alerts), "failed": 0, "dropped": 0}


def test_a_webhook_that_is_not_there_is_an_error_before_any_work(inputs):
    run = monitor(inputs, inputs / "out", "--webhook", f"http://127.0.0.1:{free_port()}/hook")
    assert run.returncode == 2 and "--webhook http://127.0.0.1:" in run.stderr and "cannot reach it" in run.stderr
    assert not (inputs / "out").exists()


def test_a_file_per_group_listed_and_resumed(inputs):
    out = inputs / "out"
    assert monitor(inputs, out, "--by-group").returncode == 0
    alerts = [json.loads(x) for x in (out / "alerts.jsonl").read_text().splitlines()]
    groups = {a["group"] for a in alerts}
    assert groups == {"noc", "default"}
    for g in groups:
        assert [json.loads(x) for x in (out / "alerts" / f"{g}.jsonl").read_text().splitlines()] == [
            a for a in alerts if a["group"] == g]
    marker = json.loads((out / ".bgpsim-output.json").read_text())
    assert {"alerts/noc.jsonl", "alerts/default.jsonl"} <= set(marker["files"])
    again = monitor(inputs, out, "--by-group")  # the same output, resumed: every file grows
    assert again.returncode == 0, again.stderr
    for g in groups:
        lines = (out / "alerts" / f"{g}.jsonl").read_text().splitlines()
        assert len(lines) == 2 * sum(a["group"] == g for a in alerts)


def test_a_replay_publishes_its_alerts_to_a_broker(inputs):
    from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker

    if MOSQUITTO is None or shutil.which("mosquitto_sub") is None:
        pytest.skip(NO_MOSQUITTO)
    with Broker(inputs / "mosquitto", tls=False, password=False) as broker:
        got = inputs / "published.jsonl"
        with open(got, "w") as f:
            sub = subprocess.Popen(["mosquitto_sub", "-p", str(broker.plain), "-t", "replayed/alerts", "-W", "60"],
                                   stdout=f, text=True)
            time.sleep(0.5)
            run = monitor(inputs, inputs / "out", "--broker", broker.url("plain"), "--topic", "replayed")
            assert run.returncode == 0, run.stderr
            alerts = [json.loads(x) for x in (inputs / "out" / "alerts.jsonl").read_text().splitlines()]
            for _ in range(100):  # the monitor waited for the broker's acknowledgements; the subscriber may lag
                if len(got.read_text().splitlines()) >= len(alerts):
                    break
                time.sleep(0.1)
            sub.terminate()
            sub.wait(10)
    assert [json.loads(x) for x in got.read_text().splitlines()] == alerts and len(alerts) >= 10
    assert json.loads((inputs / "out" / "summary.json").read_text())["alerts"]["mqtt"] == {"sent": len(alerts),
                                                                                          "dropped": 0}
