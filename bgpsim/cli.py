"""The `bgpsim` command: it assembles the subcommands (one module each in bgpsim.commands), runs
the one asked for, and turns bad input into one line on stderr and exit status 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# numpy's OpenBLAS starts a thread on import that spins for about 0.1 s of CPU waiting for work;
# bgpsim makes no BLAS calls, and `validate` and `dump` want both CPUs for their own processes
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# numpy asks the kernel for 2 MiB pages for arrays of 4 MiB and more (madvise); an array that lives
# for one batch, or is written sparsely, then pays for zeroing whole huge pages: a fifth of
# `validate`'s CPU went to page faults on a virtual machine (docs/validate.md, "Less CPU")
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from bgpsim import __version__
from bgpsim.base.console import PIPE_CLOSED, end_now, reader_gone, stdout_gone
from bgpsim.base.errors import InputError

COMMANDS = ("run", "incident", "sweep", "routes", "rpki", "rtr", "dump", "validate", "bgpsec", "stream", "monitor", "bgp", "lab")  # bgpsim.commands.<name>, in --help order


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2, and an empty value is one: no
    option or file name means anything empty (`--out ''` would fall back to the default)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        for key, dest in list(vars(namespace).items()):  # a required option that has an old name (commands.renamed)
            if key.startswith("_required "):
                delattr(namespace, key)
                if getattr(namespace, dest, None) is None:
                    self.error(f"the following arguments are required: {key.split(' ', 1)[1]}")
        return namespace, extras

    def _get_value(self, action, arg_string):
        if arg_string == "" and action.nargs not in (argparse.PARSER, argparse.REMAINDER):
            want = action.metavar or ", ".join(action.choices or ()) or "a value"
            if not action.option_strings:  # a positional: its metavar says what it wants
                raise argparse.ArgumentError(None, f"{want}: empty value")
            raise argparse.ArgumentError(None, f"{'/'.join(action.option_strings)}: empty value; want {want}")
        return super()._get_value(action, arg_string)


DESCRIPTION = "Simulate BGP hijacks and route leaks on AS graphs and see what each defence does."
EPILOG = ("exit status: as each command's --help says (2: bad input, one line on stderr); 130 interrupted; 141 "
          "(128 + SIGPIPE), quietly, when the reader of standard output goes away (`bgpsim dump ... | head`)")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `only` just that subcommand: `bgpsim dump ...` does not
    import what the simulator's commands need (a tenth of a second on a command that may itself
    take one)."""
    parser = _Parser(prog="bgpsim", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"bgpsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (only,) if only else COMMANDS:
        importlib.import_module(f"bgpsim.commands.{name}").register(sub, _Parser)
    return parser


def main(argv: list[str] | None = None, at_once: bool = False) -> int:
    """The command line; `at_once`: the process ends with the command (run()), so a command may end
    it itself once its output is written (end_now)."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv[:1] and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    args.at_once = at_once
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status = args.handler(args)
        sys.stdout.flush()  # here, not at the interpreter's exit, where a closed pipe is a traceback
    except BrokenPipeError:
        if not stdout_gone():  # another pipe or a socket: a fault to see
            raise
        status = PIPE_CLOSED  # the reader has all it wants (`| head`): quietly, as other Unix tools
    except InputError as e:
        print(f"bgpsim: error: {e}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print("bgpsim: interrupted", file=sys.stderr)
        status = 130
    return status


def run() -> None:
    """The `bgpsim` command: main(); `dump` and `validate` end the process at once (end_now)."""
    try:
        status = main(at_once=True)
    except SystemExit as e:  # argparse's own end (--help, --version, a usage error), its text still buffered
        status = e.code
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            status = PIPE_CLOSED
    if stdout_gone():
        reader_gone()  # what is still buffered goes nowhere: the interpreter's last flush cannot fail
    if sys.argv[1:2] in (["dump"], ["validate"]):
        end_now(status)
    sys.exit(status)


if __name__ == "__main__":
    run()
