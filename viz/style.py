"""What every figure and the report share: the outcome colours and names, and how numbers are written.

One place, so a colour or a word means the same in every figure and on the page (attacker red, victim
green, disconnected grey, forwarding loop orange). No matplotlib here: the report imports this module
and should not pay for a plotting library it does not use.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

COLOURS = {
    "attacker": "#d62728",
    "victim": "#2ca02c",
    "disconnected": "#7f7f7f",
    "loop": "#ff7f0e",
}
# how a report says what community the victim's more-specifics carried
COMMUNITY_WORDS = {
    "no-export": "with NO_EXPORT (RFC 1997): only its neighbours use them",
    "no-advertise": "with NO_ADVERTISE (RFC 1997): only its neighbours use them",
    "blackhole": "to its providers, with BLACKHOLE (RFC 7999): they drop the traffic to them",
}
# quotes as numeric references, the forms markupsafe writes: the page keeps its bytes (docs/viz.md)
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def escape(v: object) -> str:
    """`v` as text safe inside HTML elements and double-quoted attributes."""
    return str(v).translate(_ESCAPES)


UNKNOWN_COLOUR = "#ffffff"  # an AS missing from `outcomes` (drawn white)

# What each outcome means, in words a student understands without the code.
OUTCOME_LABELS = {
    "attacker": "traffic reaches the attacker",
    "victim": "traffic reaches the victim",
    "disconnected": "no route (disconnected)",
    "loop": "caught in a forwarding loop",
}

def weighting_text(weighting: str) -> str:
    """In plain words, a traffic weighting as a run's result names it (bgpsim.sim.weighting.weights:
    "uniform", "customer-cone size", "IPv4 address space originated (FILE)", "weights from FILE")."""
    w = str(weighting) or "uniform"
    if w == "uniform":
        return "every source AS counts equally"
    if w == "customer-cone size":
        return "each source AS weighted by its customer-cone size"
    if w.startswith("IPv"):
        return f"each source AS weighted by its {w}"
    return f"each source AS weighted by the {w.removeprefix('weights from ')} file"


# ------------------------------------------------------------------------------------- numbers in words
# The numbers come typed from the run's RunResult; only a share may be unknown (None), written "—".

def pct(frac: float | None) -> str:
    """A fraction 0..1 as a percentage with one decimal, '—' when not known (None)."""
    return "—" if frac is None else f"{frac * 100:.1f} %"


def secs(t: float) -> str:
    """Seconds: whole numbers without decimals, else one decimal."""
    return f"{t:.0f}" if float(t).is_integer() else f"{t:.1f}"


def duration(d: float, seconds: str = ".1f") -> str:
    """A duration for a reader: '40 ms', '1.5 ms', '0.3 s', '12 s'. `seconds` is the format from 0.1
    to 10 s: '.1f' in the prose, '.2g' in the zoom titles ('0.26 s'), where the windows are short."""
    if d < 0.1:
        return f"{d * 1000:.0f} ms" if d >= 0.0015 else f"{d * 1000:.1f} ms"
    return f"{d:{seconds}} s" if d < 10 else f"{d:.0f} s"


def count(n: int) -> str:
    """A whole number with thousands separators."""
    return f"{n:,}"


def plural(n: int, one: str, many: str = "") -> str:
    """A count and its noun, agreeing: '1 change', '3 changes', '1 AS', '1,200 ASes' (`many`, when the
    plural is not `one` + 's')."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def join(items: Sequence[Any]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def as_label(asn: int | None, names: Mapping[int, str]) -> str:
    """'AS64500 (Example Net)', or 'AS64500' when the AS has no name; 'None' for no AS (a run without
    an attack has no attacker)."""
    if asn is None:
        return "None"
    name = names.get(asn)
    return f"AS{asn} ({name})" if name else f"AS{asn}"
