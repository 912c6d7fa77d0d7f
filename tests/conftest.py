import os
import stat
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

DUMP = "BGP4MP|1427846400|A|192.0.2.1|64500|198.51.100.0/24|64500 64501|IGP|192.0.2.1|0|0||NAG||\n"
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64501,198.51.100.0/24,24,synthetic\n"
CA_NOW, RP_TIME = "2026-03-01T12:00:00", "2026-03-01T13:00:00"


def pytest_configure(config):
    """On the controller, before the workers start: bgpsim's bytecode written once. Some 240 tests start
    `python -m bgpsim`, and with PYTHONDONTWRITEBYTECODE set (as CI images often have it) each start
    would compile the package again, 0.15 s of CPU a time. compileall writes __pycache__ beside the
    sources (gitignored) and skips the symlinked bgpsim/rpki, viz and scenarios, hence their real folders."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    root = Path(__file__).resolve().parent.parent
    for folder in ("bgpsim", "rpki", "viz", "scenarios"):
        compileall.compile_dir(root / folder, quiet=1)


@pytest.hookimpl(optionalhook=True)  # known only with pytest-xdist loaded
def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: two workers more than the CPUs this process may use. Many tests spend seconds waiting
    on a daemon (mosquitto, a router, a cache) or a subprocess; the extra workers keep the CPUs busy
    meanwhile (docs/speed.md, "The test suite")."""
    return len(os.sched_getaffinity(0)) + 2


@pytest.fixture(scope="module")
def cli_inputs(tmp_path_factory) -> Path:
    """Small good inputs for every command: a one-route dump (dump.txt), VRPs (vrps.csv), a CA's spec
    and repository (spec.toml, repo/, its router keys in repo/.keys), the relying party's output
    (rp.json), a signed BGPsec UPDATE in hex (signed.hex); and some bad ones: an empty file, a
    file of garbage, an empty directory (a-dir), a twin of /dev/null (null)."""
    from test_ca import EXAMPLE

    from bgpsim.cli import main

    d = tmp_path_factory.mktemp("inputs")
    (d / "dump.txt").write_text(DUMP)
    (d / "vrps.csv").write_text(VRPS)
    (d / "spec.toml").write_text(EXAMPLE)
    (d / "empty").write_bytes(b"")
    (d / "garbage").write_text("banana: not a route dump, a key, a list or a table\n")
    (d / "a-dir").mkdir()
    try:  # /dev/null's twin, for output options: a command that wrongly replaced it would replace only this
        os.mknod(d / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:  # not root: another file that is not a regular one
        (d / "null").symlink_to(d / "empty")
    assert main(["rpki", "ca", "build", str(d / "spec.toml"), "--now", CA_NOW, "--out", str(d / "repo")]) == 0
    assert main(["rpki", "validate", "--tal", str(d / "repo" / "ta.tal"), "--repo", str(d / "repo"), "--now", RP_TIME,
                 "--out", str(d / "rp.json")]) == 0
    with open(d / "signed.hex", "w") as f, redirect_stdout(f):
        assert main(["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64497",
                     "--signing-keys", str(d / "repo" / ".keys")]) == 0
    return d
