"""Analysis jobs in PostgreSQL: several ``gammon club worker`` processes share the queue (each
job done once, ``FOR UPDATE SKIP LOCKED``), and a worker killed in the middle of a job loses
it to the next worker, which does it once."""

import os
import signal
import subprocess
import sys
import textwrap

from club_helpers import played
from gammon.club import push

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# worker A: the real take_one on a real connection; its "analysis" announces itself and then
# takes far longer than the test waits, so it is surely killed in the middle of the job
_SLOW = textwrap.dedent(
    """
    import sys, time, psycopg
    from gammon.club import worker
    def slow(data, plies):
        print("taken", flush=True)
        time.sleep(120)
    with psycopg.connect(sys.argv[1]) as c, psycopg.connect(sys.argv[1], autocommit=True) as log:
        worker.take_one(c, log, "A", work=slow)
    """
)


def _worker(pg, name):
    return subprocess.Popen(
        [sys.executable, "-m", "gammon.cli", "club", "worker", "--db", pg.conninfo, "--once", "--name", name],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _push(servers, event, ns):
    tok = event("worker-host", rate=1000)
    p = push.Pusher(servers[0].url, tok)
    mids = []
    for n in ns:
        _, data = played(n)
        mids.append(data[2:10].hex())
        assert p.push_match(data, mids[-1])["status"] == "new"
    return mids


def test_a_killed_workers_job_is_done_once_by_another(pg, servers, db, event):
    (mid,) = _push(servers, event, [31])
    a = subprocess.Popen(
        [sys.executable, "-c", _SLOW, pg.conninfo], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert a.stdout.readline().strip() == "taken"
    (job,) = db.execute("SELECT job FROM job_attempts WHERE worker = 'A'").fetchone()
    # while A holds it, the job is invisible to the queue
    q = "SELECT id FROM jobs WHERE state = 'queued' FOR UPDATE SKIP LOCKED"
    with db.transaction():
        assert job not in [r[0] for r in db.execute(q)]
    os.kill(a.pid, signal.SIGKILL)
    a.wait()
    b = _worker(pg, "B")
    out, err = b.communicate(timeout=120)
    assert b.returncode == 0, err
    state, worker, result = db.execute(
        "SELECT state, worker, result FROM jobs WHERE id = %s", (job,)
    ).fetchone()
    assert (state, worker) == ("done", "B"), (state, worker, result)
    assert [
        r[0] for r in db.execute("SELECT worker FROM job_attempts WHERE job = %s ORDER BY at", (job,))
    ] == [
        "A",
        "B",
    ]
    # and the match pushed here was analysed (by B, unless it was A's job itself)
    st, res = db.execute("SELECT state, result FROM jobs WHERE match = %s", (mid,)).fetchone()
    assert st == "done" and [p["name"] for p in res["players"]] == ["Ann", "Bob"], res
    assert res["players"][0]["checker"]["decisions"] > 0


def test_two_workers_share_the_queue_each_job_once(pg, servers, db, event):
    mids = _push(servers, event, [41, 42, 43, 44, 45, 46])
    ws = [_worker(pg, "W1"), _worker(pg, "W2")]
    for w in ws:
        _out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
    rows = db.execute(
        "SELECT j.state, count(a.*) FROM jobs j JOIN job_attempts a ON a.job = j.id WHERE j.match = ANY(%s)"
        " GROUP BY j.id, j.state",
        (mids,),
    ).fetchall()
    assert sorted(rows) == [("done", 1)] * len(mids), rows
    assert db.execute("SELECT count(*) FROM jobs WHERE state = 'queued'").fetchone()[0] == 0
