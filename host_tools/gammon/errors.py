"""The errors gammon raises on purpose. The command line (``gammon.cli``) prints each as one
line and exits with status 2; any other exception is a bug and shows its traceback.

Core modules (``library``, ``analyze``, ``library_show``...) raise these and never import the
command line; command modules raise them for bad arguments."""


class GammonError(Exception):
    """Something gammon cannot do and can say why in one line."""


class UserError(GammonError, ValueError):
    """Bad input from the user, a file or a board (also a ValueError: parsers that signal
    bad input that way keep their callers' ``except ValueError``)."""


class MissingPackage(GammonError):
    """An optional package a command needs is not installed (``gnubg``, ``bleak``)."""
