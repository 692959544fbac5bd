"""Pushing to the club (two ``gammon club serve`` processes on one real PostgreSQL): finished
matches idempotently and byte for byte, live events in sequence with resumption after a
dropped network, and everything hostile refused and stored nowhere."""

import base64
import hashlib
import json
import urllib.error
import urllib.request

from club_helpers import free_port, played
from gammon.club import push


def _req(url, method="GET", body=None, token=None, ctype="application/json"):
    req = urllib.request.Request(url, data=body, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        body = e.read()
        try:
            return e.code, json.loads(body or b"{}")
        except ValueError:
            return e.code, {"text": body.decode()}


def _counts(db, event):
    """(matches, the boards' last sequence numbers summed, live events) stored for an event."""
    m = db.execute("SELECT count(*) FROM matches WHERE event = %s", (event,)).fetchone()[0]
    seq = db.execute("SELECT coalesce(sum(seq), 0) FROM boards WHERE event = %s", (event,)).fetchone()[0]
    n = db.execute(
        "SELECT count(*) FROM live_events e JOIN tokens t ON t.id = e.token_id WHERE t.event = %s", (event,)
    ).fetchone()[0]
    return m, int(seq), n


def test_a_finished_match_pushed_twice_is_one_match_byte_for_byte(servers, db, event):
    tok = event("kitchen")
    _recs, data = played(1)
    mid = data[2:10].hex()
    a = push.Pusher(servers[0].url, tok).push_match(data, mid, "Kitchen board")
    b = push.Pusher(servers[1].url, tok).push_match(data, mid, "Kitchen board")
    assert a["status"] == "new" and b["status"] == "same", (a, b)
    assert a["sha256"] == b["sha256"] == hashlib.sha256(data).hexdigest()
    assert a["dice"].startswith("PASS"), a
    (held,) = db.execute("SELECT data FROM matches WHERE id = %s", (mid,)).fetchone()
    assert bytes(held) == data
    assert db.execute("SELECT count(*) FROM jobs WHERE match = %s", (mid,)).fetchone()[0] == 1
    st, j = _req(servers[1].url + "/events/%s/matches" % event.event)
    assert st == 200 and [m["id"] for m in j["matches"]] == [mid]
    assert {s["player"]: s["won"] for s in j["standings"]} == {
        "Ann": int(j["matches"][0]["winner"] == 0),
        "Bob": int(j["matches"][0]["winner"] == 1),
    }


def test_live_events_resume_after_a_dropped_network_without_loss_or_doubles(servers, db, event, tmp_path):
    tok = event("hall")
    recs, _ = played(2)
    box = push.Outbox("Board 7", folder=tmp_path)
    dead = push.Pusher("http://127.0.0.1:%d" % free_port(), tok, timeout=2)  # nobody listens there
    live = push.Pusher(servers[0].url, tok)
    for r in recs[:10]:
        box.add("append", r)
    assert box.flush(live) and not box.pending
    for r in recs[10:30]:  # the network is down: kept on disk, in order
        box.add("append", r)
        assert box.flush(dead) is False
    box = push.Outbox("Board 7", folder=tmp_path)  # the host restarted meanwhile
    assert [p[0] for p in box.pending] == list(range(11, 31))
    # an answer lost on the way back: the club stored events 11..20, the host did not hear it
    live.push_live("Board 7", box.pending[:10])
    assert box.flush(push.Pusher(servers[1].url, tok)) and not box.pending  # resent to the other server
    for r in recs[30:]:
        box.add("append", r)
    assert box.flush(live)
    row = db.execute("SELECT seq, data, state FROM boards WHERE event = %s", (event.event,)).fetchone()
    assert row[0] == len(recs) and bytes(row[1]) == b"".join(recs)
    seqs = [
        r[0]
        for r in db.execute(
            "SELECT seq FROM live_events e JOIN tokens t ON t.id = e.token_id"
            " WHERE t.event = %s ORDER BY seq",
            (event.event,),
        )
    ]
    assert seqs == list(range(1, len(recs) + 1))
    assert row[2]["winner"] is not None and row[2]["seq"] == len(recs)


def _live_body(board, events):
    return json.dumps(
        {
            "board": board,
            "events": [{"seq": s, "kind": "append", "data": base64.b64encode(d).decode()} for s, d in events],
        }
    ).encode()


def test_hostile_pushes_are_refused_and_stored_nowhere(servers, db, event):
    tok = event("mallory")
    url = servers[0].url
    recs, data = played(3)
    mid = data[2:10].hex()

    # a flipped bit: a checksum fails
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 0x10
    st, j = _req(url + "/api/v1/matches/" + mid, "PUT", bytes(bad), tok, "application/octet-stream")
    assert st == 422 and ("replay" in j["error"] or "damaged" in j["error"]), j

    # the wrong commitment: the dice no longer verify (the record is re-encoded, checksums good)
    from bg import record

    acts = list(record.Decoder(data, split_turns=False))
    k, f = acts[0]
    f = list(f)
    f[9] = bytes(32)
    forged = record.encode(k, tuple(f)) + b"".join(record.encode(k2, f2) for k2, f2 in acts[1:])
    st, j = _req(url + "/api/v1/matches/" + mid, "PUT", forged, tok, "application/octet-stream")
    assert st == 422 and "dice do not verify" in j["error"], j

    # an unfinished match (seed not revealed) is not taken as finished
    st, j = _req(url + "/api/v1/matches/" + mid, "PUT", b"".join(recs[:20]), tok, "application/octet-stream")
    assert st == 422 and "not finished" in j["error"], j

    # oversized
    st, j = _req(url + "/api/v1/matches/" + mid, "PUT", bytes(300_000), tok, "application/octet-stream")
    assert st == 413, j

    # no token, a made-up token, the public page written to
    assert _req(url + "/api/v1/matches/" + mid, "PUT", data, None)[0] == 401
    assert _req(url + "/api/v1/matches/" + mid, "PUT", data, "gct_madeup")[0] == 401
    assert _req(url + "/events/%s" % event.event, "POST", b"x")[0] == 405

    # live: ten good events, then a gap, a reordered pair (two turns swapped: the wrong side
    # moves), an event replayed with other contents
    first = [(i + 1, recs[i]) for i in range(10)]
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", first), tok)
    assert st == 200 and j["seq"] == 10, j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(11, recs[10]), (13, recs[12])]), tok)
    assert st == 409 and "out of order" in j["error"] and j["seq"] == 11, j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(12, recs[13]), (13, recs[12])]), tok)
    assert st == 422 and "does not replay" in j["error"] and j["seq"] == 11, j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(5, recs[6])]), tok)
    assert st == 409 and "replay" in j["error"], j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(5, recs[4])]), tok)
    assert st == 200 and j["seq"] == 11, j  # the same event again: acknowledged, not doubled
    st, j = _req(url + "/api/v1/live", "POST", b"{not json", tok)
    assert st == 400, j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(12, bytes(60_000))]), tok)
    assert st == 413, j
    st, j = _req(url + "/api/v1/live", "POST", _live_body("B", [(12 + i, recs[11]) for i in range(65)]), tok)
    assert st == 413 and "at most 64" in j["error"], j
    assert _req(url + "/events/%s/state" % event.event, "PUT", b"[]", tok)[0] == 405

    assert _counts(db, event.event) == (0, 11, 11)  # the eleven good events, once each
    assert db.execute("SELECT count(*) FROM matches WHERE id = %s", (mid,)).fetchone()[0] == 0


def test_a_revoked_token_and_the_rate_limit(servers, db, event):
    tok = event("noisy")
    url = servers[0].url
    codes = [_req(url + "/api/v1/whoami", token=tok)[0] for _ in range(31)]
    assert codes[:30] == [200] * 30 and codes[30] == 429, codes
    # the limit is the token's, in the database: the other server counts the same requests
    assert _req(servers[1].url + "/api/v1/whoami", token=tok)[0] == 429
    other = event("quiet")
    from gammon.club import schema

    assert _req(url + "/api/v1/whoami", token=other)[1]["host"] == "quiet"
    assert schema.revoke_token(db, "quiet") == 1
    assert _req(url + "/api/v1/whoami", token=other)[0] == 401
