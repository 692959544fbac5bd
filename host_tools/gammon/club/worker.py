"""``gammon club worker``: analysis jobs from PostgreSQL, several workers at once.

A worker takes the oldest queued job with ``SELECT ... FOR UPDATE SKIP LOCKED`` and keeps
that row locked, inside one transaction, while GNU Backgammon analyses the match
(``gammon.analyze``, the same analysis as ``gammon analyze``); the result and the state
``done`` commit with that transaction. Other workers skip the locked row, so no job is done
twice; a worker that dies (killed, machine lost) loses its connection, PostgreSQL rolls its
transaction back and releases the row, and the next worker takes the job, so none is lost.
Each take is logged in ``job_attempts`` on a second, autocommitted connection, so a taken job
shows even when its worker dies.
"""

import json
import os
import socket
import time

import psycopg

from gammon import analyze, model


def analysis(data, plies=0, top=3):
    """JSON-ready analysis of one match: per player the checker and cube error rates
    (equity x 1000 per decision) and the costliest plays."""
    m = model.load_match(data)
    per, worst = analyze.analyze(m, plies=plies, top=top)
    per_cube, cube_errors = analyze.analyze_cube(m, plies=plies)
    players = []
    for s in (0, 1):
        n = per[s][0] + per_cube[s][0]
        tot = per[s][1] + per_cube[s][1]
        players.append(
            {
                "name": m.names[s],
                "checker": {"decisions": per[s][0], "error": round(per[s][1], 4)},
                "cube": {"decisions": per_cube[s][0], "error": round(per_cube[s][1], 4)},
                "error_rate": round(1000.0 * tot / n, 2) if n else 0.0,
            }
        )
    costliest = [
        {
            "game": g.number,
            "player": m.names[a.side],
            "dice": list(a.dice),
            "played": a.text or "no move",
            "best": best,
            "error": round(err, 4),
        }
        for err, g, a, best in worst
        if err > 0
    ]
    costliest += [
        {"game": e.game.number, "player": m.names[e.side], "cube": e.text, "error": round(e.error, 4)}
        for e in cube_errors[:top]
        if e.error > 0
    ]
    costliest.sort(key=lambda c: -c["error"])
    return {"plies": plies, "players": players, "costliest": costliest[:top]}


def take_one(conn, log, name, work=analysis):
    """Do the oldest queued job; True when there was one."""
    with conn.transaction():
        row = conn.execute(
            "SELECT j.id, j.plies, m.data FROM jobs j JOIN matches m ON m.id = j.match"
            " WHERE j.state = 'queued' ORDER BY j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED"
        ).fetchone()
        if row is None:
            return False
        job, plies, data = row
        log.execute("INSERT INTO job_attempts (job, worker) VALUES (%s, %s)", (job, name))
        try:
            result, state = work(bytes(data), plies), "done"
        except Exception as e:  # noqa: BLE001 - a match gnubg cannot analyse is marked, not retried forever
            result, state = {"error": "%s: %s" % (type(e).__name__, e)}, "failed"
        conn.execute(
            "UPDATE jobs SET state = %s, worker = %s, result = %s, finished = now() WHERE id = %s",
            (state, name, json.dumps(result), job),
        )
    return True


def run(conninfo, name=None, once=False, idle=1.0, out=print):
    """Take jobs until stopped (``once``: until none is queued). Returns how many were done."""
    name = name or "%s:%d" % (socket.gethostname(), os.getpid())
    n = 0
    with psycopg.connect(conninfo) as conn, psycopg.connect(conninfo, autocommit=True) as log:
        while True:
            if take_one(conn, log, name):
                n += 1
                out("worker %s: job done (%d)" % (name, n))
                continue
            if once:
                return n
            time.sleep(idle)
