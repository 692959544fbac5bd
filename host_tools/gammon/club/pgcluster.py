"""A throw-away PostgreSQL cluster in a temporary folder (the tests' and ``make bench``'s
database server, started the way pytest-postgresql starts one): Debian's ``initdb`` and
``pg_ctl``, listening on a unix socket in that folder only (no TCP port, nothing shared
with the machine's own server).

    >>> with Cluster.start() as pg:                # doctest: +SKIP
    ...     conninfo = pg.conninfo                  # for psycopg.connect / gammon club serve
    ...     ...                                     # stopped and deleted on leaving

PostgreSQL refuses to run as root: as root the cluster runs as the ``postgres`` system
user (``runuser``), which Debian's ``postgresql`` package creates.
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time

PORT = 5432  # the socket's name only: listen_addresses is empty, no TCP port is opened


def bindir():
    """The newest installed PostgreSQL's program folder, or None when the server is not installed
    (``apt-get install postgresql``)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return os.path.dirname(found[-1])
    pg_ctl = shutil.which("pg_ctl")
    return os.path.dirname(os.path.realpath(pg_ctl)) if pg_ctl else None


class Cluster:
    def __init__(self, folder, owner):
        self.folder = folder
        self.data = os.path.join(folder, "data")
        self.owner = owner
        self.conninfo = "host=%s port=%d dbname=postgres user=postgres" % (folder, PORT)

    @classmethod
    def start(cls, folder=None, max_connections=200):
        bin_ = bindir()
        if bin_ is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        folder = folder or tempfile.mkdtemp(prefix="gammon-pg-")
        owner = None
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(folder, owner.pw_uid, owner.pw_gid)
            os.chmod(folder, 0o755)
        c = cls(folder, owner)
        c._run(
            [
                os.path.join(bin_, "initdb"),
                "-D",
                c.data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        opts = "-c listen_addresses='' -k %s -p %d -c max_connections=%d -c fsync=off" % (
            folder,
            PORT,
            max_connections,
        )
        c._run([os.path.join(bin_, "pg_ctl"), "-D", c.data, "-o", opts, "-l", c.data + "/log", "-w", "start"])
        c.bin = bin_
        return c

    def _run(self, argv):
        if self.owner is not None:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        r = subprocess.run(argv, capture_output=True, text=True, cwd="/")
        if r.returncode:
            raise RuntimeError(
                "%s failed: %s"
                % (os.path.basename(argv[4 if self.owner is not None else 0]), r.stderr or r.stdout)
            )

    def stop(self):
        try:
            self._run([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"])
        finally:
            keep = os.environ.get("GAMMON_PG_KEEP")  # its logs, to read after a failed test
            for _ in range(0 if keep else 3):
                shutil.rmtree(self.folder, ignore_errors=True)
                if not os.path.exists(self.folder):
                    break
                time.sleep(0.2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
