"""The MQTT topics of a bgpsim feed, under one prefix (default `bgpsim`):

    PREFIX/updates           one RIS Live `data` object per message, one UPDATE each (QoS 1)
    PREFIX/updates/batch     a JSON array of such objects per message, for high rates (QoS 1)
    PREFIX/alerts            one alert per message (QoS 1)
    PREFIX/status/ROLE       retained {"state": "online" | "done" | "stopped" | "offline", ...}; "offline" is the
                             Last Will the broker publishes when a client goes away without saying so

No prefix or other data goes inside a topic level: a prefix's "/" would make another level.
"""

from __future__ import annotations

import json
import time


class Topics:
    def __init__(self, prefix: str = "bgpsim"):
        self.prefix = prefix
        self.updates = f"{prefix}/updates"
        self.batch = f"{prefix}/updates/batch"
        self.alerts = f"{prefix}/alerts"

    def status(self, role: str) -> str:
        return f"{self.prefix}/status/{role}"


def status(state: str, **more) -> str:
    """A status message: the state, when (wall time), and counts."""
    return json.dumps({"state": state, "time": round(time.time(), 3), **more})
