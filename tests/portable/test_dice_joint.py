"""bg.dice.joint: two boards' shares make the throws; verify_joint passes the honest pair and
fails an altered seed or commitment, a share or throw that is not the agreed one, reordered
player seed parts, swapped sides and a copied commitment."""

import hashlib

from bg.dice import SRC_HOST, SeedMixer, commitment, faces_from_bytes, joint, joint_verify

MID0 = bytes.fromhex("a0a1a2a3a4a5a6a7")
MID1 = bytes.fromhex("b0b1b2b3b4b5b6b7")
SEED0 = hashlib.sha256(b"board zero").digest()
SEED1 = hashlib.sha256(b"board one").digest()
PART0 = bytes(range(16))  # side 0's host's part
PART1 = bytes(range(100, 116))
N = 16


def _ps(parts=(PART0, PART1)):
    m = SeedMixer()
    for p in parts:
        m.add(SRC_HOST, p)
    return m.digest()


def _match(seed0=SEED0, seed1=SEED1, ps=None, n=N):
    """Both boards' honest transcripts: what each sent and journaled."""
    ps = ps or _ps()
    c0, c1 = commitment(MID0, seed0), commitment(MID1, seed1)
    jid = joint.joint_id(c0, c1)
    g0, g1 = joint.Share(jid, 0, seed0, ps), joint.Share(jid, 1, seed1, ps)
    shares0, shares1, throws = [], [], []
    for k in range(n):
        s0, s1 = g0.share(k), g1.share(k)
        shares0.append(s0)
        shares1.append(s1)
        d = joint.combine(s0, s1)
        throws.append((d[0], d[1]))
    b0 = joint_verify.Board(MID0, c0, seed0, list(throws), shares0)
    b1 = joint_verify.Board(MID1, c1, seed1, list(throws), shares1)
    return b0, b1, ps


def _fails(b0, b1, ps, index=None, words=""):
    ok, idx, msg = joint_verify.verify_joint(b0, b1, ps)
    assert not ok and msg.startswith("FAIL"), msg
    if index is not None:
        assert idx == index, (idx, msg)
    assert words in msg, msg
    return idx


def test_the_honest_pair_verifies():
    b0, b1, ps = _match()
    ok, idx, msg = joint_verify.verify_joint(b0, b1, ps)
    assert ok and idx == -1 and ("all %d throws" % N) in msg, msg
    for d1, d2 in b0.throws:
        assert 1 <= d1 <= 6 and 1 <= d2 <= 6


def test_the_honest_pair_verifies_without_the_shares():
    b0, b1, ps = _match()
    b0.shares = b1.shares = None
    assert joint_verify.verify_joint(b0, b1, ps)[0]


def test_each_board_alone_does_not_fix_the_throws():
    # the other board's seed changes the throws: neither board's seed decides them by itself
    base = _match()[0].throws
    other1 = _match(seed1=hashlib.sha256(b"another board one").digest())[0].throws
    other0 = _match(seed0=hashlib.sha256(b"another board zero").digest())[0].throws
    assert base != other1 and base != other0
    assert sum(1 for a, b in zip(base, other1) if a == b) < N // 2


def test_a_share_is_the_board_s_hmac_with_its_side_byte():
    ps = _ps()
    c0, c1 = commitment(MID0, SEED0), commitment(MID1, SEED1)
    jid = joint.joint_id(c0, c1)
    assert jid == hashlib.sha256(b"smartgammon-joint-v1" + c0 + c1).digest()[:8]
    from bg.dice import hmac_sha256

    msg = jid + ps + bytes((0, 0, 1, 2)) + b"\x01"
    assert joint.Share(jid, 1, SEED1, ps).share(258) == hmac_sha256(SEED1, msg)
    # the same seed on the other side gives another share: a copied seed does not cancel out
    assert joint.Share(jid, 0, SEED1, ps).share(258) != joint.Share(jid, 1, SEED1, ps).share(258)


def test_combine_uses_bg_dice_rejection_and_chains_when_a_block_runs_out():
    s0 = bytes(range(32))
    s1 = bytes([0xFF] * 32)
    block = bytes(a ^ b for a, b in zip(s0, s1))  # 255, 254, ... 224: first four rejected
    out = bytearray(2)
    assert faces_from_bytes(block, out) == 2
    assert bytes(joint.combine(s0, s1)) == bytes(out) == bytes((251 % 6 + 1, 250 % 6 + 1))
    # every byte rejected: the block is hashed on (the rule stays total)
    full = bytes([0xFC] * 32)
    d = joint.combine(full, bytes(32))
    nxt = hashlib.sha256(full).digest()
    assert faces_from_bytes(nxt, out) == 2 and bytes(d) == bytes(out)


def test_a_seed_other_than_the_committed_one_fails_naming_the_board():
    b0, b1, ps = _match()
    b1.seed = hashlib.sha256(b"picked later").digest()
    _fails(b0, b1, ps, -1, "board 1's revealed seed does not match")
    b0, b1, ps = _match()
    b0.seed = SEED1
    _fails(b0, b1, ps, -1, "board 0's revealed seed")


def test_a_rewritten_commitment_fails():
    b0, b1, ps = _match()
    # a board that made a new seed and a commitment to it after the match: the shares it sent
    # (and the throws) were fixed by the old one
    new = hashlib.sha256(b"new seed").digest()
    b1.seed, b1.commit = new, commitment(MID1, new)
    _fails(b0, b1, ps, 0)


def test_a_copied_commitment_is_refused():
    b0, b1, ps = _match()
    b1.commit, b1.match_id, b1.seed = b0.commit, b0.match_id, b0.seed
    _fails(b0, b1, ps, -1, "same commitment")


def test_swapped_sides_fail():
    b0, b1, ps = _match()
    _fails(b1, b0, ps, 0)


def test_a_share_that_is_not_the_agreed_one_names_the_board():
    b0, b1, ps = _match()
    bad = bytearray(b1.shares[7])
    bad[0] ^= 1
    b1.shares[7] = bytes(bad)
    _fails(b0, b1, ps, 7, "board 1 sent a share")


def test_a_throw_that_is_not_the_agreed_one_fails_on_either_journal():
    for side in (0, 1):
        b0, b1, ps = _match()
        b = (b0, b1)[side]
        d1, d2 = b.throws[11]
        b.throws[11] = (d1 % 6 + 1, d2)
        _fails(b0, b1, ps, 11, "board %d recorded" % side)


def test_a_missing_or_reordered_throw_fails():
    b0, b1, ps = _match()
    del b0.throws[5]
    del b1.throws[5]
    assert _fails(b0, b1, ps) >= 5
    b0, b1, ps = _match()
    k = next(i for i in range(N - 1) if b0.throws[i] != b0.throws[i + 1])
    for b in (b0, b1):
        b.throws[k], b.throws[k + 1] = b.throws[k + 1], b.throws[k]
    _fails(b0, b1, ps, k)
    b0, b1, ps = _match()
    b0.throws.pop()
    _fails(b0, b1, ps, N - 1, "board 0 holds")


def test_reordered_player_seed_parts_fail():
    b0, b1, ps = _match()
    assert _ps((PART1, PART0)) != ps
    _fails(b0, b1, _ps((PART1, PART0)))
    _fails(b0, b1, _ps((PART0,)))


def test_bad_lengths_are_a_failure_not_a_crash():
    b0, b1, ps = _match()
    b0.seed = b0.seed[:31]
    _fails(b0, b1, ps, -1, "seed of board 0")
    b0, b1, ps = _match()
    _fails(b0, b1, ps[:15], -1, "player seed")
    for bad in ((lambda: joint.Share(bytes(8), 2, SEED0)), (lambda: joint.combine(bytes(31), bytes(32)))):
        try:
            bad()
        except ValueError:
            continue
        raise AssertionError("accepted")


def _pair_of_boards(counter=0):
    ps = _ps()
    c0, c1 = commitment(MID0, SEED0), commitment(MID1, SEED1)
    return joint.JointDice(0, c0, SEED0, c1, ps, counter), joint.JointDice(1, c1, SEED1, c0, ps, counter)


def test_a_board_given_its_streams_pads_shares_what_its_seed_gives():
    """The board keeps its seed's key pads once: its ``Fairness`` stream's (``pads``) key its
    shares too. Other pads give other shares; neither a seed nor pads is refused."""
    from bg.dice.fairness import Fairness

    ps = _ps()
    c0, c1 = commitment(MID0, SEED0), commitment(MID1, SEED1)
    f = Fairness(MID0, SEED0)
    assert f.pads is None  # not fixed yet
    f.fix()
    a = joint.JointDice(0, c0, None, c1, ps, 0, pads=f.pads)
    b = joint.JointDice(0, c0, SEED0, c1, ps)
    assert a._ipad is f.pads[0] and a._opad is f.pads[1]
    for k in (0, 1, 7):
        a.counter = b.counter = k
        assert a.share() == b.share() and a.share_of(k + 1) == b.share_of(k + 1)
    other = Fairness(MID1, SEED1)
    other.fix()
    c = joint.JointDice(0, c0, None, c1, ps, 0, pads=other.pads)
    assert c.share() != joint.JointDice(0, c0, SEED0, c1, ps).share()
    try:
        joint.JointDice(0, c0, None, c1, ps)
    except ValueError:
        return
    raise AssertionError("no seed and no pads accepted")


def test_two_boards_throw_the_same_dice_that_verify_derives():
    a, b = _pair_of_boards()
    want = _match()[0].throws
    for k in range(N):
        sa, sb = a.share(), b.share()
        assert a.share() == sa  # asked again: the same bytes (no re-roll by asking)
        da = a.throw(sb)
        db = b.throw(sa)
        assert (da[0], da[1]) == (db[0], db[1]) == want[k], k
    assert a.counter == b.counter == N


def test_a_board_resumed_at_its_counter_throws_the_same_and_a_bad_share_changes_nothing():
    a, b = _pair_of_boards()
    for _ in range(5):
        sa, sb = a.share(), b.share()
        a.throw(sb)
        b.throw(sa)
    a2, _b2 = _pair_of_boards(counter=5)  # after a power cut: the counter from the journal
    assert a2.share() == a.share()
    try:
        a2.throw(bytes(31))
    except ValueError:
        pass
    else:
        raise AssertionError("a short share was taken")
    assert a2.counter == 5
    d = a2.throw(b.share())
    assert (d[0], d[1]) == _match()[0].throws[5]
