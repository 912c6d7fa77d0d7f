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

`run_chunks` hands out chunks of jobs that all read one shared value: here one by one, to a pool
of workers (the value passed to each once, by the initializer), or to a Dask cluster (the value
scattered to each worker once); `connect` makes the Dask client, or says in one line why not.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable

from .collector import frozen
from .errors import InputError

__all__ = ["as_completed", "auto_workers", "can_fork", "chunks", "connect", "cpus", "process_pool", "run_chunks"]


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


class _Pool(ProcessPoolExecutor):
    """A forked pool's workers start at its first `submit`: the parent's objects are frozen
    (`gc.freeze`) while they fork, so that a worker's collector never walks what it inherited, which
    would cost it a tenth of a second a walk on an incident's heap and copy every page it reads."""

    _started = False

    def submit(self, fn, /, *args, **kwargs):
        if self._started:
            return super().submit(fn, *args, **kwargs)
        self._started = True
        with frozen():
            return super().submit(fn, *args, **kwargs)


def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple = (), *,
                 start_method: str | None = None) -> ProcessPoolExecutor:
    """A pool of `workers` processes (at least 1), forked where the platform can fork, else started
    by its default method (or by `start_method`); `initializer(*initargs)` runs once in each
    worker. Use it as a context manager, or call `shutdown`."""
    method = start_method or ("fork" if can_fork() else None)
    return _Pool(max(1, workers), mp_context=multiprocessing.get_context(method), initializer=initializer,
                 initargs=initargs)


def chunks(jobs: list, workers: int) -> list[list]:
    """About eight chunks per worker (so they finish together), of at most 50 jobs (so progress shows)."""
    size = min(50, max(1, len(jobs) // (workers * 8)))
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


_SHARED: list = []  # in a worker: the value every chunk of `run_chunks` reads


def _share(value) -> None:
    _SHARED[:] = [value]


def _run_shared(fn: Callable, chunk: list):
    return fn(_SHARED[0], chunk)


def run_chunks(fn: Callable[[Any, list], list], shared, jobs: list, on_result: Callable[[list], None],
               workers: int = 1, client=None, meanwhile: Callable | None = None, alongside: bool = False):
    """`fn(shared, chunk)` for chunks of `jobs` (fn importable by name): job by job in this process
    (workers 1), in `workers` processes, or on the Dask cluster of `client`; `on_result(list)` as each
    chunk is done. `meanwhile()` runs in this process once the chunks are handed out (first, when
    there is no one to hand them to). With `alongside`, workers 1 is one worker process beside
    `meanwhile`, and 0 this process. Returns what `meanwhile` returned."""
    other = None
    if client is not None:
        from distributed import as_completed as dask_completed

        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        value = client.scatter([shared], broadcast=True)[0]  # a list of one: the value whole, once per worker
        futures = [client.submit(fn, value, c, pure=False) for c in chunks(jobs, nworkers)]
        other = meanwhile() if meanwhile else None
        for fut in dask_completed(futures):
            on_result(fut.result())
    elif workers > 1 or (alongside and workers == 1):
        with process_pool(workers, initializer=_share, initargs=(shared,)) as pool:
            futures = [pool.submit(_run_shared, fn, c) for c in chunks(jobs, workers)]
            other = meanwhile() if meanwhile else None
            for fut in as_completed(futures):
                on_result(fut.result())
    else:
        other = meanwhile() if meanwhile else None
        for job in jobs:
            on_result(fn(shared, [job]))
    return other


def connect(address: str, timeout: float = 8.0):
    """A Dask client for `address`, or an InputError within `timeout` seconds."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'distributed'") from None
    from urllib.parse import urlsplit

    try:  # a malformed address at once, not after `timeout` seconds of Dask trying it
        url = urlsplit(address if "://" in address else f"tcp://{address}")
        if not url.hostname or not url.port:
            raise ValueError("want tcp://HOST:PORT")
    except ValueError as e:
        raise InputError(f"--scheduler {address}: {e}") from None
    if url.scheme in ("tcp", "tls"):  # nothing listening: said at once, not after Dask's retries
        import socket

        try:
            socket.create_connection((url.hostname, url.port), timeout).close()
        except OSError as e:
            raise InputError(f"--scheduler {address}: no Dask scheduler answers there ({e.strerror or e})") from None
    try:
        return Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError(f"--scheduler {address}: no Dask scheduler answers there ({type(e).__name__}: {e})") from None
