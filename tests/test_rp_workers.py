"""The relying party's worker processes (rpki.rp `workers`): the result is the single-process one,
payloads and rejections in the same order."""

from __future__ import annotations

import pytest
from rpki_tamper import add_roa
from test_ca import AT, DEEP, EXAMPLE, NOW
from test_rp import make

from bgpsim.base.pool import as_completed, auto_workers, can_fork, process_pool
from bgpsim.rpki import build, rp
from bgpsim.rpki.rp import validate


def _same(a, b):
    assert a.payloads.origins == b.payloads.origins
    assert a.payloads.aspas == b.payloads.aspas
    assert a.payloads.router_keys == b.payloads.router_keys
    assert a.rejected == b.rejected
    assert (a.cas, a.objects) == (b.cas, b.objects)


@pytest.mark.parametrize("chunk", [1, rp.CHUNK], ids=["a-leaf-a-chunk", "default-chunks"])
@pytest.mark.parametrize("text,ta,ca", [(EXAMPLE, "ta", "isp1"), (DEEP, "root", "lir")], ids=["example", "deep"])
def test_workers_give_the_single_process_result(tmp_path, monkeypatch, text, ta, ca, chunk):
    """Leaves a chunk each: some checked by the worker, some taken back by this process at the walk's
    end, in whatever mix the timing gives; the result is the single-process one all the same."""
    out = make(tmp_path, text)
    # a rejection among the leaves, between good ones: a ROA signed by another key
    add_roa(out, ca, 64999, ["192.0.2.0/24"], "192.0.2.0/24", NOW, signer=build.new_rsa_key())
    single = validate(out / f"{ta}.tal", out, AT, workers=1)
    assert single.rejected and single.payloads.origins
    monkeypatch.setattr(rp, "PARALLEL_MIN", 1)  # every publication point goes to the workers
    monkeypatch.setattr(rp, "CHUNK", chunk)
    parallel = validate(out / f"{ta}.tal", out, AT, workers=2)
    _same(single, parallel)


def test_the_walks_rejections_wait_behind_the_leaves_sent(tmp_path, monkeypatch):
    """Rejections of the walk itself (a stale manifest) come after those of the leaves before them in
    the walk, sent to a worker or not: bad ROAs in the CAs walked before, a stale manifest after."""
    from datetime import timedelta

    from rpki_tamper import resign_manifest

    out = make(tmp_path, DEEP)
    for ca, n in (("root", 3), ("rir", 2)):
        for _ in range(n):
            add_roa(out, ca, 64999, ["10.0.0.0/24" if ca == "root" else "10.0.1.0/24"], "10.0.0.0/16", NOW,
                    signer=build.new_rsa_key())
    resign_manifest(out, "other", NOW, this_update=NOW - timedelta(days=3), next_update=NOW - timedelta(days=1))
    single = validate(out / "root.tal", out, AT, workers=1)
    assert len(single.rejected) == 6 and "stale" in " ".join(r.reason for r in single.rejected)
    monkeypatch.setattr(rp, "PARALLEL_MIN", 1)
    for chunk in (1, rp.CHUNK):
        monkeypatch.setattr(rp, "CHUNK", chunk)
        _same(single, validate(out / "root.tal", out, AT, workers=2))


def test_auto_workers_is_at_least_one():
    assert 1 <= auto_workers() <= max(1, __import__("os").cpu_count() or 1)
    assert auto_workers(1) == 1 and 1 <= auto_workers(2) <= 2
    assert auto_workers(needs_fork=True) == (auto_workers() if can_fork() else 1)


def test_cli_workers(tmp_path, capsys):
    from bgpsim.cli import main
    out = make(tmp_path, DEEP)
    args = ["rpki", "validate", "--tal", str(out / "root.tal"), "--repo", str(out), "--now", AT.isoformat(),
            "--format", "csv"]
    assert main(args + ["--workers", "1"]) == 0
    one = capsys.readouterr().out
    assert main(args + ["--workers", "2"]) == 0
    assert capsys.readouterr().out == one
    with pytest.raises(SystemExit) as refused:  # the argument parser's refusal
        main(args + ["--workers", "0"])
    assert refused.value.code == 2 and "--workers" in capsys.readouterr().err


def test_a_failing_worker_falls_back_to_this_process(tmp_path, monkeypatch):
    import os
    out = make(tmp_path, DEEP)
    single = validate(out / "root.tal", out, AT, workers=1)
    parent, real = os.getpid(), rp._leaves

    def leaves_here_only(*args):
        if os.getpid() != parent:
            raise MemoryError("a worker that fails")
        return real(*args)

    monkeypatch.setattr(rp, "_leaves", leaves_here_only)
    monkeypatch.setattr(rp, "PARALLEL_MIN", 1)
    _same(single, validate(out / "root.tal", out, AT, workers=2))


# bgpsim.base.pool, which the relying party's and the CA's worker processes use

_WORKER: dict = {}  # per process: what the pool's initializer set up
_BEFORE_THE_POOL: dict = {}


def _set_up(value):
    _WORKER["value"] = value


def _job(x):
    import os
    return os.getpid(), _WORKER["value"] + x, _BEFORE_THE_POOL.get("seen")


def test_a_pool_sets_up_each_worker_and_collects_in_any_order():
    import os
    _BEFORE_THE_POOL["seen"] = "inherited"
    try:
        with process_pool(2, initializer=_set_up, initargs=(100,)) as pool:
            futures = [pool.submit(_job, i) for i in range(20)]
            done = [f.result() for f in as_completed(futures)]
            in_order = list(pool.map(_job, range(5), chunksize=2))
    finally:
        _BEFORE_THE_POOL.clear()
    assert sorted(v for _, v, _ in done) == [100 + i for i in range(20)]
    assert [v for _, v, _ in in_order] == [100, 101, 102, 103, 104]
    assert all(pid != os.getpid() for pid, _, _ in done + in_order)
    if can_fork():  # forked workers inherit what the parent held when the pool started them
        assert {seen for _, _, seen in done} == {"inherited"}
