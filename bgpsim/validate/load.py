"""The VRPs of `bgpsim validate`, loaded in a second process while the first reads the dumps.

Reading a million VRPs (text, parsing, the index rpki.rov builds) is work of the same order as
reading a full-table dump (docs/validate.md), and neither needs the other until the first routes
are checked: `VRPLoader` forks a process that reads `--vrps` and builds the VRPTable's index, then
sends the table back through a pipe (pickled numpy arrays, cheap next to reading the file).
Meanwhile bgpsim.validate.check reads the dumps and puts the batches aside until the table comes
(`Checker` takes the loader for the table: `poll()` gives the table or None, `wait()` the table).
An error in the file comes back as the same InputError, raised where the table is wanted.

Used only where fork is (Linux, macOS: the child needs none of the parent's threads) and the file is
big enough to gain (MIN_BYTES); otherwise `load_vrps` reads it in the same process.
"""

from __future__ import annotations

import multiprocessing
import os

from bgpsim.rpki.rov import VRPTable
from bgpsim.rpki.vrps import read_bytes, read_vrp_columns

from bgpsim.base.errors import InputError

MIN_BYTES = 4 * 2**20  # smaller VRP files (fifty thousand lines or so) load too fast to gain from a fork


def load_vrps(path: str) -> VRPTable:
    """The VRPs of an rpki-client or Routinator JSON or CSV file (or '-'), indexed."""
    table = VRPTable.from_columns(*read_vrp_columns(read_bytes(path, what="--vrps"), path))
    table._families()
    return table


def with_slurm(path: str, slurms: list[str]) -> VRPTable:
    """The VRPs of `path` with RFC 8416 SLURM files applied (their filters, then their assertions)."""
    from bgpsim.rpki.rov import VRP
    from bgpsim.rpki.slurm import apply_slurm, load_slurm
    from bgpsim.rpki.vrps import read_payloads, read_text

    payloads = apply_slurm(read_payloads(read_text(path, what="--vrps"), path), [load_slurm(p) for p in slurms])
    return VRPTable(VRP(o.vrp.prefix, o.vrp.max_length, o.vrp.asn) for o in payloads.origins)


def path_checks(aspa_path: str | None, relationships: str | None):
    """(ASPA table, topology) for path verification: validated ASPAs from `aspa_path` (rpki-client
    JSON), or the CAIDA relationships standing in for them; the topology also finds leaks."""
    from bgpsim.rpki.aspa_path import AspaTable
    from bgpsim.rpki.vrps import read_payloads, read_text

    topo = None
    if relationships:
        from bgpsim.graph.topology import load_topology

        topo = load_topology(relationships)
    aspa = None
    if aspa_path:
        aspa = AspaTable.from_payloads(read_payloads(read_text(aspa_path, what="--aspa"), aspa_path).aspas)
    elif topo is not None:
        aspa = AspaTable.from_relationships(topo)
    return aspa, topo


def big(path: str) -> bool:
    """Whether the VRP file at `path` is worth reading in a second process (MIN_BYTES or more)."""
    try:
        return path != "-" and os.path.getsize(path) >= MIN_BYTES
    except OSError:
        return False


def start(path: str):
    """A VRPLoader for `path`, or the table itself when a second process would not pay."""
    if not big(path) or "fork" not in multiprocessing.get_all_start_methods():
        return load_vrps(path)
    return VRPLoader(path)


def _child(path: str, conn) -> None:
    try:
        answer = ("table", load_vrps(path))
    except InputError as e:
        answer = ("input", (e.message, e.source, e.where))
    except BaseException as e:  # noqa: BLE001 - whatever it was, the parent says so
        answer = ("error", f"{type(e).__name__}: {e}")
    conn.send(answer)


class VRPLoader:
    """The VRPs of `path`, read by a forked process."""

    def __init__(self, path: str):
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_child, args=(path, child), daemon=True, name="bgpsim-vrps")
        self._proc.start()
        child.close()
        self._answer: tuple | None = None

    def poll(self) -> VRPTable | None:
        if self._answer is None and not self._conn.poll():
            return None
        return self.wait()

    def wait(self) -> VRPTable:
        if self._answer is None:
            try:
                self._answer = self._conn.recv()
            except (EOFError, OSError):
                self._answer = ("error", f"the process reading it ended (exit status {self._proc.exitcode})")
            if self._answer[0] != "table":
                self.close()
        kind, value = self._answer
        if kind == "table":
            return value
        if kind == "input":
            raise InputError(*value)
        raise InputError(f"--vrps: cannot load: {value}")

    def close(self) -> None:
        """Ends the process (if it is still at work) and frees the pipe."""
        self._conn.close()
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
