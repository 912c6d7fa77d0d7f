"""The subcommands of `bgpsim`, one module each with `register(subparsers, parser_class)`; only
bgpsim.cli imports them. Here: the argument types and helpers they share."""

from __future__ import annotations

import argparse
import math
from importlib.resources import files

from bgpsim.base.errors import InputError


def asn(text: str) -> int:
    t = text.upper().removeprefix("AS")
    if not t.isdigit() or not 0 < int(t) < 2**32:
        raise argparse.ArgumentTypeError(f"want an ASN such as 64500 or AS64500, got {text!r}")
    return int(t)


def _number(text: str, ok, want: str) -> float:
    """`text` as a number that `ok` accepts (NaN and infinities never: `ok` bounds them out)."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not ok(v):
        raise argparse.ArgumentTypeError(f"want {want}, got {text!r}")
    return v


def seconds(text: str) -> float:
    return _number(text, lambda v: 0 <= v < math.inf, "a number of seconds >= 0")


def share(text: str) -> float:
    return _number(text, lambda v: 0 <= v <= 1, "a share between 0 and 1")


def factor(text: str) -> float:
    """A speed-up factor: how many times faster than real (simulated or recorded) time."""
    return _number(text, lambda v: 0 < v < math.inf, "a factor > 0 such as 1 (real time), 10 or 100")


def count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {text!r}")
    return int(text)


def seed_arg(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"want a non-negative integer, got {text!r}")
    return int(text)


def topology(path: str | None):
    from bgpsim.graph.topology import load_topology

    return load_topology(path or str(files("bgpsim.scenarios") / "topologies" / "teaching.toml"))


def split_list(text: str, what: str) -> tuple[str, ...]:
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if not items:
        raise InputError(f"{what}: empty list")
    return items


def input_files(files: list[str]) -> list[str]:
    """Route data files as the command line gives them, each checked before any work: a file bgpsim
    can read, or '-' (standard input) once."""
    from bgpsim.base.datafiles import check_input

    if files.count("-") > 1:
        raise InputError("'-' (standard input) can be given once")
    for f in files:
        if f != "-":
            check_input(f)
    return files


def broker_of(args):
    """(broker address, topics) from the options of `broker_args`."""
    from bgpsim.live.broker import parse_url, topic_prefix
    from bgpsim.live.topics import Topics

    return parse_url(args.broker, args.cafile), Topics(topic_prefix(args.topic))


def broker_args(p) -> None:
    """--broker, --cafile and --topic: where the MQTT feed is (bgpsim.live.broker)."""
    p.add_argument("--broker", required=True, metavar="URL", help="mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://...")
    p.add_argument("--cafile", metavar="PEM", help="CA certificate for a broker whose TLS certificate no public CA signed")
    p.add_argument("--topic", default="bgpsim", metavar="PREFIX", help="topic prefix (default bgpsim)")
