"""Every option of every command, given a wrong value, is one line on stderr and exit status 2.

The options come from the argument parser itself (bgpsim.cli.build_parser, walked down to each
command that runs: `rpki ca build`, `bgpsec sign`, ...), so an option is covered the day it appears.
The wrong values suit what the option takes, told by its type or metavar (`kind`): the empty value,
text and negative numbers for numbers, malformed addresses, ASNs beyond 2^32, a closed port on
127.0.0.1 for a broker, and for files a missing one, a directory, /dev/null, an empty and a garbage
file. Each runs the real command (bgpsim.cli.main) on conftest's `cli_inputs`, with whatever else
the option needs to be used (CONTEXT). The one line must name the option or the value given. An
option the walk cannot classify fails it: give the option a metavar that says what it takes.
"""

from __future__ import annotations

import argparse
from importlib.resources import files
from pathlib import Path

import pytest
from helpers import cli_commands

from bgpsim.cli import main

TEACHING = str(files("bgpsim.scenarios") / "topologies" / "teaching.toml")
CLOSED = "mqtt://127.0.0.1:1"  # nothing listens on port 1: refused at once, no name looked up

# Each command as it runs on good input; {x} is a file of `cli_inputs`, {out} a new output path.
BASE = {
    "run": ["--quiet", "--out", "{out}"],
    "incident": ["youtube-2008", "--topology", TEACHING, "--quiet", "--out", "{out}"],
    "sweep": ["--trials", "1", "--adoption", "0", "--quiet", "--out", "{out}"],
    "routes": ["--workers", "1", "--quiet", "--out", "{out}"],
    "rpki vrps": ["--vrps", "{vrps.csv}"],
    "rpki watch-file": ["--asn", "64501", "--vrps", "{vrps.csv}"],
    "rpki ca build": ["{spec.toml}", "--now", "2026-03-01T12:00:00", "--out", "{out}"],
    "rpki validate": ["--tal", "{repo}/ta.tal", "--repo", "{repo}", "--now", "2026-03-01T13:00:00"],
    "dump": ["{dump.txt}"],
    "validate": ["{dump.txt}", "--vrps", "{vrps.csv}", "--quiet", "--out", "{out}"],
    "bgpsec sign": ["--prefix", "192.0.2.0/24", "--path", "64496", "--target-as", "64497", "--signing-keys", "{repo}/.keys"],
    "bgpsec verify": ["{signed.hex}", "--router-keys", "{rp.json}", "--target-as", "64497"],
    "stream publish": ["{dump.txt}", "--broker", CLOSED],
    "monitor": ["--broker", CLOSED, "--vrps", "{vrps.csv}", "--out", "{out}"],
    # 192.0.2.1 is no address of this machine: a server that took every option would still not listen
    "rtr serve": ["--listen", "192.0.2.1:8323", "--vrps", "{vrps.csv}"],
    "rtr client": ["127.0.0.1:1"],
    "bgp speak": ["--neighbor", "127.0.0.1:1", "--as", "65001", "--peer-as", "65000"],
    "lab": ["teaching-prefix-rov", "--as", "64501"],
}

# What an option needs beside it to be used at all (else it is an error of its own, or ignored).
PUBLISH = ["--publish", CLOSED]
CONTEXT = {
    ("run", "--topology"): ["--attack", "subprefix"],
    ("run", "--attack"): ["--topology", TEACHING],
    ("run", "--prefix"): ["--topology", TEACHING, "--attack", "subprefix"],
    ("run", "--attack-prefix"): ["--topology", TEACHING, "--attack", "subprefix"],
    ("run", "--policy"): ["--adoption", "0.5"],
    ("run", "--longest"): ["--policy", "maxlen", "--adoption", "0.5"],
    ("run", "--max-prefix"): ["--policy", "max-prefix", "--adoption", "0.5"],
    ("run", "--adopters"): ["--policy", "rov"],
    ("run", "--adoption"): ["--policy", "rov"],
    ("run", "--signing-keys"): ["--policy", "bgpsec", "--adoption", "1", "--crypto"],
    ("run", "--pcap-ases"): ["--pcap", "{out}.pcap"],
    ("run", "--pace"): PUBLISH,
    ("run", "--publish-ases"): PUBLISH,
    ("run", "--topic"): PUBLISH,
    ("run", "--cafile"): ["--publish", "mqtts://127.0.0.1:1"],
    ("run", "--pfx2as"): ["--weighting", "space"],
    ("validate", "--target-as"): ["--router-keys", "{rp.json}"],
    ("stream publish", "--cafile"): ["--broker", "mqtts://127.0.0.1:1"],
    ("monitor", "--cafile"): ["--broker", "mqtts://127.0.0.1:1"],
    ("rtr client", "--cafile"): ["--tls"],
    ("rtr serve", "--tls-cert"): ["--tls-key", "{garbage}"],
    ("rtr serve", "--tls-key"): ["--tls-cert", "{garbage}"],
}

FILES = ["{missing}", "{a-dir}", "/dev/null", "{empty}", "{garbage}"]
WRONG = {  # kind -> wrong values
    "choice": ["banana"],
    "asn": ["banana", "4294967296", "0", "-1"],
    "asns": ["banana", "4294967296", "64500,banana"],
    "asns-or-file": ["banana", "4294967296", "@{missing}", "@{a-dir}", "@/dev/null", "@{empty}", "@{garbage}"],
    "as-path": ["banana", "64496,4294967296"],
    "integer": ["banana", "-1", "1.5"],
    "number": ["banana", "-1", "nan", "inf"],
    "share": ["banana", "-0.5", "1.5", "nan"],
    "address": ["banana", "999.1.1.1", "192.0.2.0/24"],
    "prefix": ["banana", "999.1.1.1/24", "192.0.2.1/24", "192.0.2.0/33"],
    "in-file": FILES,
    "in-dir": ["{missing}", "{empty}", "/dev/null", "{a-dir}"],
    "keys": FILES,
    # outputs: a twin of /dev/null, not /dev/null itself, which a command that failed the test would replace
    "out-dir": ["{null}", "{garbage}", "/proc/x"],
    "out-file": ["{a-dir}", "{null}", "{garbage}"],
    "broker": ["banana", "http://127.0.0.1:1", CLOSED, "mqtt://127.0.0.1:99999"],
    "scheduler": ["banana", "tcp://127.0.0.1:99999"],
    "time": ["banana", "2026-13-01"],
    "topic": ["a/#", "a//b", "+"],
    "policies": ["banana", "rov+banana"],
    "list": ["banana", ","],
    "shares": ["banana", "-5", "101", "12.5%", "150%"],
    "lengths": ["banana", "33,48", "24", "-1,48"],
    "weighting": ["banana", "{a-dir}", "/dev/null", "{empty}", "{garbage}"],
    "incident": ["banana", "{a-dir}", "/dev/null", "{empty}", "{garbage}"],
    "text": [],  # any text will do (a client ID): only the empty value is wrong
    "listen": ["banana", "127.0.0.1", "127.0.0.1:99999", "localhost:8323", "192.0.2.1:8323"],
    "networks": ["banana", "10.0.0.0/33", "192.0.2.0/24,banana"],
    "cache": ["banana", "127.0.0.1", "127.0.0.1:99999", "127.0.0.1:1"],
    "neighbor": ["banana", "127.0.0.1:99999", "127.0.0.1:1"],
    "peer-roles": ["banana", "cousin:64500", "customer:banana", "customer:4294967296"],
    "ris-path": ["banana", "64496,,64511", "[64496,64511", "^", "64496$$"],
    # a UDP receiver cannot be told absent before anything is sent: only TCP's is checked
    "syslog": ["banana", "udp://127.0.0.1", "ftp://127.0.0.1:514", "127.0.0.1:99999", "tcp://127.0.0.1:1"],
}

# Wrong values legitimately taken: (command, option, value) -> why. Each is still told: the first
# line on stderr is a warning naming the file, and no error follows but the broker's (stream
# publish goes on to the closed port of BASE, where it ends with status 2).
EMPTY_INPUT = "an input with nothing in it is no fault: a warning names it, and the command goes on"
ACCEPTED = {(command, name, value): EMPTY_INPUT
            for command, name in (("dump", "FILE"), ("validate", "FILE"), ("bgpsec verify", "FILE"),
                                  ("stream publish", "FILE"), ("monitor", "--replay"), ("bgp speak", "--announce"),
                                  ("bgp speak", "--replay"))
            for value in ("/dev/null", "{empty}")}


def kind(action: argparse.Action) -> str:
    """What the option takes, told by its type, choices or metavar."""
    typ = getattr(action.type, "__name__", None)
    if action.choices:
        return "choice"
    by_type = {"asn": "asn", "_as_path": "as-path", "count": "integer", "seed_arg": "integer", "int": "integer",
               "seconds": "number", "factor": "number", "share": "share", "prefix": "prefix", "address": "address",
               "interval": "number", "ris_host": "text", "ris_path": "ris-path"}
    if typ in by_type:
        return by_type[typ]
    assert action.type is None, f"{action.option_strings}: a type the walk does not know: {typ}"
    writes = action.dest in ("out", "pcap")
    by_metavar = {
        "DIR": "out-dir" if writes else "in-dir", "FILE": "out-file" if writes else "in-file",
        "FILE.pcap": "out-file", "PEM": "in-file", "CAIDA_FILE": "in-file", "SPEC.toml": "in-file",
        "SCENARIO": "in-file", "DIR|FILE": "keys", "URL": "broker", "tcp://HOST:PORT": "scheduler",
        "TIME": "time", "PREFIX": "topic", "P": "prefix", "ASN,ASN,...": "asns", "ASN,ASN,...|@FILE": "asns-or-file",
        "NAME[+NAME...]": "policies", "KIND[,KIND]": "list", "NAME[,NAME]": "list", "SHARE,SHARE,...": "shares",
        "ADDRESS": "address", "V4,V6": "lengths", "N": "integer", "uniform|cone|space|FILE": "weighting", "NAME": "incident", "ID": "text",
        "ADDRESS:PORT": "listen", "NET,NET,...": "networks", "HOST:PORT": "cache", "ROLE:ASN,...": "peer-roles",
        "[udp|tcp]://HOST:PORT": "syslog", "ADDRESS[:PORT]": "neighbor", "FILE.mrt": "out-file",
    }
    assert action.metavar in by_metavar, f"{action.option_strings or action.dest}: classify metavar {action.metavar!r}"
    return by_metavar[action.metavar]



def cases():
    for command, parser in cli_commands():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or action.nargs == 0:
                continue  # --help and the switches take no value
            if action.help == argparse.SUPPRESS:
                continue  # an old name (commands.renamed): its values go through the new name's type, walked here
            name = action.option_strings[0] if action.option_strings else action.metavar
            for value in ["", *WRONG[kind(action)]]:
                yield pytest.param(command, action, name, value, id=f"{command}:{name}={value or 'EMPTY'}")


ALL = list(cases())


def test_every_command_is_walked():
    assert {c.values[0] for c in ALL} == set(BASE)


def resolve(text: str, inputs: Path, out: Path) -> str:
    text = text.replace("{out}", str(out)).replace("{missing}", str(inputs / "missing"))
    for p in ("dump.txt", "vrps.csv", "spec.toml", "empty", "garbage", "a-dir", "null", "repo", "rp.json", "signed.hex"):
        text = text.replace("{" + p + "}", str(inputs / p))
    return text


def argv(command: str, action: argparse.Action, name: str, value: str) -> list[str]:
    """The command line: BASE with the positional replaced, or the option added, as `--opt=value`."""
    base = list(BASE[command])
    if action.option_strings:
        return [*command.split(), *base, *CONTEXT.get((command, name), []), f"{name}={value}"]
    if base[0].startswith("-"):  # an optional positional (run's scenario) that BASE leaves out
        return [*command.split(), value, *base]
    return [*command.split(), value, *base[1:]]


@pytest.mark.parametrize("command, action, name, value", ALL)
def test_a_wrong_value_is_one_line_and_status_2(cli_inputs, tmp_path, monkeypatch, capsys, command, action, name,
                                                value):
    inputs = cli_inputs
    monkeypatch.chdir(tmp_path)
    args = [resolve(a, inputs, tmp_path / "out") for a in argv(command, action, name, value)]
    capsys.readouterr()
    try:
        status = main(args)
    except SystemExit as e:  # argparse's own refusals
        status = e.code
    out, err = capsys.readouterr()
    given = resolve(value, inputs, tmp_path / "out").lstrip("@")
    if (command, name, value) in ACCEPTED:
        first, *rest = err.splitlines()
        assert first.startswith("bgpsim: warning: ") and given in first, err
        assert (status, rest) == (0, []) or (status == 2 and len(rest) == 1 and ("broker" in rest[0] or (
            "--neighbor" in rest[0] and "cannot connect" in rest[0]))) or (
            command == "bgpsec verify" and (status, rest) == (0, ["bgpsim: no BGPsec UPDATEs"])), err
        return
    assert status == 2, (args, status, err)
    assert err.count("\n") == 1 and err.startswith(("bgpsim: error: ", "bgpsim ")) and ": error: " in err, err
    assert name in err or (value and given in err), f"the line names neither {name} nor {given!r}: {err}"
