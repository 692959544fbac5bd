"""gammon remote verify: the joint dice of a match between two boards, from both boards'
transcripts -- PASS for the honest pair (either order), FAIL for a board that committed to
another seed than the other host saw, reordered or differing player seed parts, a throw or a
share that is not the agreed one; bad input is one line, exit 2."""

import hashlib
import json

from bg.dice import SRC_HOST, SeedMixer, commitment
from bg.dice import joint as dice_joint
from gammon.cli import main
from gammon.commands import remote as remote_cmd

MIDS = (bytes.fromhex("0102030405060708"), bytes.fromhex("1112131415161718"))
SEEDS = (hashlib.sha256(b"home").digest(), hashlib.sha256(b"away").digest())
PARTS = (bytes(16), bytes(range(16)))
N = 30


def _pair(tmp_path):
    m = SeedMixer()
    for p in PARTS:
        m.add(SRC_HOST, p)
    ps = m.digest()
    cs = [commitment(MIDS[i], SEEDS[i]) for i in (0, 1)]
    gens = [dice_joint.Share(dice_joint.joint_id(cs[0], cs[1]), i, SEEDS[i], ps) for i in (0, 1)]
    shares = ([], [])
    throws = []
    for k in range(N):
        s = [g.share(k) for g in gens]
        shares[0].append(s[0])
        shares[1].append(s[1])
        d = dice_joint.combine(s[0], s[1])
        throws.append((d[0], d[1]))
    out = []
    for i in (0, 1):
        t = remote_cmd.transcript(i, MIDS[i], cs[i], SEEDS[i], cs[1 - i], PARTS, shares[i], throws)
        out.append(t)
    return out


def _run(tmp_path, capsys, a, b):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    rc = main(["remote", "verify", str(pa), str(pb)])
    out = capsys.readouterr()
    return rc, out.out + out.err


def test_the_honest_pair_passes_in_either_order(tmp_path, capsys):
    a, b = _pair(tmp_path)
    for x, y in ((a, b), (b, a)):
        rc, out = _run(tmp_path, capsys, x, y)
        assert rc == 0 and "PASS" in out and ("all %d throws" % N) in out, out


def test_a_board_that_committed_to_another_seed_than_the_host_saw_fails(tmp_path, capsys):
    a, b = _pair(tmp_path)
    # side 1's board published one commitment, then played and revealed for another seed
    other = hashlib.sha256(b"chosen later").digest()
    b["seed"], b["commitment"] = other.hex(), commitment(MIDS[1], other).hex()
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 1 and "side 1's board committed to another seed" in out, out


def test_reordered_or_differing_parts_fail(tmp_path, capsys):
    a, b = _pair(tmp_path)
    for t in (a, b):
        t["parts"] = t["parts"][::-1]
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 1 and "FAIL: throw 0" in out, out
    a, b = _pair(tmp_path)
    b["parts"] = [a["parts"][0], bytes([1] * 16).hex()]
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 1 and "different player seed parts" in out, out


def test_a_throw_or_share_that_is_not_the_agreed_one_fails(tmp_path, capsys):
    a, b = _pair(tmp_path)
    d1, d2 = b["throws"][9]
    b["throws"][9] = [d1 % 6 + 1, d2]
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 1 and "throw 9: board 1 recorded" in out, out
    a, b = _pair(tmp_path)
    a["shares"][4] = bytes(32).hex()
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 1 and "board 0 sent a share" in out, out
    a, b = _pair(tmp_path)
    rc, out = _run(tmp_path, capsys, a, a)
    assert rc == 1 and "both transcripts are of side 0" in out, out


def test_bad_input_is_one_line(tmp_path, capsys):
    a, b = _pair(tmp_path)
    a["seed"] = "zz"
    rc, out = _run(tmp_path, capsys, a, b)
    assert rc == 2 and "seed is missing or not hex" in out and out.count("\n") == 1, out
    rc, out = _run(tmp_path, capsys, {"format": "other"}, b)
    assert rc == 2 and "not a joint transcript" in out, out
    p = tmp_path / "missing.json"
    rc = main(["remote", "verify", str(p), str(p)])
    assert rc == 2 and "not a readable joint transcript" in capsys.readouterr().err


def test_the_joint_dice_docstring_examples_hold():
    import doctest

    from bg.dice import joint

    res = doctest.testmod(joint, extraglobs=vars(joint))
    assert res.attempted >= 5 and res.failed == 0
