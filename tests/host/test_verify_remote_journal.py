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
    # who could have chosen the dice: two boards' shares, not one board's seed and the hosts'
    assert "dice chosen by: two boards:" in out and "neither board could have chosen" in out, out
    # both hosts' parts proved by their keys, as gammon remote verify names them
    fps = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in PP.KEYS]
    for i in (0, 1):
        assert "part %d: host 'host', key %s: signature holds" % (i + 1, fps[i]) in out, out
    # what one journal cannot prove, said in words
    assert "the other board's seed is not in this journal" in out, out


@pytest.mark.parametrize("side", [0, 1])
def test_the_other_boards_reveal_checks_its_shares(tmp_path, capsys, match, side):
    mid, seed = _reveal(match[1 - side])
    code, out, err = _run(
        capsys, _write(tmp_path, match[side]), "--other-match-id", mid, "--other-seed", seed
    )
    assert code == 0, out + err
    assert "every share the other board sent is the one its committed seed gives" in out, out


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
