"""Origin monitors (BGPalerter's monitorHijack and monitorNewPrefix): a watched prefix, or a
more-specific of it, from an origin not expected; a more-specific from an expected origin where the
watch list does not allow them; a prefix whose origins are learnt seen from another.

A path ending in an AS_SET names, in `detail.as_set`, each member that is not an expected origin
(RFC 6811 section 2 gives such a route no origin). A new origin the RPKI says is valid is not a hijack
(the holder registered it, as BGPalerter decided), unless the settings ask to alert anyway: then the
alert names the VRPs that make it valid (as ARTEMIS does)."""

from __future__ import annotations

from bgpsim.rpki.rov import VALID

from .base import Check, Finding, Seen, watched_fields


class Hijack(Check):
    name = "hijack"

    def __init__(self, vrps=None, alert_valid: bool = False):
        self.vrps = vrps
        self.alert_valid = alert_valid

    def announce(self, s: Seen) -> list[Finding]:
        w = s.watched
        if w is None or w.ignore or w.learn or not s.origins:
            return []
        foreign = tuple(a for a in s.origins if a not in w.origins)
        if not foreign:
            return []
        detail: dict = {}
        if len(s.path) and not isinstance(s.path[-1], int):
            detail["as_set"] = list(foreign)
        elif self.vrps is not None and self.vrps.validate(s.net, s.origin) == VALID:
            if not self.alert_valid:
                return []
            detail["vrps"] = [f"{v.prefix} max {v.max_length} AS{v.asn}" for v in self.vrps.covering(s.net)
                              if v.asn == s.origin]
        kind = "prefix-hijack" if s.exact else "subprefix-hijack"
        return [Finding(kind, (kind, s.prefix, foreign), s.prefix, {**watched_fields(w), "detail": detail or None},
                        w.group)]


class NewPrefix(Check):
    name = "new-prefix"

    def announce(self, s: Seen) -> list[Finding]:
        w = s.watched
        if w is None or w.ignore or not s.origins:
            return []
        if w.learn:
            if not w.origins:
                w.origins.update(s.origins)
                return []
            new = tuple(a for a in s.origins if a not in w.origins)
            if not new:
                return []
            return [Finding("new-origin", ("new-origin", s.prefix, new), s.prefix, watched_fields(w), w.group)]
        if not s.exact and not w.more_specifics and all(a in w.origins for a in s.origins):
            return [Finding("more-specific", ("more-specific", s.prefix, s.origins), s.prefix, watched_fields(w),
                            w.group)]
        return []
