"""What the bench scripts measure of a command run as a child process: wall time, CPU time and peak
RSS (wait4's, of the child and the children it waited for). No bgpsim import here, so a script can
time its own imports after this one."""

from __future__ import annotations

import os
import subprocess
import sys
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


def compiled(root: Path = ROOT) -> None:
    """The checkout's bytecode written beforehand, as pip writes it when it installs the package.
    With PYTHONDONTWRITEBYTECODE set (this machine's shell has it, as many CI images do) a child
    whose bytecode is stale compiles each module changed since at every start, and the figures
    would time the compiler."""
    folders = [str(root / d) for d in ("bgpsim", "rpki", "viz", "scenarios") if (root / d).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True, stdout=subprocess.DEVNULL)
