"""Adoption sweeps: how often does an attack still succeed when x % of ASes deploy a defence?

A sweep is every combination of attack, policy, adoption level and trial number. Trial t draws its
attacker and victim from the stubs (ASes without customers; a leaker must be multihomed) with a
random stream of its own, so every policy and adoption level of trial t sees the same pair — paired
comparisons, as in BGPy. Adopters are drawn per (trial, adoption level): `random` takes that share of
all ASes, `top-cone` the ASes with the largest customer cones, `tier1` that share of the tier-1
clique; the victim always adopts and the attacker never does (BGPy's convention). So every row of
results.csv is a pure function of the seed and its key, whichever process computes it, and the
rows are written in one canonical order at the end: one process, W processes and a Dask cluster
give the same file but for the `seconds` column.

Results are appended as trials finish; an interrupted sweep, run again with the same parameters and
--out, skips what is done.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import trial as trials
from .attacks import KINDS, STEADY_KINDS
from .defences import DEFENCES, label, policy_name
from .engine.steady import plan_for
from bgpsim.base.errors import InputError
from bgpsim.base.outdir import open_append, resumable, write_atomic
from bgpsim.base.pool import run_chunks

COLUMNS = ("policy", "attack", "adoption", "trial", "attacker", "victim", "attacker_frac", "victim_frac",
           "disconnected_frac", "loop_frac", "diverted", "adopting_edge_attacker", "adopting_edge_disconnected",
           "other_edge_attacker", "other_edge_disconnected", "seconds")
# the edge ASes (no customers; IXPs aside: BGPy's stubs-or-multihomed), adopting or not: the ROV++ paper's groups
EDGE_COLUMNS = COLUMNS[11:15]
OUTPUTS = ("sweep.json", "results.csv", "summary.json", "success.png")
ADOPT = ("random", "top-cone", "tier1", "subcategories")
POLICIES = ("none", *DEFENCES)
Z90 = 1.6448536269514722  # two-sided 90 % normal quantile


@dataclass(frozen=True)
class Sweep:
    topology: str
    attacks: tuple[str, ...]
    policies: tuple[str, ...]
    adoption: tuple[int, ...]  # percent
    trials: int
    seed: int = 1
    adopt: str = "random"

    def __post_init__(self):
        for a in self.attacks:
            if a not in STEADY_KINDS:  # a sweep's trials are converged states
                raise InputError(f"--attack: {'unknown attack' if a not in KINDS else 'a sweep cannot run'} {a!r}; "
                                 f"want one of {', '.join(STEADY_KINDS)}")
        for p in self.policies:
            policy_name(p, "--policy", none=True)
        for x in self.adoption:
            if not 0 <= x <= 100:
                raise InputError(f"--adoption: want percentages from 0 to 100, got {x}")
        if self.adopt not in ADOPT:
            raise InputError(f"--adopt: want one of {', '.join(ADOPT)}, got {self.adopt!r}")
        if self.trials < 1:
            raise InputError(f"--trials: want at least 1, got {self.trials}")

    def jobs(self) -> list[tuple]:
        """(policy, attack, adoption, trial) in the canonical order of results.csv."""
        return [(p, a, x, t) for a in self.attacks for p in self.policies for x in self.adoption
                for t in range(self.trials)]

    def params(self) -> dict:
        d = json.loads(json.dumps(asdict(self)))  # tuples as lists, as sweep.json holds them
        d["topology"] = Path(self.topology).name
        return d


# ---- one trial ------------------------------------------------------------------------------

def _cached(topo, name: str, make):
    """Per-topology data the trials share, kept on the topology (and so shipped with it)."""
    v = topo.__dict__.get(name)
    if v is None:
        v = topo.__dict__[name] = make()
    return v


def _stubs(topo) -> tuple[np.ndarray, np.ndarray]:
    """Stubs (no customers) and multihomed stubs (two providers or more)."""
    stubs = np.asarray(topo.stubs(), dtype=np.int64)
    return stubs, stubs[np.bincount(topo.p2c[:, 1], minlength=topo.n)[stubs] > 1]


def _pair(topo, seed: int, t: int, attack: str) -> tuple[int, int]:
    rng = np.random.default_rng([seed, t, 0xA77AC])
    stubs, multihomed = _cached(topo, "_sweep_stubs", lambda: _stubs(topo))
    if len(stubs) < 2:
        raise InputError(f"{topo.source}: fewer than two stub ASes to draw attacker and victim from")
    victim = int(stubs[rng.integers(len(stubs))])
    pool = stubs
    if attack == "leak":
        pool = multihomed
        if len(pool) < 2:
            raise InputError(f"{topo.source}: a leak needs a multihomed stub AS, and there is none to draw")
    attacker = victim
    while attacker == victim:
        attacker = int(pool[rng.integers(len(pool))])
    return attacker, victim


def _subcategories(topo) -> list[np.ndarray]:
    """BGPy's adoption subcategories: edge ASes (no customers), the input clique, and the rest; IXPs
    in none (they never adopt)."""
    ixp = np.isin(topo.asns, np.asarray(topo.ixps, dtype=topo.asns.dtype))
    clique = np.isin(topo.asns, np.asarray(topo.clique, dtype=topo.asns.dtype)) & ~ixp
    edge = topo.edge_ases & ~ixp & ~clique
    return [np.flatnonzero(edge), np.flatnonzero(clique), np.flatnonzero(~(edge | clique | ixp))]


def _adopters(topo, sw: Sweep, adoption: int, t: int, attacker: int, victim: int) -> np.ndarray:
    share = adoption / 100
    if sw.adopt == "subcategories":  # the share of each, rounded up (BGPy's Scenario)
        chosen = [victim]
        for g, pool in enumerate(_cached(topo, "_subcategories", lambda: _subcategories(topo))):
            pool = pool[(pool != attacker) & (pool != victim)]
            k = math.ceil(len(pool) * share)  # as BGPy computes it, float and all
            chosen.extend(np.random.default_rng([sw.seed, t, adoption, 0xAD0, g]).permutation(pool)[:k].tolist())
        return np.sort(np.asarray(chosen, dtype=np.int64))
    if sw.adopt == "tier1":
        pool = np.asarray(sorted(topo.index[a] for a in topo.clique if a in topo.index), dtype=np.int64)
        k = round(share * len(pool))
    else:
        pool = (_cached(topo, "_cone_order", lambda: np.lexsort((np.arange(topo.n), -topo.cone_sizes)))
                if sw.adopt == "top-cone" else np.arange(topo.n))
        k = round(share * (topo.n - 2))
    pool = pool[(pool != attacker) & (pool != victim)]
    if sw.adopt != "top-cone":
        pool = np.random.default_rng([sw.seed, t, adoption, 0xAD0]).permutation(pool)
    chosen = np.concatenate([pool[:k], [victim]])
    return np.sort(chosen)


def prepare(topo, sw: Sweep) -> None:
    """Compute the shared per-topology data once, before the topology goes to workers."""
    plan_for(topo)
    _cached(topo, "_sweep_stubs", lambda: _stubs(topo))
    _cached(topo, "_subcategories", lambda: _subcategories(topo))
    topo.cone_sizes  # the diverted-traffic weights: computed here once, not in every worker
    if sw.adopt == "top-cone":
        _adopters(topo, sw, 0, 0, -1, -1)


def run_job(topo, sw: Sweep, job: tuple) -> dict:
    """One row of results.csv."""
    policy, attack, adoption, t = job
    started = time.perf_counter()
    attacker, victim = _pair(topo, sw.seed, t, attack)
    adopters = _adopters(topo, sw, adoption, t, attacker, victim) if policy != "none" else ()
    res = trials.run(topo, attack, attacker, victim, policy, adopters, plan_for(topo))
    fr = res.fractions()
    diverted = res.diverted(topo.cone_sizes)
    return {"policy": policy, "attack": attack, "adoption": adoption, "trial": t,
            "attacker": int(topo.asns[attacker]), "victim": int(topo.asns[victim]),
            "attacker_frac": fr["attacker"], "victim_frac": fr["victim"], "disconnected_frac": fr["disconnected"],
            "loop_frac": fr["loop"], "diverted": diverted, **_edge_shares(topo, res, adopters),
            "seconds": time.perf_counter() - started}


def _edge_shares(topo, res, adopters) -> dict:
    """The attacker's and the disconnected share among the edge ASes that adopt, and among the others
    (attacker and victim aside); "" for a group with no AS."""
    edge = _cached(topo, "_subcategories", lambda: _subcategories(topo))[0]
    edge = edge[(edge != res.attacker) & (edge != res.victim)]
    adopts = np.zeros(topo.n, dtype=bool)
    adopts[np.asarray(adopters, dtype=np.int64)] = True
    adopting = adopts[edge]
    out = {}
    for name, group in (("adopting_edge", edge[adopting]), ("other_edge", edge[~adopting])):
        o = res.outcome[group]
        for what, code in (("attacker", trials.ATTACKER), ("disconnected", trials.DISCONNECTED)):
            out[f"{name}_{what}"] = float((o == code).mean()) if len(group) else ""
    return out


def run_chunk(shared: tuple, jobs: list[tuple]) -> list[dict]:
    """Rows for `jobs`; `shared` is (topology, Sweep), what every job reads."""
    topo, sw = shared
    return [run_job(topo, sw, j) for j in jobs]


# ---- results.csv ----------------------------------------------------------------------------

def _line(row: dict) -> str:
    vals = []
    for c in COLUMNS:
        v = row[c]
        vals.append(f"{v:.6f}" if isinstance(v, float) else str(v))
    return ",".join(vals) + "\n"


def _key(row: dict) -> tuple:
    return (row["policy"], row["attack"], int(row["adoption"]), int(row["trial"]))


def _read_done(path: Path) -> dict[tuple, str]:
    """Finished rows of an earlier run, by key. A last line cut short by an interruption is dropped."""
    if not path.exists():
        return {}
    text = path.read_text()
    lines = text.split("\n")
    if lines and lines[0] != ",".join(COLUMNS):
        raise InputError(f"{path}:1: not a bgpsim results.csv (want the header {','.join(COLUMNS)})")
    done = {}
    for n, line in enumerate(lines[1:-1], start=2):  # the last piece has no newline: unfinished or empty
        parts = line.split(",")
        if len(parts) != len(COLUMNS):
            raise InputError(f"{path}:{n}: want {len(COLUMNS)} fields, got {len(parts)}")
        row = dict(zip(COLUMNS, parts))
        try:
            done[_key(row)] = line + "\n"
        except ValueError:
            raise InputError(f"{path}:{n}: adoption and trial must be integers") from None
    return done


# ---- the whole sweep ------------------------------------------------------------------------

def run_sweep(topo, sw: Sweep, out: Path, workers: int = 1, client=None, progress=None, figures: bool = True) -> dict:
    """Run what is not done yet, then write results.csv in canonical order, summary.json and, with
    `figures`, the figure."""
    resumable(out, "sweep", OUTPUTS)
    params_path = out / "sweep.json"
    params = sw.params()
    if params_path.exists():
        try:
            old = json.loads(params_path.read_text())
        except ValueError:
            raise InputError(f"{params_path}: not JSON; remove it or use another --out") from None
        if old != params:
            diff = ", ".join(f"{k} {old.get(k)!r} -> {v!r}" for k, v in params.items() if old.get(k) != v)
            raise InputError(f"{out} holds a sweep with other parameters ({diff}); use another --out")
    else:
        write_atomic(params_path, json.dumps(params, indent=1) + "\n")
    results = out / "results.csv"
    done = _read_done(results)
    jobs = sw.jobs()
    todo = [j for j in jobs if j not in done]
    if todo:
        prepare(topo, sw)
    if progress is not None:
        progress(len(jobs) - len(todo), len(jobs))
    f, _ = open_append(results, (",".join(COLUMNS) + "\n").encode())  # a torn last line, which _read_done left out, cut
    with f:
        def on_rows(rows):
            lines = []
            for row in rows:
                lines.append(_line(row))
                done[_key(row)] = lines[-1]
            f.write("".join(lines).encode())  # whole lines: an interrupted sweep resumes from them
            if progress is not None:
                progress(len(done), len(jobs))

        # forked workers inherit what prepare() computed; a Dask worker gets the graph once
        run_chunks(run_chunk, (topo, sw), todo, on_rows, workers, client)
    text = ",".join(COLUMNS) + "\n" + "".join(done[j] for j in jobs)
    write_atomic(results, text)
    summary = summarise(sw, list(csv.DictReader(io.StringIO(text))))
    write_atomic(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    if figures:
        from bgpsim.viz.sweep import sweep_figure

        sweep_figure(summary, out / "success.png")
    return summary


def summarise(sw: Sweep, rows: list[dict]) -> dict:
    """Mean and 90 % confidence interval (normal approximation) of each outcome per attack, policy
    and adoption level. A cell's `label` is its policy as legends show it (`aspa` -> `rov+aspa`)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["attack"], r["policy"], int(r["adoption"])), []).append(r)
    cells = []
    for (attack, policy, adoption), rs in groups.items():
        cell = {"attack": attack, "policy": policy, "label": label(policy), "adoption": adoption, "trials": len(rs)}
        for col in ("attacker_frac", "victim_frac", "disconnected_frac", "loop_frac", "diverted", *EDGE_COLUMNS):
            x = np.asarray([float(r[col]) for r in rs if r[col] != ""])  # a group without ASes: no value
            if not len(x):
                cell[col] = None
                continue
            half = Z90 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else 0.0
            cell[col] = {"mean": round(float(x.mean()), 6), "ci90": [round(float(x.mean() - half), 6), round(float(x.mean() + half), 6)]}
        cells.append(cell)
    return {"sweep": sw.params(), "trials": len(rows), "cells": cells}
