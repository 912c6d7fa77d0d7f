"""A reader that goes away (`bgpsim ... | head -1`) ends a command quietly, as it ends other Unix
tools: nothing on stderr, exit status 141 (128 + SIGPIPE).

Each command that prints runs as the real `python -m bgpsim` with its standard output a pipe whose
read end is closed: at once (the first write fails, or the interpreter's last flush), or after the
first line of an output larger than a pipe holds (a write fails mid-way, as under `head -1`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from mqtt_broker import MOSQUITTO, NO_MOSQUITTO, Broker

ROOT = Path(__file__).resolve().parent.parent
LEAK = str(files("bgpsim.scenarios") / "teaching-leak.toml")
REPO = ["--tal", "{d}/repo/ta.tal", "--repo", "{d}/repo", "--now", "2026-03-01T13:00:00"]
ROUTES = 20_000  # lines of the big dump: 1.8 MB of output, far more than a pipe holds


def big_dump(path: Path) -> None:
    path.write_text("".join(f"BGP4MP|1427846400|A|192.0.2.1|64500|10.{i >> 8}.{i & 255}.0/24|64500 64501|IGP|"
                            f"192.0.2.1|0|0||NAG||\n" for i in range(ROUTES)))


# (command line, closed after reading its first line, what stderr holds besides nothing)
CASES = {
    "incident-list": (["incident", "--list"], False, ""),
    "incident-list-json": (["incident", "--list", "--format", "json"], False, ""),
    "sweep": (["sweep", "--trials", "2", "--adoption", "0,50%", "--out", "{out}"], False, ""),
    "sweep-json": (["sweep", "--trials", "2", "--adoption", "0,50%", "--format", "json", "--out", "{out}"], False, ""),
    "run-timed": (["run", "--out", "{out}"], False, ""),
    "run-steady-json": (["run", LEAK, "--engine", "steady", "--format", "json", "--no-figures", "--out", "{out}"], False, ""),
    "routes-workers": (["routes", "--workers", "2", "--out", "{out}"], False, ""),
    "rpki-ca-build": (["rpki", "ca", "build", "{d}/spec.toml", "--now", "2026-03-01T12:00:00", "--out", "{out}"],
                      False, ""),
    "rpki-vrps": (["rpki", "vrps", "--vrps", "{d}/vrps.csv"], False, ""),
    "rpki-validate-workers": (["rpki", "validate", *REPO, "--workers", "2"], False, ""),
    "dump": (["dump", "{d}/dump.txt"], False, ""),
    "dump-big": (["dump", "{d}/big.txt"], True, ""),
    "dump-big-json": (["dump", "--format", "json", "{d}/big.txt"], True, ""),
    "dump-big-csv": (["dump", "--format", "csv", "{d}/big.txt"], True, ""),
    "validate-table": (["validate", "{d}/dump.txt", "--vrps", "{d}/vrps.csv", "--out", "{out}"], False, ""),
    "validate-json": (["validate", "{d}/dump.txt", "--vrps", "{d}/vrps.csv", "--format", "json", "--out", "{out}"],
                      False, ""),
    "validate-big-csv": (["validate", "{d}/big.txt", "--vrps", "{d}/vrps.csv", "--format", "csv", "--out", "{out}"],
                         True, ""),
    "bgpsec-sign": (["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64497",
                     "--signing-keys", "{d}/repo/.keys"], False, ""),
    # its counts go to stderr whatever becomes of the table
    "bgpsec-verify": (["bgpsec", "verify", "{d}/signed.hex", "--router-keys", "{d}/rp.json", "--target-as", "64497"], False,
                      "bgpsim: 1 valid\n"),
}


def closed_pipe(args: list[str], cwd: Path, read_a_line: bool) -> tuple[int, bytes, str]:
    """(exit status, the line read or b"", stderr) of `python -m bgpsim ARGS`, its stdout a pipe
    whose read end is closed at once or after one line."""
    r, w = os.pipe()
    # as users run it: under PYTHONUNBUFFERED, CPython's text layer takes a write cut short by the
    # reader's going for a whole one (no error: the command ends 0, the rest unwritten)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "bgpsim", *args], stdout=w, stderr=subprocess.PIPE, cwd=cwd, env=env)
    os.close(w)
    with os.fdopen(r, "rb") as reader:
        line = reader.readline() if read_a_line else b""
    _, err = p.communicate(timeout=300)
    return p.returncode, line, err.decode()


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_closed_pipe_ends_a_command_quietly(cli_inputs, tmp_path, case):
    inputs = cli_inputs
    if not (inputs / "big.txt").exists():
        big_dump(inputs / "big.txt")
    args, read_a_line, stderr = CASES[case]
    args = [a.replace("{d}", str(inputs)).replace("{out}", str(tmp_path / "out")) for a in args]
    status, line, err = closed_pipe(args, tmp_path, read_a_line)
    assert (status, err) == (141, stderr), err
    assert line or not read_a_line
    if case == "validate-big-csv":  # the output directory is whole: the reader's going is no failure
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        assert summary["routes"] == ROUTES
        assert (tmp_path / "out" / "routes.csv").read_text().count("\n") == ROUTES + 1


@pytest.mark.skipif(MOSQUITTO is None, reason=NO_MOSQUITTO)
def test_a_closed_pipe_ends_the_monitor_quietly(cli_inputs, tmp_path):
    with Broker(tmp_path / "broker", tls=False, password=False) as broker:
        status, _, err = closed_pipe(["monitor", "--broker", broker.url(), "--vrps", str(cli_inputs / "vrps.csv"),
                                      "--until-idle", "0.2", "--out", str(tmp_path / "out")], tmp_path, False)
    assert (status, err) == (141, ""), err


@pytest.mark.parametrize("stdout, gone", [("closed-pipe", True), ("open-pipe", False), ("file", False)])
def test_only_a_pipe_whose_reader_went_away_counts_as_gone(tmp_path, stdout, gone):
    """bgpsim.cli takes a BrokenPipeError for the reader's going only when standard output says so:
    one from another pipe or a socket is a fault to see (a traceback), not status 141."""
    r, w = os.pipe()
    if stdout == "closed-pipe":
        os.close(r)
    target = open(tmp_path / "out", "wb") if stdout == "file" else os.fdopen(w, "wb")
    with target:
        p = subprocess.run([sys.executable, "-c", "import sys\nfrom bgpsim.base.console import stdout_gone\n"
                            "sys.stderr.write(str(stdout_gone()))"], stdout=target, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    if stdout != "closed-pipe":
        os.close(r)
    if stdout == "file":
        os.close(w)
    assert p.stderr == str(gone)
