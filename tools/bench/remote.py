"""Remote play: a confirm on one board to its play on the other board's LEDs, through the
club's relay -> OUTDIR/remote.json.

    .venv/bin/python -m tools.bench.remote OUTDIR

Two simulators (the firmware on the 64-bit port, each with its socket link) play a 1-point
match, each board's host running ``remote_player`` (what ``gammon remote play`` runs)
through the relay of a throw-away PostgreSQL cluster and two ``gammon club serve``
processes, robot players at both boards: the harness the end-to-end test plays its matches
with (``tools.sim.remote_match``). For each play: from its confirm on one board (the
PLAY line on its console: journaled) to the plan on the other board's status line (what its
LEDs show). Needs Debian's PostgreSQL server (``make pg-server``); without it the area says
so and writes nothing.
"""

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class _Env:
    """What the harness asks of pytest's monkeypatch: an environment variable set."""

    def setenv(self, name, value):
        os.environ[name] = value


def main(argv):
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    import psycopg
    from gammon.club import pgcluster, schema

    from tools.bench import pg_cluster
    from tools.sim import remote_match

    if pgcluster.bindir() is None:
        print("bench remote: PostgreSQL is not installed (make pg-server)", file=sys.stderr)
        return 2
    with pg_cluster() as pg:
        with psycopg.connect(pg.conninfo, autocommit=True) as conn:
            schema.migrate(conn)

            def token(host="host", rate=None):
                return schema.add_token(conn, host, "bench-remote", rate)[1]

            servers = []
            try:
                servers = [remote_match.ClubServer(pg.conninfo, rate=30) for _ in range(2)]
                with tempfile.TemporaryDirectory() as tmp:
                    boards, _datas = remote_match.play(servers, token, Path(tmp), _Env())
            finally:
                for s in servers:
                    s.stop()
    lat = boards[0].latency
    res = {
        "what": "confirm on one board -> its play on the other board's LEDs (status line), "
        "through the club relay (two server processes, loopback), two 64-bit simulators",
        "plays": len(lat),
        "median_s": round(lat[len(lat) // 2], 3),
        "p90_s": round(lat[int(len(lat) * 0.9)], 3),
        "max_s": round(lat[-1], 3),
        "match_s": round(boards[0].played_s, 1),
    }
    (out / "remote.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
