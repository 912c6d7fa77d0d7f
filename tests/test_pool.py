"""bgpsim.base.pool.run_chunks: where the jobs run, beside `meanwhile` or after it."""

import os

import pytest

from bgpsim.base.pool import can_fork, run_chunks


def _pids(shared, chunk):
    return [(k, shared, os.getpid()) for k in chunk]


def _run(workers, alongside):
    got = []
    here = run_chunks(_pids, "x", [0, 1, 2], got.extend, workers, meanwhile=lambda: os.getpid(), alongside=alongside)
    return here, sorted(got)


def test_in_this_process_after_meanwhile():
    for workers, alongside in ((1, False), (0, True)):
        here, got = _run(workers, alongside)
        assert here == os.getpid()
        assert got == [(0, "x", here), (1, "x", here), (2, "x", here)]


@pytest.mark.skipif(not can_fork(), reason="workers are forked where the platform can fork")
def test_one_worker_beside_meanwhile():
    here, got = _run(1, True)  # figures drawn while the data files are written: a pool of one
    assert here == os.getpid()
    assert [k for k, _, _ in got] == [0, 1, 2] and all(s == "x" for _, s, _ in got)
    assert len({pid for _, _, pid in got}) == 1 and got[0][2] != here


def _frozen_in_worker(shared, chunk):
    import gc

    return [gc.get_freeze_count()]


@pytest.mark.skipif(not can_fork(), reason="workers are forked where the platform can fork")
def test_a_forked_worker_inherits_the_heap_frozen():
    import gc

    from bgpsim.base.collector import frozen

    heap = [[k] for k in range(1000)]  # noqa: F841  objects alive as the workers fork
    got = []
    run_chunks(_frozen_in_worker, None, [0, 1], got.extend, 2)
    assert len(got) == 2 and min(got) > 1000  # the worker's collector never walks them
    assert gc.get_freeze_count() == 0  # nor is anything left frozen here
    with frozen():
        assert gc.get_freeze_count() > 1000
        with frozen():  # a nested block leaves the outer one's objects frozen
            pass
        assert gc.get_freeze_count() > 1000
    assert gc.get_freeze_count() == 0


def test_growing_puts_off_only_the_oldest_generation():
    import gc
    import weakref

    from bgpsim.base.collector import growing

    before = gc.get_threshold()

    class Node:
        pass

    with pytest.raises(KeyError), growing():
        assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] > 10**6
        a = Node()
        a.self = a  # a young cycle: still collected in the block
        gone = weakref.ref(a)
        del a
        gc.collect(0)
        assert gone() is None
        raise KeyError
    assert gc.get_threshold() == before
