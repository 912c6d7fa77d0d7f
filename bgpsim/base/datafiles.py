"""Input files: whether a file the user named can be read (`check_input`), and where large data files
live: a file a scenario names (a CAIDA graph, say) is looked for beside the scenario, then in the
folders of $BGPSIM_DATA (and their caida/ subfolders), so that bundled files can name data that is
not shipped with them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InputError

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


def check_input(path: str | os.PathLike, flag: str | None = None) -> None:
    """An InputError saying what `path` is, unless it is a file bgpsim can read: missing, a
    directory, or a pipe (the readers open a file more than once: to tell its format, then to read
    it). /dev/null passes: it reads as an empty file, which the readers warn of."""
    where = f"{flag} {path}" if flag else str(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except OSError as e:
        raise InputError(f"{where}: cannot read: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{where}: is a directory; want a file")
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise InputError(f"{where}: is a pipe, which bgpsim cannot read twice; want a file (or '-' where the "
                         "command reads standard input)")
