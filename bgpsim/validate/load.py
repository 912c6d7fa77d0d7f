"""What `bgpsim validate` checks routes against: the VRPs (with SLURM files applied), the ASPAs or
the relationships standing in for them.

A big VRP file (MIN_BYTES or more) is read on a thread of its own (`Loading`) while the dumps are
read and their batches prepared; the compiled core reads and indexes it without the GIL.
"""

from __future__ import annotations

import importlib
import os
import threading

from bgpsim.rpki.rov import VRPTable
from bgpsim.rpki.vrps import mapped_bytes, read_vrp_columns

MIN_BYTES = 4 * 2**20  # smaller VRP files (fifty thousand lines or so) load too fast to gain from a thread


def load_vrps(path: str) -> VRPTable:
    """The VRPs of an rpki-client or Routinator JSON or CSV file (or '-'), indexed."""
    importer = threading.Thread(target=importlib.import_module, args=("numpy",), daemon=True)
    importer.start()
    with mapped_bytes(path, what="--vrps") as data:
        table = VRPTable.from_columns(*read_vrp_columns(data, path))
    importer.join()
    table._families()
    return table


class Loading:
    """The VRPs of a file being read by a thread (started here): `poll()` gives the table, or None
    while it is not read yet; `wait()` the table. A fault in the file is raised by either."""

    def __init__(self, path: str):
        self.path = path
        self._table: VRPTable | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._read, name="bgpsim-vrps", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._table = load_vrps(self.path)
        except BaseException as e:  # noqa: BLE001 - raised where the table is asked for
            self._error = e

    def poll(self) -> VRPTable | None:
        return None if self._thread.is_alive() else self.wait()

    def wait(self) -> VRPTable:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._table


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

    topo = None
    if relationships:
        from bgpsim.graph.topology import load_topology

        topo = load_topology(relationships)
    aspa = None
    if aspa_path:
        aspa = AspaTable.from_payloads(_aspas(aspa_path))
    elif topo is not None:
        aspa = AspaTable.from_relationships(topo)
    return aspa, topo


def _aspas(path: str) -> list:
    """The validated ASPAs of a relying party's JSON. A file of another kind is an error saying what
    it holds (read as ASPAs, a VRP file gives none, and every path would pass); a JSON whose list of
    ASPAs is empty, a warning."""
    from bgpsim.base.errors import InputError, stderr_warning
    from bgpsim.rpki.vrps import read_payloads, read_text
    from bgpsim.rpki.vrps.read import detect_format

    text = read_text(path, what="--aspa")
    kind = detect_format(text)
    if kind not in (None, "json"):
        header = text.split("\n", 1)[0].rstrip("\r")
        raise InputError(f"holds ROAs/VRPs (CSV header {header!r}), not ASPAs: want a relying party's JSON "
                         "(rpki-client: aspas or provider_authorizations; Routinator: aspas)", path)
    payloads = read_payloads(text, path)
    if not payloads.aspas:
        # the key's absence, not an empty list: a JSON of ROAs only (a substring test; the reader keeps no keys)
        if '"aspas"' not in text and '"provider_authorizations"' not in text:
            raise InputError(f"holds no ASPAs ({len(payloads.origins):,} ROAs/VRPs, no 'aspas' or "
                             "'provider_authorizations' list): want a relying party's JSON with ASPAs", path)
        stderr_warning(f"--aspa {path}: holds no ASPAs (an empty list): no path can be ASPA-invalid")
    return payloads.aspas


def big(path: str) -> bool:
    """Whether the VRP file at `path` is worth reading on a thread (MIN_BYTES or more)."""
    try:
        return path != "-" and os.path.getsize(path) >= MIN_BYTES
    except OSError:
        return False
