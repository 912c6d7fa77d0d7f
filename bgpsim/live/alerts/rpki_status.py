"""The RPKI status of the watched prefixes' own announcements (BGPalerter's monitorRPKI): a route from
an expected origin that RFC 6811 calls invalid (a ROA that forgot it, a maxLength too short), or, with
`alert_not_found`, that no VRP covers. Routes from other origins are hijack alerts, which carry
their RPKI status already."""

from __future__ import annotations

from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND

from .base import Check, Finding, Seen, watched_fields


class RPKIStatus(Check):
    name = "rpki"

    def __init__(self, vrps, alert_not_found: bool = False):
        self.vrps = vrps
        self.want = {INVALID_ASN, INVALID_LENGTH} | ({NOT_FOUND} if alert_not_found else set())

    def announce(self, s: Seen) -> list[Finding]:
        w = s.watched
        if w is None or w.ignore or s.origin < 0 or s.origin not in w.origins:
            return []
        state = self.vrps.validate(s.net, s.origin)
        if state not in self.want:
            return []
        kind = "rpki-not-found" if state == NOT_FOUND else "rpki-invalid"
        return [Finding(kind, (kind, s.prefix, s.origin), s.prefix, {**watched_fields(w), "detail": {"state": state}},
                        w.group)]
