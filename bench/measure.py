"""What the bench scripts measure of a command run as a child process: wall time, CPU time and peak
RSS (wait4's, of the child and the children it waited for). No bgpsim import here, so a script can
time its own imports after this one."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one run of `cmd`, its output discarded; `env` and `cwd` the
    child's (default: this checkout's code). A failure ends the script with the child's last words."""
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd,
                                env=env or {**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        if status != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed: {err.read().decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
