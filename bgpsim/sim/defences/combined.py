"""Defences deployed together by the same adopters (`rov+maxlen`): a route is accepted when every one
accepts it — so the combination drops what any of them drops — and ranked by the one that ranks
routes (at most one may: two rankings have no single order). Each keeps its own route attributes;
those of the same name (every policy's `invalid`) mean the same thing.
"""

from __future__ import annotations

from bgpsim.base.errors import InputError

from ..policy import Candidate, PathBit, Policy


class Combined(Policy):
    def __init__(self, parts: list[Policy]):
        super().__init__(parts[0].topo)
        self.parts = parts
        self.name = "+".join(p.name for p in parts)
        self.adopter = parts[0].adopter
        self.vrps = parts[0].vrps
        ranking = [p for p in parts if p.ranks]
        if len(ranking) > 1:
            raise InputError(f"policy {self.name}: {' and '.join(p.name for p in ranking)} both rank routes; "
                             "combine at most one of them with filters")
        self.ranking = ranking[0] if ranking else None
        self.prefer_after_length = self.ranking is not None and self.ranking.prefer_after_length
        self.honest_inert = all(p.honest_inert for p in parts)
        self.path_constant = all(p.path_constant for p in parts)

    @property
    def ranks(self) -> bool:
        return self.ranking is not None

    def start(self, prefix, origin: int) -> dict:
        return {k: v for p in self.parts for k, v in p.start(prefix, origin).items()}

    def extend(self, c: Candidate) -> dict:
        return {k: v for p in self.parts for k, v in p.extend(c).items()}

    def originate(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        return {k: v for p in self.parts for k, v in p.originate(prefix, at, path).items()}

    def accept(self, c: Candidate):
        ok = self.parts[0].accept(c)
        for p in self.parts[1:]:
            ok = ok & p.accept(c)
        return ok

    def prefer(self, c: Candidate):
        return self.ranking.prefer(c) if self.ranking is not None else super().prefer(c)

    def drops_session(self, sender: int, receiver: int, sent: int) -> bool:
        return any(p.drops_session(sender, receiver, sent) for p in self.parts)

    def flagged(self, prefix, origin: int) -> bool:
        return any(p.flagged(prefix, origin) for p in self.parts)

    def path_bit(self, prefix) -> PathBit | None:
        bits = [p.path_bit(prefix) for p in self.parts]
        if sum(b is not None for b in bits) == 1 and all(p.honest_inert or b for p, b in zip(self.parts, bits)):
            return next(b for b in bits if b is not None)
        return None

    def honest_accept(self, prefix, origin: int, cls: int):
        ok = True
        for p in self.parts:
            v = p.honest_accept(prefix, origin, cls)
            if v is None:
                return None
            ok = ok & v
        return ok

    def exports(self, route_rel: int, neighbour_rel: int) -> bool:
        return all(p.exports(route_rel, neighbour_rel) for p in self.parts)
