"""`make bench` area "club": the club server under a club night's load, on loopback.

A throw-away PostgreSQL cluster (``gammon.club.pgcluster``), ``gammon club serve`` processes
on it, and in this process: BOARDS simulated boards, each pushing the records of a match
played on the board's controller as live events (one per request, at RATE events per board
per second: a backgammon turn takes seconds) to a server, and SPECTATORS server-sent-event
clients spread over the servers. Every spectator checks every board's sequence (+1 each
time: nothing lost, doubled or out of order) and measures the latency from the push being
sent to the event arriving. Reported per configuration: latency p50/p99/max, events pushed
and delivered, sequence faults, server and PostgreSQL CPU (share of one core) and memory.

Configurations: one server process, then two (the spectators and boards split over both:
the fan-out crosses processes through LISTEN/NOTIFY); then the rate is raised with two
processes until delivery falls behind (p99 over 1 s or faults): where it saturates.
Bounded: SECONDS per configuration (default 40; environment CLUB_BENCH_SECONDS), short runs
for the saturation steps.
"""

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from tools.bench import pg_cluster, size  # noqa: E402

BOARDS = int(os.environ.get("CLUB_BENCH_BOARDS", size(64, 2)))
SPECTATORS = int(os.environ.get("CLUB_BENCH_SPECTATORS", size(1000, 4)))
SECONDS = float(os.environ.get("CLUB_BENCH_SECONDS", size(40, 1)))
RATE = float(os.environ.get("CLUB_BENCH_RATE", 0.2))
EVENT = "bench"
_MSG = re.compile(rb'"board": "([^"]*)", "seq": (\d+)')


def matches(n=8):
    """Records of ``n`` one-game matches played on the board's controller."""
    import base64

    import match_records
    from bg import record

    out = []
    for i in range(n):
        mid = bytes([0xBE, 0x4C, 0, 0, 0, 0, 0, i + 1])
        recs = match_records.one_game_match(mid, ("P%d" % i, "Q%d" % i), i + 1)
        out.append([base64.b64encode(record.encode(k, f)).decode() for k, f in recs])
    return out


def _cpu(pid):
    """CPU seconds (user + system) of a process."""
    with open("/proc/%d/stat" % pid) as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid):
    with open("/proc/%d/status" % pid) as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _pg_pids(pg):
    """The cluster's processes: the postmaster and its children."""
    with open(os.path.join(pg.data, "postmaster.pid")) as fh:
        main = int(fh.readline())
    pids = [main]
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == main:
                        pids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return pids


def _cpu_sum(pids):
    t = 0.0
    for p in pids:
        try:
            t += _cpu(p)
        except OSError:
            pass
    return t


class Http:
    """One keep-alive HTTP/1.1 connection (a board's host)."""

    def __init__(self, port):
        self.port = port
        self.r = self.w = None

    async def post(self, path, body, token):
        if self.w is None:
            self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port)
        self.w.write(
            (
                "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (path, token, len(body))
            ).encode()
            + body
        )
        head = await self.r.readuntil(b"\r\n\r\n")
        n = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
        data = await self.r.readexactly(n)
        return int(head.split()[1]), data


async def spectator(port, stats, stop):
    """Follow the feed; per board, every sequence number must come once, in order."""
    last = {}
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            stats["connect_errors"] += 1
            await asyncio.sleep(0.5)
            continue
        w.write(("GET /events/%s/feed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % EVENT).encode())
        await r.readuntil(b"\r\n\r\n")
        stats["connected"] += 1
        first = True  # after (re)connecting, the snapshot may skip ahead: no fault then
        buf = b""
        while not stop.is_set():
            try:
                chunk = await r.read(65536)  # the end of the run cancels this task
            except asyncio.CancelledError:
                stats["last"].append(last)
                raise
            if not chunk:
                stats["reconnects"] += 1
                break
            now = time.perf_counter()
            buf += chunk
            for m in _MSG.finditer(buf):
                b, seq = m.group(1), int(m.group(2))
                prev = last.get(b)
                if prev is None or (first and seq > prev):
                    pass
                elif seq != prev + 1:
                    stats["faults"] += 1
                last[b] = seq
                t = stats["sent"].get((b, seq))
                if t is not None:
                    stats["lat"].append(now - t)
                stats["delivered"] += 1
            i = buf.rfind(b"\n\n")
            if i >= 0:
                buf = buf[i + 2 :]
            first = False
        w.close()


async def board(i, port, token, recs, rate, stats, stop):
    http = Http(port)
    name = "B%02d" % i
    seq = 0
    k = 0
    await asyncio.sleep((i / BOARDS) / rate)  # spread the boards' pushes over the interval
    next_t = time.perf_counter()
    while not stop.is_set():
        seq += 1
        body = json.dumps(
            {"board": name, "events": [{"seq": seq, "kind": "append", "data": recs[k]}]}
        ).encode()
        k = (k + 1) % len(recs)
        stats["sent"][(name.encode(), seq)] = time.perf_counter()
        st, data = await http.post("/api/v1/live", body, token)
        if st != 200:
            stats["push_errors"].append((st, data[:200].decode(errors="replace")))
            seq -= 1
        else:
            stats["pushed"] += 1
        next_t += 1.0 / rate
        await asyncio.sleep(max(0.0, next_t - time.perf_counter()))
    stats["final"][name.encode()] = seq


def _server(pg, port):
    return subprocess.Popen(
        [sys.executable, "-m", "gammon.cli", "club", "serve", "--db", pg.conninfo, "--port", str(port)],
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait_up(port):
    import urllib.request

    for _ in range(300):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/events/x/state" % port, timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server on port %d did not start" % port)


def run(pg, tokens, recs, nservers, seconds, rate, spectators=SPECTATORS, boards=BOARDS):
    import psycopg

    with psycopg.connect(pg.conninfo, autocommit=True) as c:
        c.execute("TRUNCATE boards, live_events")
    ports = [18700 + nservers * 10 + j for j in range(nservers)]
    procs = [_server(pg, p) for p in ports]
    try:
        for p in ports:
            _wait_up(p)
        return asyncio.run(_run(pg, tokens, recs, ports, procs, seconds, rate, spectators, boards))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


async def _run(pg, tokens, recs, ports, procs, seconds, rate, spectators, boards):
    stats = {
        "sent": {},
        "lat": [],
        "faults": 0,
        "delivered": 0,
        "pushed": 0,
        "push_errors": [],
        "connected": 0,
        "reconnects": 0,
        "connect_errors": 0,
        "last": [],
        "final": {},
    }
    stop = asyncio.Event()
    specs = [asyncio.create_task(spectator(ports[i % len(ports)], stats, stop)) for i in range(spectators)]
    for _ in range(100):
        if stats["connected"] >= spectators:
            break
        await asyncio.sleep(0.1)
    pg_pids = _pg_pids(pg)
    cpu0 = [_cpu(p.pid) for p in procs]
    pg0 = _cpu_sum(pg_pids)
    own0 = _cpu(os.getpid())
    t0 = time.perf_counter()
    pushers = [
        asyncio.create_task(
            board(i, ports[i % len(ports)], tokens[i], recs[i % len(recs)], rate, stats, stop_p)
        )
        for i, stop_p in [(i, stop) for i in range(boards)]
    ]
    await asyncio.sleep(seconds)
    # stop the boards first, then give the last events time to arrive
    for t in pushers:
        t.cancel()
    await asyncio.gather(*pushers, return_exceptions=True)
    wall = time.perf_counter() - t0
    cpu1 = [_cpu(p.pid) for p in procs]
    pg1 = _cpu_sum(pg_pids)
    own1 = _cpu(os.getpid())
    rss = [round(_rss_mb(p.pid), 1) for p in procs]
    await asyncio.sleep(size(3, 0.5))
    stop.set()
    for t in specs:
        t.cancel()
    await asyncio.gather(*specs, return_exceptions=True)
    # the last sequence number each board's server accepted, from the database
    import psycopg

    async with await psycopg.AsyncConnection.connect(pg.conninfo) as c:
        cur = await c.execute("SELECT board, seq FROM boards")
        final = {b.encode(): s for b, s in await cur.fetchall()}
    lost = 0
    for last in stats["last"]:
        for b, s in final.items():
            lost += s - last.get(b, 0)
    lat = sorted(stats["lat"])

    def q(p):
        return round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else None

    return {
        "server_processes": len(ports),
        "boards": boards,
        "spectators": spectators,
        "spectators_connected": stats["connected"],
        "rate_per_board_per_s": rate,
        "seconds": round(wall, 1),
        "events_pushed": stats["pushed"],
        "push_errors": len(stats["push_errors"]),
        "push_error_sample": stats["push_errors"][:3],
        "events_delivered": stats["delivered"],
        "expected_deliveries": sum(final.values()) * spectators,
        "latency_ms_p50": q(0.50),
        "latency_ms_p99": q(0.99),
        "latency_ms_max": round(1000 * lat[-1], 1) if lat else None,
        "latency_ms_mean": round(1000 * statistics.fmean(lat), 1) if lat else None,
        "sequence_faults": stats["faults"],
        "events_lost": lost,
        "spectator_reconnects": stats["reconnects"],
        "server_cpu_share_of_a_core": [round((b - a) / wall, 2) for a, b in zip(cpu0, cpu1)],
        "server_rss_mb": rss,
        "postgres_cpu_share_of_a_core": round((pg1 - pg0) / wall, 2),
        "bench_client_cpu_share_of_a_core": round((own1 - own0) / wall, 2),
        # the server's cost per spectator delivery (its CPU over the run / deliveries): what
        # sizes a machine, whatever else the shared bench machine was running meanwhile
        "server_cpu_us_per_delivery": round(
            1e6 * sum(b - a for a, b in zip(cpu0, cpu1)) / stats["delivered"], 1
        )
        if stats["delivered"]
        else None,
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
    }


def main(argv):
    import resource

    import psycopg
    from gammon.club import schema

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    out = Path(argv[1] if len(argv) > 1 else ROOT / "build" / "bench")
    out.mkdir(parents=True, exist_ok=True)
    recs = matches(size(8, 2))
    report = {"what": __doc__.split("\n\n")[0], "runs": []}
    with pg_cluster(max_connections=300) as pg:
        with psycopg.connect(pg.conninfo, autocommit=True) as c:
            schema.migrate(c)
            tokens = [schema.add_token(c, "host%02d" % i, EVENT, rate=1_000_000)[1] for i in range(BOARDS)]
        for n in size((1, 2), (2,)):
            r = run(pg, tokens, recs, n, SECONDS, RATE)
            print(json.dumps(r), flush=True)
            report["runs"].append(r)
        # saturation: two processes, the rate raised until delivery falls behind
        sat = []
        for rate in size((1.0, 2.0, 4.0, 8.0), (1.0,)):
            r = run(pg, tokens, recs, 2, min(SECONDS, 15), rate)
            print(json.dumps(r), flush=True)
            sat.append(r)
            behind = (
                r["latency_ms_p99"] is None
                or r["latency_ms_p99"] > 1000
                or r["sequence_faults"]
                or r["events_lost"]
            )
            if behind:
                break
        report["saturation"] = sat
    (out / "club.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
