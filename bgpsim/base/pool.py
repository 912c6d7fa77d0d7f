"""Worker processes: how many to start, and a pool of them; the one way bgpsim starts a pool.

A pool is a `concurrent.futures.ProcessPoolExecutor`: give it jobs with `submit` or `map`, and
collect them in order (`map`, or the futures in turn) or as they finish (`as_completed`, exported
here). `initializer(*initargs)` runs once in each worker before its first job: per-worker state
(keys, a topology) goes there, into a module global the jobs read, so it crosses to each worker
once instead of with every job.

Workers are forked where the platform can fork (Linux, the BSDs, macOS): they start without
importing anything again and inherit the parent's memory as it was when the pool started its
workers, such as data made before the pool or a test's stand-ins. Elsewhere the platform's default
start method runs, and what workers need must be picklable and importable. `start_method` chooses
another.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable

__all__ = ["as_completed", "auto_workers", "can_fork", "cpus", "process_pool"]


def can_fork() -> bool:
    """Whether this platform starts processes by fork."""
    return "fork" in multiprocessing.get_all_start_methods()


def cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def auto_workers(limit: int | None = None, *, needs_fork: bool = False) -> int:
    """The number of worker processes to use by default: one per CPU (`cpus()`), at most `limit`,
    and at least 1, meaning "work in this process". With `needs_fork`, 1 where the platform cannot
    fork: for work that only pays when workers start fast and inherit the parent's memory."""
    if needs_fork and not can_fork():
        return 1
    n = cpus()
    return max(1, n if limit is None else min(n, limit))


def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple = (), *,
                 start_method: str | None = None) -> ProcessPoolExecutor:
    """A pool of `workers` processes (at least 1), forked where the platform can fork, else started
    by its default method (or by `start_method`); `initializer(*initargs)` runs once in each
    worker. Use it as a context manager, or call `shutdown`."""
    method = start_method or ("fork" if can_fork() else None)
    return ProcessPoolExecutor(max(1, workers), mp_context=multiprocessing.get_context(method),
                               initializer=initializer, initargs=initargs)
