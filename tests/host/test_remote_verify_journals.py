"""gammon remote verify over two boards' journals (not transcripts): two controllers play a
1-point match with joint dice (tests/ctl/test_controller_joint.py's boards and hosts), each
journal is written as the board stores it, and ``gammon remote verify`` proves the dice from
them alone -- as files and as a match in this host's library. A journal whose taken share was
falsified (a cheating board 0: the share it sent is not its seed's), whose throw was changed,
or that holds no two-board match fails, one line."""

import test_controller_joint as joint_tests
from app import controller as C
from bg import record
from gammon.cli import main


def _match():
    a, b = joint_tests._joined()
    while a.c.phase == C.OPENING:
        joint_tests._throw(a, b)
    for _ in range(3):
        joint_tests._play(a, b)
        side = a.c.side
        first, second = (a, b) if side == 0 else (b, a)
        joint_tests._throw(first, second, side)
    joint_tests._play(a, b)
    side = a.c.side
    for s in (a, b):
        assert s.r.press(side, C.CUBE, C.LONG) and s.r.press(1 - side, C.ROLL)
        assert s.c.phase == C.MATCH_OVER
    return a.j, b.j


def _bytes(j):
    return b"".join(record.encode(k, f) for k, f in j)


def _verify(capsys, *paths):
    rc = main(["remote", "verify"] + [str(p) for p in paths])
    out = capsys.readouterr()
    return rc, (out.out + out.err).strip()


def test_two_journals_pass_and_a_falsified_share_or_throw_fails(tmp_path, capsys):
    ja, jb = _match()
    pa, pb = tmp_path / "a.m", tmp_path / "b.m"
    pa.write_bytes(_bytes(ja))
    pb.write_bytes(_bytes(jb))
    rc, out = _verify(capsys, pa, pb)
    assert rc == 0 and out.startswith("PASS") and "throws match" in out, out
    assert _verify(capsys, pb, pa)[0] == 0
    # board 1's journal took a share of throw 1 that board 0's seed does not give
    bad = [(k, (f[0], bytes(32)) if k == record.JOINT_SHARE and f[0] == 1 else f) for k, f in jb]
    pb.write_bytes(_bytes(bad))
    rc, out = _verify(capsys, pa, pb)
    assert rc == 1 and "throw 1: board 0 sent a share its seed does not give" in out, out
    # a throw in board 1's journal that is not the agreed one
    rolls = [i for i, (k, f) in enumerate(jb) if k == record.ROLL]
    bad = list(jb)
    k, f = bad[rolls[0]]
    bad[rolls[0]] = (k, (f[0], f[1] % 6 + 1, f[2]))
    pb.write_bytes(_bytes(bad))
    rc, out = _verify(capsys, pa, pb)
    assert rc == 1 and "FAIL" in out, out
    # a one-board match's journal
    one = [(k, f) for k, f in ja if k not in (record.JOINT_START, record.JOINT_SHARE)]
    pb.write_bytes(_bytes(one))
    rc, out = _verify(capsys, pa, pb)
    assert rc == 2 and "no match with another board" in out, out


def test_a_match_of_this_hosts_library_against_the_other_boards_journal(tmp_path, capsys, monkeypatch):
    from gammon.library import Library

    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "home"))
    ja, jb = _match()
    with Library.open() as lib:
        lib.store(_bytes(ja), board="board a")
    mid = [f for k, f in ja if k == record.MATCH_START][0][0].hex()
    pb = tmp_path / "theirs.m"
    pb.write_bytes(_bytes(jb))
    rc, out = _verify(capsys, mid[:8], pb)
    assert rc == 0 and out.startswith("PASS"), out
