"""``gammon verify`` and ``gammon dice-stats`` on matches of the local library.

The matches are played through the real controller (``app.controller``, driven by the
``ctl_helpers`` robot, dice from ``bg.dice.fairness.Fairness``), imported with ``gammon import``
into a library under a temporary ``GAMMON_HOME``, then checked by id.
"""

import json
import sqlite3
import xml.etree.ElementTree as ET

import ctl_helpers as H
import pytest
from app import controller as C
from app import rules
from bg import record
from bg.dice.fairness import Fairness
from gammon import model
from gammon.cli import main
from gammon.commands.dice import matches_from_journal
from gammon.library import Library


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _played(n, names=("Ann", "Bob"), length=1, house=False, day=1767225600):
    """The records of a match played on the controller: match id ``n``, one game (``length``
    1: finished, the seed revealed; longer: still in progress, the seed secret)."""
    mid = bytes([0xD1, 0xCE, n, 0, 0, 0, 0, n])
    s = C.Settings(length=length, house=house, names=names)
    c = C.Controller(s, rules, lambda m: Fairness(m, H.seed_for(m)), lambda: mid, lambda: day)
    r = H.Robot(c, n)
    r.set_start()
    if c.phase == C.IDLE:
        r.press(0, C.ROLL)
    r.play_game()
    return b"".join(record.encode(k, f) for k, f in c.outbox)


def _throws(data):
    (m,) = matches_from_journal(data, "test")
    return m.throws


def _import(tmp_path, capsys, *matches):
    p = tmp_path / "journal.m"
    p.write_bytes(b"".join(matches))
    code, out, err = _run(capsys, "import", p)
    assert code == 0 and out.count("new ") == len(matches), out + err
    return [model.load_match(m).id_hex for m in matches]


def test_verify_a_library_match_by_id_prefix_and_number(tmp_path, capsys):
    a, b = _played(1), _played(2, house=True)
    ida, idb = _import(tmp_path, capsys, a, b)
    code, out, _ = _run(capsys, "verify", ida)
    assert code == 0 and "PASS: commitment and all %d throws match" % len(_throws(a)) in out
    assert "match %s:" % ida in out
    code, out, _ = _run(capsys, "verify", idb[:6])  # a unique prefix, as show/export accept
    assert code == 0 and "all %d throws" % len(_throws(b)) in out and idb in out
    code, out, _ = _run(capsys, "verify", "#2")  # gammon list's numbering
    assert code == 0 and "PASS" in out


def test_a_tampered_stored_match_fails_naming_the_throw(tmp_path, capsys, home):
    data = _played(3)
    (mid,) = _import(tmp_path, capsys, data)
    # someone with the library file rewrites one throw, re-encoding the record so its
    # checksum is right again (what a careful forger does)
    recs = list(record.decode_stream(data))
    rolls = [i for i, (k, _f) in enumerate(recs) if k == record.ROLL]
    i = rolls[len(rolls) // 2]
    k, f = recs[i]
    recs[i] = (k, (f[0], f[1] % 6 + 1, f[2]))
    forged = b"".join(record.encode(k2, f2) for k2, f2 in recs)
    bad = [j for j, (t, u) in enumerate(zip(_throws(data), _throws(forged))) if t != u]
    assert len(bad) == 1
    db = sqlite3.connect(str(home / "library.sqlite3"))
    with db:
        db.execute("UPDATE matches SET data=? WHERE id=?", (forged, mid))
    db.close()
    code, out, _ = _run(capsys, "verify", mid)
    assert code == 1 and "FAIL: throw %d recorded" % bad[0] in out, out


def test_an_unfinished_synced_match_cannot_be_verified_yet(tmp_path, capsys):
    data = _played(4, length=5)  # one game of a 5-point match: no reveal yet
    (mid,) = _import(tmp_path, capsys, data)
    code, out, _ = _run(capsys, "verify", mid)
    assert code == 3, out
    assert "NOT YET" in out and "before the board reveals the seed" in out and "FAIL" not in out


def test_unknown_names_are_one_line_exit_2(tmp_path, capsys, home):
    for name in ("d1ceee00000000ee", "nonesuch.m"):  # no library yet
        code, out, err = _run(capsys, "verify", name)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "no such file, and not a match in the library" in err and "library is empty" in err
    assert not home.exists()  # reading never creates a library
    _import(tmp_path, capsys, _played(5), _played(6))
    for name, why in (
        ("d1ceee00000000ee", "not in the library"),
        ("nonesuch.m", "give a match id"),
        ("d1ce", "ambiguous"),
        ("#9", "no game #9"),
    ):
        code, out, err = _run(capsys, "verify", name)
        assert code == 2 and out == "" and err.count("\n") == 1, (name, err)
        assert err.startswith("gammon: error: %s: no such file" % name) and why in err, (name, err)
    code, _, err = _run(capsys, "verify", str(tmp_path))
    assert code == 2 and "is not a file" in err


def test_dice_stats_over_the_library_sums_its_matches(tmp_path, capsys):
    ms = [_played(7), _played(8, names=("Cleo", "Dan")), _played(9, house=True), _played(10, length=3)]
    _import(tmp_path, capsys, *ms)
    throws = [_throws(m) for m in ms]
    code, out, _ = _run(capsys, "dice-stats", "--json")
    st = json.loads(out)
    every = [t for ts in throws for t in ts]
    faces = [0] * 6
    for a, b in every:
        faces[a - 1] += 1
        faces[b - 1] += 1
    assert code == 0 and st["matches"] == 4 and st["throws"] == len(every) and st["faces"] == faces
    assert st["doubles"] == sum(a == b for a, b in every)
    # --library is the same as no FILE; a file adds its matches
    p = tmp_path / "extra.m"
    p.write_bytes(_played(11))
    code, out, _ = _run(capsys, "dice-stats", "--library", "--json", p)
    st2 = json.loads(out)
    assert st2["matches"] == 5 and st2["throws"] == len(every) + len(_throws(p.read_bytes()))
    # gammon list's filters
    code, out, _ = _run(capsys, "dice-stats", "--json", "--player", "cleo")
    st3 = json.loads(out)
    assert st3["matches"] == 1 and st3["throws"] == len(throws[1])
    code, out, _ = _run(capsys, "dice-stats", "--json", "--result", "unfinished")
    assert json.loads(out)["throws"] == len(throws[3])
    code, out, _ = _run(capsys, "dice-stats", "--json", "--since", "2026-01-01", "--until", "2026-01-01")
    assert json.loads(out)["matches"] == 4  # the controller's clock says 2026-01-01 00:00 UTC
    # text and picture
    svg = tmp_path / "lib.svg"
    code, out, _ = _run(capsys, "dice-stats", "--svg", svg)
    assert code == 0 and "%d throws (%d dice) in 4 match(es)" % (len(every), 2 * len(every)) in out
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_dice_stats_library_errors_are_one_line(tmp_path, capsys):
    code, out, err = _run(capsys, "dice-stats")
    assert code == 2 and "library is empty" in err and err.count("\n") == 1
    _import(tmp_path, capsys, _played(12))
    for argv, why in (
        (("--player", "zoe"), "no match in the library matches these filters (1 stored)"),
        (("--since", "2027-01-01"), "matches these filters"),
        (("--since", "tomorrow"), "bad date"),
        (("--length", "five"), "--length wants a number"),
        (("--result", "won"), "needs --player"),
        ((str(tmp_path / "journal.m"), "--player", "ann"), "--player selects library matches: add --library"),
    ):
        code, out, err = _run(capsys, "dice-stats", *argv)
        assert code == 2 and err.count("\n") == 1 and why in err, (argv, err)
    with Library.open() as lib:
        assert lib.count() == 1  # nothing written by reading commands
