"""What `bgpsim validate` checks routes against: the VRPs (with SLURM files applied), the ASPAs or
the relationships standing in for them.

A big VRP file (MIN_BYTES or more) is read by the second process of bgpsim.validate.split while the
first reads the dumps. With one CPU it is read first, in the one process: forking a reader there
(as a VRPLoader once did) only cost time (docs/validate.md).
"""

from __future__ import annotations

import importlib
import os
import threading

from bgpsim.rpki.rov import VRPTable
from bgpsim.rpki.vrps import mapped_bytes, read_vrp_columns

MIN_BYTES = 4 * 2**20  # smaller VRP files (fifty thousand lines or so) load too fast to gain from a fork


def load_vrps(path: str) -> VRPTable:
    """The VRPs of an rpki-client or Routinator JSON or CSV file (or '-'), indexed."""
    importer = threading.Thread(target=importlib.import_module, args=("numpy",), daemon=True)
    importer.start()
    with mapped_bytes(path, what="--vrps") as data:
        table = VRPTable.from_columns(*read_vrp_columns(data, path))
    importer.join()
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
