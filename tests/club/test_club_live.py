"""Live fan-out between server processes: events pushed to one ``gammon club serve`` reach the
spectators of both (PostgreSQL LISTEN/NOTIFY), each board's events in order, none lost or
doubled; a spectator joining late gets every board's state first."""

import json
import queue
import threading
import urllib.request

from club_helpers import played
from gammon.club import push


def _spectate(url, out, stop):
    """Read a server-sent event stream into ``out`` (the decoded states) until ``stop``."""
    with urllib.request.urlopen(url, timeout=20) as r:
        out.put("open")
        for line in r:
            if stop.is_set():
                return
            if line.startswith(b"data: "):
                out.put(json.loads(line[6:]))


def _collect(q, n, timeout=20):
    got = []
    while len(got) < n:
        got.append(q.get(timeout=timeout))
    return got


def test_two_server_processes_deliver_the_same_live_events(servers, event, tmp_path):
    tok = event("hall", rate=10_000)  # one event per request, as fast as the test can
    feeds = []
    stop = threading.Event()
    for s in servers:
        q = queue.Queue()
        t = threading.Thread(
            target=_spectate, args=(s.url + "/events/%s/feed" % event.event, q, stop), daemon=True
        )
        t.start()
        assert q.get(timeout=10) == "open"
        feeds.append(q)
    boards = {"Board 1": played(11)[0], "Board 2": played(12)[0]}
    pushers = [push.Pusher(servers[0].url, tok), push.Pusher(servers[1].url, tok)]
    boxes = {b: push.Outbox(b, folder=tmp_path) for b in boards}
    n = 0
    # the two boards interleaved, each pushing to its own server, one event per request
    for i in range(max(len(r) for r in boards.values())):
        for j, (b, recs) in enumerate(boards.items()):
            if i < len(recs):
                boxes[b].add("append", recs[i])
                assert boxes[b].flush(pushers[j])
                n += 1
    seen = [_collect(q, n) for q in feeds]
    stop.set()
    for got in seen:
        for b, recs in boards.items():
            seqs = [s["seq"] for s in got if s["board"] == b]
            assert seqs == list(range(1, len(recs) + 1)), (b, seqs[:20])
    assert [(s["board"], s["seq"]) for s in seen[0]] == [(s["board"], s["seq"]) for s in seen[1]]
    last = [s for s in seen[1] if s["board"] == "Board 2"][-1]
    assert last["winner"] in (0, 1) and last["names"] == ["Ann", "Bob"]

    # a spectator arriving now gets each board's last state, from the database
    q = queue.Queue()
    stop2 = threading.Event()
    threading.Thread(
        target=_spectate, args=(servers[1].url + "/events/%s/feed" % event.event, q, stop2), daemon=True
    ).start()
    assert q.get(timeout=10) == "open"
    snap = _collect(q, 2)
    stop2.set()
    assert sorted((s["board"], s["seq"]) for s in snap) == sorted((b, len(r)) for b, r in boards.items())
