"""The subcommands of `bgpsim`, one module each with `register(subparsers, parser_class)`; only
bgpsim.cli imports them. Here: the argument types and helpers they share."""

from __future__ import annotations

import argparse
import math

from bgpsim.base.asn import parse_asn
from bgpsim.base.errors import InputError


def asn(text: str) -> int:
    try:
        return parse_asn(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
    """A share of ASes, written alike by every command: 0 to 1 (0.25) or a percentage (25%)."""
    t = text.strip()
    if t.endswith("%"):
        return _number(t[:-1], lambda v: 0 <= v <= 100, "a share: 0 to 1, or 0% to 100%") / 100
    return _number(t, lambda v: 0 <= v <= 1, "a share: 0 to 1, or 0% to 100%")


class _Renamed(argparse.Action):
    """An option's old name: still taken for this release, with a one-line note naming the new one."""

    def __init__(self, option_strings, dest, new: str, append=False, **kw):
        self.new, self.append = new, append
        super().__init__(option_strings, dest, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        import sys

        print(f"bgpsim: note: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        value = self.const if self.nargs == 0 else values
        if self.append:
            value = [*(getattr(namespace, self.dest, None) or []), value]
        setattr(namespace, self.dest, value)


def renamed(p, old: str, new: argparse.Action, const=None) -> None:
    """Keep the option name `old` working as `new` (its destination and type), hidden from --help.
    With `const`, `old` is a switch that sets `new` to it (--json: --format json)."""
    if new.required:  # either name will do: bgpsim.cli's parser asks for one of them after parsing
        new.required = False
        p.set_defaults(**{f"_required {new.option_strings[0]}": new.dest})
    if const is None:
        kw, spelled = {"type": new.type}, new.option_strings[0]
    else:
        kw, spelled = {"nargs": 0, "const": const}, f"{new.option_strings[0]} {const}"
    p.add_argument(old, action=_Renamed, dest=new.dest, new=spelled, help=argparse.SUPPRESS,
                   append=isinstance(new, argparse._AppendAction), metavar=new.metavar, **kw)


def factor(text: str) -> float:
    """A speed-up factor: how many times faster than real (simulated or recorded) time."""
    return _number(text, lambda v: 0 < v < math.inf, "a factor > 0 such as 1 (real time), 10 or 100")


def interval(text: str) -> float:
    """A number of seconds > 0: how often something is done."""
    return _number(text, lambda v: 0 < v < math.inf, "a number of seconds > 0")


def prefix(text: str):
    import ipaddress

    try:
        return ipaddress.ip_network(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a prefix such as 192.0.2.0/24 (host bits clear), got {text!r}") from None


def address(text: str):
    import ipaddress

    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want an IPv4 or IPv6 address such as 198.51.100.1, got {text!r}") from None


def count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {text!r}")
    return int(text)


def seed_arg(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"want a non-negative integer, got {text!r}")
    return int(text)


def topology(path: str | None):
    from importlib.resources import files  # here: 5 ms that the commands without a topology do not pay

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


def broker_args(p, required: bool = True) -> None:
    """--broker, --cafile and --topic: where the MQTT feed is (bgpsim.live.broker)."""
    p.add_argument("--broker", required=required, metavar="URL", help="mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://...")
    p.add_argument("--cafile", metavar="PEM", help="CA certificate for a broker whose TLS certificate no public CA signed")
    p.add_argument("--topic", default="bgpsim", metavar="PREFIX", help="topic prefix (default bgpsim)")


def peer_role_args(p) -> None:
    """What the collector's peers are to it, for ASPA's direction (validate, monitor)."""
    p.add_argument("--peer-role", action="append", metavar="ROLE:ASN,...",
                   help="what these peers are to the collector: customer, peer, route-server (verified upstream) "
                        "or provider (downstream); repeatable")
    p.add_argument("--collector-as", type=asn, metavar="ASN",
                   help="the collector's own AS: with --relationships, each peer's role is its CAIDA link to it")
