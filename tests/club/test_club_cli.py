"""The CLI end to end: the organiser issues a token (``gammon club token add``), the host joins
(``gammon club join``), ``gammon watch --club``'s loop sends the live match (a snapshot, then
each record) and ``gammon sync --club``'s push sends the finished match from the library; the
club's copy equals the library's bytes; a revoked token is refused."""

import io
import json
import urllib.request

import pytest
from club_helpers import played
from gammon import model
from gammon.cli import main
from gammon.club import push
from gammon.commands import library as cmds
from gammon.library import Library


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


class _LiveBoard:
    """A link Client's watch side: the first records stored, the rest published one by one."""

    def __init__(self, recs, n_stored):
        self.recs = recs
        self.stored = b"".join(recs[:n_stored])
        self.n = n_stored
        self.id = model.load_match(self.stored).id_hex

    def list_games(self):
        return [{"id": self.id, "size": len(self.stored), "state": 0, "finished": False}]

    def fetch_game(self, gid, progress=None, resume=True):
        return self.stored

    def watch(self):
        yield from self.recs[self.n :]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_token_join_watch_and_sync_to_the_club(pg, servers, db, home, tmp_path, capsys):
    ev = "cli-event"
    code, out, err = _run(
        capsys, "club", "token", "add", "Table 3 laptop", "--event", ev, "--rate", 1000, "--db", pg.conninfo
    )
    assert code == 0, err
    token = out.split()[-1]
    assert token.startswith("gct_")
    code, out, err = _run(capsys, "club", "join", servers[0].url, token)
    assert code == 0 and "host Table 3 laptop, event cli-event" in out, out + err

    recs, data = played(51)
    shown = io.StringIO()
    cmds.watch_loop(
        _LiveBoard(recs, 3), out=shown, clear=False, club=push.LiveSink("Table 3", out=shown.write)
    )
    assert "club:" not in shown.getvalue(), shown.getvalue()[-500:]
    state = db.execute("SELECT state, data FROM boards WHERE event = %s", (ev,)).fetchone()
    assert state[0]["seq"] == len(recs) - 3 + 1 and bytes(state[1]) == data  # 1 snapshot + the rest

    p = tmp_path / "m.bin"
    p.write_bytes(data)
    assert _run(capsys, "import", p)[0] == 0
    with Library.open() as lib:
        pushed, problems = push.push_library(lib, push.Pusher.from_config(), out=lambda s: None)
        assert (pushed, problems) == (1, [])
        assert push.push_library(lib, push.Pusher.from_config(), out=lambda s: None) == (0, [])  # remembered
        held = lib.data(model.load_match(data).id_hex)
    (club,) = db.execute("SELECT data FROM matches WHERE event = %s", (ev,)).fetchone()
    assert bytes(club) == held == data

    # the organiser's round: the pairing gets the finished match's result
    db_ = ("--db", pg.conninfo)
    assert _run(capsys, "club", "pairing", "add", ev, 1, "Bob", "Ann", "--board", "Table 3", *db_)[0] == 0
    assert _run(capsys, "club", "pairing", "add", ev, 2, "Ann", "Cy", *db_)[0] == 0
    code, out, err = _run(capsys, "club", "pairing", "add", ev, 1, "ann", "Cy", *db_)
    assert code == 2 and "round 1 already pairs Bob - Ann" in err, err
    code, out, err = _run(capsys, "club", "pairing", "list", ev, *db_)
    assert out.splitlines() == ["round 1   Table 3      Bob - Ann", "round 2                Ann - Cy"], out
    with urllib.request.urlopen(servers[1].url + "/events/%s/matches" % ev) as r:
        j = json.loads(r.read())
    m = model.load_match(data)
    r1, r2 = j["rounds"]
    assert r1["result"]["score"] == [m.final_score[1], m.final_score[0]]  # Bob's first, as paired
    assert r1["result"]["winner"] == m.names[m.winner] and r2["result"] is None

    code, out, err = _run(capsys, "club", "token", "list", "--db", pg.conninfo)
    assert "Table 3 laptop" in out and "live" in out
    assert _run(capsys, "club", "token", "revoke", "Table 3 laptop", "--db", pg.conninfo)[0] == 0
    code, out, err = _run(capsys, "club", "join", servers[1].url, token)
    assert code == 2 and "unknown or revoked token" in err, err
    code, out, err = _run(capsys, "club", "token", "add", "   ", "--event", ev, "--db", pg.conninfo)
    assert code == 2 and "needs a host name" in err, err
    code, out, err = _run(capsys, "club", "token", "list")
    assert code == 2 and "GAMMON_CLUB_DB" in err
