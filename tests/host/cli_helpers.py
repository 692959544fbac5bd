"""What the host-tool CLI tests share: one call of ``gammon`` in process. Their library home
is the ``home`` fixture (tests/host/conftest.py)."""

from gammon import cli


def run_cli(capsys, *argv):
    """``gammon ARGV...`` in process: ``(exit code, stdout, stderr)``."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
