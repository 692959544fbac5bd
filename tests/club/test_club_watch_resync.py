"""``gammon watch --club`` neither misses nor repeats a record where its copy of the live match
meets the board's live events: at the start (the copy fetched, then the watch turned on) and
after lost events (the copy fetched again). A record journaled in between was in neither (the
watch and the club's broadcast stopped: the next record did not replay), one journaled during
the copy with the watch on was in both (fed twice: the same). The board here answers the
link's calls as ``gammon.link.Client`` does over a real board (its queued events stay queued
across WATCH off until read; WATCH on sends nothing again when it is on already); its player
confirms a record at the worst moment of each copy. The club is the real one (PostgreSQL, two
server processes): the broadcast's state at the end is the board's."""

import json
import urllib.request

import scripted_board
from club_helpers import played
from gammon import model
from gammon.club import checks, push
from gammon.commands import library as cmds


def _club_state(servers, event):
    with urllib.request.urlopen(servers[1].url + "/events/%s/state" % event, timeout=10) as r:
        return json.loads(r.read())


def _watch(board, servers, event, tmp_path, monkeypatch, name):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    said = []
    sink = push.LiveSink(name, push.Pusher(servers[0].url, event(name, rate=10_000)), said.append)
    r = cmds.watch_loop(board, out=_Null(), clear=False, club=sink)
    return r, sink, said


class _Null:
    def write(self, s):
        pass

    def flush(self):
        pass


def _check(r, recs, sink, said, servers, event, name):
    data = b"".join(recs)
    want = model.load_match(data)
    assert r.m.id_hex == want.id_hex and bytes(r.pos) == want.games[-1].final_pos
    assert tuple(r.score) == want.final_score
    assert not sink.outbox.pending and not said, said  # every event taken by the club
    (st,) = [s for s in _club_state(servers, event.event) if s["board"] == name]
    full = checks.live_state(checks.check_live(data), name, st["seq"])
    assert {k: st[k] for k in ("pos", "score", "phase", "game", "winner")} == {
        k: full[k] for k in ("pos", "score", "phase", "game", "winner")
    }


def test_a_record_journaled_between_the_copy_and_the_watch_is_not_missed(
    servers, event, tmp_path, monkeypatch
):
    recs, _ = played(41)
    b = scripted_board.Board(recs, 8)
    b.during_copy = {1: "after"}  # the player confirms right after the board read its file
    r, sink, said = _watch(b, servers, event, tmp_path, monkeypatch, "start")
    _check(r, recs, sink, said, servers, event, "start")
    assert b.copies == 4  # the second look saw the record; then two copies alike


def test_lost_events_then_a_record_during_the_copy_is_not_repeated(servers, event, tmp_path, monkeypatch):
    recs, _ = played(42)
    b = scripted_board.Board(recs, 8)
    b.lost_at = 14
    # the first copy after the loss: a record confirmed while the board reads its file (with
    # the watch on, as before, it was both in the copy and among the events); the second: one
    # right after it (an event)
    b.after_lost = ["before", "after"]
    r, sink, said = _watch(b, servers, event, tmp_path, monkeypatch, "lost")
    _check(r, recs, sink, said, servers, event, "lost")
    assert b.copies == 4
