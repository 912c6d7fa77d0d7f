"""A real mosquitto 2.0 broker on 127.0.0.1 for tests that publish or subscribe over MQTT.

``Broker(workdir)`` writes a config with up to three listeners on free ports -- ``plain``
(anonymous), ``auth`` (user "alice", password "secret") and ``tls`` (anonymous, a self-signed
P-256 certificate for CN=localhost / IP:127.0.0.1 at ``.cafile``) -- with persistence in
``workdir``, and runs ``mosquitto -c CONF`` until ``stop()``. ``restart()`` brings it back on the
same ports and persistence directory, so QoS 1 messages queued for persistent sessions survive.
Needs the Debian packages mosquitto and mosquitto-clients (and openssl for TLS); test modules
skip with ``NO_MOSQUITTO`` when ``MOSQUITTO`` is None.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from helpers import free_port

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)
NO_MOSQUITTO = "mosquitto is not installed (Debian packages mosquitto and mosquitto-clients)"
USER, PASSWORD = "alice", "secret"


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class Broker:
    """A mosquitto subprocess; use as ``with Broker(tmp_path) as b: ... b.url("auth")``."""

    def __init__(self, workdir: Path, tls: bool = True, password: bool = True,
                 persistence: bool = True):
        if MOSQUITTO is None:
            raise RuntimeError(NO_MOSQUITTO)
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.conf, self.logfile = self.dir / "mosquitto.conf", self.dir / "mosquitto.log"
        self.cafile = self.dir / "cert.pem"
        self.plain = free_port()
        self.auth = free_port() if password else None
        self.tls = free_port() if tls else None
        self.persistence = persistence
        self.proc: subprocess.Popen | None = None
        self._written = False

    def ports(self) -> list[int]:
        return [p for p in (self.plain, self.auth, self.tls) if p is not None]

    def _write(self) -> None:
        d = self.dir
        # As root, mosquitto drops to user "mosquitto", which cannot read a private tmp dir:
        # name the current user (a no-op when not root).
        # max_queued_messages 0: no limit on the QoS 1 messages queued for a subscriber that falls behind
        # (mosquitto's default, 1000, drops the rest: the monitor would see gaps and say so)
        lines = [f"user {pwd.getpwuid(os.geteuid()).pw_name}", "per_listener_settings true",
                 "max_queued_messages 0", "log_dest stderr", "log_type all",
                 f"listener {self.plain} 127.0.0.1", "allow_anonymous true"]
        if self.auth is not None:
            pw = d / "pw"  # written once (_written): `mosquitto_passwd -c` creates it
            subprocess.run(["mosquitto_passwd", "-c", "-b", str(pw), USER, PASSWORD],
                           check=True, capture_output=True, timeout=10)
            pw.chmod(0o644)
            lines += [f"listener {self.auth} 127.0.0.1", "allow_anonymous false",
                      f"password_file {pw}"]
        if self.tls is not None:
            subprocess.run(
                ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-nodes", "-keyout", str(d / "key.pem"), "-out", str(self.cafile), "-days", "2",
                 "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                check=True, capture_output=True, timeout=30)
            lines += [f"listener {self.tls} 127.0.0.1", "allow_anonymous true",
                      f"certfile {self.cafile}", f"keyfile {d / 'key.pem'}"]
        if self.persistence:
            lines += ["persistence true", f"persistence_location {d}/"]
        self.conf.write_text("\n".join(lines) + "\n")
        self._written = True

    def start(self, attempts: int = 5) -> "Broker":
        if not self._written:
            self._write()
        for attempt in range(attempts):
            offset = self.logfile.stat().st_size if self.logfile.exists() else 0
            with open(self.logfile, "ab") as log:
                self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log,
                                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and self.proc.poll() is None:
                # "running" is logged once every listener is open (a port that accepts could
                # belong to another process that mosquitto failed to share it with)
                if " running" in self.log()[offset:] and all(_accepts(p) for p in self.ports()):
                    return self
                time.sleep(0.05)
            exited = self.proc.poll() is not None
            self.stop()
            if not exited:  # neither up nor dead after 5 s: retrying will not help
                break
            time.sleep(0.2 * (attempt + 1))  # e.g. a port still briefly busy: try again
        raise RuntimeError(f"mosquitto did not start on {self.ports()}:\n{self.log()[-3000:]}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # mosquitto saves its persistence file on SIGTERM
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def restart(self) -> "Broker":
        self.stop()
        return self.start()

    def url(self, kind: str = "plain") -> str:
        port = {"plain": self.plain, "auth": self.auth, "tls": self.tls}[kind]
        if port is None:
            raise ValueError(f"this broker has no {kind} listener")
        if kind == "auth":
            return f"mqtt://{USER}:{PASSWORD}@127.0.0.1:{port}"
        return f"{'mqtts' if kind == 'tls' else 'mqtt'}://127.0.0.1:{port}"

    def log(self) -> str:
        return self.logfile.read_text(errors="replace") if self.logfile.exists() else ""

    def __enter__(self) -> "Broker":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def wait_online(broker: Broker, topic: str, proc: subprocess.Popen | None = None) -> None:
    """Until a `bgpsim monitor`'s retained status under `topic` says online (it has subscribed); fails
    at once, with its stderr, if the process `proc` ended."""
    for _ in range(100):
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the monitor ended ({proc.returncode}): {proc.communicate()[1]}")
        p = subprocess.run(["mosquitto_sub", "-p", str(broker.plain), "-t", f"{topic}/status/monitor", "-C", "1",
                            "-W", "1"], capture_output=True, text=True)
        if '"online"' in p.stdout:
            return
        time.sleep(0.1)
    raise AssertionError("the monitor never came online")
