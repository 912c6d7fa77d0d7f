"""A watched AS's own announcements (BGPalerter's monitorAS): a prefix it originates that the watch
list does not hold, a misconfiguration or a leak of internal space."""

from __future__ import annotations

from .base import Check, Finding, Seen


class OwnAS(Check):
    name = "own-as"

    def __init__(self, ases):
        self.ases = {a.asn: a for a in ases}

    def announce(self, s: Seen) -> list[Finding]:
        w = self.ases.get(s.origin) if s.watched is None else None
        if w is None:
            return []
        return [Finding("unlisted-prefix", ("unlisted-prefix", s.prefix, s.origin), s.prefix,
                        {"watched": f"AS{w.asn}", "description": w.description, "expected_origins": [w.asn]}, w.group)]
