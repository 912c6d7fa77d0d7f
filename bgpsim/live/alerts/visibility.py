"""Visibility (BGPalerter's monitorVisibility, and what its users asked for): a watched prefix lost,
when the collector peers announcing it fall below `share` of those that have announced it, and
visible again once they are back at or above it. A peer whose session goes down (RIS_PEER_STATE
down, an MRT state change) no longer sees anything."""

from __future__ import annotations

from .base import Check, Finding, Seen, watched_fields


class Visibility(Check):
    name = "visibility"

    def __init__(self, share: float = 0.5):
        self.share = share
        self.now: dict[str, set] = {}  # watched prefix -> peers announcing it
        self.ever: dict[str, set] = {}  # ... peers that have announced it
        self.lost: dict[str, bool] = {}
        self.watched: dict[str, object] = {}
        self.by_peer: dict[str, set] = {}  # peer -> watched prefixes it announces

    def announce(self, s: Seen) -> list[Finding]:
        if not s.exact or s.watched.ignore:
            return []
        p = s.prefix
        self.watched[p] = s.watched
        self.now.setdefault(p, set()).add(s.peer)
        self.ever.setdefault(p, set()).add(s.peer)
        self.by_peer.setdefault(s.peer, set()).add(p)
        if self.lost.get(p) and len(self.now[p]) >= self.share * len(self.ever[p]):
            self.lost[p] = False
            return [self._finding("visible-again", p)]
        return []

    def withdraw(self, s: Seen) -> list[Finding]:
        if not s.exact or s.prefix not in self.now:
            return []
        return self._gone(s.prefix, s.peer)

    def peer_down(self, peer: str, when: float) -> list[Finding]:
        found = []
        for p in sorted(self.by_peer.pop(peer, ())):
            found += self._gone(p, peer)
        return found

    def _gone(self, p: str, peer: str) -> list[Finding]:
        self.now[p].discard(peer)
        self.by_peer.get(peer, set()).discard(p)
        if not self.lost.get(p) and len(self.now[p]) < self.share * len(self.ever[p]):
            self.lost[p] = True
            return [self._finding("visibility-loss", p)]
        return []

    def _finding(self, kind: str, p: str) -> Finding:
        w = self.watched[p]
        other = "visible-again" if kind == "visibility-loss" else "visibility-loss"
        return Finding(kind, (kind, p), p, {**watched_fields(w), "detail": {"visible_from": len(self.now[p]),
                                                                           "announced_by": len(self.ever[p])}},
                       w.group, at_once=True, closes=(other, p))
