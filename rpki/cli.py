"""`bgpsim rpki ...`: the RPKI commands. Each subcommand sets `handler` on the parsed arguments."""

from __future__ import annotations

import argparse


def register(sub, parser_class) -> None:
    """Add `rpki` and its subcommands to the `bgpsim` command's subparsers."""
    rpki = sub.add_parser("rpki", help="RPKI: convert and filter VRPs (a CA and a relying party are coming)",
                          description="RPKI tools.", formatter_class=argparse.RawDescriptionHelpFormatter)
    rpki.add_subparsers(dest="rpki_command", metavar="COMMAND", parser_class=parser_class, required=True)
