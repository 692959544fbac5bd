"""The club's tests: one real PostgreSQL cluster for the whole run (Debian's server, started in
a temporary folder on a unix socket, ``gammon.club.pgcluster``) and two ``gammon club serve``
processes on it, started once; each test works in its own event with its own tokens."""

import itertools
import os

import pytest
from gammon.club import pgcluster, schema

from tools.sim.remote_match import ClubServer

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


@pytest.fixture(scope="session")
def servers(pg):
    """Two server processes on the same database (the rate limit: 30 requests per 10 s)."""
    ss = [ClubServer(pg.conninfo, rate=30), ClubServer(pg.conninfo, rate=30)]
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
