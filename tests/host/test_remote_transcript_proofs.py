"""The joint transcripts carry the parts' proofs (``gammon.formats.joint_transcript``): each
host's exchange (``gammon.remote.DiceExchange`` with its dice key) keeps the proof that came
with each part, its transcript holds both, and ``gammon remote verify`` on two transcripts names
the key that signed each part in each. Attacks on a transcript: a proof altered, a proof given
for the other part, parts and proofs of another match, a signed part copied over the other
host's, a proof dropped (shown unproven), proofs that are not a list of hex (bad input)."""

import hashlib
import json

import remote_helpers as RH
from bg.dice import commitment, joint
from gammon import dice_proof, remote
from gammon.cli import main
from gammon.formats import joint_transcript

KEYS = (hashlib.sha256(b"host 0's dice key").digest(), hashlib.sha256(b"host 1's dice key").digest())
FPS = [dice_proof.fingerprint(dice_proof.public_key(k)) for k in KEYS]
N = 6


def _match(tag=b""):
    """Both hosts' exchanges through a whole match of N throws (each board a ``JointDice``),
    both parts signed: ``(transcript of side 0, transcript of side 1)``."""
    seeds = [hashlib.sha256(tag + b"seed %d" % i).digest() for i in (0, 1)]
    mids = [hashlib.sha256(tag + b"id %d" % i).digest()[:8] for i in (0, 1)]
    xs = [remote.DiceExchange(i, mids[i], commitment(mids[i], seeds[i]), require_proofs=True) for i in (0, 1)]
    xs[0].take(xs[1].commit_message())
    xs[1].take(xs[0].commit_message())
    bodies = [xs[i].signed_part(KEYS[i], hashlib.sha256(tag + b"nonce %d" % i).digest()[:16]) for i in (0, 1)]
    xs[0].take(bodies[1])
    xs[1].take(bodies[0])
    dice = [
        joint.JointDice(i, xs[i].own_commit, seeds[i], xs[i].other_commit, xs[i].player_seed())
        for i in (0, 1)
    ]
    for k in range(N):
        msgs = [xs[i].share_message(k, dice[i].share()) for i in (0, 1)]
        for i in (0, 1):
            xs[i].thrown(dice[i].throw(xs[i].take(msgs[1 - i])))
    assert xs[0].throws == xs[1].throws
    return tuple(json.loads(json.dumps(xs[i].transcript(seeds[i]))) for i in (0, 1))


def _verify(tmp_path, capsys, a, b):
    paths = []
    for name, t in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps(t))
        paths.append(str(tmp_path / name))
    rc = main(["remote", "verify"] + paths)
    out = capsys.readouterr()
    return rc, out.out + out.err


def _flip(hexstr, at=-1):
    b = bytearray(bytes.fromhex(hexstr))
    b[at] ^= 1
    return b.hex()


def test_both_transcripts_carry_both_proofs_and_verify_names_both_keys_in_each(tmp_path, capsys):
    a, b = _match()
    assert a["proofs"] == b["proofs"] and all(
        len(bytes.fromhex(p)) == dice_proof.PACKED_LEN for p in a["proofs"]
    )
    for x, y in ((a, b), (b, a)):
        rc, out = _verify(tmp_path, capsys, x, y)
        assert rc == 0 and "PASS" in out and "all %d throws" % N in out, out
        for line in RH.signature_lines("transcript", FPS):
            assert line in out, out


# a byte of the packed proof (version, before, key 2..33, nonce 34..49, signature 50..113)
# altered: why verify says it fails
ALTERED = (
    (0, "the proof journaled with it is not one this version reads (114 bytes)"),
    (10, "the signature does not hold for these two boards' commitments"),  # the key
    (40, "the signature does not hold for these two boards' commitments"),  # the nonce
    (-1, "the part is not the hash of the proof's signature"),
)


def test_a_proof_altered_in_either_transcript_fails(tmp_path, capsys):
    for side, part, (at, why) in (
        (0, 0, ALTERED[0]),
        (0, 1, ALTERED[1]),
        (1, 0, ALTERED[2]),
        (1, 1, ALTERED[3]),
    ):
        ts = list(_match())
        ts[side]["proofs"][part] = _flip(ts[side]["proofs"][part], at)
        rc, out = _verify(tmp_path, capsys, *ts)
        want = "side %d's board's transcript, part %d (side %d's host): %s" % (side, part + 1, part, why)
        assert rc == 1 and out.startswith("FAIL: a part's proof does not hold: " + want), out


def test_a_proof_given_for_the_other_part_fails(tmp_path, capsys):
    a, b = _match()
    a["proofs"].reverse()
    rc, out = _verify(tmp_path, capsys, a, b)
    assert rc == 1 and "part 1 (side 0's host): the part is not the hash of the proof's signature" in out, out


def test_parts_and_proofs_of_another_match_fail(tmp_path, capsys):
    """The same hosts' signed parts and proofs of another match, put in place of this match's
    in both transcripts: the parts agree, the signatures hold for the other match only."""
    a, b = _match()
    c, _d = _match(b"another match")
    for t in (a, b):
        t["parts"], t["proofs"] = list(c["parts"]), list(c["proofs"])
    rc, out = _verify(tmp_path, capsys, a, b)
    for i in (1, 2):
        want = "part %d (side %d's host): the signature does not hold for these two boards' commitments"
        assert rc == 1 and want % (i, i - 1) in out, out


def test_a_signed_part_copied_over_the_other_hosts_fails(tmp_path, capsys):
    """Side 1's host sends side 0's signed part as its own (its proof holds: it is host 0's):
    one signed part counts once."""
    a, b = _match()
    for t in (a, b):
        t["parts"][1], t["proofs"][1] = t["parts"][0], t["proofs"][0]
    rc, out = _verify(tmp_path, capsys, a, b)
    assert (
        rc == 1 and "part 2 (side 1's host): the same signed part as part 1: a copy proves nothing" in out
    ), out


def test_a_dropped_proof_shows_the_part_unproven(tmp_path, capsys):
    """A proof dropped from one transcript (or a transcript written before they were kept):
    that part is unproven there, the other transcript still proves it."""
    a, b = _match()
    a["proofs"][1] = ""
    rc, out = _verify(tmp_path, capsys, a, b)
    assert rc == 0 and "side 0's board's transcript, part 2 (side 1's host): unproven" in out, out
    assert "side 1's board's transcript, part 2 (side 1's host): key %s's" % FPS[1] in out, out
    del a["proofs"]
    rc, out = _verify(tmp_path, capsys, a, b)
    assert rc == 0 and out.count("side 0's board's transcript") == 2 and out.count("unproven") == 2, out


def test_proofs_that_are_not_one_hex_string_per_part_are_bad_input(tmp_path, capsys):
    for bad in ("00" * 114, ["zz", ""], [""], [None, ""], ["", "", ""]):
        a, b = _match()
        a["proofs"] = bad
        rc, out = _verify(tmp_path, capsys, a, b)
        assert rc == 2 and "a.json" in out and "proofs" in out and "Traceback" not in out, out
    a, b = _match()
    a["proofs"][0] = "00" * 20  # hex, but not a proof of this version
    rc, out = _verify(tmp_path, capsys, a, b)
    assert rc == 1 and "not one this version reads (20 bytes)" in out, out


def test_a_transcript_round_trips_through_its_format():
    a, _b = _match()
    side, board, other, parts, received, proofs = joint_transcript.parse(a, "a")
    again = joint_transcript.to_dict(
        side,
        board.match_id,
        board.commit,
        board.seed,
        other,
        parts,
        board.shares,
        board.throws,
        received,
        proofs,
    )
    assert again == a
