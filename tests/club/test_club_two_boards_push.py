"""A match between two boards pushed to the club (two ``gammon club serve`` on one real
PostgreSQL): each board pushes its own journal under its own match id. The club checks each by
the rule ``gammon verify`` reads (``gammon.dice_check``): one journal proves its board's shares
and the throws they make with the other board's shares as journaled; the other board's push,
whose journal holds its revealed seed, completes the proof for both. Tampered journals (a throw
changed with a share made up to fit, the hosts' parts swapped) are refused with a line naming
why; one-board matches keep their verdict. The boards are two real controllers and their
hosts' ``BoardDice`` (tests/host/test_remote_part_proofs.py's signed match)."""

import hashlib
import os

import pytest
import test_remote_part_proofs as PP
from bg import dice, record
from bg.dice import joint
from club_helpers import played
from test_club_push import _req


class _Ids:
    """Match ids as a board makes them (random): the two boards' differ, and none is another
    test's (the club's match ids are one table for the whole run)."""

    def __init__(self):
        self.n = 0
        self.base = os.urandom(7)

    def __call__(self):
        self.n += 1
        return self.base + bytes([self.n])


@pytest.fixture()
def match():
    """Both boards' journals of one honest signed match (new ids each time: a match the club
    holds is checked against every later push of its other board)."""
    import ctl_helpers

    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(ctl_helpers, "Ids", _Ids)
        a, b = PP._signed_match(mp)
    finally:
        mp.undo()
    assert a.ref.refused == [] and b.ref.refused == []
    return PP._journal(a), PP._journal(b)


def _put(servers, tok, data, i=0):
    mid = data[2:10].hex()
    return _req(servers[i].url + "/api/v1/matches/" + mid, "PUT", data, tok, "application/octet-stream")


def _mid(data):
    return data[2:10].hex()


def _stored(db, data):
    row = db.execute("SELECT dice FROM matches WHERE id = %s", (_mid(data),)).fetchone()
    return row and row[0]


def test_each_boards_push_passes_and_the_second_completes_the_proof_of_both(servers, db, event, match):
    tok = event("two boards")
    ja, jb = match
    st, first = _put(servers, tok, jb)
    assert st == 200 and first["status"] == "new", first
    text = first["dice"]
    assert text.startswith("PASS: all") and "needs the other board's seed" in text, text
    assert "1. this board (side 1) committed" in text and "last host part" not in text, text
    st, second = _put(servers, tok, ja, 1)
    assert st == 200 and second["status"] == "new", second
    assert "neither board could have chosen these dice" in second["dice"], second
    # the first push's verdict now says the same: its other board's seed is known
    assert "neither board could have chosen these dice" in _stored(db, jb)
    st, again = _put(servers, tok, jb, 1)  # pushed again: the same, still proven
    assert st == 200 and again["status"] == "same", again
    n = db.execute("SELECT count(*) FROM matches WHERE event = %s", (event.event,)).fetchone()[0]
    assert n == 2


def _roll_to_fake(journal):
    """``journal`` (side 0's board's) with one throw's dice swapped (2-3 for 3-2: the play
    stays legal) and the other board's share of it made up to give that throw: the journal
    alone still holds together; the other board's seed does not give that share."""
    recs = list(record.decode_stream(journal))
    (m,) = _matches(journal)
    c0, c1 = m.commitment, m.joint[1]
    mine = joint.Share(joint.joint_id(c0, c1), 0, m.board_seed, m.player_seed)
    k = 0
    target = None
    for i, (kind, f) in enumerate(recs):
        if kind == record.OPENING:
            k += len(f[1]) // 2
        elif kind == record.ROLL:
            if f[1] != f[2] and target is None:
                target = (i, k, (f[0], f[2], f[1]) + tuple(f[3:]))
            k += 1
    i, k, swapped = target
    want = bytearray((swapped[1], swapped[2]))
    my = mine.share(k)
    for n in range(10_000):
        block = hashlib.sha256(b"made up %d" % n).digest()
        share = bytes(x ^ y for x, y in zip(block, my))
        if joint.combine(my, share) == want:
            break
    assert joint.combine(my, share) == want
    recs[i] = (record.ROLL, swapped)
    recs = [(kd, (f[0], share) if kd == record.JOINT_SHARE and f[0] == k else f) for kd, f in recs]
    return b"".join(record.encode(kd, f) for kd, f in recs), k


def _matches(journal):
    from gammon import dice_check

    return dice_check.matches_from_journal(journal, "j")


def test_a_throw_changed_with_a_made_up_share_passes_alone_and_fails_against_the_other_board(
    servers, db, event, match
):
    tok = event("made up share")
    ja, jb = match
    fake, k = _roll_to_fake(ja)
    st, alone = _put(servers, tok, fake)
    # one journal cannot tell a made-up share of the other board from a real one
    assert st == 200 and "needs the other board's seed" in alone["dice"], alone
    st, j = _put(servers, tok, jb, 1)
    assert st == 422, j
    assert "against the other board's journal (match %s)" % _mid(fake) in j["error"], j
    assert "throw %d: the other board's share is not the one its seed gives" % k in j["error"], j
    assert _stored(db, jb) is None  # nothing stored of the second push


def test_a_throw_changed_in_one_journal_is_refused_naming_it(servers, db, event, match):
    tok = event("changed throw")
    ja, _ = match
    recs = list(record.decode_stream(ja))
    i = next(n for n, (kd, f) in enumerate(recs) if kd == record.ROLL and f[1] != f[2])
    f = recs[i][1]
    recs[i] = (record.ROLL, (f[0], f[2], f[1]) + tuple(f[3:]))
    data = b"".join(record.encode(kd, f) for kd, f in recs)
    st, j = _put(servers, tok, data)
    assert st == 422 and "the dice do not verify" in j["error"], j
    assert "recorded %d-%d, this board's share and the other's give" % (f[2], f[1]) in j["error"], j
    assert _stored(db, data) is None


def test_the_hosts_parts_swapped_are_refused_naming_the_order(servers, db, event, match):
    tok = event("swapped parts")
    for data in match:
        recs = list(record.decode_stream(data))
        at = [n for n, (kd, _) in enumerate(recs) if kd == record.SEED_PART]
        recs[at[0]], recs[at[1]] = recs[at[1]], recs[at[0]]
        bad = b"".join(record.encode(kd, f) for kd, f in recs)
        st, j = _put(servers, tok, bad)
        assert st == 422 and "the dice do not verify: FAIL: throw 0" in j["error"], j
        assert "the hosts' parts are journaled in another order than this board mixed them" in j["error"], j
        assert _stored(db, bad) is None


def test_a_one_board_match_keeps_its_verdict(servers, db, event):
    tok = event("one board")
    _recs, data = played(7)
    st, j = _put(servers, tok, data)
    assert st == 200 and j["dice"].startswith("PASS: commitment"), j
    assert "two boards" not in j["dice"] and "other board" not in j["dice"], j
    (v,) = _matches(data)
    assert v.joint is None and dice.commitment(v.match_id, v.board_seed) == v.commitment
