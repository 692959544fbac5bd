"""A board's joint transcript: the dice of a match between two boards as one board's host
holds them after the match (``gammon.remote.DiceExchange.transcript``), read by ``gammon remote
verify`` (docs/remote.md, docs/dice.md *Two boards, one match*). JSON, one object::

    {"format": "smartgammon-joint-v1", "side": 0, "match_id": HEX, "commitment": HEX,
     "seed": HEX, "other_commitment": HEX, "parts": [HEX, HEX], "proofs": [HEX, HEX],
     "shares": [HEX...], "throws": [[d1, d2]...], "other_shares": [HEX...]}

``other_commitment`` is the other board's commitment as this host received it before any
player seed part was sent; ``parts`` the two hosts' player seed parts, side 0's first;
``proofs`` the packed proof that came with each part (``gammon.dice_proof.make_joint``, 114
bytes: its host's key and signature over both commitments), ``""`` for a part that came
without one; a transcript without ``proofs`` (written before they were kept) has none, so
verify shows its parts unproven. ``other_shares`` (optional) are the other board's shares as
this host received them: verify checks those, so a board whose transcript claims other
shares than it sent is still named.

Example::

    >>> d = to_dict(0, bytes(8), bytes(32), bytes(32), bytes(range(32)), [bytes(16)] * 2, [], [])
    >>> parse(d, "t.json")[3] == [bytes(16)] * 2 and parse(d, "t.json")[5] == [b"", b""]
    True
"""

from gammon.errors import UserError

FORMAT = "smartgammon-joint-v1"


def to_dict(
    side, match_id, commit, seed, other_commit, parts, shares, throws, other_shares=None, proofs=None
):
    """The transcript of one board (``other_shares``: the other board's shares as this host
    received them; ``proofs``: the packed proof of each part, b"" where it had none)."""
    t = {
        "format": FORMAT,
        "side": side,
        "match_id": bytes(match_id).hex(),
        "commitment": bytes(commit).hex(),
        "seed": bytes(seed).hex(),
        "other_commitment": bytes(other_commit).hex(),
        "parts": [bytes(p).hex() for p in parts],
        "proofs": [bytes(p or b"").hex() for p in (proofs or [b""] * len(parts))],
        "shares": [bytes(s).hex() for s in shares],
        "throws": [list(t) for t in throws],
    }
    if other_shares is not None:
        t["other_shares"] = [bytes(s).hex() for s in other_shares]
    return t


def _hex(obj, key, name):
    try:
        return bytes.fromhex(obj[key])
    except (KeyError, TypeError, ValueError):
        raise UserError("%s: %s is missing or not hex" % (name, key)) from None


def _hex_list(obj, key):
    v = obj[key]
    if not isinstance(v, list):
        raise TypeError(key)
    return [bytes.fromhex(s) for s in v]


def parse(obj, name):
    """``(side, bg.dice.joint_verify.Board, other_commitment, parts, other_shares, proofs)`` of a
    decoded transcript (``other_shares`` None when it has none; ``proofs`` one per part, b""
    where it has none); UserError naming ``name`` when it is not one."""
    from bg.dice import joint_verify as J

    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise UserError("%s: not a joint transcript (format %s)" % (name, FORMAT))
    side = obj.get("side")
    if side not in (0, 1) or isinstance(side, bool):
        raise UserError("%s: side must be 0 or 1" % name)
    try:
        throws = [tuple(int(x) for x in t) for t in obj["throws"]]
        shares = _hex_list(obj, "shares") if "shares" in obj else None
        parts = _hex_list(obj, "parts")
        received = _hex_list(obj, "other_shares") if "other_shares" in obj else None
        proofs = _hex_list(obj, "proofs") if "proofs" in obj else [b""] * len(parts)
    except (KeyError, TypeError, ValueError):
        raise UserError("%s: throws, shares, parts or proofs are malformed" % name) from None
    if len(proofs) != len(parts):
        raise UserError(
            '%s: %d proofs for %d parts (one each, "" for none)' % (name, len(proofs), len(parts))
        )
    b = J.Board(
        _hex(obj, "match_id", name), _hex(obj, "commitment", name), _hex(obj, "seed", name), throws, shares
    )
    return side, b, _hex(obj, "other_commitment", name), parts, received, proofs
