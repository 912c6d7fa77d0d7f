"""One grammar for every command: the README's table lists every option of every command under the
commands that have it (and nowhere else); the same option has the same argument everywhere; every
command has --quiet; --format speaks one set of words; an old option name is hidden and, given, still
works with a one-line note naming the new one."""

from __future__ import annotations

import argparse
import re

import pytest
from helpers import ROOT, cli_commands

from bgpsim.commands import _Renamed

# options whose argument differs by command, on purpose (the table says how)
VARIES = {"--out": {"DIR", "FILE", "FILE.pcap", "FILE.mrt"}, "--format": None, "--attack": {"KIND", "KIND[,KIND]"},
          "--policy": {"NAME[+NAME...]", "NAME[,NAME]", "NAME"}, "--adoption": {"SHARE", "SHARE,SHARE,..."}}
FORMATS = {"table", "json", "csv", "bgpdump", "hex", "bird2", "openbgpd"}



def visible(parser):
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS]


def key(action) -> str:
    return action.option_strings[0] if action.option_strings else action.metavar


def readme_table() -> dict[str, set[str]]:
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- grammar:start -->", 1)[1].split("<!-- grammar:end -->", 1)[0]
    rows = {}
    for line in block.strip().splitlines()[2:]:
        name, _, cmds = [c.strip() for c in line.strip("|").split("|")]
        rows[re.match(r"`([^`]+)`", name).group(1)] = {c.strip() for c in cmds.split(",")}
    return rows


def test_the_readme_table_lists_every_option_under_its_commands():
    have: dict[str, set[str]] = {}
    for command, parser in cli_commands():
        for a in visible(parser):
            have.setdefault(key(a), set()).add(command)
    assert readme_table() == have


def test_one_option_one_argument():
    seen: dict[str, set[str]] = {}
    for _, parser in cli_commands():
        for a in visible(parser):
            seen.setdefault(key(a), set()).add(str(a.metavar) if a.nargs != 0 else "")
    for name, metavars in seen.items():
        if name in VARIES:
            assert VARIES[name] is None or metavars <= VARIES[name], (name, metavars)
        else:
            assert len(metavars) == 1, (name, metavars)


def test_every_command_is_quiet_on_asking_and_formats_speak_one_language():
    for command, parser in cli_commands():
        names = {key(a): a for a in visible(parser)}
        assert "--quiet" in names, command
        if "--format" in names:
            assert set(names["--format"].choices) <= FORMATS, command
        assert not any(n in names for n in ("--json", "--keys", "--from", "--time", "--target", "--peer", "--speed",
                                            "--bgpsec-target")), command


OLD = [(command, a) for command, parser in cli_commands() for a in parser._actions if isinstance(a, _Renamed)]


@pytest.mark.parametrize("command, old", OLD, ids=[f"{c}:{a.option_strings[0]}" for c, a in OLD])
def test_an_old_name_is_hidden_and_names_the_new_one(command, old):
    parser = dict(cli_commands())[command]
    new = next(a for a in visible(parser) if a.option_strings and a.option_strings[0] == old.new.split()[0])
    assert old.help == argparse.SUPPRESS and old.dest == new.dest


def test_an_old_name_still_works_with_a_note(tmp_path, capsys):
    from bgpsim.cli import main

    vrps = tmp_path / "vrps.csv"
    vrps.write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,synthetic\n")
    assert main(["rpki", "vrps", "--from", str(vrps), "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert out == vrps.read_text() and err == "bgpsim: note: --from is deprecated; use --vrps\n"
    assert main(["incident", "--list", "--json"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("{") and err == "bgpsim: note: --json is deprecated; use --format json\n"
