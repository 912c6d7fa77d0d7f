"""Where the MQTT broker is and how to talk to it: URLs, TLS, credentials, the status topic with its
Last Will, and one-line errors when the broker is not there or refuses us.

    mqtt://[USER:PASSWORD@]HOST[:PORT]     plain TCP, port 1883 by default
    mqtts://[USER:PASSWORD@]HOST[:PORT]    TLS, port 8883 by default; --cafile for a private CA

The password may also come from the environment variable BGPSIM_MQTT_PASSWORD, so that it need not
appear in a process list. Clients speak MQTT 3.1.1 (mosquitto 2.0 and every broker since take it),
through aiomqtt 2.x (its API is pinned below 3: 3.0 changes it).
"""

from __future__ import annotations

import logging
import os
import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from bgpsim.base.errors import InputError

CONNECT_TIMEOUT = 8.0  # seconds: a broker that is not there is one line and exit 2 within 10 s
BACKOFF = (0.5, 10.0)  # seconds: the first wait after losing the broker, and the longest
IN_FLIGHT = 64  # QoS 1 messages awaiting the broker's acknowledgement at once
DEFAULT_TOPIC = "bgpsim"


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = None
    cafile: str | None = None

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_url(url: str, cafile: str | None = None, flag: str = "--broker") -> BrokerAddress:
    """A broker URL (see the module's docstring); a fault names the flag."""
    try:
        u = urlsplit(url)
        port = u.port
    except ValueError as e:
        raise InputError(f"{flag}: {e} in {url!r}") from None
    if u.scheme not in ("mqtt", "mqtts") or not u.hostname:
        raise InputError(f"{flag}: want mqtt://HOST[:PORT] or mqtts://HOST[:PORT], got {url!r}")
    if u.path not in ("", "/"):
        raise InputError(f"{flag}: want no path in {url!r} (give the topic with --topic)")
    tls = u.scheme == "mqtts"
    password = unquote(u.password) if u.password is not None else os.environ.get("BGPSIM_MQTT_PASSWORD")
    if cafile is not None:
        _check_cafile(cafile, tls, flag)
    return BrokerAddress(u.hostname, port or (8883 if tls else 1883), tls,
                         unquote(u.username) if u.username else None, password if u.username else None, cafile)


def _check_cafile(cafile: str, tls: bool, flag: str) -> None:
    """--cafile: with TLS only (without, it would be ignored), and a file of PEM certificates, loaded
    here so that a wrong one is an error before any connection."""
    from bgpsim.base.datafiles import check_input

    if not tls:
        raise InputError(f"--cafile is used only with TLS: give {flag} mqtts://...")
    check_input(cafile, "--cafile")
    try:
        ssl.create_default_context(cafile=cafile)
    except (ssl.SSLError, OSError, ValueError) as e:
        raise InputError(f"--cafile {cafile}: want PEM CA certificates ({getattr(e, 'reason', None) or e})") from None


def topic_prefix(text: str) -> str:
    """A topic prefix: levels without wildcards, no empty level."""
    if not text or any(c in text for c in "+#\0") or "" in text.split("/"):
        raise InputError(f"--topic: want levels such as bgpsim/lab1, without '+', '#' or empty levels; got {text!r}")
    return text


def client(addr: BrokerAddress, identifier: str | None = None, persistent: bool = False, will=None,
           inflight: int | None = None):
    """An aiomqtt client for `addr` (not connected yet: `async with` connects). `persistent`: a
    session the broker keeps while we are away (QoS 1 messages for us are kept), under `identifier`;
    `inflight`: how many QoS 1 messages may await the broker's acknowledgement at once."""
    import aiomqtt

    log = logging.getLogger("bgpsim.live.mqtt")
    log.setLevel(logging.ERROR)  # aiomqtt warns of more than ten publishes awaiting PUBACK: the publisher means to
    tls = None
    if addr.tls:
        tls = ssl.create_default_context(cafile=addr.cafile)
    return aiomqtt.Client(addr.host, addr.port, username=addr.username, password=addr.password,
                          identifier=identifier, clean_session=not persistent, will=will, tls_context=tls,
                          timeout=CONNECT_TIMEOUT, keepalive=30, max_inflight_messages=inflight, logger=log)


def connect_error(e: Exception, addr: BrokerAddress) -> InputError:
    """One line for a failed connection (an aiomqtt.MqttError or an OSError): refused, bad credentials,
    not there, TLS."""
    text = (e.strerror if isinstance(e, OSError) and e.strerror else str(e)).strip() or type(e).__name__
    if "not authori" in text.lower() or "bad user name or password" in text.lower():
        return InputError(f"the broker {addr} refused the credentials ({text})")
    if isinstance(e, ssl.SSLError) or "ssl" in text.lower() or "certificate" in text.lower():
        return InputError(f"TLS with the broker {addr} failed: {text} (a private CA needs --cafile)")
    return InputError(f"cannot connect to the broker {addr}: {text}")
