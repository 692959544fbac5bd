"""``gammon verify``, ``gammon dice-stats``, ``gammon dice-sim`` on JSON transcripts and journals."""

import json
import xml.etree.ElementTree as ET

import pytest
from bg import dice, record
from bg.dice.cup import DONE, Opening
from bg.dice.fairness import Fairness
from gammon.cli import main
from gammon.commands.dice import transcript

MID = bytes.fromhex("a1b2c3d4e5f60718")
SEED = bytes(range(100, 132))
PHRASE = "rosebud"


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    # a MATCH that is not a file is looked up in the library: never the user's real one
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))


def _match(n=80):
    f = Fairness(MID, SEED)
    f.set_player_seed(dice.player_seed_from_text(PHRASE))
    ps = f.fix()
    throws = [tuple(f.roll()) for _ in range(n)]
    f.end_match()
    return f, ps, throws


def _write_json(tmp_path, name="m.json", throws=None, reveal=True, **over):
    f, ps, real = _match()
    obj = transcript(MID, f.commitment, ps, SEED if reveal else None, real if throws is None else throws)
    obj.update(over)
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return p, real


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# verify on JSON transcripts -------------------------------------------------------------


def test_verify_pass(tmp_path, capsys):
    p, _ = _write_json(tmp_path)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 0
    assert "PASS: commitment and all 80 throws match" in out
    assert MID.hex() in out


def test_verify_names_the_tampered_throw(tmp_path, capsys):
    _, real = _write_json(tmp_path)
    bad = list(real)
    bad[23] = (real[23][0], real[23][1] % 6 + 1)
    p, _ = _write_json(tmp_path, "bad.json", bad)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 1
    assert "FAIL: throw 23 recorded" in out


def test_verify_detects_missing_and_reordered_throws(tmp_path, capsys):
    _, real = _write_json(tmp_path)
    k = next(i for i in range(30, 79) if real[i] != real[i + 1])
    missing = real[:k] + real[k + 1 :]
    code, out, _ = _run(capsys, "verify", _write_json(tmp_path, "miss.json", missing)[0])
    assert code == 1 and "FAIL: throw %d " % k in out
    swapped = list(real)
    swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
    code, out, _ = _run(capsys, "verify", _write_json(tmp_path, "swap.json", swapped)[0])
    assert code == 1 and "FAIL: throw %d " % k in out


def test_verify_detects_a_wrong_seed(tmp_path, capsys):
    p, _ = _write_json(tmp_path)
    code, out, _ = _run(capsys, "verify", p, "--seed", bytes(32).hex())
    assert code == 1 and "does not match the commitment" in out
    p2, _ = _write_json(tmp_path, "w.json", board_seed=bytes(32).hex())
    code, out, _ = _run(capsys, "verify", p2)
    assert code == 1 and "commitment" in out


def test_verify_before_the_reveal_says_not_yet(tmp_path, capsys):
    p, _ = _write_json(tmp_path, reveal=False)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 3 and "NOT YET" in out and "not revealed" in out and "FAIL" not in out
    code, out, _ = _run(capsys, "verify", p, "--seed", SEED.hex())
    assert code == 0 and "PASS" in out


def test_verify_checks_your_player_seed(tmp_path, capsys):
    p, _ = _write_json(tmp_path)
    assert _run(capsys, "verify", p, "--player-seed", PHRASE)[0] == 0
    code, out, _ = _run(capsys, "verify", p, "--player-seed", "something else")
    assert code == 1 and "player seed" in out


def test_verify_bad_input_is_one_line_exit_2(tmp_path, capsys):
    cases = []
    p = tmp_path / "x.json"
    p.write_text("{not json")
    cases.append(p)
    p2 = tmp_path / "y.json"
    p2.write_text(
        json.dumps({"format": "smartgammon-dice/1", "match_id": "zz", "commitment": "00", "throws": []})
    )
    cases.append(p2)
    p3 = tmp_path / "z.json"
    p3.write_text(json.dumps({"format": "other"}))
    cases.append(p3)
    cases.append(tmp_path / "absent.json")
    for c in cases:
        code, out, err = _run(capsys, "verify", c)
        assert code == 2, c
        assert err.startswith("gammon: error: ") and err.count("\n") == 1, err


def test_verify_bad_throw_entries(tmp_path, capsys):
    p, real = _write_json(tmp_path)
    obj = json.loads(p.read_text())
    for bad in ([1, 2, 3], {"dice": [1, "2"]}, "12", [True, 2]):
        obj["throws"][1] = bad
        p.write_text(json.dumps(obj))
        code, _, err = _run(capsys, "verify", p)
        assert code == 2 and "throw 1 must be two dice" in err, bad


# verify on journal files (bg.record) ----------------------------------------------------


def _journal(house=False, tamper=None):
    """A journal as the board writes it: MATCH_START, openings, compact turns, the reveal."""
    f = Fairness(MID, SEED)
    ps = f.fix()
    out = bytearray()
    out += record.encode(
        record.MATCH_START,
        (
            MID,
            1700000000,
            5,
            record.OPT_HOUSE_OPENING if house else 0,
            0,
            0,
            0,
            "Ann",
            "Bob",
            f.commitment,
            ps,
        ),
    )
    out += record.encode(record.GAME_START, (1, 0, 0, 0))
    o = Opening(house)
    throws = []
    while o.state != DONE:
        if o.state == 1:
            o.keep()
            continue
        d = tuple(f.roll())
        throws.append(d)
        o.feed(*d)
        if house:
            if len(throws) % 2 == 0:
                out += record.encode(record.OPENING, (record.OPEN_HOUSE, throws[-2] + throws[-1]))
        else:
            out += record.encode(record.OPENING, (0, d))
    for i in range(12):
        d = tuple(f.roll())
        throws.append(d)
        if tamper == len(throws) - 1:
            d = (d[0] % 6 + 1, d[1])
        out += record.encode(record.ROLL, (i % 2, d[0], d[1]))
    f.end_match()
    out += record.encode(record.SEED_REVEAL, (f.reveal(),))
    return bytes(out), throws


def test_verify_a_journal_file(tmp_path, capsys):
    data, throws = _journal()
    p = tmp_path / "match.journal"
    p.write_bytes(data)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 0 and "PASS: commitment and all %d throws match" % len(throws) in out


def test_verify_a_house_variant_journal(tmp_path, capsys):
    data, throws = _journal(house=True)
    p = tmp_path / "house.journal"
    p.write_bytes(data)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 0 and "all %d throws" % len(throws) in out


def test_verify_a_tampered_journal(tmp_path, capsys):
    data, throws = _journal(tamper=None)
    k = len(throws) - 5
    data, _ = _journal(tamper=k)
    p = tmp_path / "bad.journal"
    p.write_bytes(data)
    code, out, _ = _run(capsys, "verify", p)
    assert code == 1 and "FAIL: throw %d " % k in out


def test_verify_a_journal_cut_before_the_reveal(tmp_path, capsys):
    data, _ = _journal()
    p = tmp_path / "cut.journal"
    p.write_bytes(data[:-10])  # torn SEED_REVEAL record
    code, out, _ = _run(capsys, "verify", p)
    assert code == 3 and "not revealed" in out and "damaged record" in out


def test_not_a_journal(tmp_path, capsys):
    p = tmp_path / "junk.bin"
    p.write_bytes(b"\x00\x01garbage")
    code, _, err = _run(capsys, "verify", p)
    assert code == 2 and "no match" in err


# dice-stats and dice-sim ----------------------------------------------------------------


def test_dice_stats_text_json_and_svg(tmp_path, capsys):
    p1, t1 = _write_json(tmp_path, "a.json")
    data, t2 = _journal()
    p2 = tmp_path / "b.journal"
    p2.write_bytes(data)
    svg = tmp_path / "dice.svg"
    code, out, _ = _run(capsys, "dice-stats", p1, p2, "--svg", svg)
    assert code == 0
    n = len(t1) + len(t2)
    assert "%d throws (%d dice) in 2 match(es)" % (n, 2 * n) in out
    assert "faces chi-square" in out and "p = " in out
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert len([e for e in root.iter() if e.tag.endswith("rect")]) >= 1 + 6 + 36
    code, out, _ = _run(capsys, "dice-stats", p1, p2, "--json")
    st = json.loads(out)
    faces = [0] * 6
    for a, b in t1 + t2:
        faces[a - 1] += 1
        faces[b - 1] += 1
    assert st["faces"] == faces and st["throws"] == n and st["matches"] == 2
    assert 0 <= st["tests"]["faces"]["p"] <= 1


def test_dice_stats_needs_throws(tmp_path, capsys):
    p, _ = _write_json(tmp_path, "e.json", [])
    code, _, err = _run(capsys, "dice-stats", p)
    assert code == 2 and "no throws" in err


def test_dice_sim_then_verify(tmp_path, capsys):
    p = tmp_path / "sim.json"
    code, out, _ = _run(capsys, "dice-sim", "--throws", 300, "--player-seed", "abc", "--out", p)
    assert code == 0
    obj = json.loads(p.read_text())
    assert len(obj["throws"]) == 300
    assert obj["player_seed"] == dice.player_seed_from_text("abc").hex()
    code, out, _ = _run(capsys, "verify", p, "--player-seed", "abc")
    assert code == 0 and "PASS" in out


# End to end with the real controller (app.controller) and its journal records ---------------


def _controller_journal(house):
    import ctl_helpers as H
    from app import controller as C

    c = H.make(length=1, house=house)
    r = H.Robot(c, 3)
    r.set_start()
    if c.phase == C.IDLE:
        r.press(0, C.ROLL)
    r.play_game()
    return c.outbox


def test_verify_a_match_played_through_the_controller(tmp_path, capsys):
    for house in (False, True):
        actions = _controller_journal(house)
        data = b"".join(record.encode(k, f) for k, f in actions)
        p = tmp_path / ("ctl%d.m" % house)
        p.write_bytes(data)
        code, out, _ = _run(capsys, "verify", p)
        assert code == 0 and "PASS" in out, out
        # the same match with one throw changed (a general ROLL record re-encoded)
        rolls = [i for i, (k, f) in enumerate(actions) if k == record.ROLL]
        i = rolls[len(rolls) // 2]
        k, f = actions[i]
        bad = list(actions)
        bad[i] = (k, (f[0], f[1] % 6 + 1, f[2]))
        p.write_bytes(b"".join(record.encode(k2, f2) for k2, f2 in bad))
        code, out, _ = _run(capsys, "verify", p)
        assert code == 1 and "FAIL: throw" in out, out
