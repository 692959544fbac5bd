"""``make bench``: one module per area (``python -m tools.bench.<area> OUTDIR``), merged into
one JSON report by ``python -m tools.bench`` (``__main__``).

The benchmarks drive the firmware through the harness the tests use too (``tools/harness``:
``ctl_helpers``, ``link_fakes``, ``link_helpers``, ``link_board``, ``journal_flash``), written
to run on both interpreters: on MicroPython it comes from MICROPYPATH (``tools.mpy.HARNESS``),
on CPython from here.
"""

import contextlib
import os
import sys

from tools import mpy

# make test's smoke run (tests/club/test_bench_smoke.py): every area at a minimal size, so that
# an area broken by a move elsewhere fails make test, not only the next make bench. A smoke
# run's figures are not measurements: each area's JSON has its keys, nothing more is claimed.
SMOKE = os.environ.get("GAMMON_BENCH_SMOKE") == "1"


def size(full, smoke):
    """``full`` in ``make bench``, ``smoke`` in make test's smoke run."""
    return smoke if SMOKE else full


@contextlib.contextmanager
def pg_cluster(**kw):
    """The PostgreSQL cluster of an area (``club``, ``remote``): a throw-away cluster of its
    own (``gammon.club.pgcluster``), or in the smoke run a database of its own on the cluster
    make test already runs (``GAMMON_BENCH_PG``: that cluster's folder; the servers start once
    per run), dropped again at the end."""
    import psycopg
    from gammon.club import pgcluster

    folder = os.environ.get("GAMMON_BENCH_PG") if SMOKE else None
    if not folder:
        with pgcluster.Cluster.start(**kw) as pg:
            yield pg
        return
    pg = pgcluster.Cluster(folder, None)
    name = "bench_%d" % os.getpid()
    with psycopg.connect(pg.conninfo, autocommit=True) as c:
        c.execute("DROP DATABASE IF EXISTS %s" % name)
        c.execute("CREATE DATABASE %s" % name)
    admin = pg.conninfo
    pg.conninfo = pg.conninfo.replace("dbname=postgres", "dbname=" + name)
    try:
        yield pg
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)


# The one sys.path edit of the benchmarks: the harness's bare-name modules (they import each
# other by bare name, as MicroPython loads them) for the CPython side, so a benchmark runs the
# code the tests run.
HARNESS = str(mpy.ROOT / mpy.HARNESS)
if HARNESS not in sys.path:
    sys.path.append(HARNESS)
