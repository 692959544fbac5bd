"""Who gave a match's dice, checkable by anyone (docs/dice.md, *Signed parts*).

A host's player-seed part is not 16 random bytes but the hash of an Ed25519 signature: the
host signs the match's commitment, the parts it saw before its own and a fresh nonce with its
dice key, and sends ``SHA-256(_ID_TAG || signature)[:16]`` with the proof packed beside it
(``pack``: its public key, the nonce, how many parts it saw before, the signature; 114 bytes).
The board journals the packed proof with the part (record SEED_PART's last field) and never
reads it, so the proof travels wherever the journal goes (a library, a club); the host also
keeps it in its library and can hand it to anyone (``gammon verify --write-proofs``). With the
journal (and, for a board that dropped it, the proof), a third party
checks that the part is that key's, made after the commitment and after those parts, and so
sees which keys contributed and whether the last part really is one; a part the board made up
under a host's name has no proof, and one under a key the board made itself shows a key
nobody knows.

The part stays as unpredictable as random bytes: the board never learns the key, and the nonce
makes each signature new. A key is named by its fingerprint, the first 8 bytes of its SHA-256
in hex (``fingerprint``).

Example::

    >>> seed = bytes(32)
    >>> part, proof = make(seed, bytes(8), bytes(32), [], bytes(16))
    >>> check(proof, bytes(8), bytes(32), part, [])
    (True, '')
"""

import hashlib
import json
import os

from bg.update.ed25519 import verify
from bg.update.sign import public_key, sign

FORMAT = "smartgammon-part-proof/1"
_TAG = b"smartgammon-part-v1"  # what a host signs
_ID_TAG = b"smartgammon-part-id-v1"  # the part: a hash of the signature
_PRIOR_TAG = b"smartgammon-prior-v1"
KEY_FILE = "dice-key"  # beside the library: this host's dice key (64 hex digits, mode 0600)


def fingerprint(key):
    """A public key's name: the first 8 bytes of its SHA-256, in hex."""
    return hashlib.sha256(bytes(key)).hexdigest()[:16]


def prior_hash(parts):
    """SHA-256 over the contributions ``[(source, part)]`` a host saw before its own."""
    h = hashlib.sha256(_PRIOR_TAG)
    for source, part in parts:
        h.update(bytes((source,)))
        h.update(bytes(part))
    return h.digest()


def _message(match_id, commitment, prior, nonce):
    return _TAG + bytes(match_id) + bytes(commitment) + bytes(prior) + bytes(nonce)


def part_of(signature):
    return hashlib.sha256(_ID_TAG + bytes(signature)).digest()[:16]


def make(seed, match_id, commitment, prior_parts, nonce):
    """``(part, proof)``: the 16-byte part to send and its proof (a dict, ``to_json``)."""
    prior = prior_hash(prior_parts)
    sig = sign(seed, _message(match_id, commitment, prior, nonce))
    proof = {
        "match_id": bytes(match_id),
        "key": public_key(seed),
        "nonce": bytes(nonce),
        "prior": prior,
        "before": len(prior_parts),
        "signature": sig,
    }
    return part_of(sig), proof


def check(proof, match_id, commitment, part, prior_parts):
    """``(holds, note)``: whether ``proof`` shows ``part`` was signed by its key over this
    match's commitment; ``note`` says when the parts before it in the journal are not the ones
    the host saw (another host's part arrived meanwhile, or the board put one there: either
    way not after it, so the host's part still came last of those it saw)."""
    if bytes(proof["match_id"]) != bytes(match_id):
        return False, "the proof is for another match"
    if part_of(proof["signature"]) != bytes(part):
        return False, "the part is not the hash of the proof's signature"
    msg = _message(match_id, commitment, proof["prior"], proof["nonce"])
    if not verify(bytes(proof["key"]), msg, bytes(proof["signature"])):
        return False, "the signature does not hold for this match's commitment"
    if prior_hash(prior_parts) != bytes(proof["prior"]):
        return True, "signed after %d part(s); the journal has %d before it" % (
            proof["before"],
            len(prior_parts),
        )
    return True, ""


# A match between two boards (docs/dice.md, *Two boards, one match*): a host sends its part once
# it knows both boards' commitments and before it knows the other host's part, and both boards
# journal both parts. So it signs both commitments, side 0's first, and no part before its own;
# the proof's match id is the joint id (``bg.dice.joint.joint_id``), which either board's
# journal gives (its MATCH_START and its JOINT_START), so the one proof holds on both.
_JOINT_TAG = b"smartgammon-joint-part-v1"


def _joint_message(commit0, commit1, prior, nonce):
    return _JOINT_TAG + bytes(commit0) + bytes(commit1) + bytes(prior) + bytes(nonce)


def make_joint(seed, commit0, commit1, nonce):
    """``(part, proof)`` for a two-board match whose boards committed ``commit0`` (side 0's)
    and ``commit1``."""
    from bg.dice.joint import joint_id

    prior = prior_hash([])
    sig = sign(seed, _joint_message(commit0, commit1, prior, nonce))
    proof = {
        "match_id": joint_id(commit0, commit1),
        "key": public_key(seed),
        "nonce": bytes(nonce),
        "prior": prior,
        "before": 0,
        "signature": sig,
    }
    return part_of(sig), proof


def check_joint(proof, commit0, commit1, part):
    """``(holds, why not)``: whether ``proof`` shows ``part`` was signed by its key over these
    two boards' commitments, before any other part."""
    from bg.dice.joint import joint_id

    if bytes(proof["match_id"]) != joint_id(commit0, commit1):
        return False, "the proof is for another match"
    if proof["before"] != 0 or bytes(proof["prior"]) != prior_hash([]):
        return False, "a part of a match between two boards is signed before any other part"
    if part_of(proof["signature"]) != bytes(part):
        return False, "the part is not the hash of the proof's signature"
    msg = _joint_message(commit0, commit1, proof["prior"], proof["nonce"])
    if not verify(bytes(proof["key"]), msg, bytes(proof["signature"])):
        return False, "the signature does not hold for these two boards' commitments"
    return True, ""


def check_joint_packed(blob, commit0, commit1, part):
    """``check_joint`` of a packed proof (as sent and journaled): ``(holds, why not, key
    fingerprint or None)``."""
    from bg.dice.joint import joint_id

    try:
        p = unpack(blob, joint_id(commit0, commit1), [])
    except ValueError as e:
        return False, str(e), None
    ok, why = check_joint(p, commit0, commit1, part)
    return ok, why, fingerprint(p["key"])


# The packed proof a host sends with its part and the board journals (docs/dice.md):
#   version u8 (1) || before u8 || public key (32) || nonce (16) || signature (64)   -- 114 bytes
# The whole key, not its 8-byte fingerprint: Ed25519 cannot check a signature without the key,
# and the journal is to be checkable with nothing else. The match id is MATCH_START's and the
# prior hash is not sent: the parts a host saw are the first ``before`` of the journal's (the
# board only appends), so the verifier recomputes it from the journal; a board that changed,
# dropped or reordered one of those breaks the signature.
PACK_VERSION = 1
PACKED_LEN = 114


def pack(proof):
    """The bytes a host sends with its part (``proof`` from ``make``)."""
    return (
        bytes((PACK_VERSION, proof["before"]))
        + bytes(proof["key"])
        + bytes(proof["nonce"])
        + bytes(proof["signature"])
    )


def unpack(blob, match_id, parts):
    """The proof dict of a journaled packed proof, for the match ``match_id`` whose parts
    ``[(source, part)]`` precede it in the journal; ValueError (why, in words) when the bytes
    are not a proof of this format or claim more parts before than the journal has."""
    blob = bytes(blob)
    if len(blob) != PACKED_LEN or blob[0] != PACK_VERSION:
        raise ValueError("the proof journaled with it is not one this version reads (%d bytes)" % len(blob))
    before = blob[1]
    if before > len(parts):
        raise ValueError(
            "its proof was signed after %d part(s), but the journal has %d before it" % (before, len(parts))
        )
    return {
        "match_id": bytes(match_id),
        "key": blob[2:34],
        "nonce": blob[34:50],
        "prior": prior_hash(parts[:before]),
        "before": before,
        "signature": blob[50:114],
    }


def to_json(proof):
    out = {"format": FORMAT}
    for k, v in proof.items():
        out[k] = v.hex() if isinstance(v, (bytes, bytearray)) else v
    return out


_LENS = {"match_id": 8, "key": 32, "nonce": 16, "prior": 32, "signature": 64}


def from_json(obj, source="proof"):
    """A proof dict from its JSON form; ValueError (one line) on anything malformed."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ValueError("%s: not a part proof (format must be %r)" % (source, FORMAT))
    out = {}
    for k, n in _LENS.items():
        v = obj.get(k)
        try:
            b = bytes.fromhex(v) if isinstance(v, str) else b""
        except ValueError:
            b = b""
        if len(b) != n:
            raise ValueError("%s: %s must be %d bytes of hex" % (source, k, n))
        out[k] = b
    before = obj.get("before")
    if not isinstance(before, int) or isinstance(before, bool) or not 0 <= before < 256:
        raise ValueError("%s: before must be a count of parts" % source)
    out["before"] = before
    return out


def load(path):
    """Every proof in a JSON file (one object or a list); ValueError, one line, when it is bad."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        obj = json.loads(data.decode("utf-8"))
    except OSError as e:
        raise ValueError("%s: cannot read (%s)" % (path, e.strerror or e)) from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("%s: not JSON" % path) from None
    objs = obj if isinstance(obj, list) else [obj]
    return [from_json(o, str(path)) for o in objs]


def own_fingerprint(directory):
    """The fingerprint of this host's dice key in ``directory``, or None when it has none (never
    made: this host never gave a part) or the file is not a key."""
    from gammon.release import read_key

    path = os.path.join(str(directory), KEY_FILE)
    try:
        return fingerprint(public_key(read_key(path)))
    except (OSError, ValueError):
        return None


def host_key(directory):
    """This host's dice key (32-byte Ed25519 seed) in ``directory``, made on first use."""
    from gammon.release import read_key, write_key

    path = os.path.join(str(directory), KEY_FILE)
    if not os.path.exists(path):
        write_key(path, os.urandom(32))
    return read_key(path)
