"""The README's examples and every --help's examples hold: each `bgpsim` command line in them is taken
by the argument parser, and each one that needs nothing off this machine runs, at a small scale.

A README shell block runs in order in one folder, so a line may use what an earlier one wrote (`rpki ca
example > spec.toml`, then `rpki ca build spec.toml`). The files the examples name and no line makes
are put there first: real data from ../shared/data where it has one (a RIS update dump, a capture, a
RIB), our own relying party's output for `rpki-client.json` (rpki-client 8.2's layout), a SLURM file of
Routinator's tests. Scaled down: the CAIDA graph becomes the bundled teaching one (its attacker and
victim then drawn, not named), `--trials` 2, figures drawn by the README's first command only
(tests/test_figures_read.py reads every scenario's). Not run, only parsed: lines that need a broker or
another host, a Dask cluster, a file nobody has (placeholders such as FILE), or the full graph's
incident replay (its figure is the bench's)."""

from __future__ import annotations

import re
import shlex
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from conftest import VRPS
from helpers import ROOT, SHARED, cli_commands

from bgpsim.cli import build_parser, main

CAIDA = "../shared/data/caida/20250901.as-rel2.txt.bz2"
TEACHING = str(ROOT / "scenarios" / "topologies" / "teaching.toml")
# what an example names and no example makes: real data, or a file made here (None: see inputs())
FILES = {
    "updates.20160811.1600.gz": SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz",
    "capture.pcapng": SHARED / "pcap" / "eveng_bgp.pcapng",
    "rib.bz2": SHARED / "mrt" / "pyasn_data" / "rib.20140523.0600_firstMB.bz2",
    "exceptions.json": SHARED / "rpki" / "slurm" / "rpki-rs_full.json",
    "local.json": SHARED / "rpki" / "slurm" / "rpki-rs_full.json",
    "vrps.csv": None,  # made in inputs()
    "rpki-client.json": None,
    "spec.toml": None,
    "my-scenario.toml": None,
    "adopters.txt": None,
}
# parsed, not run: why
NOT_RUN = [
    (re.compile(r"mqtt://|mqtts://|--publish"), "needs a broker"),
    (re.compile(r"--scheduler"), "needs a Dask cluster"),
    (re.compile(r"\.\.\.|\bFILE\b|\bDIR\b|HOST|\bNAME\b"), "a placeholder, not a file"),
    (re.compile(r"^bgpsim incident (?!--list)"), "the full graph's replay: bench/"),
    (re.compile(r"https?://|wss?://"), "another host"),
    (re.compile(r"^bgpsim rtr "), "a server that runs until stopped, or a client that needs one: tests/test_rtr*.py"),
    (re.compile(r"^bgpsim bgp speak |^bgpsim dump heard\.mrt"), "needs a router: tests/test_bgp_speak.py"),
    (re.compile(r"^bgpsim lab "), "starts a router: tests/test_lab.py"),
]


def readme_blocks() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    return [_lines(b) for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def help_examples() -> list[tuple[str, str]]:
    """(command, example line) of every --help's `examples:` section."""
    out = []
    for command, parser in cli_commands():
        text = parser.epilog or ""
        if "examples:" in text or "example:" in text:
            section = re.split(r"examples?:\n", text, maxsplit=1)[1].split("\n\n", 1)[0]
            out += [(command, line) for line in _lines(section) if line.startswith("bgpsim ")]
    return out



def _lines(text: str) -> list[str]:
    """Command lines: continuations joined, comments dropped; only `bgpsim` lines and what they chain."""
    out = []
    for line in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        for part in line.split("&&"):
            part = part.strip().rstrip("&").strip()
            if part.startswith("bgpsim "):
                out.append(part)
    return out


def argv_of(line: str) -> tuple[list[str], str | None]:
    """The argument list and where stdout goes (`> FILE`), without pipes."""
    line = line.split(" | ", 1)[0]
    target = None
    if " > " in line:
        line, target = (x.strip() for x in line.split(" > ", 1))
    return shlex.split(line)[1:], target


def why_not_run(line: str) -> str | None:
    for pattern, why in NOT_RUN:
        if pattern.search(line):
            return why
    return None


def scaled(argv: list[str], figures: bool) -> list[str]:
    """`argv` at a small scale; without figures (`--no-figures`) unless `figures`."""
    out = []
    skip = 0
    for i, a in enumerate(argv):
        if skip:
            skip -= 1
            continue
        if a == CAIDA and argv[i - 1] == "--topology":
            out.append(TEACHING)
        elif a in ("--attacker", "--victim") and CAIDA in argv:
            skip = 1  # AS17557 and AS43515 are not on the teaching graph: drawn there instead
        elif argv[i - 1:i] == ["--trials"]:
            out.append("2")
        else:
            out.append(str(SHARED.parent / a[len("../shared/"):]) if a.startswith("../shared/") else a)
    if not figures and argv[:1] in (["run"], ["incident"]) and not {"--list", "--help"} & set(argv):
        out.append("--no-figures")
    return out


def inputs(d: Path) -> None:
    for name, src in FILES.items():
        if src is not None:
            if not src.exists():
                pytest.skip(f"shared data not found: {src}")
            shutil.copy(src, d / name)
    (d / "vrps.csv").write_text(VRPS)
    (d / "adopters.txt").write_text("# the teaching graph's tier-1 clique\n64496\n64497, 64498\n")
    (d / "my-scenario.toml").write_text((ROOT / "scenarios" / "teaching-leak.toml").read_text()
                                        .replace('"topologies/teaching.toml"', repr(TEACHING).replace("'", '"')))
    ca = d / "ca"
    ca.mkdir()
    with open(ca / "spec.toml", "w") as f, redirect_stdout(f):
        assert main(["rpki", "ca", "example"]) == 0
    assert main(["rpki", "ca", "build", str(ca / "spec.toml"), "--out", str(ca / "repo"), "--quiet"]) == 0
    assert main(["rpki", "validate", "--tal", str(ca / "repo" / "ta.tal"), "--repo", str(ca / "repo"),
                 "--out", str(d / "rpki-client.json")]) == 0
    shutil.copy(ca / "spec.toml", d / "spec.toml")


def parses(argv: list[str]) -> None:
    try:
        build_parser().parse_args(argv)
    except SystemExit as e:  # --help ends here, with 0
        assert e.code == 0, argv


BLOCKS = readme_blocks()


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """The inputs, made once for every block (building the CA takes a second)."""
    d = tmp_path_factory.mktemp("readme-inputs")
    inputs(d)
    return d


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_a_readme_block_parses_and_runs(block, tmp_path, monkeypatch, capsys, request):
    monkeypatch.chdir(tmp_path)
    lines = BLOCKS[block]
    runs = [line for line in lines if why_not_run(line) is None]
    if runs:
        shutil.copytree(request.getfixturevalue("made"), tmp_path, dirs_exist_ok=True)
    for line in lines:
        argv, target = argv_of(line)
        parses(argv)
        if why_not_run(line) is not None:
            continue
        argv = scaled(argv, figures=block == 0)
        try:
            with open(target, "w") if target else open("/dev/null", "w") as f:
                status = main(argv) if not target else _to(f, argv)
        except SystemExit as e:  # --help
            status = e.code
        err = capsys.readouterr().err
        assert status == 0, f"{line}: {err}"


def _to(f, argv) -> int:
    with redirect_stdout(f):
        return main(argv)


HELP = help_examples()


@pytest.mark.parametrize("command, line", HELP, ids=[f"{c}:{i}" for i, (c, _) in enumerate(HELP)])
def test_a_help_example_parses(command, line):
    parses(argv_of(line)[0])


def test_every_readme_block_is_seen():
    text = (ROOT / "README.md").read_text()
    assert len(BLOCKS) == text.count("```sh\n") and sum(map(len, BLOCKS)) > 25
    assert len(HELP) > 20
