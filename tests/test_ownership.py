"""An output belongs to the command that made it. Each kind of output directory (run, incident,
sweep, routes, validate, monitor, an RPKI repository) is given as --out to every other command: each
refuses it in one line naming the command that wrote it, exit status 2, and the directory is byte for
byte as it was (a CA's private keys in .keys included). Single output files (--pcap, bgpsec sign
--out, rpki vrps --out, rpki validate --out) replace only a file of the kind they write: a user's
file, or another command's output, is refused and unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT

from bgpsim.base import outdir
from bgpsim.cli import main
from bgpsim.live.output import MonitorOutput
from bgpsim.sim import incident as inc
from bgpsim.validate.check import COLUMNS

NOW = "2026-03-01T12:00:00"
CLOSED = "mqtt://127.0.0.1:1"  # nothing listens there: a monitor refused its --out never gets that far


@pytest.fixture(scope="module")
def inputs(cli_inputs) -> Path:
    """conftest.py's small inputs (a dump, VRPs, a CA's spec and repository with router keys), and an
    incident file: a real incident's moved onto the teaching graph (synthetic ASNs)."""
    (cli_inputs / "incident.toml").write_text(
        inc.find("twitter-2022").read_text()
        .replace('topology = "20250901.as-rel2.txt.bz2"', f'topology = "{ROOT / "scenarios" / "topologies" / "teaching.toml"}"')
        .replace("asn = 13414", "asn = 64510").replace("attacker = 8342", "attacker = 64511"))
    return cli_inputs


def argv(command: str, inputs: Path) -> list[str]:
    """The command, its output flag last (the target is appended)."""
    return {
        "run": ["run", str(ROOT / "scenarios" / "teaching-prefix-rov.toml"), "--engine", "steady", "--quiet", "--no-figures",
                "--out"],
        "incident": ["incident", str(inputs / "incident.toml"), "--quiet", "--no-figures", "--out"],
        "sweep": ["sweep", "--trials", "1", "--adoption", "0", "--quiet", "--out"],
        "routes": ["routes", "--workers", "1", "--quiet", "--out"],
        "validate": ["validate", str(inputs / "dump.txt"), "--vrps", str(inputs / "vrps.csv"), "--quiet", "--out"],
        "monitor": ["monitor", "--broker", CLOSED, "--vrps", str(inputs / "vrps.csv"), "--quiet", "--out"],
        "rpki ca build": ["rpki", "ca", "build", str(inputs / "spec.toml"), "--now", NOW, "--out"],
    }[command]


DIRECTORY_COMMANDS = ("run", "incident", "sweep", "routes", "validate", "monitor", "rpki ca build")


@pytest.fixture(scope="module")
def outputs(inputs, tmp_path_factory) -> Path:
    """One output of each kind, each made by its own command (a monitor's by the monitor's output object,
    as a monitor that got no messages leaves it: the broker side is tests/test_live_resume.py)."""
    d = tmp_path_factory.mktemp("outputs")
    for command in DIRECTORY_COMMANDS:
        if command == "monitor":
            sink = MonitorOutput(d / command, ",".join(COLUMNS) + "\n", print)
            sink.open()
            sink.close({"routes": 0})
        else:
            assert main([*argv(command, inputs), str(d / command)]) == 0, command
    assert (d / "rpki ca build" / ".keys").is_dir()
    return d


def snapshot(d: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(d)): None if p.is_dir() else p.read_bytes() for p in sorted(d.rglob("*"))}


@pytest.mark.parametrize("other", DIRECTORY_COMMANDS)
@pytest.mark.parametrize("owner", DIRECTORY_COMMANDS)
def test_every_other_command_refuses_an_output_and_changes_nothing(inputs, outputs, tmp_path, owner, other, capsys):
    target = tmp_path / "out"
    shutil.copytree(outputs / owner, target, symlinks=True)
    before = snapshot(tmp_path)
    capsys.readouterr()
    status = main([*argv(other, inputs), str(target)])
    err = capsys.readouterr().err
    if owner == other:
        if owner != "monitor":  # the monitor resumes once connected: tests/test_live_resume.py
            assert status == 0, err
            assert outdir.MARKER in snapshot(target) and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
        return
    assert status == 2 and err.count("\n") == 1 and f"`bgpsim {owner}` wrote" in err, err
    assert outdir.OUTPUTS[owner] in err
    assert snapshot(tmp_path) == before


def test_a_ca_repository_is_updated_by_rpki_ca_build_and_keeps_its_keys(inputs, outputs, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(outputs / "rpki ca build", repo)
    keys = snapshot(repo / ".keys")
    assert main([*argv("rpki ca build", inputs), str(repo)]) == 0
    after = snapshot(repo / ".keys")
    assert {k: v for k, v in after.items() if k.endswith(".pem")} == {k: v for k, v in keys.items() if k.endswith(".pem")}


# ---- single files --------------------------------------------------------------------------------------

def file_argv(command: str, inputs: Path) -> list[str]:
    return {
        "run --pcap": ["run", "--quiet", "--no-figures", "--out", str(inputs / "pcap-run"), "--pcap"],
        "bgpsec sign": ["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64500",
                        "--signing-keys", str(inputs / "repo" / ".keys"), "--out"],
        "rpki vrps": ["rpki", "vrps", "--vrps", str(inputs / "vrps.csv"), "--out"],
        "rpki validate": ["rpki", "validate", "--tal", str(inputs / "repo" / "ta.tal"), "--repo",
                          str(inputs / "repo"), "--now", "2026-03-01T13:00:00", "--out"],
    }[command]


FILE_COMMANDS = ("run --pcap", "bgpsec sign", "rpki vrps", "rpki validate")
KIND = {"run --pcap": "pcap", "bgpsec sign": "pcap", "rpki vrps": "vrps", "rpki validate": "vrps"}


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_single_file_of_its_own_kind_is_replaced_anything_else_refused(inputs, tmp_path, command, capsys):
    name = "f.pcap" if KIND[command] == "pcap" else "f.json"
    mine = tmp_path / name
    shutil.rmtree(inputs / "pcap-run", ignore_errors=True)
    assert main([*file_argv(command, inputs), str(mine)]) == 0  # new
    first = mine.read_bytes()
    shutil.rmtree(inputs / "pcap-run", ignore_errors=True)
    mine.write_bytes(first[:64] if KIND[command] == "pcap" else first)  # its own kind: replaced
    assert main([*file_argv(command, inputs), str(mine)]) == 0
    assert mine.read_bytes() == first
    pcap = first if KIND[command] == "pcap" else b"\xd4\xc3\xb2\xa1" + bytes(20)
    for foreign in (b"my thesis\n", b"{\"notes\": 1}\n", pcap if KIND[command] == "vrps" else b"ASN,IP Prefix,Max Length,Trust Anchor\n"):
        theirs = tmp_path / "thesis.txt"
        theirs.write_bytes(foreign)
        shutil.rmtree(inputs / "pcap-run", ignore_errors=True)
        before = snapshot(tmp_path)
        capsys.readouterr()
        assert main([*file_argv(command, inputs), str(theirs)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "thesis.txt" in err and "is not" in err, err
        assert snapshot(tmp_path) == before
        assert not (inputs / "pcap-run").exists()  # refused before the run's work and output


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_single_file_command_never_touches_a_ca_key(inputs, command, capsys):
    keys = inputs / "repo" / ".keys"
    before = snapshot(keys)
    for key in sorted(p for p in keys.rglob("*") if p.is_file()):
        shutil.rmtree(inputs / "pcap-run", ignore_errors=True)
        assert main([*file_argv(command, inputs), str(key)]) == 2, key
    assert snapshot(keys) == before


def test_an_empty_file_may_be_replaced(tmp_path):
    (tmp_path / "f.pcap").write_bytes(b"")
    assert outdir.check_file(tmp_path / "f.pcap", "pcap") == tmp_path / "f.pcap"
