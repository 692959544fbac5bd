"""The proof travels with the part (docs/dice.md, *Signed parts*): a host sends its packed proof
(``gammon.dice_proof.pack``: key, nonce, parts seen before, signature) beside its 16-byte part,
the board journals it in the part's SEED_PART record without reading it, and ``gammon verify``
checks it from the journal alone: no library, no proof file. A board that drops a proof leaves
that part *unproven*; one that alters a byte of it, attaches another host's proof (or another
match's) to its own part, copies a signed part or reorders the parts before one fails (exit 1).
Matches are played through the real controller."""

import pytest
import test_dice_commit_order as T
from app import controller as C
from app import rules
from bg import record
from bg.dice import SRC_HOST, commitment
from gammon import dice_proof
from gammon.cli import main
from gammon.commands import dice as verify
from gammon.library import Library

pytestmark = pytest.mark.usefixtures("home")  # a GAMMON_HOME of each test's own

LAPTOP = bytes(range(32))
PHONE = bytes(range(32, 64))
BOARDS_OWN = bytes(range(64, 96))
N = 6
MID = bytes([0xC0, 0xDE, N, 0, 0, 0, 0, N])  # test_dice_commit_order._play's match id
COM = commitment(MID, T.H.seed_for(MID))


def _fp(key):
    return dice_proof.fingerprint(dice_proof.public_key(key))


def _play(keys, mid=MID):
    """A finished match where the hosts ``[(name, key)]`` each sent a signed part with its
    packed proof, in turn, each over the parts before it (as ``gammon sync``/``watch`` do)."""
    s = C.Settings(length=1, names=("Ann", "Bob"))
    c = C.Controller(s, rules, lambda m: T.Fairness(m, T.H.seed_for(m)), lambda: mid, lambda: 1767225600)
    r = T.H.Robot(c, N)
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING
    com = c.outbox[0][1][9]
    prior, proofs = [], []
    for i, (name, key) in enumerate(keys):
        part, proof = dice_proof.make(key, mid, com, prior, bytes([i + 1]) * 16)
        assert c.contribute(name, part, com, dice_proof.pack(proof)) == mid
        prior.append((SRC_HOST, part))
        proofs.append(proof)
    r.play_game()
    assert c.phase == C.MATCH_OVER
    return list(c.outbox), proofs


def _parts(acts):
    return [i for i, (k, _) in enumerate(acts) if k == record.SEED_PART]


def _with_part(acts, j, fields):
    out = list(acts)
    out[_parts(acts)[j]] = (record.SEED_PART, fields)
    return out


def test_the_journal_alone_shows_which_keys_gave_the_parts(tmp_path, capsys):
    acts, proofs = _play([("laptop", LAPTOP), ("phone", PHONE)])
    parts = [acts[i][1] for i in _parts(acts)]
    assert [len(f) for f in parts] == [4, 4] and all(len(f[3]) == dice_proof.PACKED_LEN for f in parts)
    # the record survives the journal's bytes (the check a third party's copy goes through)
    data = T._bytes(acts)
    assert [f for k, f in record.decode_stream(data) if k == record.SEED_PART] == parts
    code, out = T._verify(tmp_path, capsys, acts)  # a home with nothing remembered, no files
    assert code == 0 and "PASS" in out, out
    assert (
        "part 1: host 'laptop', key %s: signature holds (over the commitment and the 0 part(s)" % _fp(LAPTOP)
        in out
    ), out
    assert (
        "part 2: host 'phone', key %s: signature holds (over the commitment and the 1 part(s)" % _fp(PHONE)
        in out
    ), out
    assert "the last host part is key %s's" % _fp(PHONE) in out and "unproven" not in out, out


def test_a_library_holding_the_synced_journal_checks_the_proofs(tmp_path, capsys):
    """``gammon verify ID`` on a library that only stored the journal bytes (a club member's,
    another player's): the proofs come out of the stored records."""
    acts, _ = _play([("laptop", LAPTOP)])
    with Library.open() as lib:
        lib.store(T._bytes(acts), board="board")
    capsys.readouterr()
    code = main(["verify", MID.hex()])
    out = capsys.readouterr().out
    assert code == 0 and "part 1: host 'laptop', key %s: signature holds" % _fp(LAPTOP) in out, out
    assert "the last host part is key %s's" % _fp(LAPTOP) in out, out


def test_a_board_that_drops_the_proof_leaves_the_part_unproven(tmp_path, capsys):
    acts, proofs = _play([("laptop", LAPTOP), ("phone", PHONE)])
    f = acts[_parts(acts)[1]][1]
    stripped = _with_part(acts, 1, f[:3])  # the old record layout: still parses
    code, out = T._verify(tmp_path, capsys, stripped)
    assert "part 2: host 'phone': unproven: no proof in the journal or here" in out, out
    assert "the last host part is unproven" in out and "the last host part is key" not in out, out
    # the host that remembers the proof still sees its part is its own
    with Library.open() as lib:
        lib.remember_proof(MID, f[2], dice_proof.to_json(proofs[1]))
    code, out = T._verify(tmp_path, capsys, stripped)
    assert "the last host part is key %s's" % _fp(PHONE) in out, out


@pytest.mark.parametrize("at", [0, 1, 2, 33, 34, 49, 50, 113], ids=lambda i: "byte%d" % i)
def test_a_flipped_byte_of_a_journaled_proof_fails(tmp_path, capsys, at):
    """Version, parts-before count, key, nonce, signature: any byte changed fails verify."""
    acts, _ = _play([("laptop", LAPTOP), ("phone", PHONE)])
    f = acts[_parts(acts)[1]][1]
    blob = bytearray(f[3])
    blob[at] ^= 0x01
    code, out = T._verify(tmp_path, capsys, _with_part(acts, 1, f[:3] + (bytes(blob),)))
    assert code == 1 and "FAIL: a part's proof does not hold: part 2 (host 'phone'" in out, out
    assert "PASS" not in out and "the last host part is key" not in out, out


def test_every_flipped_bit_of_a_proof_is_caught():
    """The same for every bit of all 114 bytes, at the level verify checks them."""
    acts, _ = _play([("laptop", LAPTOP)])
    [m] = verify.matches_from_journal(T._bytes(acts), "j")
    blob = m.proofs[0]
    assert verify.check_parts(m, [])[1:] == ([], {0: _fp(LAPTOP)})
    for i in range(len(blob)):
        for b in range(8):
            bad = bytearray(blob)
            bad[i] ^= 1 << b
            m.proofs[0] = bytes(bad)
            lines, fails, signed = verify.check_parts(m, [])
            assert fails and not signed, (i, b, lines)


def test_a_board_that_attaches_another_proof_to_its_own_part_fails(tmp_path, capsys):
    acts, proofs = _play([("laptop", LAPTOP), ("phone", PHONE)])
    laptop, phone = (acts[i][1] for i in _parts(acts))
    # the board's own (ground) part under the phone's name, with the phone's proof attached
    ground = _with_part(acts, 1, (SRC_HOST, "phone", bytes(range(16)), phone[3]))
    code, out = T._verify(tmp_path, capsys, ground)
    assert code == 1 and "the part is not the hash of the proof's signature" in out, out
    # ... with the laptop's proof (another host's) attached to its part
    code, out = T._verify(tmp_path, capsys, _with_part(acts, 1, phone[:3] + (laptop[3],)))
    assert code == 1 and "FAIL: a part's proof does not hold" in out, out
    # a signed part and its proof from another match of the same host, replayed here
    other_mid = bytes(8)
    part, proof = dice_proof.make(PHONE, other_mid, COM, [(SRC_HOST, laptop[2])], bytes(16))
    moved = _with_part(acts, 1, (SRC_HOST, "phone", part, dice_proof.pack(proof)))
    code, out = T._verify(tmp_path, capsys, moved)
    assert code == 1 and "the signature does not hold for this match's commitment" in out, out


def test_a_copied_or_reordered_signed_part_fails(tmp_path, capsys):
    acts, _ = _play([("laptop", LAPTOP), ("phone", PHONE)])
    i, j = _parts(acts)
    laptop, phone = acts[i][1], acts[j][1]
    # the laptop's signed part once more after the phone's: a copy proves nothing
    copied = acts[: j + 1] + [(record.SEED_PART, laptop)] + acts[j + 1 :]
    code, out = T._verify(tmp_path, capsys, copied)
    assert code == 1 and "a copy proves nothing" in out, out
    # the two parts swapped: the phone signed over the laptop's part before it
    swapped = _with_part(_with_part(acts, 0, phone), 1, laptop)
    code, out = T._verify(tmp_path, capsys, swapped)
    assert code == 1 and "FAIL: a part's proof does not hold" in out, out
    assert "signed after 1 part(s), but the journal has 0 before it" in out, out


def test_a_malformed_journaled_proof_is_named_not_a_traceback(tmp_path, capsys):
    acts, _ = _play([("laptop", LAPTOP)])
    f = acts[_parts(acts)[0]][1]
    for blob, why in (
        (b"\x02" + f[3][1:], "not one this version reads"),
        (f[3][:50], "not one this version reads (50 bytes)"),
        (bytes(record.MAX_PROOF), "not one this version reads"),
    ):
        code, out = T._verify(tmp_path, capsys, _with_part(acts, 0, f[:3] + (blob,)))
        assert code == 1 and why in out and "Traceback" not in out, out


def test_the_made_up_part_after_the_hosts_still_fails_on_the_host(tmp_path, capsys, monkeypatch):
    """The grinding board with journaled proofs: it signs its ground part with a key it made and
    journals that proof. A third party sees a key it does not know; the laptop, whose part it
    follows, fails the match (exit 1) unless its user vouches for that key."""
    acts, proofs = _play([("laptop", LAPTOP), ("phone", BOARDS_OWN)])
    code, out = T._verify(tmp_path, capsys, acts)
    assert "the last host part is key %s's" % _fp(BOARDS_OWN) in out and _fp(PHONE) not in out, out
    T._remember(acts, acts[_parts(acts)[0]][1][2])
    code, out = T._verify(tmp_path, capsys, acts)
    assert code == 1 and "FAIL: host 'phone' gave a part after this host's" in out, out
    code, out = T._verify(tmp_path, capsys, acts, "--after-me", _fp(PHONE))
    assert code == 1, out


def test_the_clubs_copy_is_checked_the_same_way():
    """The club stores a pushed journal byte for byte (``gammon sync --club``) and verifies it
    with ``gammon verify``'s logic before storing: the journaled proofs included."""
    from gammon.club import checks

    acts, _ = _play([("laptop", LAPTOP)])
    _m, text = checks.check_finished(T._bytes(acts))
    assert "the last host part is key %s's" % _fp(LAPTOP) in text, text
    f = acts[_parts(acts)[0]][1]
    blob = bytearray(f[3])
    blob[60] ^= 0x80
    with pytest.raises(checks.Refused, match="a part's proof does not hold: part 1"):
        checks.check_finished(T._bytes(_with_part(acts, 0, f[:3] + (bytes(blob),))))
    _m, text = checks.check_finished(T._bytes(_with_part(acts, 0, f[:3])))  # dropped: unproven
    assert "the last host part is unproven" in text, text


class _OldBoard:
    """A board whose firmware predates journaled proofs: PLAYER_SEED is 48 bytes or E_PAYLOAD
    (as ``bg.link.requests`` answered before); ``state``: the E_STATE of a closed window."""

    def __init__(self, state=False):
        self.calls = []
        self.state = state

    def send_player_seed(self, com, seed, proof=b""):
        from bg import link as P
        from gammon.link import LinkError

        self.calls.append(len(proof))
        if self.state:
            raise LinkError("wrong state", P.E_STATE)
        if proof:
            raise LinkError("bad payload", P.E_PAYLOAD)
        return MID


def test_a_board_from_before_proofs_takes_the_part_alone():
    from gammon import dice_seed

    old = _OldBoard()
    with Library.open() as lib:
        part = dice_seed.contribute(old, lib, MID, COM, "board")
        assert part is not None and old.calls == [dice_proof.PACKED_LEN, 0]
        assert lib.remembered_commitment(MID) == (COM, part) and len(lib.part_proofs(MID)) == 1
    closed = _OldBoard(state=True)  # a refusal other than the payload's: no second try
    with Library.open() as lib:
        assert dice_seed.contribute(closed, lib, MID, COM, "board") is None and closed.calls == [114]


def test_the_json_export_shows_each_journaled_proof():
    import json

    from gammon import model
    from gammon.formats import json_export

    acts, proofs = _play([("laptop", LAPTOP), ("phone", PHONE)])
    acts = _with_part(acts, 1, acts[_parts(acts)[1]][1][:3])  # the phone's proof not kept
    doc = json.loads(json_export.export(model.load_match(T._bytes(acts))))
    parts = doc["match"]["dice"]["seed_parts"]
    assert parts[0]["proof"] == dice_proof.pack(proofs[0]).hex() and len(parts[0]["proof"]) == 228
    assert "proof" not in parts[1] and parts[1]["name"] == "phone"


def test_this_hosts_own_key_is_named_and_its_own_later_part_passes(tmp_path, capsys, home):
    """A host that gave two parts (``gammon watch`` and a ``sync``) signed both: the later one is
    its own key's, which nobody else holds, so it needs no ``--after-me``; another key's still
    does."""
    from gammon.release import write_key

    write_key(home / dice_proof.KEY_FILE, LAPTOP)
    acts, _ = _play([("laptop", LAPTOP), ("laptop", LAPTOP)])
    T._remember(acts, acts[_parts(acts)[0]][1][2])
    code, out = T._verify(tmp_path, capsys, acts)
    assert code == 0 and "PASS" in out, out
    assert out.count("key %s (this host's): signature holds" % _fp(LAPTOP)) == 2, out
    acts, _ = _play([("laptop", LAPTOP), ("phone", PHONE)])
    T._remember(acts, acts[_parts(acts)[0]][1][2])
    code, out = T._verify(tmp_path, capsys, acts)
    assert code == 1 and "FAIL: host 'phone' gave a part after this host's" in out, out
