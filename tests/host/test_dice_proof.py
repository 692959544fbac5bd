"""Who gave the dice, checkable by a third party (docs/dice.md, *Signed parts*): a host's part
is the hash of its Ed25519 signature over the commitment and the parts it saw
(``gammon.dice_proof``); ``gammon verify`` shows each host part's key and whether its
signature holds, from this host's library and from proofs other hosts wrote
(``--write-proofs`` / ``--proofs``). A part the board makes up after the hosts' shows no proof
(or a key nobody vouched for) and fails on the host whose part it follows; a forged, moved or
dropped proof fails everywhere. Matches are played through the real controller."""

import json
import os
import stat

import pytest
import test_dice_commit_order as T
from bg.dice import SRC_HOST, commitment
from bg.dice.fairness import Fairness
from gammon import dice_proof, dice_seed
from gammon.library import Library

pytestmark = pytest.mark.usefixtures("home")  # a GAMMON_HOME of each test's own

LAPTOP = bytes(range(32))
PHONE = bytes(range(32, 64))
BOARDS_OWN = bytes(range(64, 96))  # a key the modified board made for itself
N = 6
MID = bytes([0xC0, 0xDE, N, 0, 0, 0, 0, N])  # test_dice_commit_order._play's match id
COM = commitment(MID, T.H.seed_for(MID))


def _signed(keys):
    """Parts signed in turn by ``keys`` [(name, key)], each over the parts before it."""
    prior, parts, proofs = [], [], []
    for i, (name, key) in enumerate(keys):
        part, proof = dice_proof.make(key, MID, COM, prior, bytes([i]) * 16)
        prior.append((SRC_HOST, part))
        parts.append((name, part))
        proofs.append(proof)
    return parts, proofs


def _write(path, proofs):
    path.write_text(json.dumps([dice_proof.to_json(p) for p in proofs]))
    return str(path)


def test_a_third_party_sees_which_keys_gave_the_parts(tmp_path, capsys):
    parts, proofs = _signed([("laptop", LAPTOP), ("phone", PHONE)])
    acts = T._play(Fairness, n=N, hosts=parts)
    assert acts[0][1][9] == COM
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", _write(tmp_path / "p.json", proofs))
    fp1, fp2 = (
        dice_proof.fingerprint(dice_proof.public_key(LAPTOP)),
        dice_proof.fingerprint(dice_proof.public_key(PHONE)),
    )
    assert code == 0 and "PASS" in out, out
    assert (
        "part 1: host 'laptop', key %s: signature holds (over the commitment and the 0 part(s)" % fp1 in out
    )
    assert "part 2: host 'phone', key %s: signature holds (over the commitment and the 1 part(s)" % fp2 in out
    assert "the last host part is key %s's" % fp2 in out, out
    # without the proofs the parts are just bytes: nobody can say whose
    code, out = T._verify(tmp_path, capsys, acts)
    assert code == 0 and out.count("unproven: no proof in the journal or here") == 2, out
    assert "the last host part is unproven" in out and "the last host part is key" not in out, out


def test_a_part_the_board_makes_up_after_the_hosts_is_told_apart(tmp_path, capsys, monkeypatch):
    """The board takes the laptop's signed part, then appends one of its own under the name
    'phone' (random bytes, or signed with a key it made). A third party with the laptop's
    proof sees the last part is nobody's it can check; the laptop fails the match unless its
    user vouches for that key, which the board's own is not."""
    parts, proofs = _signed([("laptop", LAPTOP), ("phone", BOARDS_OWN)])
    acts = T._play(Fairness, n=N, hosts=parts)
    laptop_proof = _write(tmp_path / "laptop.json", proofs[:1])
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", laptop_proof)
    assert "part 2: host 'phone': unproven: no proof" in out and "the last host part is key" not in out, out
    # the board hands out a proof of its own part: a key nobody vouches for
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", _write(tmp_path / "all.json", proofs))
    board_fp = dice_proof.fingerprint(dice_proof.public_key(BOARDS_OWN))
    assert "part 2: host 'phone', key %s: signature holds" % board_fp in out, out
    # on the laptop, whose library keeps its proof
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "laptop"))
    T._remember(acts, parts[0][1])
    with Library.open() as lib:
        lib.remember_proof(MID, parts[0][1], dice_proof.to_json(proofs[0]))
    code, out = T._verify(tmp_path, capsys, acts)
    assert code == 1 and "FAIL: host 'phone' gave a part after this host's" in out, out
    phone_fp = dice_proof.fingerprint(dice_proof.public_key(PHONE))
    code, out = T._verify(
        tmp_path, capsys, acts, "--proofs", _write(tmp_path / "all2.json", proofs), "--after-me", phone_fp
    )
    assert code == 1, out  # the user's real phone is not the key that signed part 2
    code, out = T._verify(
        tmp_path, capsys, acts, "--proofs", _write(tmp_path / "all3.json", proofs), "--after-me", board_fp
    )
    assert code == 0 and "PASS" in out, out  # (what vouching for that key would mean)


def test_forged_moved_or_dropped_proofs_fail(tmp_path, capsys):
    parts, proofs = _signed([("laptop", LAPTOP)])
    acts = T._play(Fairness, n=N, hosts=parts)
    forged = dict(proofs[0], key=dice_proof.public_key(PHONE))  # claimed by another key
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", _write(tmp_path / "f.json", [forged]))
    assert code == 1 and "the signature does not hold" in out and "PASS" not in out, out
    flipped = dict(proofs[0], signature=bytes([proofs[0]["signature"][0] ^ 1]) + proofs[0]["signature"][1:])
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", _write(tmp_path / "x.json", [flipped]))
    assert code == 1 and "FAIL: a part's proof does not hold" in out, out
    # the board dropped the laptop's part (the match shows no host part at all)
    alone = T._play(Fairness, n=N)
    code, out = T._verify(tmp_path, capsys, alone, "--proofs", _write(tmp_path / "d.json", proofs))
    assert code == 1 and "is not in the journal: the board dropped it" in out, out
    # a bad proof file: one line, exit 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "smartgammon-part-proof/1", "key": "zz"}')
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", str(bad))
    assert code == 2 and "bad.json: match_id must be 8 bytes of hex" in out and "Traceback" not in out, out


class _Client:
    def __init__(self):
        self.sent = []

    def send_player_seed(self, com, seed, proof=b""):
        self.sent.append((bytes(com), bytes(seed), bytes(proof)))
        return MID


def test_the_host_signs_its_part_keeps_the_proof_and_hands_it_out(tmp_path, capsys, home, monkeypatch):
    client = _Client()
    with Library.open() as lib:
        part = dice_seed.contribute(client, lib, MID, COM, "board")
        [proof] = lib.part_proofs(MID)
        assert client.sent == [(COM, part, dice_proof.pack(dice_proof.from_json(proof)))]
    key_file = home / dice_proof.KEY_FILE
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600  # the dice key is the host's alone
    acts = T._play(Fairness, n=N, hosts=[("laptop", part)])
    code, out = T._verify(tmp_path, capsys, acts, "--write-proofs", str(tmp_path / "mine.json"))
    fp = dice_proof.fingerprint(bytes.fromhex(proof["key"]))
    assert code == 0 and "part 1: host 'laptop', key %s (this host's): signature holds" % fp in out, out
    assert "this host's part is the last input" in out and "1 proof(s) of this host's parts written" in out, (
        out
    )
    # a third party (another home, nothing remembered) with the file checks the same
    monkeypatch.setenv("GAMMON_HOME", str(tmp_path / "third"))
    code, out = T._verify(tmp_path, capsys, acts, "--proofs", str(tmp_path / "mine.json"))
    assert code == 0 and "the last host part is key %s's" % fp in out, out
    # the same key signs the next contribution: one key per host
    with Library.open(home / "library.sqlite3") as lib:
        dice_seed.contribute(client, lib, MID, COM, "board", prior=[(SRC_HOST, part)])
        assert {p["key"] for p in lib.part_proofs(MID)} == {proof["key"]}


def test_sync_passes_the_parts_it_saw(tmp_path):
    """``open_window`` hands the parts already journaled to ``contribute`` (the proof binds
    them)."""
    from bg import record

    acts = T._play(Fairness, n=N, hosts=[("laptop", bytes(16))])
    head = acts[:2]  # MATCH_START and the laptop's part: still open
    w = dice_seed.open_window(T._bytes(head))
    assert w == (MID, COM, [(SRC_HOST, bytes(16))])
    assert record.SEED_PART == head[1][0]
