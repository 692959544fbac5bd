"""The hosts' parts of a match between two boards carry proofs (``gammon.dice_proof.make_joint``):
each host signs its part with its dice key over both boards' commitments, the other host checks
the proof before its board gets the part, both boards journal both parts with their proofs, and
``gammon remote verify`` checks them in either board's journal. Attacks: a proof altered on the
way or dropped is refused by the other host (nothing reaches its board); a proof from another
match, one altered in a journal, is named by verify. The boards are
tests/host/test_remote_board_dice.py's (two real controllers, the hosts' ``BoardDice``)."""

import hashlib

import pytest
import remote_helpers as RH
import test_remote_board_dice as RB
from bg import record
from gammon import dice_proof, remote
from gammon.commands import remote as RC

KEYS = (hashlib.sha256(b"host 0's dice key").digest(), hashlib.sha256(b"host 1's dice key").digest())


def _signed_match(monkeypatch):
    real = remote.BoardDice
    monkeypatch.setattr(remote, "BoardDice", lambda side, *a, **k: real(side, *a, key=KEYS[side], **k))
    return RB._match()


def _journal(host, change=None):
    j = host.client.board.j
    return b"".join(record.encode(k, change(k, f) if change else f) for k, f in j)


def _parts(host):
    return [f for k, f in host.client.board.j if k == record.SEED_PART]


def test_both_parts_are_signed_and_their_proofs_hold_in_either_boards_journal(monkeypatch):
    a, b = _signed_match(monkeypatch)
    assert a.ref.refused == [] and b.ref.refused == []
    pa, pb = _parts(a), _parts(b)
    assert [f[2] for f in pa] == [f[2] for f in pb] and all(len(f) == 4 for f in pa + pb)
    assert [f[3] for f in pa] == [f[3] for f in pb]  # the same proofs, journaled by both
    ok, msg = RC.verify(RC.from_journal(_journal(a), "a"), RC.from_journal(_journal(b), "b"))
    assert ok, msg
    fps = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in KEYS]
    for line in RH.signature_lines("journal", fps):
        assert line in msg, msg


def _flip(k, f):
    if k == record.SEED_PART and len(f) > 3:
        p = bytearray(f[3])
        p[-1] ^= 1
        return (f[0], f[1], f[2], bytes(p))
    return f


@pytest.mark.parametrize("which", ["a", "b"])
def test_a_proof_altered_in_either_journal_fails_verify(monkeypatch, which):
    a, b = _signed_match(monkeypatch)
    da = _journal(a, _flip if which == "a" else None)
    db = _journal(b, _flip if which == "b" else None)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    side = 0 if which == "a" else 1
    assert not ok and "side %d's board's journal, part 1" % side in msg and "does not hold" in msg, msg


def test_a_proof_dropped_from_a_journal_shows_the_part_unproven(monkeypatch):
    a, b = _signed_match(monkeypatch)

    def drop(k, f):
        return (f[0], f[1], f[2]) if k == record.SEED_PART else f

    ok, msg = RC.verify(RC.from_journal(_journal(a, drop), "a"), RC.from_journal(_journal(b), "b"))
    assert ok and "side 0's board's journal, part 2 (side 1's host): unproven" in msg, msg
    assert "side 1's board's journal, part 2 (side 1's host): key" in msg, msg


def test_parts_and_proofs_taken_from_another_match_fail_verify(monkeypatch):
    """The same hosts' signed parts of another match (other commitments), put in place of
    this match's in both journals: the parts agree, the signatures hold for nothing here."""
    a, b = _signed_match(monkeypatch)
    c0, c1 = hashlib.sha256(b"another c0").digest(), hashlib.sha256(b"another c1").digest()
    theirs = []
    for i in (0, 1):
        part, proof = dice_proof.make_joint(KEYS[i], c0, c1, bytes(16))
        assert dice_proof.check_joint(proof, c0, c1, part) == (True, "")  # (there, it holds)
        theirs.append((part, dice_proof.pack(proof)))

    def swap(k, f):
        if k == record.SEED_PART:
            swap.n += 1
            return (f[0], f[1]) + theirs[swap.n - 1]
        return f

    swap.n = 0
    da = _journal(a, swap)
    swap.n = 0
    db = _journal(b, swap)
    ok, msg = RC.verify(RC.from_journal(da, "a"), RC.from_journal(db, "b"))
    assert not ok and "part 1 (side 0's host): the signature does not hold" in msg, msg


def _exchange():
    """Side 0's host's exchange once both commitments are known (it asks proofs: it has a key)."""
    c0, c1 = hashlib.sha256(b"c0").digest(), hashlib.sha256(b"c1").digest()
    home = remote.DiceExchange(0, bytes(8), c0, require_proofs=True)
    home.take({"kind": "commit", "match_id": "11" * 8, "commitment": c1.hex()})
    away = remote.DiceExchange(1, bytes.fromhex("11" * 8), c1, require_proofs=True)
    away.take(home.commit_message())
    return home, away


def test_the_other_hosts_part_with_a_proof_altered_dropped_or_of_another_match_is_refused():
    home, away = _exchange()
    body = away.signed_part(KEYS[1], bytes(16))
    bad = dict(body, proof=body["proof"][:-2] + "%02x" % (int(body["proof"][-2:], 16) ^ 1))
    with pytest.raises(remote.Refused, match="the other host's part: the part is not the hash"):
        home.take(bad)
    with pytest.raises(remote.Refused, match="proof must be"):
        home.take({"kind": "part", "part": body["part"]})
    elsewhere = remote.DiceExchange(1, bytes(8), hashlib.sha256(b"c2").digest())
    elsewhere.take(home.commit_message())
    with pytest.raises(remote.Refused, match="does not hold"):
        home.take(elsewhere.signed_part(KEYS[1], bytes(16)))
    assert home.parts[1] is None and home.proofs[1] == b""  # nothing taken
    home.take(body)
    assert home.parts[1] == bytes.fromhex(body["part"]) and len(home.proofs[1]) == dice_proof.PACKED_LEN
    again = remote.DiceExchange.from_state(home.state())  # a restarted host keeps them
    assert again.proofs == home.proofs and again.require_proofs


def test_gammon_verify_checks_the_joint_parts_proofs_on_either_board(monkeypatch):
    """``gammon verify``'s check of the parts (``check_parts``) reads a match with another
    board as such: both proofs hold on each board's journal (its own commitment and the
    other's from JOINT_START), an altered one or a copied signed part fails."""
    from gammon.commands import dice as DC

    a, b = _signed_match(monkeypatch)
    fps = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in KEYS]
    for host in (a, b):
        (m,) = DC.matches_from_journal(_journal(host), "journal")
        lines, bad, signed = DC.check_parts(m, [])
        assert bad == [] and signed == {0: fps[0], 1: fps[1]}, lines
        assert all("signature holds (over both boards' commitments)" in x for x in lines), lines
        (m,) = DC.matches_from_journal(_journal(host, _flip), "journal")
        lines, bad, signed = DC.check_parts(m, [])
        assert len(bad) == 2 and signed == {}, bad

        first = _parts(host)[0]

        def copy(k, f, first=first):
            return first if k == record.SEED_PART else f

        (m,) = DC.matches_from_journal(_journal(host, copy), "journal")
        lines, bad, signed = DC.check_parts(m, [])
        assert signed == {0: fps[0]} and "a copy proves nothing" in bad[0], bad


def test_remote_play_signs_its_part_and_keeps_the_proofs_through_a_restart(tmp_path, monkeypatch):
    """``remote_player`` with each host's dice key (as ``gammon remote play`` runs it), its
    host killed mid-match and started again from its seat file
    (tests/host/test_remote_play_restart.py): both journals hold both signed parts, and
    ``gammon remote verify`` names both keys on each."""
    import test_remote_play_restart as PR

    player, check = RC.remote_player, RC.verify

    def signing(connect, relay, remote_side, out, **k):
        return player(connect, relay, remote_side, out, dice_key=KEYS[1 - remote_side], **k)

    monkeypatch.setattr(RC, "remote_player", signing)
    seen = []
    monkeypatch.setattr(RC, "verify", lambda a, b: seen.append(check(a, b)) or seen[-1])
    PR.test_remote_play_killed_mid_match_goes_on_from_its_seat_and_the_board(tmp_path)
    ((ok, msg),) = seen
    fps = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in KEYS]
    assert ok and msg.count("signature holds") == 4 and all(msg.count(fp) == 2 for fp in fps), msg
