"""What every figure and the report share: the outcome colours and names, and how numbers are written.

One place, so a colour or a word means the same in every figure and on the page (attacker red, victim
green, disconnected grey, forwarding loop orange). No matplotlib here: the report imports this module
and should not pay for a plotting library it does not use.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

COLOURS = {
    "attacker": "#d62728",
    "victim": "#2ca02c",
    "disconnected": "#7f7f7f",
    "loop": "#ff7f0e",
}
UNKNOWN_COLOUR = "#ffffff"  # an AS missing from `outcomes` (drawn white)

# What each outcome means, in words a student understands without the code.
OUTCOME_LABELS = {
    "attacker": "traffic reaches the attacker",
    "victim": "traffic reaches the victim",
    "disconnected": "no route (disconnected)",
    "loop": "caught in a forwarding loop",
}

WEIGHTING_LABELS = {
    "uniform": "every source AS counts equally",
    "cone": "each source AS weighted by its customer-cone size",
    "space": "each source AS weighted by its announced address space",
}


def weighting_text(weighting: str) -> str:
    """A plain-language description of a traffic weighting name (or weight file)."""
    w = str(weighting)
    return WEIGHTING_LABELS.get(w, f"each source AS weighted by the file {Path(w).name}" if w else "uniform")


# ------------------------------------------------------------------------------------- numbers in words
# The inputs are often read back from result.json, so each writer takes anything and answers "—" for a
# value that is missing or not a number, instead of failing the whole report.

def num(x: Any) -> float | None:
    """`x` as a float, None when it is missing, not a number or NaN."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def nonzero(x: Any) -> bool:
    try:
        return float(x) > 0
    except (TypeError, ValueError):
        return False


def pct(frac: Any) -> str:
    """A fraction 0..1 as a percentage with one decimal, '—' when missing."""
    v = num(frac)
    return "—" if v is None else f"{v * 100:.1f} %"


def secs(t: Any) -> str:
    """Seconds: whole numbers without decimals, else one decimal; '—' when missing."""
    v = num(t)
    if v is None:
        return "—"
    return f"{v:.0f}" if v.is_integer() else f"{v:.1f}"


def duration(d: float, seconds: str = ".1f") -> str:
    """A duration for a reader: '40 ms', '1.5 ms', '0.3 s', '12 s'. `seconds` is the format from 0.1
    to 10 s: '.1f' in the prose, '.2g' in the zoom titles ('0.26 s'), where the windows are short."""
    if d < 0.1:
        return f"{d * 1000:.0f} ms" if d >= 0.0015 else f"{d * 1000:.1f} ms"
    return f"{d:{seconds}} s" if d < 10 else f"{d:.0f} s"


def count(n: Any) -> str:
    """A whole number with thousands separators, '—' when missing."""
    try:
        return f"{int(n):,}"
    except (TypeError, ValueError):
        return "—"


def join(items: Sequence[Any]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def as_label(asn: Any, names: Mapping[int, str]) -> str:
    """'AS64500 (Example Net)', or 'AS64500' when the AS has no name."""
    try:
        asn = int(asn)
    except (TypeError, ValueError):
        return str(asn)
    name = names.get(asn)
    return f"AS{asn} ({name})" if name else f"AS{asn}"
