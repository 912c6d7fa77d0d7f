"""How much traffic each source AS sends: uniform, customer-cone size, address space originated
(from a prefix-to-AS table), or a CSV of `asn,weight` a user gives."""

from __future__ import annotations

import csv
import io
import ipaddress
from pathlib import Path

import numpy as np

from bgpsim.base.errors import InputError
from bgpsim.graph.topology import _open_text


def weights(kind: str, topo, version: int = 4, pfx2as: str | None = None) -> tuple[np.ndarray, str]:
    """Weights (one per AS) and a label for reports."""
    if kind == "uniform":
        return np.ones(topo.n), "uniform"
    if kind == "cone":
        return topo.cone_sizes.astype(float), "customer-cone size"
    if kind == "space":
        if not pfx2as:
            raise InputError("weighting 'space' needs a prefix-to-AS table (--pfx2as FILE)")
    path = pfx2as if kind == "space" else kind
    text = _open_text(Path(path)).decode("utf-8", errors="replace")
    if kind == "space":
        return address_space(topo, text, path, version), f"IPv{version} address space originated ({Path(path).name})"
    return from_csv(topo, text, path), f"weights from {Path(path).name}"


def address_space(topo, text: str, path: str, version: int = 4) -> np.ndarray:
    """Sum of the sizes of the prefixes each AS originates (IPv4 in addresses, IPv6 in /64s).

    Reads pyasn's `prefix<TAB>asn` lines (';' comments) and CAIDA's routeviews-prefix2as
    `address<TAB>length<TAB>asns` lines, where a MOAS origin `a_b` or an AS set `a,b` splits the
    prefix evenly between its ASes.
    """
    w = np.zeros(topo.n)
    index = topo.index
    unit = 32 if version == 4 else 64
    read = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        read += 1
        parts = line.split()
        try:
            if len(parts) == 2:
                net = ipaddress.ip_network(parts[0], strict=False)
                origins = parts[1]
            elif len(parts) == 3:
                net = ipaddress.ip_network(f"{parts[0]}/{parts[1]}", strict=False)
                origins = parts[2]
            else:
                raise ValueError
            asns = [int(a) for a in origins.replace(",", "_").split("_")]
        except ValueError:
            raise InputError(f"want 'prefix<TAB>asn' or 'address<TAB>length<TAB>asn', got {line[:60]!r}", path, number) from None
        if net.version != version or net.prefixlen > unit:
            continue
        size = float(2 ** (unit - net.prefixlen)) / len(asns)
        for a in asns:
            i = index.get(a)
            if i is not None:
                w[i] += size
    if not w.any():  # all traffic weighing nothing: every share would be 0/0
        raise InputError(f"no AS of the topology originates an IPv{version} prefix listed here" if read
                         else "holds no prefix-to-AS lines", path)
    return w


def from_csv(topo, text: str, path: str) -> np.ndarray:
    """`asn,weight` rows (a header row is allowed). ASes of the graph not listed weigh 0; listed ASNs
    that are not in the graph are ignored."""
    w = np.zeros(topo.n)
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if number == 1 and not row[0].strip().isdigit():
            continue  # header
        try:
            if len(row) != 2:
                raise ValueError
            asn, weight = int(row[0]), float(row[1])
            if weight < 0 or weight != weight or weight == float("inf"):
                raise ValueError
        except ValueError:
            raise InputError(f"want 'asn,weight' with a non-negative weight, got {','.join(row)[:60]!r}", path, number) from None
        i = topo.index.get(asn)
        if i is not None:
            w[i] = weight
    if not w.any():
        raise InputError("no AS of the topology has a positive weight", path)
    return w
