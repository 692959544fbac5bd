"""The club's tests: one real PostgreSQL cluster for the whole run (Debian's server, started in
a temporary folder on a unix socket, ``gammon.club.pgcluster``) and two ``gammon club serve``
processes on it, started once; each test works in its own event with its own tokens."""

import itertools
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from club_helpers import free_port
from gammon.club import pgcluster, schema

ROOT = Path(__file__).resolve().parents[2]
_events = itertools.count(1)


@pytest.fixture(scope="session")
def pg():
    if pgcluster.bindir() is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is not installed (.ci/run installs it)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    c = pgcluster.Cluster.start()
    import psycopg

    with psycopg.connect(c.conninfo) as conn:
        schema.migrate(conn)
    yield c
    c.stop()


@pytest.fixture()
def db(pg):
    import psycopg

    with psycopg.connect(pg.conninfo, autocommit=True) as conn:
        yield conn


class Server:
    def __init__(self, conninfo, rate=1000):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gammon.cli", "club", "serve", "--db", conninfo, "--port", str(self.port)]
            + ["--rate", str(rate), "--window", "10"],
            env=env,
            cwd=str(ROOT),
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(conninfo.split()[0][5:], "server-%d.log" % self.port), "wb"),
        )
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/events/none/state", timeout=2).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(
                        "club server did not start (its log is in the cluster folder)"
                    ) from None
                time.sleep(0.1)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="session")
def servers(pg):
    """Two server processes on the same database (the rate limit: 30 requests per 10 s)."""
    ss = [Server(pg.conninfo, rate=30), Server(pg.conninfo, rate=30)]
    yield ss
    for s in ss:
        s.stop()


@pytest.fixture()
def event(db):
    """A fresh event name and a function issuing tokens in it: ``token(host) -> token``."""
    name = "event-%d-%d" % (os.getpid(), next(_events))

    def token(host="host", rate=None):
        return schema.add_token(db, host, name, rate)[1]

    token.event = name
    return token
