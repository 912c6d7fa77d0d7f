"""`bgpsim validate` in two processes: the second CPU reads half the dumps.

The input is cut into units of work: what the compiled core reads of each buffer of an MRT file
(MRTReader.pieces: about 1 MiB of whole records) and each other file (bgpdump text, a capture)
whole. Both processes read every MRT file (the core reads a dump in a fraction of the time its
routes take to check, and what a record means may hang on earlier ones: a PEER_INDEX_TABLE, the
OPENs of an ADD-PATH session), decompressed once, by the first, which sends the second the chunks
(bgpsim.validate.tee), and take units from a counter in shared memory, the next unit going
to whichever asks first. Each checks its units with its own Checker, writing their CSV lines to its
own part file, and passes over the others. The second process is
forked when the command starts: it reads a big VRP file and hands the index over as a mapped file,
then works. At the end it sends what it found: counts, findings, where its units' lines are in its
part, its warnings. The first merges them into what one process reading every unit in order would
have made: routes.csv is the header and the units' lines in unit order, each process copying its
own units from its part into place (the two know where from each other's index); findings keep
the example of the earliest unit; warnings come in unit order (the reader's, which both processes
meet, once); a fault is the one met first (the VRPs', else the earliest unit's). Last, the MOAS
and sub-prefix conflicts are worked out for the lower halves of the address spaces here and for
the upper halves there (Findings.half), at once.
"""
from __future__ import annotations

import mmap
import multiprocessing
import os
import pickle
import sys
from pathlib import Path
from typing import Callable

from bgpsim.base.errors import InputError
from bgpsim.base.outdir import write_pieces
from .tee import Piped, Sender, Tee

FRAMING, READING = 0, 1  # a warning met while framing a unit, or while reading it
_NEVER = 2**62


def possible() -> bool:
    """Whether two processes can share the work: fork, and more than one CPU."""
    return "fork" in multiprocessing.get_all_start_methods() and (os.cpu_count() or 1) > 1


class Split:
    """Forks the second process at once; `run()` then does this process's share and merges. The
    checker is made in each process by `make_checker(vrps, write)`; `vrps` is a VRPTable already
    loaded (inherited by the fork) or the path of a VRP file the second process loads and sends."""

    def __init__(self, files: list[str], work_dir: Path, make_checker: Callable, vrps, load: Callable):
        self.files = files
        self.dir = work_dir
        self.make_checker = make_checker
        ctx = multiprocessing.get_context("fork")
        self._next = ctx.RawValue("q", 0)  # the next unit nobody has taken
        self._lock = ctx.Lock()
        self.done = ctx.RawValue("q", 0)  # routes checked by both, for the progress bar
        self._stop = ctx.RawValue("q", _NEVER)  # after a fault in this unit, units past it are left
        self._conn, child = ctx.Pipe()
        self._table = vrps if not isinstance(vrps, str) else None
        # the MRT files' chunks, decompressed here and sent there (bgpsim.validate.tee)
        self._stream, write = os.pipe()
        self._sender: Sender | None = None
        self._proc = ctx.Process(target=self._child, args=(child, vrps, load, write), daemon=True,
                                 name="bgpsim-validate")
        self._proc.start()
        child.close()
        os.close(self._stream)  # the second process's end
        self._stream = None
        self._sender = Sender(write)  # a thread: started after the fork
        # the first file decompressed from now on, while this process imports the checks
        self._first = Tee(files[0], self._sender) if files else None

    def take(self) -> int:
        with self._lock:
            n = self._next.value
            self._next.value = n + 1
        return n

    # ---- the second process ------------------------------------------------------------------------------
    def _child(self, conn, vrps, load, write: int) -> None:
        os.close(write)  # the first process's end
        try:
            if isinstance(vrps, str):
                vrps = load(vrps)
                conn.send(("table", _publish(vrps, self.dir / ".vrps")))
            (tally, index, warnings), checker = self._work(vrps, self.dir / ".part-2", keep_framing=False)
            found = checker.findings
            # the conflicts of the lower halves of the address spaces are worked out there, of the
            # upper here: the rows cross in files (through the pipe, two big messages could each
            # wait for the other to be read)
            _save(found.half(upper=False), self.dir / ".rows-2")
            conn.send(("done", (tally, found.state(None), index, warnings)))
            _, out, head, index1 = conn.recv()  # the other's rows are there, and where its units are
            _place(out, head, index1, index, 2, self.dir / ".part-2")
            found.add_rows(_load(self.dir / ".rows-1"))
            answer = ("conflicts", found.conflicts())
        except InputError as e:  # with its unit: -1 for the VRPs, which one process reads first
            answer = ("input", ((e.message, e.source, e.where), getattr(e, "unit", -1)))
        except BaseException as e:  # noqa: BLE001 - whatever it was, the first process says so
            answer = ("error", f"{type(e).__name__}: {e}")
        try:
            conn.send(answer)
        except OSError:  # the first process has ended already (a fault of its own came first)
            pass

    # ---- both --------------------------------------------------------------------------------------------
    def _work(self, vrps, part: Path, keep_framing: bool, progress: Callable[[int], None] | None = None,
              out: Path | None = None, head: bytes = b""):
        """Checks the units this process takes; returns ((counts, [(unit, offset, length)] in `part`,
        warnings as (unit, FRAMING or READING, n, text)), the checker). A fault is raised with its
        unit. With `out` (the first process), the header `head` and the units it takes before the
        other takes any go straight into routes.csv, where they belong (their offset: -1): they
        need no placing."""
        index: list[tuple[int, int, int]] = []
        warnings: list[tuple[int, int, int, str]] = []
        state = {"unit": 0, "phase": FRAMING, "gap": -1 if out is None else _NEVER}

        def warn(message: str) -> None:
            if state["phase"] == READING or keep_framing:
                warnings.append((state["unit"], state["phase"], len(warnings), message))

        with open(part, "wb") as fh, open(out if out is not None else os.devnull, "wb") as fo:
            fo.write(head)

            def write(lines: bytes, unit: int) -> None:
                if unit < state["gap"]:  # no unit of the other before it
                    index.append((unit, -1, len(lines)))
                    write_pieces(fo, lines)
                    return
                index.append((unit, fh.tell(), len(lines)))
                write_pieces(fh, lines)

            checker = self.make_checker(vrps, write)
            try:
                self._units(checker, state, warn, progress)
            except InputError as e:
                e.unit = state["unit"]
                raise
            checker.drain()
        return (checker.tally, index, warnings), checker

    def _units(self, checker, state: dict, warn, progress) -> None:
        """Every unit in order: the ones this process takes are checked, the others framed and
        passed over; none past a unit where the other process met a fault (`_stop`). state["gap"]
        becomes the first unit this process did not take, once it knows it."""
        mine = self.take()
        if mine != 0:
            state["gap"] = min(state["gap"], 0)
        for unit, (check, pass_over) in enumerate(self._plan(checker, warn)):
            if unit >= self._stop.value:
                return
            if unit == mine:
                state.update(unit=unit, phase=READING)
                checker.unit = unit
                self._progress(check(), progress)
                mine = self.take()
                if mine != unit + 1:
                    state["gap"] = min(state["gap"], unit + 1)
            elif pass_over is not None:
                pass_over()
            state.update(unit=unit + 1, phase=FRAMING)

    def _plan(self, checker, warn):
        """Each unit as (check it: routes read, pass over it or None): an MRT file's buffers one by
        one, any other file whole."""
        from bgpsim.mrt.reader import MRTReader, RouteBatch, read_routes

        def check_piece(mrt, piece):
            batch = RouteBatch.of([piece], mrt.decoded)
            checker.feed_batch(batch)
            checker.tally.state_changes += int((piece.g["kind"] == 3).sum())
            return len(batch)

        def check_file(reader, path):
            n = 0
            for r in reader(path, warn):
                checker.feed(r)
                n += 1
            checker.drain()
            return n

        for index, path in enumerate(self.files):
            chunks = self._chunks(index, path)
            reader = chunks.reader()
            if reader is not read_routes:
                chunks.close()
                yield (lambda reader=reader, path=path: check_file(reader, path)), None
                continue
            mrt = MRTReader(path, warn, chunks)  # both read every record (their warnings, met while
            for piece in mrt.pieces():  # framing, the first keeps): what a record means may hang on earlier ones
                yield (lambda m=mrt, p=piece: check_piece(m, p)), None

    def _chunks(self, index: int, path: str):
        """The decompressed stream of file `index`: the first process decompresses it, the second
        reads the chunks it sends; `reader()` first tells the file's format."""
        if self._sender is None:
            return Piped(self._stream)
        if index == 0:
            return self._first
        return Tee(path, self._sender)

    def _progress(self, n: int, progress) -> None:
        with self._lock:
            self.done.value += n
            total = self.done.value
        if progress:
            progress(total)

    # ---- the first process -------------------------------------------------------------------------------
    def _vrps(self):
        """The VRPs: loaded here before the fork, or sent by the second process (waited for)."""
        if self._table is None:
            kind, value = self._recv()
            if kind != "table":
                self._fail(kind, value)
            self._table = _attach(value, self.dir / ".vrps")
        return self._table

    def _recv(self):
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            return "error", f"it ended (exit status {self._proc.exitcode})"

    def _fail(self, kind: str, value) -> None:
        if kind == "input":
            raise InputError(*value[0])
        raise RuntimeError(f"bgpsim validate: the second process failed: {value}")

    def run(self, out: Path, header: str, progress: Callable[[int], None] | None = None):
        """This process's share, then the merge: writes `out` (routes.csv) and returns the checker
        holding everything, its findings not finished yet, and the MOAS and sub-prefix findings of
        the upper halves of the address spaces, worked out by the second process meanwhile (the
        argument of the findings' `finish`)."""
        source = _Lazy(self)
        try:
            head = header.encode()
            (_, index, warnings), checker = self._work(source, self.dir / ".part-1", True, progress, out, head)
            _save(checker.findings.half(upper=True), self.dir / ".rows-1")  # the upper halves' conflicts: there
            self._conn.send(("rows", out, head, index))
            kind, value = self._recv()
            if kind != "done":
                self._fail(kind, value)
            tally, findings, index2, warnings2 = value
            checker.tally.merge(tally)
            checker.findings.merge(findings)
            checker.findings.add_rows(_load(self.dir / ".rows-2"))
            for *_, message in sorted(warnings + warnings2):
                print(f"bgpsim: warning: {message}", file=sys.stderr)
            _place(out, head, index, index2, 1, self.dir / ".part-1")  # the other places its own
            mine = checker.findings.conflicts()  # the lower halves', while the other does the upper
            kind, value = self._recv()
            if kind != "conflicts":
                self._fail(kind, value)
            return checker, mine + value
        except InputError as e:
            # the fault one process would meet first: in the VRPs, or in the earlier unit
            self._stop.value = getattr(e, "unit", -1)
            self._sender.close()  # the file being read ends there for the other process too
            kind, value = self._recv()
            if kind == "table":
                kind, value = self._recv()
            if kind == "input" and value[1] < self._stop.value:
                raise InputError(*value[0]) from None
            raise
        finally:
            self.close()

    def close(self) -> None:
        self._sender.close()
        self._conn.close()
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        for name in (".part-1", ".part-2", ".vrps", ".rows-1", ".rows-2"):
            (self.dir / name).unlink(missing_ok=True)


def _save(rows, path: Path) -> None:
    """Findings rows (bgpsim.validate.conflicts.Rows) to a file."""
    import numpy as np

    with open(path, "wb") as f:
        for part in rows.arrays():
            np.save(f, part, allow_pickle=False)


def _load(path: Path):
    import numpy as np

    from .conflicts import Rows

    with open(path, "rb") as f:
        packed, wide = np.load(f, allow_pickle=False), np.load(f, allow_pickle=False)
    path.unlink()  # read once: freed now rather than in the serial end (close)
    return Rows([packed], [wide], distinct=True)


def _publish(table, path: Path) -> tuple[bytes, list[tuple[int, int]]]:
    """Writes the arrays of `table` to `path` as they are in memory (pickle protocol 5 hands them
    over out of band) and returns the rest of the pickle and where each array is in the file: the
    other process maps the file instead of reading tens of megabytes through a pipe."""
    buffers: list[pickle.PickleBuffer] = []
    head = pickle.dumps(table, protocol=5, buffer_callback=buffers.append)
    places = []
    with open(path, "wb") as f:
        at = 0
        for b in buffers:
            raw = b.raw()
            places.append((at, raw.nbytes))
            write_pieces(f, raw)
            pad = -raw.nbytes % 64  # each array on a cache line
            f.write(bytes(pad))
            at += raw.nbytes + pad
    return head, places


def _attach(published: tuple[bytes, list[tuple[int, int]]], path: Path):
    """The table `_publish` wrote, its arrays mapped read-only from the file."""
    head, places = published
    if not places:
        return pickle.loads(head)
    with open(path, "rb") as f:
        view = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    path.unlink()  # the mapping outlives the name
    return pickle.loads(head, buffers=[view[at:at + n] for at, n in places])


class _Lazy:
    """The VRPs as bgpsim.validate.check.Checker takes them when they may still be loading."""

    def __init__(self, split: Split):
        self.split = split

    def poll(self):
        s = self.split
        if s._table is None and not s._conn.poll():
            return None
        return s._vrps()

    def wait(self):
        return self.split._vrps()


def _place(out: Path, head: bytes, index1: list, index2: list, which: int, part: Path) -> None:
    """Copies the units of process `which` (1 or 2; its lines in `part`) into routes.csv where they
    go: after the header `head` (written by process 1), every unit's lines in unit order. Each
    process places its own, at once; units at offset -1 are in place already."""
    parts = sorted([(u, 1, at, n) for u, at, n in index1] + [(u, 2, at, n) for u, at, n in index2])
    dst = os.open(out, os.O_WRONLY | os.O_CREAT, 0o666)  # not truncated: the other may be writing
    try:
        with open(part, "rb") as src:
            to = len(head)
            for _, w, at, n in parts:
                if w == which and at >= 0:
                    _copy(src.fileno(), dst, at, n, to)
                to += n
    finally:
        os.close(dst)
    part.unlink()  # placed: freed by the process that wrote it, at once


def _copy(src: int, dst: int, at: int, n: int, to: int) -> None:
    """n bytes of the file `src` from offset `at` to offset `to` of `dst` (descriptors): in the
    kernel where it can be."""
    while n > 0:
        try:
            sent = os.copy_file_range(src, dst, n, at, to)
        except (AttributeError, OSError):  # not Linux, or not between these files
            sent = os.pwrite(dst, os.pread(src, min(n, 1 << 22), at), to)
        if not sent:
            raise OSError(f"part file ends {n} bytes short")
        at += sent
        to += sent
        n -= sent
