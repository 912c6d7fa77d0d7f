"""Where large data files live: a file a scenario names (a CAIDA graph, say) is looked for beside the
scenario, then in the folders of $BGPSIM_DATA (and their caida/ subfolders), so that bundled files
can name data that is not shipped with them."""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "BGPSIM_DATA"


def find(name: str, beside: Path) -> str:
    """`name` as a path: beside `beside` (or absolute) if it is there, else the first file of that
    name in $BGPSIM_DATA; else the path beside, for the reader to say it is missing."""
    here = Path(name) if Path(name).is_absolute() else beside / name
    if here.is_file():
        return str(here)
    base = Path(name).name
    for folder in filter(None, os.environ.get(DATA_ENV, "").split(os.pathsep)):
        for candidate in (Path(folder) / base, Path(folder) / "caida" / base):
            if candidate.is_file():
                return str(candidate)
    return str(here)
