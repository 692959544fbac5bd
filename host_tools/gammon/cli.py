"""The ``gammon`` console command: discovers the command modules in ``gammon.commands``.

The errors gammon raises on purpose (``gammon.errors``) are printed as one line with exit
status 2; anything else is a bug: its traceback and a line asking for a report, status 70."""

import argparse
import importlib
import os
import pkgutil
import sys
import traceback

import gammon
from gammon import commands
from gammon.errors import GammonError, UserError  # noqa: F401 - UserError: the commands' name for it

BUG_STATUS = 70  # EX_SOFTWARE: an internal error, not the user's


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
    except GammonError as e:
        print("gammon: error: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gammon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``gammon show ... | head``): what it wanted has been written
        _quiet_stdout()
        return 0
    except Exception:  # noqa: BLE001 - a bug: shown whole, never as a one-line user error
        traceback.print_exc()
        print(
            "gammon %s: internal error in 'gammon %s' (a bug, not your input): please report it "
            "with the traceback above" % (gammon.__version__, args.command),
            file=sys.stderr,
        )
        return BUG_STATUS


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
    from gammon.cli import main as _main  # one module object, as the console script has

    sys.exit(_main())
