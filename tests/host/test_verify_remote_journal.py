"""``gammon verify`` on ONE board's journal of a match between two boards (docs/dice.md
section 9): each throw is rebuilt from this board's share (its revealed seed, checked against
its commitment) and the other board's share as journaled (``JOINT_SHARE``), by the one rule
``bg.dice.joint.combine``. Either board's honest journal passes alone; a throw or a share
altered, shares reordered, a share missing fail; the other board's seed, given once revealed
(``--other-seed``, ``--other-match-id``), checks its shares against its commitment
(``JOINT_START``) and a reveal that does not match fails. Real journals: two real controllers
behind two hosts and an in-memory relay (tests/host/test_remote_board_dice.py)."""

import pytest
import test_remote_part_proofs as PP
from bg import record
from gammon import dice_proof
from gammon.cli import main

pytestmark = pytest.mark.usefixtures("home")  # a GAMMON_HOME of each test's own


@pytest.fixture(scope="module")
def match():
    """Both boards' journals of one match, each host's part signed with its own dice key."""
    with pytest.MonkeyPatch.context() as mp:
        a, b = PP._signed_match(mp)
    return a.client.board.j, b.client.board.j


def _write(tmp_path, j, change=None, name="m.journal"):
    out = []
    for k, f in j:
        r = change(k, f) if change else (k, f)
        if r is not None:
            out.append(record.encode(*r))
    p = tmp_path / name
    p.write_bytes(b"".join(out))
    return p


def _run(capsys, *argv):
    code = main(["verify"] + [str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _reveal(j):
    """The board's match id and revealed seed, as its own journal holds them."""
    mid = next(f[0] for k, f in j if k == record.MATCH_START)
    seed = next(f[0] for k, f in j if k == record.SEED_REVEAL)
    return bytes(mid).hex(), bytes(seed).hex()


@pytest.mark.parametrize("side", [0, 1])
def test_either_boards_honest_journal_passes_alone(tmp_path, capsys, match, side):
    code, out, err = _run(capsys, _write(tmp_path, match[side]))
    assert code == 0, out + err
    assert "PASS" in out and "other board's share as journaled" in out, out
    # both hosts' parts proved by their keys, as gammon remote verify names them
    fps = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in PP.KEYS]
    for i in (0, 1):
        assert "part %d: host 'host', key %s: signature holds" % (i + 1, fps[i]) in out, out
    # who fixed the dice: both boards' commitments, then side 0's host's part, then side 1's,
    # then the shares, in this journal's order; nothing of one board's last input
    ours, theirs = _commitments(match[side])
    steps = [
        "  dice chosen by: two boards: every throw is this board's share (side %d) and the other "
        "board's (side %d)" % (side, 1 - side),
        "    1. this board (side %d) committed to its seed: %s (MATCH_START)" % (side, ours),
        "    2. the other board (side %d) committed to its seed: %s (JOINT_START)" % (1 - side, theirs),
        "    3. side 0's host's part: part 1, host 'host' (key %s, signed over both commitments)" % fps[0],
        "    4. side 1's host's part: part 2, host 'host' (key %s, signed over both commitments)" % fps[1],
        "    5. each throw: this board's share and the other board's share of it (JOINT_SHARE, %d journaled)"
        % len(_shares(match[side])),
    ]
    at = [out.find(line) for line in steps]
    assert -1 not in at and at == sorted(at), out
    for one_board in ("the last host part", "board alone", "the board could not have chosen"):
        assert one_board not in out, out
    # what one journal proves and what it cannot, said in words: no claim for the other board
    assert "proven by this journal alone: this board's seed matches its commitment" in out, out
    assert "needs the other board's seed, which is not in this journal" in out, out
    assert "neither board could have chosen" not in out, out


def _commitments(j):
    """This board's commitment and the other board's, as its journal holds them (hex)."""
    ours = next(f[9] for k, f in j if k == record.MATCH_START)
    theirs = next(f[1] for k, f in j if k == record.JOINT_START)
    return bytes(ours).hex(), bytes(theirs).hex()


@pytest.mark.parametrize("side", [0, 1])
def test_the_other_boards_reveal_checks_its_shares(tmp_path, capsys, match, side):
    mid, seed = _reveal(match[1 - side])
    code, out, err = _run(
        capsys, _write(tmp_path, match[side]), "--other-match-id", mid, "--other-seed", seed
    )
    assert code == 0, out + err
    assert "every share the other board sent is the one its committed seed gives" in out, out
    # with both seeds checked, and only then, neither board could have chosen the dice
    assert "proven with the other board's seed (--other-seed)" in out, out
    assert "neither board could have chosen these dice" in out and "needs the other board's seed" not in out


def test_the_other_boards_reveal_not_matching_its_commitment_fails(tmp_path, capsys, match):
    mid, seed = _reveal(match[1])
    wrong = bytes(32 * [0x5A]).hex()
    code, out, _ = _run(capsys, _write(tmp_path, match[0]), "--other-match-id", mid, "--other-seed", wrong)
    assert code == 1 and "FAIL: the other board's revealed seed does not match its commitment" in out, out
    # its own seed, given as the other's: not its commitment either
    own_mid, own_seed = _reveal(match[0])
    code, out, _ = _run(
        capsys, _write(tmp_path, match[0]), "--other-match-id", own_mid, "--other-seed", own_seed
    )
    assert code == 1 and "does not match its commitment" in out, out


def test_only_one_half_of_the_other_boards_reveal_is_bad_input(tmp_path, capsys, match):
    code, _, err = _run(capsys, _write(tmp_path, match[0]), "--other-seed", "00" * 32)
    assert code == 2 and "--other-match-id" in err, err


def test_the_other_boards_seed_on_a_one_board_match_is_bad_input(tmp_path, capsys):
    path = tmp_path / "one.json"
    assert main(["dice-sim", "--throws", "5", "--out", str(path)]) == 0
    capsys.readouterr()
    code, _, err = _run(capsys, path, "--other-match-id", "00" * 8, "--other-seed", "00" * 32)
    assert code == 2 and "one board's" in err, err


def _roll_altered(j):
    """The journal with its third throw's first die changed."""
    n = [0]

    def change(k, f):
        if k == record.ROLL:
            n[0] += 1
            if n[0] == 2:  # throw 0 is the opening; this is throw 2
                return k, (f[0], f[1] % 6 + 1, f[2])
        return k, f

    return change


@pytest.mark.parametrize("side", [0, 1])
def test_a_throw_altered_fails(tmp_path, capsys, match, side):
    code, out, _ = _run(capsys, _write(tmp_path, match[side], _roll_altered(match[side])))
    assert code == 1 and "FAIL: throw 2 recorded" in out, out


def _shares(j):
    return [f for k, f in j if k == record.JOINT_SHARE]


@pytest.mark.parametrize("side", [0, 1])
def test_a_share_altered_fails(tmp_path, capsys, match, side):
    def change(k, f):
        if k == record.JOINT_SHARE and f[0] == 1:
            s = bytearray(f[1])
            s[0] ^= 1
            return k, (f[0], bytes(s))
        return k, f

    # one flipped bit may still give the same two faces (then this journal alone cannot tell:
    # test_a_share_replaced_fails); the other board's revealed seed catches any change
    mid, seed = _reveal(match[1 - side])
    code, out, _ = _run(
        capsys, _write(tmp_path, match[side], change), "--other-match-id", mid, "--other-seed", seed
    )
    assert code == 1 and "FAIL: throw 1: the other board's share is not the one its seed gives" in out, out


@pytest.mark.parametrize("side", [0, 1])
def test_a_share_replaced_fails(tmp_path, capsys, match, side):
    def change(k, f):
        if k == record.JOINT_SHARE and f[0] == 1:
            return k, (f[0], bytes(range(32)))
        return k, f

    code, out, _ = _run(capsys, _write(tmp_path, match[side], change))
    assert code == 1 and "FAIL: throw 1 recorded" in out, out


@pytest.mark.parametrize("side", [0, 1])
def test_shares_reordered_fail(tmp_path, capsys, match, side):
    shares = _shares(match[side])
    assert len(shares) >= 3

    # the records swapped with their counters: out of throw order
    def swap_records(k, f):
        if k == record.JOINT_SHARE and f[0] in (1, 2):
            return k, shares[3 - f[0]]
        return k, f

    code, out, _ = _run(capsys, _write(tmp_path, match[side], swap_records))
    assert code == 1 and "FAIL" in out and "share of throw 2 comes before" in out, out

    # the shares' bytes swapped, each under the other's counter: the throws do not follow
    def swap_bytes(k, f):
        if k == record.JOINT_SHARE and f[0] in (1, 2):
            return k, (f[0], shares[3 - f[0]][1])
        return k, f

    code, out, _ = _run(capsys, _write(tmp_path, match[side], swap_bytes))
    assert code == 1 and "FAIL: throw 1 recorded" in out, out


@pytest.mark.parametrize("side", [0, 1])
def test_a_share_missing_fails(tmp_path, capsys, match, side):
    def drop(k, f):
        return None if k == record.JOINT_SHARE and f[0] == 2 else (k, f)

    code, out, _ = _run(capsys, _write(tmp_path, match[side], drop))
    assert code == 1 and "FAIL" in out, out


def test_its_own_seed_not_matching_its_commitment_fails(tmp_path, capsys, match):
    def change(k, f):
        if k == record.SEED_REVEAL:
            return k, (bytes(32),)
        return k, f

    code, out, _ = _run(capsys, _write(tmp_path, match[0], change))
    assert code == 1 and "FAIL" in out and "commitment" in out, out


def test_shares_beyond_the_next_throw_fail(tmp_path, capsys, match):
    n = len(_shares(match[0]))

    def extra(count):
        def change(k, f):
            if k == record.SEED_REVEAL:
                return None
            return k, f

        j = [r for r in match[0] if change(*r) is not None]
        j += [(record.JOINT_SHARE, (n + i, bytes([i + 1]) * 32)) for i in range(count)]
        return j + [r for r in match[0] if r[0] == record.SEED_REVEAL]

    # one share taken before its throw was journaled (a power cut mid-throw): still the journal
    code, out, _ = _run(capsys, _write(tmp_path, extra(1)))
    assert code == 0, out
    code, out, _ = _run(capsys, _write(tmp_path, extra(2)))
    assert code == 1 and "FAIL: the journal holds the other board's shares of %d throws" % (n + 2) in out, out


@pytest.mark.parametrize("side", [0, 1])
def test_the_hosts_parts_out_of_order_fail(tmp_path, capsys, match, side):
    parts = [f for k, f in match[side] if k == record.SEED_PART]
    assert len(parts) == 2
    j = [(k, parts[1 - parts.index(f)] if k == record.SEED_PART else f) for k, f in match[side]]
    # a board that journals side 1's host's part first (its shares mixed side 0's first)
    code, out, _ = _run(capsys, _write(tmp_path, j))
    assert code == 1 and "FAIL: throw 0 recorded" in out, out
    assert "the hosts' parts are journaled in another order than this board mixed them" in out, out
    # the other board's reveal does not blame the other board for it
    mid, seed = _reveal(match[1 - side])
    code, out, _ = _run(capsys, _write(tmp_path, j), "--other-match-id", mid, "--other-seed", seed)
    assert code == 1 and "journaled in another order than this board mixed them" in out, out


def _moved(j, kind, before):
    """``j`` with its first ``kind`` record moved just before the first ``before`` record."""
    r = next(x for x in j if x[0] == kind)
    out = [x for x in j if x is not r]
    i = next(n for n, x in enumerate(out) if x[0] == before)
    return out[:i] + [r] + out[i:]


def test_a_part_before_the_other_boards_commitment_fails(tmp_path, capsys, match):
    j = _moved(match[0], record.SEED_PART, record.JOINT_START)
    code, out, _ = _run(capsys, _write(tmp_path, j))
    assert code == 1, out
    assert "dice chosen by: two boards, but the record order proves nothing (below)" in out, out
    assert (
        "FAIL: the record order proves nothing: the other board's commitment (JOINT_START) comes after "
        "a player seed contribution (host 'host')" in out
    ), out
    assert "1. this board" not in out and "board alone" not in out, out


def test_a_part_after_the_first_throw_fails(tmp_path, capsys, match):
    j = _moved(match[1], record.SEED_PART, record.SEED_REVEAL)
    code, out, _ = _run(capsys, _write(tmp_path, j))
    assert (
        code == 1
        and "the record order proves nothing: a player seed contribution (host 'host') comes "
        "after the first throw"
        in out
    ), out


def test_a_third_host_part_fails(tmp_path, capsys, match):
    part = next(r for r in match[0] if r[0] == record.SEED_PART)
    i = max(n for n, r in enumerate(match[0]) if r[0] == record.SEED_PART)
    extra = (record.SEED_PART, (part[1][0], "made up", bytes(16)))
    j = match[0][: i + 1] + [extra] + match[0][i + 1 :]
    code, out, _ = _run(capsys, _write(tmp_path, j))
    assert code == 1, out
    assert "a match between two boards takes one part from each side's host; this has 3" in out, out


def test_an_unsigned_part_is_shown_unproven_in_the_order(tmp_path, capsys, match):
    def drop(k, f):
        return (k, (f[0], f[1], f[2])) if k == record.SEED_PART and f[2] == parts[1] else (k, f)

    parts = [f[2] for k, f in match[0] if k == record.SEED_PART]
    code, out, _ = _run(capsys, _write(tmp_path, match[0], drop))
    assert code == 0, out
    assert (
        "    4. side 1's host's part: part 2, host 'host' (unproven: nothing here shows it came after "
        "both commitments)" in out
    ), out
