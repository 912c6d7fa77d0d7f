"""All-destinations routing: every AS's converged route toward every other AS 

One origin at a time, the converged-state solver (`bgpsim.sim.engine.steady.propagate`, plain
Gao-Rexford, no defence) gives every AS its relationship class and next hop toward the origin. The
next hops form a tree rooted at the origin (a child's path is one AS longer than its parent's), so
these two arrays per origin are enough to rebuild any path, and the tree gives the summaries.

    summary = compute_routes(topo, "routes", workers=2)     # every AS as origin; or origins=[ASN, ...]
    load_route("routes", 13335, 3333)                       # [13335]: AS3333's path toward AS13335
    r = load_origin("routes", 13335)                        # every AS's next hop and class toward it

Output directory (written into a temporary directory beside it and renamed into place at the end,
so an interrupted run leaves no output that looks complete; `summary.json` is written last):

  summary.json     ASes, origins (done), seconds, (source, origin) pairs with source != origin and
                   how many have a route, the histogram of path lengths in AS hops (the Loc-RIB
                   path's length: 1 = the origin is a neighbour), mean and maximum, solver runs, format.
  centrality.csv   asn,transit_pairs,share — for each AS, the (source, origin) pairs whose path passes
                   through it as an intermediate hop (neither source nor origin); share = that count
                   over the pairs with a route. Most central first, ties by ASN.
  asns.npy         uint32: every AS, ascending; row i of every chunk is AS asns[i].
  origins.npy      uint32: the origins in storage order (see "Derived routes"); origin number p is
                   column p % K of chunk p // K.
  chunk-NNNNNN.npz K origins each (K = summary["format"]["chunk"], 128; the last may hold fewer):
                     origins  uint32 (K,)   the chunk's origin ASNs
                     nh       uint32 (n, K) nh[i, k]: ASN of AS asns[i]'s next hop toward origins[k];
                                            0 for the origin itself and for ASes without a route
                     rel      uint8  (n, K) relationship class of that route: 0 origin, 1 customer,
                                            2 peer, 3 provider, 9 no route
                   Plain `numpy.load` reads them; `load_origin` and `load_route` rebuild paths.

The layout (AS-major chunks of K = 128 origins, deflate level 1, next hops as ASNs) was chosen by
measurement: an AS's next hop changes little from one origin to the next, so its row of K origins
deflates well. The figures and the alternatives tried are in docs/destinations.md.

Derived routes. Many ASes (36% of the 2025 graph) have a single link, to their provider (see
`single_homed`). Routes toward such an AS are its provider's with one more AS, so the solver runs
once per group (a provider, then the ASes single-homed to it, in that storage order) and the
group's other columns are copies with two entries changed (on the 2025 graph, 50,464 solver runs
instead of 78,643).
`derive=False` solves every origin; the files are the same bytes (tests check it).

Transit centrality is computed per solved origin, compiled (core/steady_trace.c, `steady_descendants`):
every routed AS adds 1 to its next hop's count, then the parents, deepest first, pass their counts
to their own next hops.
Workers (bgpsim.base.pool: forked where the platform can fork) get the topology once each,
take chunks of origins, write their chunk files and send back their counts; sums of integers, so any
number of workers writes the same bytes (only `seconds` in summary.json differs). On a Dask cluster
(`client`) the topology is scattered to each worker once and each chunk's file comes back as bytes,
written here: the workers need no file system in common with this process.
"""

from __future__ import annotations

import csv
import io
import ipaddress
import json
import threading
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from bgpsim import _core

from .engine.steady import NONE, Seed, plan_for, propagate
from bgpsim.base.errors import InputError
from bgpsim.base.outdir import staged
from bgpsim.base.pool import as_completed, process_pool
from .policy import CUSTOMER, ORIGIN
from bgpsim.graph.topology import Topology

FORMAT = "bgpsim-routes/1"
CHUNK = 128  # origins per chunk file
LEVEL = 1  # zlib level of the chunk files
_PREFIX = ipaddress.ip_network("10.0.0.0/8")  # only a label for the solver
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same routes give the same bytes

__all__ = ["compute_routes", "load_origin", "load_route", "OriginRoutes", "single_homed", "FORMAT", "CHUNK"]


# ---------------------------------------------------------------------------------------------------
# Solving


def single_homed(topo: Topology) -> np.ndarray:
    """For every AS, its provider when that provider is its only neighbour (no other provider, no
    peer, no customer), else -1.

    Routes toward such an AS S are routes toward its provider P with one more AS: P's announcement
    reaches everyone else exactly as S's does through P (every path is one AS longer, so every
    preference and tie-break is the same), and S, which has no customer, passes P's route to no one.
    Only P (a customer route to S) and S (the origin) differ."""
    n = topo.n
    p2c = topo.p2c.astype(np.int64)
    deg = np.bincount(p2c.ravel(), minlength=n) + np.bincount(topo.p2p.astype(np.int64).ravel(), minlength=n)
    one = p2c[deg[p2c[:, 1]] == 1]
    out = np.full(n, -1, dtype=np.int64)
    out[one[:, 1]] = one[:, 0]
    return out


def _plan_order(topo: Topology, idx: np.ndarray, derive: bool) -> tuple[np.ndarray, np.ndarray]:
    """Origins in storage order and the origin each one's routes are solved for (its base).

    Each base comes first, then the single-homed ASes whose routes derive from it (also when the
    base itself was not asked for), so a chunk solves each base once. The order does not depend on
    `derive`: derived or solved, the files are the same."""
    prov = single_homed(topo)[idx]
    base = np.where(prov >= 0, prov, idx)
    order = np.lexsort((idx, prov >= 0, base))
    seq, base = idx[order], base[order]
    return seq, (base if derive else seq)


class _Solver:
    """Per-process state: the solver's plan, ASNs as they go on disk, and buffers reused by every chunk."""

    def __init__(self, topo: Topology, chunk_size: int):
        self.n = n = topo.n
        self.plan = plan_for(topo)
        # Index -1 (no next hop) picks the appended 0.
        self.asn_ext = np.append(topo.asns.astype(np.uint32), np.uint32(0))
        self.nh = np.empty((chunk_size, n), dtype=np.uint32)  # origin-major, as solved
        self.rel = np.empty((chunk_size, n), dtype=np.uint8)
        self.nh_t = np.empty((n, chunk_size), dtype=np.uint32)  # AS-major, as stored
        self.rel_t = np.empty((n, chunk_size), dtype=np.uint8)
        self.runs = 0  # propagations

    def chunk(self, origins: np.ndarray, bases: np.ndarray):
        """Routes toward `origins` (indices), each solved as its base (see `_plan_order`).

        Returns next-hop ASNs and classes (AS-major: views of reused buffers), transit counts, and
        counts of announced path lengths (index L: ASes announcing a path of L ASes; 0: no route)."""
        n, k = self.n, len(origins)
        transit = np.zeros(n, dtype=np.int64)
        lengths = np.zeros(2, dtype=np.int64)
        cuts = np.flatnonzero(bases[1:] != bases[:-1]) + 1
        for j0, j1 in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [k])).tolist()):
            b = int(bases[j0])
            r = propagate(self.plan, _PREFIX, [Seed(b)], None)
            self.runs += 1
            cnt = np.bincount(r.length)
            desc = _descendants(r.nh, r.length, b)
            np.take(self.asn_ext, r.nh, out=self.nh[j0])
            self.rel[j0] = r.rel.view(np.uint8)
            self.nh[j0 + 1:j1] = self.nh[j0]
            self.rel[j0 + 1:j1] = self.rel[j0]
            # The group: b itself when asked for, then the ASes single-homed to b (see `single_homed`),
            # whose routes are b's, one AS longer: b holds a customer route to the origin.
            d = origins[j0:j1][origins[j0:j1] != b]
            own = (j1 - j0) - len(d)
            if len(d):
                rows = np.arange(j1 - len(d), j1)
                self.nh[rows, b], self.nh[rows, d] = self.asn_ext[d], 0
                self.rel[rows, b], self.rel[rows, d] = CUSTOMER, ORIGIN
            derived = np.zeros(len(cnt) + 1, dtype=np.int64)
            derived[0], derived[2:] = cnt[0], cnt[1:]
            derived[3] -= 1  # each d announced (b, d) as b's customer; it is the origin now
            derived[1] += 1
            total = np.pad(cnt * own, (0, 1)) + derived * len(d)
            if len(total) > len(lengths):
                lengths = np.pad(lengths, (0, len(total) - len(lengths)))
            lengths[: len(total)] += total
            transit += desc * (j1 - j0)
            transit[b] += len(d) * (n - int(cnt[0]) - 2)  # b carries every other routed AS's traffic to d
        return _transpose(self.nh[:k], self.nh_t[:, :k]), _transpose(self.rel[:k], self.rel_t[:, :k]), transit, lengths


def _transpose(a: np.ndarray, out: np.ndarray, block: int = 2048) -> np.ndarray:
    """a.T into out, by blocks of ASes that stay in cache (twice as fast as one strided copy)."""
    for b in range(0, a.shape[1], block):
        out[b:b + block] = a[:, b:b + block].T
    return out


def _descendants(nh: np.ndarray, length: np.ndarray, origin: int) -> np.ndarray:
    """For every AS, how many other ASes route through it toward `origin`; 0 for the origin (the
    destination). Compiled (core/steady_trace.c): each routed AS counts once at its next hop, then the ASes,
    longest route first, add what they gathered to their next hops."""
    desc = np.empty(len(nh), dtype=np.int64)
    _core.steady_descendants(nh, length, origin, desc)
    return desc


def _write_chunk(path, origin_asns: np.ndarray, nh: np.ndarray, rel: np.ndarray, level: int) -> None:
    """One .npz of K origins, AS-major (see the module docstring); identical routes, identical bytes.
    Members are streamed into the zip (no copy of the arrays) with fixed times. It goes straight into
    the staged output directory, which is dropped whole if the run fails, or (a Dask worker's) into
    a BytesIO: both are seekable, so the zip is written the same way."""
    with zipfile.ZipFile(path, "w", allowZip64=True) as zf:
        for name, arr in (("origins", origin_asns.astype(np.uint32)), ("nh", nh), ("rel", rel)):
            info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            try:
                info.compress_level = level  # Python >= 3.13
            except AttributeError:
                info._compresslevel = level  # Python 3.11, 3.12: the same field, then private
            with zf.open(info, "w", force_zip64=arr.nbytes > 2**31) as f:
                np.lib.format.write_array(f, np.ascontiguousarray(arr), allow_pickle=False)


def _chunk_name(c: int) -> str:
    return f"chunk-{c:06d}.npz"


_STATE: dict = {}


def _init_worker(topo: Topology, out: str, level: int, chunk_size: int) -> None:
    _STATE["solver"] = _Solver(topo, chunk_size)
    _STATE["out"] = Path(out)
    _STATE["level"] = level


def _solve(s: _Solver, job, target, level: int) -> tuple:
    """Solve one chunk with `s` and write its file to `target` (a path, or a BytesIO); what the
    summaries need."""
    c, origins, bases = job
    runs = s.runs
    nh, rel, transit, lengths = s.chunk(origins, bases)
    _write_chunk(target, s.asn_ext[origins], nh, rel, level)
    nz = np.flatnonzero(transit)
    return c, len(origins), nz, transit[nz], lengths, s.runs - runs


def _run_chunk(job):
    """Solve and write one chunk in a local worker; send back what the summaries need."""
    return _solve(_STATE["solver"], job, _STATE["out"] / _chunk_name(job[0]), _STATE["level"])


_THREAD = threading.local()  # on a Dask worker: each thread's solver (a worker may run several chunks at once)


def _dask_chunk(shared, job):
    """One chunk on a Dask worker, which may be another machine: its file comes back as bytes for the
    client to write. The solver (the plan and 50 MB of buffers, reused by each chunk) is made once per
    worker thread and kept for every chunk of the run."""
    topo, level, chunk_size = shared
    if getattr(_THREAD, "shared", None) is not shared:
        _THREAD.shared, _THREAD.solver = shared, _Solver(topo, chunk_size)
    f = io.BytesIO()
    res = _solve(_THREAD.solver, job, f, level)
    return f.getvalue(), res


def _lean(topo: Topology) -> Topology:
    """The topology without its cached Python lists: what a worker needs, cheap to pickle."""
    t = Topology(asns=topo.asns, p2c=topo.p2c, p2p=topo.p2p, source=topo.source, name=topo.name)
    t.__dict__["ranks"] = topo.ranks
    return t


def compute_routes(topo: Topology, out_dir, workers: int = 1, origins=None, progress=None, *,
                   chunk_size: int = CHUNK, level: int = LEVEL, start_method: str | None = None,
                   derive: bool = True, client=None) -> dict:
    """Every AS's route toward each origin (ASNs; default every AS), written to `out_dir`.

    workers > 1 splits the origins across processes (`start_method`: 'fork' where available, else
    'spawn'); `client`, a Dask client, across its cluster's workers instead, which send each chunk's
    file back to be written here (no file system shared with them is needed). The files are the same
    bytes whatever runs them. `progress(done, total)`
    is called after each chunk of `chunk_size` origins. `derive`: take the routes toward a
    single-homed AS from its provider's (see `single_homed`) instead of solving them again; the
    files are the same either way. Returns the summary (also written as summary.json).
    """
    started = time.perf_counter()
    out = Path(out_dir)
    if origins is None:
        idx = np.arange(topo.n, dtype=np.int64)
    else:
        idx = np.unique(np.array([topo.idx(int(a), "origin AS") for a in origins], dtype=np.int64))
    if chunk_size < 1 or workers < 1:
        raise ValueError("chunk_size and workers must be at least 1")
    seq, bases = _plan_order(topo, idx, derive)
    jobs = [(c, seq[s:s + chunk_size], bases[s:s + chunk_size]) for c, s in enumerate(range(0, len(seq), chunk_size))]
    total = len(seq)

    with staged(out, "routes") as tmp:
        transit = np.zeros(topo.n, dtype=np.int64)
        lengths = np.zeros(1, dtype=np.int64)
        done = runs = 0

        def collect(res) -> None:
            nonlocal lengths, done, runs
            _, k, nz, vals, ln, r = res
            runs += r
            transit[nz] += vals
            if len(ln) > len(lengths):
                lengths = np.pad(lengths, (0, len(ln) - len(lengths)))
            lengths[: len(ln)] += ln
            done += k
            if progress is not None:
                progress(done, total)

        nproc = min(workers, len(jobs))
        if client is not None:
            from distributed import as_completed as dask_completed

            shared = client.scatter([(_lean(topo), level, chunk_size)], broadcast=True)[0]  # once per worker
            for fut in dask_completed([client.submit(_dask_chunk, shared, job, pure=False) for job in jobs]):
                data, res = fut.result()
                (tmp / _chunk_name(res[0])).write_bytes(data)  # the staged directory: dropped whole on failure
                collect(res)
        elif nproc <= 1:
            _init_worker(topo, str(tmp), level, chunk_size)  # the topology's own cached plan
            try:
                for job in jobs:
                    collect(_run_chunk(job))
            finally:
                _STATE.clear()
        else:
            with process_pool(nproc, _init_worker, (_lean(topo), str(tmp), level, chunk_size),
                              start_method=start_method) as pool:
                for fut in as_completed([pool.submit(_run_chunk, job) for job in jobs]):
                    collect(fut.result())

        np.save(tmp / "asns.npy", topo.asns.astype(np.uint32))
        np.save(tmp / "origins.npy", topo.asns[seq].astype(np.uint32))
        reachable = int(lengths[2:].sum())
        _write_centrality(tmp / "centrality.csv", topo.asns, transit, reachable)
        hist = {str(h - 1): int(c) for h, c in enumerate(lengths.tolist()) if h >= 2 and c}
        hops = np.arange(len(lengths)) - 1
        summary = {
            "format": {"name": FORMAT, "chunk": chunk_size, "compression": f"zip deflate level {level}",
                       "layout": "chunk-NNNNNN.npz: origins (K,), nh (n, K) next-hop ASN (0: none), "
                                 "rel (n, K) class (0 origin, 1 customer, 2 peer, 3 provider, 9 none)"},
            "topology": topo.name or topo.source,
            "ases": int(topo.n),
            "origins": total,
            "origins_done": done,
            "pairs": total * (topo.n - 1),
            "reachable_pairs": reachable,
            "unreachable_pairs": total * (topo.n - 1) - reachable,
            "path_length_histogram": hist,
            "mean_path_length": round(float((hops[2:] * lengths[2:]).sum()) / reachable, 6) if reachable else None,
            "max_path_length": max((int(h) for h in hist), default=None),
            "transit_ases": int(np.count_nonzero(transit)),
            "solver_runs": runs,
            "seconds": round(time.perf_counter() - started, 3),
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _write_centrality(path: Path, asns: np.ndarray, transit: np.ndarray, reachable: int) -> None:
    order = np.lexsort((asns, -transit))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["asn", "transit_pairs", "share"])
        for a, t in zip(asns[order].tolist(), transit[order].tolist()):
            w.writerow([a, t, f"{t / reachable:.6g}" if reachable else "0"])


# ---------------------------------------------------------------------------------------------------
# Reading


@dataclass
class OriginRoutes:
    """Every AS's route toward one origin, as stored."""

    origin: int  # ASN
    asns: np.ndarray  # uint32, ascending: every AS
    nh: np.ndarray  # uint32: next-hop ASN of asns[i]; 0 for the origin and ASes without a route
    rel: np.ndarray  # uint8: 0 origin, 1 customer, 2 peer, 3 provider, 9 no route

    def _idx(self, asn: int) -> int:
        i = int(np.searchsorted(self.asns, asn))
        if i == len(self.asns) or int(self.asns[i]) != asn:
            raise InputError(f"AS{asn} is not in the topology of these routes")
        return i

    def path(self, asn: int) -> list[int] | None:
        """AS `asn`'s Loc-RIB path toward the origin, as ASNs: next hop first, origin last; [] for
        the origin itself; None without a route."""
        j = self._idx(int(asn))
        if self.rel[j] == NONE:
            return None
        out: list[int] = []
        while self.rel[j] != ORIGIN:
            a = int(self.nh[j])
            out.append(a)
            if len(out) > len(self.asns):
                raise InputError(f"routing loop toward AS{self.origin} from AS{asn}: the files are damaged")
            j = self._idx(a)
        return out


@lru_cache(maxsize=4)
def _meta(out: str, stamp) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """ASes, origins sorted, their storage positions, origins per chunk."""
    d = Path(out)
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    if summary.get("format", {}).get("name") != FORMAT:
        raise InputError(f"not a {FORMAT} directory", str(d / "summary.json"))
    origins = np.load(d / "origins.npy")
    pos = np.argsort(origins, kind="stable")
    return np.load(d / "asns.npy"), origins[pos], pos, int(summary["format"]["chunk"])


@lru_cache(maxsize=1)
def _chunk(path: str, stamp) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with np.load(path) as z:
        return z["origins"], z["nh"], z["rel"]


def _stamp(p: Path):
    """What tells a rewritten file from the one cached."""
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError("no such file (not a finished routes directory?)", str(p)) from None
    return st.st_ino, st.st_mtime_ns, st.st_size


def load_origin(out_dir, origin_asn: int) -> OriginRoutes:
    """Every AS's route toward `origin_asn` from a `compute_routes` directory."""
    d = Path(out_dir).resolve()
    asns, origins, pos, k = _meta(str(d), _stamp(d / "summary.json"))
    q = int(np.searchsorted(origins, origin_asn))
    if q == len(origins) or int(origins[q]) != origin_asn:
        raise InputError(f"AS{origin_asn} is not among the origins computed", str(d))
    p = int(pos[q])
    path = d / _chunk_name(p // k)
    ch_origins, nh, rel = _chunk(str(path), _stamp(path))
    col = p % k
    if int(ch_origins[col]) != origin_asn:
        raise InputError(f"chunk does not hold AS{origin_asn} where origins.npy says", str(path))
    return OriginRoutes(int(origin_asn), asns, np.ascontiguousarray(nh[:, col]), np.ascontiguousarray(rel[:, col]))


def load_route(out_dir, origin_asn: int, asn: int) -> list[int] | None:
    """AS `asn`'s Loc-RIB path toward `origin_asn` (next hop first, origin last; [] for the origin
    itself), or None when it has no route."""
    return load_origin(out_dir, origin_asn).path(asn)
