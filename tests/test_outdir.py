"""Output safety: bgpsim never deletes or overwrites what it did not write.

Every command that writes is pointed at places it must refuse (a non-empty directory bgpsim did not
write, a file, a read-only directory, /proc/x, the current directory, a path under a file): each gives
one line on stderr and exit status 2, and every file that was there is byte-identical afterwards. An
earlier bgpsim output is replaced; an empty directory is used; a failure leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DUMP, VRPS

from bgpsim.base import outdir
from bgpsim.cli import main
from bgpsim.base.errors import InputError

ROOT = Path(__file__).resolve().parent.parent



def commands(inputs: Path) -> dict[str, list[str]]:
    """Each writing command, its output flag last (the target is appended)."""
    return {
        "run": ["run", "--quiet", "--no-figures", "--out"],
        "sweep": ["sweep", "--trials", "1", "--adoption", "0", "--quiet", "--out"],
        "routes": ["routes", "--workers", "1", "--quiet", "--out"],
        "validate": ["validate", str(inputs / "dump.txt"), "--vrps", str(inputs / "vrps.csv"), "--quiet", "--out"],
        "rpki-ca-build": ["rpki", "ca", "build", str(inputs / "spec.toml"), "--now", "2026-03-01T12:00:00", "--out"],
    }


FILE_COMMANDS = {  # single output files: --out FILE
    "rpki-vrps": lambda inputs: ["rpki", "vrps", "--vrps", str(inputs / "vrps.csv"), "--out"],
    "rpki-validate": lambda inputs: ["rpki", "validate", "--tal", str(inputs / "repo" / "ta.tal"), "--repo",
                                     str(inputs / "repo"), "--now", "2026-03-01T13:00:00", "--out"],
}
PCAP_COMMANDS = {  # single captures: refused before any work (a run's --out is never written)
    "run-pcap": lambda inputs: ["run", "--quiet", "--out", str(inputs / "never"), "--pcap"],
    "bgpsec-sign": lambda inputs: ["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as",
                                   "64500", "--signing-keys", str(inputs / "repo" / ".keys"), "--out"],
}


@pytest.fixture(scope="module")
def inputs(cli_inputs) -> Path:
    """A synthetic one-route dump (`bgpdump -m` text), VRPs and a CA's repository (conftest.py)."""
    return cli_inputs


def snapshot(d: Path) -> dict[str, bytes | None]:
    """Every path under d: a file's bytes, None for a directory."""
    return {str(p.relative_to(d)): None if p.is_dir() else p.read_bytes() for p in sorted(d.rglob("*"))}


def bgpsim(args: list[str], cwd: Path, drop_root: bool = False) -> subprocess.CompletedProcess:
    """The real command, in a child; `drop_root`: as root, without the capabilities that ignore
    file permissions, so a read-only directory is read-only to it too."""
    prefix = []
    if drop_root and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv (util-linux) is needed to test a read-only directory as root")
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*prefix, sys.executable, "-m", "bgpsim", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def refused(p: subprocess.CompletedProcess, names: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("bgpsim: error: "), p.stderr
    assert names in p.stderr, p.stderr


def place(kind: str, work: Path) -> tuple[str, str]:
    """(the --out argument, what the error line must name) for one kind of target, made in work/."""
    if kind == "foreign-dir":
        d = work / "notes"
        (d / "sub").mkdir(parents=True)
        (d / "todo.txt").write_text("mine\n")
        (d / "sub" / "deep.txt").write_text("also mine\n")
        return str(d), "notes"
    if kind == "file":
        (work / "paper.txt").write_text("my paper\n")
        return str(work / "paper.txt"), "paper.txt"
    if kind == "under-file":
        (work / "file.txt").write_text("x\n")
        return str(work / "file.txt" / "sub"), "file.txt"
    if kind == "proc":
        return "/proc/x", "/proc/x"
    if kind == "cwd":
        (work / "keep.txt").write_text("keep\n")
        return ".", "."
    raise AssertionError(kind)


KINDS = ("foreign-dir", "file", "under-file", "proc", "cwd")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["run", "sweep", "routes", "validate", "rpki-ca-build"])
def test_a_directory_command_refuses_and_changes_nothing(inputs, tmp_path, command, kind):
    work = tmp_path / "work"
    work.mkdir()
    target, names = place(kind, work)
    before = snapshot(tmp_path)
    refused(bgpsim([*commands(inputs)[command], target], cwd=work), names)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("inside", [False, True], ids=["the-directory", "a-new-one-in-it"])
@pytest.mark.parametrize("command", ["run", "sweep", "routes", "validate", "rpki-ca-build"])
def test_a_read_only_directory_is_refused(inputs, tmp_path, command, inside):
    ro = tmp_path / "ro"
    ro.mkdir()
    if inside:
        (ro / "keep.txt").write_text("keep\n")
    ro.chmod(0o555)
    try:
        before = snapshot(tmp_path)
        target = ro / "new" if inside else ro
        refused(bgpsim([*commands(inputs)[command], str(target)], cwd=tmp_path, drop_root=True), str(ro))
        assert snapshot(tmp_path) == before
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("kind", ["directory", "under-file", "proc", "read-only"])
@pytest.mark.parametrize("command", sorted(FILE_COMMANDS) + sorted(PCAP_COMMANDS))
def test_a_file_command_refuses_what_it_cannot_write(inputs, tmp_path, command, kind):
    work = tmp_path / "work"
    (work / "out.json").mkdir(parents=True)
    (work / "out.json" / "mine.txt").write_text("mine\n")
    (work / "file.txt").write_text("x\n")
    (work / "ro").mkdir()
    (work / "ro" / "old.json").write_text("old\n")
    target = {"directory": work / "out.json", "under-file": work / "file.txt" / "x.json", "proc": Path("/proc/x"),
              "read-only": work / "ro" / "old.json"}[kind]
    (work / "ro").chmod(0o555)
    try:
        before = snapshot(tmp_path)
        refused(bgpsim([*{**FILE_COMMANDS, **PCAP_COMMANDS}[command](inputs), str(target)], cwd=work, drop_root=True),
                str(target))
        assert snapshot(tmp_path) == before and not (inputs / "never").exists()
    finally:
        (work / "ro").chmod(0o755)


@pytest.mark.parametrize("command", sorted(FILE_COMMANDS))
def test_a_file_command_replaces_its_own_kind_of_file_as_its_help_says(inputs, tmp_path, command, capsys):
    out = tmp_path / "vrps.out"
    out.write_text(VRPS)  # VRPs as `rpki vrps --format csv` writes them
    assert main([*FILE_COMMANDS[command](inputs), str(out)]) == 0
    assert out.read_text().startswith("{") and sorted(p.name for p in tmp_path.iterdir()) == ["vrps.out"]
    with pytest.raises(SystemExit):
        main([*FILE_COMMANDS[command](inputs)[:2], "--help"])
    assert "replaced only if it holds VRPs" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", ["run", "sweep", "routes", "validate", "rpki-ca-build"])
def test_new_empty_and_earlier_outputs(inputs, tmp_path, command, capsys):
    args = commands(inputs)[command]
    nested = tmp_path / "a" / "b" / "out"
    assert main([*args, str(nested)]) == 0  # created, parents too
    first = snapshot(nested)
    assert outdir.MARKER in first
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*args, str(empty)]) == 0
    assert outdir.MARKER in snapshot(empty)
    assert main([*args, str(nested)]) == 0  # its own earlier output: replaced (a sweep resumes)
    assert set(snapshot(nested)) == set(first)
    # a file the user added to an earlier output: refused, nothing changes
    (nested / "my-notes.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    capsys.readouterr()
    assert main([*args, str(nested)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "my-notes.txt" in err and "did not write" in err, err
    assert snapshot(tmp_path) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary directory left


def test_a_run_replaces_its_earlier_output_whole(tmp_path):
    out = tmp_path / "out"
    assert main(["run", str(ROOT / "scenarios" / "teaching-prefix-rov.toml"), "--quiet", "--engine", "steady",
                 "--out", str(out)]) == 0
    assert (out / "outcome.png").exists()
    assert main(["run", "--quiet", "--out", str(out)]) == 0  # a timed run draws other figures
    names = {p.name for p in out.iterdir()}
    assert "outcome.png" not in names and "timeline.png" in names
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_sweep_does_not_resume_another_commands_output(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(ROOT / "scenarios" / "teaching-prefix-rov.toml"), "--quiet", "--engine", "steady",
                 "--out", str(out)]) == 0
    before = snapshot(tmp_path)
    assert main(["sweep", "--trials", "1", "--adoption", "0", "--quiet", "--out", str(out)]) == 2
    assert "bgpsim run" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_a_failure_leaves_nothing(inputs, tmp_path, capsys):
    """validate enters its output directory before it reads the dumps: a fault in a dump leaves no
    output, no temporary directory and no parent it created."""
    bad = tmp_path / "bad.txt"
    bad.write_text(DUMP + "BGP4MP|x|A|\n")
    before = snapshot(tmp_path)
    assert main(["validate", str(bad), "--vrps", str(inputs / "vrps.csv"), "--quiet", "--out",
                 str(tmp_path / "new" / "out")]) == 2
    assert "bad.txt:line 2" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("fault", [KeyboardInterrupt, OSError, InputError])
def test_staged_keeps_the_old_output_when_the_block_fails(tmp_path, fault):
    out = tmp_path / "out"
    with outdir.staged(out, "run") as d:
        (d / "result.json").write_text("first\n")
    before = snapshot(tmp_path)
    with pytest.raises(InputError if fault is OSError else fault):
        with outdir.staged(out, "run") as d:
            (d / "result.json").write_text("second\n")
            raise fault(28, "No space left on device") if fault is OSError else fault("stop")
    assert snapshot(tmp_path) == before


def test_an_updated_repository_keeps_the_old_files_until_the_swap(inputs, tmp_path):
    """rpki ca build updates through hard links: the previous tree is untouched if the update fails."""
    out = tmp_path / "repo"
    shutil.copytree(inputs / "repo", out)
    before = snapshot(out)
    with pytest.raises(RuntimeError):
        with outdir.staged(out, "rpki ca build", seed=True) as d:
            state = d / ".keys" / "state.json"
            assert state.read_bytes() == (out / ".keys" / "state.json").read_bytes()
            assert stat.S_IMODE((d / ".keys").stat().st_mode) == 0o700
            outdir.write_atomic(state, "{}")
            for p in d.rglob("*.mft"):
                p.unlink()
            raise RuntimeError("stop")
    assert snapshot(out) == before


@pytest.mark.parametrize("size", [0, 1, outdir.PIECE - 1, outdir.PIECE, outdir.PIECE + 1, 3 * outdir.PIECE + 17])
def test_write_pieces_writes_what_one_write_would(tmp_path, size):
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    writes = []

    class Recorder:
        def write(self, piece):
            writes.append(len(piece))
            return len(piece)

    outdir.write_pieces(Recorder(), bytearray(data))  # any buffer
    assert sum(writes) == size and all(0 < n <= outdir.PIECE for n in writes)
    with open(tmp_path / "f", "wb") as f:
        outdir.write_pieces(f, memoryview(data))
    assert (tmp_path / "f").read_bytes() == data
    outdir.write_atomic(tmp_path / "g", data)
    assert (tmp_path / "g").read_bytes() == data
    text = "é" * (size // 2)  # a str is written as UTF-8
    outdir.write_atomic(tmp_path / "h", text)
    assert (tmp_path / "h").read_text(encoding="utf-8") == text
