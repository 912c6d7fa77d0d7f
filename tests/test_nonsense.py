"""No silent nonsense: input that cannot mean what was asked is an error, and input with nothing in
it is a warning naming it; either way one line each (issue 26, item 6)."""

from __future__ import annotations

import gzip
import json
import os
from importlib.resources import files

import pytest

from bgpsim.cli import build_parser, main
from bgpsim.sim.choices import TIMED_ONLY

LEAK = str(files("bgpsim.scenarios") / "teaching-leak.toml")


def said(capsys, argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def error(capsys, argv: list[str], *words: str) -> str:
    status, _, err = said(capsys, argv)
    assert status == 2 and err.count("\n") == 1 and ": error: " in err, err
    for w in words:
        assert w in err, err
    return err


def test_an_empty_adopters_file_is_an_error(tmp_path, capsys):
    empty = tmp_path / "adopters.txt"
    empty.write_text("# nobody yet\n\n")
    error(capsys, ["run", "--policy", "rov", "--adopters", f"@{empty}", "--out", str(tmp_path / "o")],
          "--adopters", str(empty), "no ASN")
    error(capsys, ["run", "--policy", "rov", "--adopters", ",", "--out", str(tmp_path / "o")], "--adopters", "no ASN")


def test_validate_aspa_of_the_wrong_kind_says_what_it_holds(cli_inputs, tmp_path, capsys):
    base = ["validate", str(cli_inputs / "dump.txt"), "--vrps", str(cli_inputs / "vrps.csv"), "--quiet"]
    error(capsys, [*base, "--aspa", str(cli_inputs / "vrps.csv"), "--out", str(tmp_path / "a")],
          "vrps.csv", "holds ROAs/VRPs (CSV header 'ASN,IP Prefix,Max Length,Trust Anchor'), not ASPAs")
    roas_only = tmp_path / "roas.json"  # Routinator's JSON of ROAs alone
    roas_only.write_text(json.dumps({"metadata": {"generated": 1700000000, "generatedTime": "2023-11-14T22:13:20Z"},
                                     "roas": [{"asn": "AS64501", "prefix": "198.51.100.0/24", "maxLength": 24,
                                               "ta": "test"}]}))
    error(capsys, [*base, "--aspa", str(roas_only), "--out", str(tmp_path / "b")], "roas.json", "holds no ASPAs",
          "1 ROAs/VRPs")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    # the relying party's output with its ASPAs: taken, silently
    assert said(capsys, [*base, "--aspa", str(cli_inputs / "rp.json"), "--out", str(tmp_path / "c")])[::2] == (0, "")
    # a relying party's output whose list of ASPAs is empty: a warning naming it
    none = tmp_path / "none.json"
    none.write_text(json.dumps({"metadata": {"buildtime": "2026-03-01T13:00:00Z"}, "roas": [], "aspas": []}))
    status, _, err = said(capsys, [*base, "--aspa", str(none), "--out", str(tmp_path / "d")])
    assert status == 0 and err == f"bgpsim: warning: --aspa {none}: holds no ASPAs (an empty list): no path can be " \
                                  "ASPA-invalid\n", err


@pytest.mark.parametrize("command", ["bgpsec verify", "bgpsec sign", "validate"])
def test_a_folder_of_keys_with_no_key_is_an_error(cli_inputs, tmp_path, capsys, command):
    empty = tmp_path / "keys"
    empty.mkdir()
    (empty / "README").write_text("the keys go here\n")
    argv = {
        "bgpsec verify": ["bgpsec", "verify", str(cli_inputs / "signed.hex"), "--router-keys", str(empty), "--target-as", "64497"],
        "bgpsec sign": ["bgpsec", "sign", "--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64497",
                        "--signing-keys", str(cli_inputs / "repo" / ".keys"), "--signing-keys", str(empty)],
        "validate": ["validate", str(cli_inputs / "dump.txt"), "--vrps", str(cli_inputs / "vrps.csv"),
                     "--router-keys", str(empty), "--out", str(tmp_path / "out")],
    }[command]
    error(capsys, argv, str(empty), "in this folder")


def test_pfx2as_without_space_weighting_is_an_error(tmp_path, capsys):
    table = tmp_path / "pfx2as.txt"
    table.write_text("1.2.0.0\t16\t1\n")
    for weighting in ([], ["--weighting", "cone"]):
        error(capsys, ["run", *weighting, "--pfx2as", str(table), "--out", str(tmp_path / "o")], "--pfx2as",
              "only with --weighting space")


# a good value for each option of the timed engine alone
TIMED_VALUES = {"mrai": ["--mrai", "1"], "until": ["--until", "5"], "crypto": ["--crypto", "--policy", "bgpsec",
                "--adoption", "1"], "signing_keys": ["--signing-keys", "{keys}"], "pcap": ["--pcap", "{out}.pcap"],
                "pcap_ases": ["--pcap-ases", "2"], "publish": ["--publish", "mqtt://127.0.0.1:1"],
                "pace": ["--pace", "10"], "publish_ases": ["--publish-ases", "2"], "topic": ["--topic", "lab"],
                "cafile": ["--cafile", "{keys}"]}


@pytest.mark.parametrize("dest", TIMED_ONLY)
def test_the_steady_engine_refuses_options_about_time(cli_inputs, tmp_path, capsys, dest):
    given = [a.replace("{keys}", str(cli_inputs / "rp.json")).replace("{out}", str(tmp_path / "o"))
             for a in TIMED_VALUES[dest]]
    flag = "--" + dest.replace("_", "-")
    error(capsys, ["run", LEAK, "--engine", "steady", *given, "--out", str(tmp_path / "o")], flag,
          "needs the timed engine")
    assert not (tmp_path / "o").exists()


def test_every_option_the_help_gives_to_the_timed_engine_is_refused_by_the_steady_one():
    run = build_parser("run")._subparsers._group_actions[0].choices["run"]
    timed = {a.dest for g in run._action_groups if "timed engine" in (g.title or "") for a in g._group_actions}
    timed |= {a.dest for a in run._actions if "timed engine" in (a.help or "") and a.dest != "engine"}
    assert "crypto" in timed and "publish" in timed and timed <= set(TIMED_ONLY)


def commands_with_out():
    parser = build_parser()
    stack = [((), parser)]
    while stack:
        path, p = stack.pop()
        for a in p._actions:
            if hasattr(a, "choices") and isinstance(a.choices, dict):
                stack += [((*path, n), sp) for n, sp in a.choices.items()]
            elif "--out" in a.option_strings:
                yield " ".join(path)


@pytest.mark.parametrize("command", sorted(commands_with_out()))
def test_an_empty_out_is_an_error(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    err = error(capsys, [*command.split(), "--out", ""], "--out", "empty value")
    assert err.startswith(f"bgpsim {command}: error: ")
    assert os.listdir(tmp_path) == []  # nothing written in the default place


@pytest.mark.parametrize("kind", ["empty", "gzip-of-nothing", "/dev/null"])
def test_an_empty_route_file_is_a_warning(tmp_path, capsys, kind, cli_inputs):
    path = {"empty": tmp_path / "updates.mrt", "gzip-of-nothing": tmp_path / "updates.gz", "/dev/null": "/dev/null"}[kind]
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "gzip-of-nothing":
        path.write_bytes(gzip.compress(b""))
    warning = f"bgpsim: warning: {path}: holds no records: it is empty\n"
    for fmt in ("bgpdump", "json"):
        assert said(capsys, ["dump", "--format", fmt, str(path)]) == (0, "", warning)
    status, _, err = said(capsys, ["validate", str(path), "--vrps", str(cli_inputs / "vrps.csv"), "--quiet",
                                   "--out", str(tmp_path / "v")])
    assert (status, err) == (0, warning)
    assert json.loads((tmp_path / "v" / "summary.json").read_text())["routes"] == 0


@pytest.mark.parametrize("command", ["dump", "validate", "bgpsec verify"])
def test_a_route_file_that_is_no_file_says_what_it_is(cli_inputs, tmp_path, capsys, command):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rest = {"dump": [], "validate": ["--vrps", str(cli_inputs / "vrps.csv"), "--out", str(tmp_path / "o")],
            "bgpsec verify": ["--router-keys", str(cli_inputs / "rp.json")]}[command]
    for path, what in ((tmp_path, "is a directory"), (fifo, "is a pipe"), (tmp_path / "nope", "no such file")):
        error(capsys, [*command.split(), str(path), *rest], f"{path}: {what}")
