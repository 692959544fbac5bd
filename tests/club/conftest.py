"""The club's tests: one real PostgreSQL cluster for the whole run (Debian's server, started in
a temporary folder on a unix socket, ``gammon.club.pgcluster``) and two ``gammon club serve``
processes on it, started once; each test works in its own event with its own tokens."""

import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from gammon.club import pgcluster, schema

ROOT = Path(__file__).resolve().parents[2]
_events = itertools.count(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def played(n, names=("Ann", "Bob")):
    """``(records, data)`` of a one-game match played through the board's controller
    (``app.controller``, dice from ``bg.dice.fairness.Fairness``): each record as the board
    journals it, and the finished match's bytes (the seed revealed at its end)."""
    import ctl_helpers as H
    from app import controller as C
    from app import rules
    from bg import record
    from bg.dice.fairness import Fairness

    mid = bytes([0xC1, 0x0B, n >> 8, n & 0xFF, 0, 0, 0, n & 0xFF])
    s = C.Settings(length=1, names=names)
    c = C.Controller(s, rules, lambda m: Fairness(m, H.seed_for(m)), lambda: mid, lambda: 1767225600)
    r = H.Robot(c, n)
    r.set_start()
    if c.phase == C.IDLE:
        r.press(0, C.ROLL)
    r.play_game()
    recs = [record.encode(k, f) for k, f in c.outbox]
    return recs, b"".join(recs)


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
                    raise RuntimeError("club server did not start (its log is in the cluster folder)")
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

    def token(host="host"):
        return schema.add_token(db, host, name)[1]

    token.event = name
    return token
