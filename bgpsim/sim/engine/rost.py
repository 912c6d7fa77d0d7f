"""RoST's trusted repository on the timed engine (the policy: `bgpsim.sim.defences.withdrawals`),
as BGPy 13.0's RoSTFull keeps it.

What the adopters record, per prefix, as paths with the recording AS first:
* every withdrawal an adopter sends: its old route as it announced it, whenever its best route
  changes or goes (a replaced route is withdrawn too, RFC 4271 section 9.1.3); announcing a route
  again takes its record back (BGPy keeps it, which on the timed engine, where an AS may return to
  a route it left while paths are explored, would drop good routes);
* every withdrawal it hears: what the neighbour had sent, with the adopter before it.
An announcement an adopter hears takes back its own record of that path (the neighbour announces
it again).

A route is covered when the adopter heard it withdrawn, or when a part of its path that ends at the
origin is recorded: the AS at the head of that part withdrew it, and a zombie is what is left. (BGPy
also counts an adopter's own withdrawal of a route it left against the same route it still hears
from that neighbour, which would drop good alternatives; so does not this.) An adopter
drops a covered route it hears, and whenever a record is added, every adopter drops the covered
routes in its Adj-RIB-In (at once: the repository is a service apart from the BGP sessions).
"""

from __future__ import annotations


class Repository:
    def __init__(self, engine, adopters):
        self.engine = engine
        self.adopters = sorted(adopters)
        # per prefix index, the recorded paths, the recording AS first: withdrawals adopters sent,
        # and withdrawals they heard
        self.sent_paths: dict[int, set[tuple]] = {}
        self.heard_paths: dict[int, set[tuple]] = {}
        self._due: set[int] = set()  # prefixes whose Adj-RIBs-In are to be checked

    def covers(self, p: int, path: tuple, r: int) -> bool:
        """Whether adopter r's route `path` (its neighbour first) for prefix p is covered: r heard
        it withdrawn, or an AS on it withdrew the rest (r's own withdrawals of routes it left do
        not count against the routes it still hears)."""
        sent, heard = self.sent_paths.get(p, ()), self.heard_paths.get(p, ())
        if not sent and not heard:
            return False
        return (r,) + path in heard or any(path[k:] in sent or path[k:] in heard for k in range(len(path)))

    def heard(self, r: int, p: int, path, before) -> None:
        """Adopter r heard `path` for prefix p (None: a withdrawal of `before`, what was sent)."""
        if path is not None:
            self.heard_paths.get(p, set()).discard((r,) + path)
        elif before is not None:
            self._record(self.heard_paths, p, (r,) + before)

    def changed(self, r: int, p: int, old, new) -> None:
        """Adopter r's route for prefix p goes from `old` to `new` (Loc-RIB entries or None): it
        withdraws the old one and, announcing the new, takes back any record of that."""
        if old is not None and (new is None or new[2] != old[2]):
            self._record(self.sent_paths, p, (r,) + old[2])
        if new is not None:
            self.sent_paths.get(p, set()).discard((r,) + new[2])

    def _record(self, table: dict, p: int, path: tuple) -> None:
        table.setdefault(p, set()).add(path)
        if p not in self._due:
            self._due.add(p)
            self.engine.q.at(self.engine.q.now, self._check, p)

    def _check(self, p: int) -> None:
        """Every adopter drops the covered routes of prefix p from its Adj-RIB-In."""
        self._due.discard(p)
        eng = self.engine
        for r in self.adopters:
            rib = eng.rib_in[p][r]
            for s, entry in list((rib or {}).items()):
                if self.covers(p, entry[2], r):
                    eng._take(s, r, p, None)


__all__ = ["Repository"]
