"""The journal says who the board's computer was: a match played on the controller against
pubeval (``app.opponent``) goes through the records (``bg.record``) into the host's model
(``gammon.model``) and its exports, which name the computer's side by its strength."""

import ctl_helpers as H
import pytest
from app import controller as C
from app import opponent as O
from app import search as S
from bg import board, record
from gammon import model
from gammon.formats import mat, sgf


def _match_bytes(comp=1, seed=5):
    c = H.make(computer=comp, length=1, names=("Ann", "Bob"))
    c.opp = O.Opponent(S.chooser("pubeval"))
    out = bytearray()
    r = H.Robot(c, seed, drain=lambda k, f: out.extend(record.encode(k, f)))
    r.set_start()
    assert r.press(0, C.ROLL)
    for _ in range(600):
        if c.phase == C.MATCH_OVER:
            break
        if c.phase == C.OPENING:
            r.set_start()
            r.press(1 - comp, C.ROLL)
        elif c.phase == C.AWAIT_ROLL:
            assert r.press(c.side, C.ROLL)
        elif c.phase == C.MOVING and c.side != comp:
            r.play_turn()
        elif c.phase == C.MOVING:
            for k in range(0, len(c.opp.plan), 2):
                board.apply_step(r.pos, comp, c.opp.plan[k], c.opp.plan[k + 1])
                r.sense()
    assert c.phase == C.MATCH_OVER
    return bytes(out)


@pytest.mark.parametrize("comp", (0, 1))
def test_the_computers_side_and_strength_reach_the_model_and_the_exports(comp):
    m = model.load_match(_match_bytes(comp))
    assert m.computer == comp and m.complete and not m.note
    assert m.names[comp] == "pubeval" and m.names[1 - comp] == ("Ann", "Bob")[1 - comp]
    assert "computer:%s" % ("white", "black")[comp] in m.options_text()
    text = mat.export(m)
    assert '[Player %d "pubeval"]' % (comp + 1) in text and " pubeval : 0" in text, text[:400]
    assert ("PW[pubeval]" if comp == 0 else "PB[pubeval]") in sgf.export(m)


def test_a_match_between_two_players_names_no_computer():
    from export_helpers import random_match

    data, _ = random_match(3, length=1)
    m = model.load_match(data)
    assert m.computer is None and "computer" not in m.options_text()


def test_gammon_verify_checks_the_computers_throws(tmp_path, monkeypatch, capsys):
    """The computer throws with the board's fair dice: ``gammon verify`` checks every throw of
    a match against pubeval, and names a changed one."""
    from gammon.cli import main

    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    data = _match_bytes(1, 7)
    p = tmp_path / "vs.journal"
    p.write_bytes(data)
    assert main(["verify", str(p)]) == 0
    out = capsys.readouterr().out
    assert "PASS: commitment and all" in out
    # one of the computer's throws changed: verify fails
    acts = list(record.decode_stream(data))
    i = next(i for i, (k, f) in enumerate(acts) if k == record.ROLL and f[0] == 1)
    k, f = acts[i]
    acts[i] = (k, (f[0], f[1] % 6 + 1, f[2]))
    bad = b"".join(record.encode(k, f) for k, f in acts)
    p.write_bytes(bad)
    assert main(["verify", str(p)]) != 0
    assert "FAIL" in capsys.readouterr().out
