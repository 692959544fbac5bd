"""The ``gammon`` console command: discovers the command modules in ``gammon.commands``."""

import argparse
import importlib
import os
import pkgutil
import sys

import gammon
from gammon import commands


class UserError(Exception):
    """Bad input from the user, a file or a board: printed as one line, exit status 2."""


def build_parser():
    parser = argparse.ArgumentParser(prog="gammon", description="The smart backgammon board's PC tool.")
    parser.add_argument("--version", action="version", version="gammon " + gammon.__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        mod = importlib.import_module("gammon.commands." + info.name)
        mod.register(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except (UserError, ValueError) as e:
        print("gammon: error: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gammon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``gammon show ... | head``): what it wanted has been written
        _quiet_stdout()
        return 0


def _quiet_stdout():
    """Point standard output at the null device, so the interpreter's final flush of what is
    still buffered for the closed pipe raises nothing at exit."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (captured output): nothing is flushed at exit


if __name__ == "__main__":
    from gammon.cli import main as _main  # one UserError class, as the console script has

    sys.exit(_main())
