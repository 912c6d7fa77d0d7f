"""The mosquitto test helper (tests/mqtt_broker.py), exercised with the mosquitto clients only."""

import shutil
import subprocess
import time

import pytest

from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, PASSWORD, USER, Broker

pytestmark = pytest.mark.skipif(
    MOSQUITTO is None or not (shutil.which("mosquitto_pub") and shutil.which("mosquitto_sub")),
    reason=NO_MOSQUITTO)


def pub(port, topic, msg, *extra):
    return subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-t", topic,
                           "-m", msg, *extra], capture_output=True, text=True, timeout=10)


def pub_sub(port, *extra, topic="bgp/x", msg='{"n": 1}'):
    """Start ``mosquitto_sub -C 1`` in the background, publish one message, return what it got."""
    sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "bgp/#",
                            "-v", "-C", "1", "-W", "5", *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.3)  # let it subscribe; an unheard QoS 0 message would be lost
        p = pub(port, topic, msg, *extra)
        assert p.returncode == 0, p.stderr
        out, err = sub.communicate(timeout=8)
    finally:
        sub.kill()
        sub.wait()
    assert sub.returncode == 0, err
    return out


def test_plain_listener_delivers(tmp_path):
    with Broker(tmp_path, tls=False, password=False, persistence=False) as b:
        assert b.url() == f"mqtt://127.0.0.1:{b.plain}"
        assert pub_sub(b.plain) == 'bgp/x {"n": 1}\n'


def test_auth_listener_checks_credentials(tmp_path):
    with Broker(tmp_path, tls=False) as b:
        assert b.url("auth") == f"mqtt://{USER}:{PASSWORD}@127.0.0.1:{b.auth}"
        for creds in ([], ["-u", USER, "-P", "wrong"], ["-u", "mallory", "-P", PASSWORD]):
            p = pub(b.auth, "bgp/x", "m", *creds)
            assert p.returncode == 5 and "not authorised" in p.stderr, (creds, p)
        assert pub_sub(b.auth, "-u", USER, "-P", PASSWORD) == 'bgp/x {"n": 1}\n'


def test_tls_listener(tmp_path):
    with Broker(tmp_path, password=False) as b:
        assert b.url("tls") == f"mqtts://127.0.0.1:{b.tls}"
        assert b.cafile.exists()
        assert pub_sub(b.tls, "--cafile", str(b.cafile)) == 'bgp/x {"n": 1}\n'
        # without the CA (i.e. plain MQTT to a TLS port) the client fails
        assert pub(b.tls, "bgp/x", "m").returncode != 0


def test_persistent_session_survives_restart(tmp_path):
    session = ["-c", "-i", "client1", "-q", "1", "-t", "bgp/#"]
    with Broker(tmp_path, tls=False, password=False) as b:
        port = b.plain
        subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), *session, "-E"],
                       check=True, capture_output=True, timeout=10)  # subscribe, disconnect
        b.restart()
        assert b.plain == port and b.url() == f"mqtt://127.0.0.1:{port}"
        p = pub(port, "bgp/kept", "while away", "-q", "1")
        assert p.returncode == 0, p.stderr
        b.restart()  # the queued message is saved to disk too
        got = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), *session,
                              "-v", "-C", "1", "-W", "5"],
                             capture_output=True, text=True, timeout=10)
        assert got.returncode == 0, (got.stderr, b.log()[-2000:])
        assert got.stdout == "bgp/kept while away\n"
        assert "mosquitto version" in b.log()
