"""GNU Backgammon Position ID / Match ID and eXtreme Gammon XGID, encode and decode.

Sides: side ``s`` of a position is gnubg's player ``s`` (Match ID scores, cube owner, player
on roll). In an XGID, X (upper case, the bottom player whose points 1..24 the string
follows) is side 1 and O (lower case) is side 0 -- as GNU Backgammon reads and writes XGIDs.

Example::

    >>> from bg import board, ids
    >>> ids.position_id(board.start_position(), 0)
    '4HPwATDgc/ABMA'
    >>> ids.match_id(dice_owner=1, dice=(3, 1), length=7)
    'cInlAAAAAAAE'
"""

from bg.board import NCHECKERS, POS_LEN, derive_off, validate

_B64A = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64_encode(data, nchars):
    """Base64 of ``data`` (standard alphabet, as gnubg uses), ``nchars`` characters, no
    padding. Written into one bytearray: no list of one-character strings."""
    out = bytearray(nchars)
    acc = 0
    nbits = 0
    k = 0
    for b in data:
        acc = ((acc << 8) | b) & 0xFFFF  # at most 13 live bits: no long ints
        nbits += 8
        while nbits >= 6 and k < nchars:
            nbits -= 6
            out[k] = _B64A[(acc >> nbits) & 63]
            k += 1
    if nbits and k < nchars:
        out[k] = _B64A[(acc << (6 - nbits)) & 63]
    return str(out, "ascii")


def _b64_value(c):
    """Value of one base64 character code, or -1."""
    if 65 <= c <= 90:
        return c - 65
    if 97 <= c <= 122:
        return c - 71
    if 48 <= c <= 57:
        return c + 4
    if c == 43:
        return 62
    if c == 47:
        return 63
    return -1


def _b64_decode(s, nbytes, what):
    # iterate over the bytes of the text: indexing a str would intern one-character strings
    acc = 0
    nbits = 0
    out = bytearray(nbytes)
    k = 0
    for c in s.encode():
        v = _b64_value(c)
        if v < 0:
            raise ValueError("bad character %r in %s" % (chr(c), what))
        acc = ((acc << 6) | v) & 0xFFFF
        nbits += 6
        if nbits >= 8:
            nbits -= 8
            if k < nbytes:
                out[k] = (acc >> nbits) & 0xFF
            k += 1
    return out


# ------------------------------------------------------------------ Position ID
def position_key(pos, side_on_roll):
    """gnubg's 10-byte position key (opponent's half first, then the player on roll)."""
    key = bytearray(10)
    bit = 0
    for side in (1 - side_on_roll, side_on_roll):
        b = 25 if side else 0
        for i in range(25):
            n = pos[b + i]
            for _ in range(n):
                if bit >= 80:
                    raise ValueError("too many checkers for a position key")
                key[bit >> 3] |= 1 << (bit & 7)
                bit += 1
            bit += 1  # the 0 separating points
    return key


def position_id(pos, side_on_roll):
    """The 14-character gnubg Position ID of ``pos`` with ``side_on_roll`` on roll."""
    return _b64_encode(position_key(pos, side_on_roll), 14)


def decode_position_id(s, pos=None, side_on_roll=0):
    """Fill ``pos`` (or a new bytearray) from a Position ID, the player on roll (second
    half of the ID) becoming ``side_on_roll``. Raises ValueError on a malformed ID."""
    if not isinstance(s, str):
        raise ValueError("a Position ID is a string")
    s = s.strip()
    if len(s) != 14:
        raise ValueError("a Position ID has 14 characters, got %d: %r" % (len(s), s))
    key = _b64_decode(s, 10, "Position ID")
    if pos is None:
        pos = bytearray(POS_LEN)
    for i in range(POS_LEN):
        pos[i] = 0
    half = 0
    point = 0
    n = 0
    for bit in range(80):
        if half > 1:
            if (key[bit >> 3] >> (bit & 7)) & 1:
                raise ValueError("Position ID %r has stray bits" % s)
            continue
        if (key[bit >> 3] >> (bit & 7)) & 1:
            n += 1
            if n > NCHECKERS:
                raise ValueError("Position ID %r has too many checkers" % s)
        else:
            side = side_on_roll if half else 1 - side_on_roll
            pos[(25 if side else 0) + point] = n
            n = 0
            point += 1
            if point == 25:
                point = 0
                half += 1
    if half < 2:
        raise ValueError("Position ID %r is incomplete" % s)
    derive_off(pos, "Position ID %r" % s)
    try:
        validate(pos)
    except ValueError as e:
        raise ValueError("Position ID %r: %s" % (s, e)) from None
    return pos


# ------------------------------------------------------------------ Match ID
# (bit offset, width) of each field in the 66-bit match key, as in the gnubg manual
_FIELDS = (
    ("cube_log", 0, 4),
    ("cube_owner", 4, 2),  # 0, 1, or 3 = centred
    ("dice_owner", 6, 1),  # player on roll (or who rolled)
    ("crawford", 7, 1),
    ("game_state", 8, 3),  # 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
    ("turn", 11, 1),  # player to act (takes/drops after a double)
    ("doubled", 12, 1),
    ("resign", 13, 2),  # 0 none, 1 single, 2 gammon, 3 backgammon
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("length", 21, 15),  # 0 = money
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("no_jacoby", 66, 1),  # gnubg stores "Jacoby rule NOT in use"
)

GAME_NONE = 0
GAME_PLAYING = 1
GAME_OVER = 2
GAME_RESIGNED = 3
GAME_DROPPED = 4


def _log2(v):
    n = 0
    while (1 << n) < v:
        n += 1
    if (1 << n) != v:
        raise ValueError("cube value %d is not a power of two" % v)
    return n


def match_id(
    cube_value=1,
    cube_owner=-1,
    dice_owner=0,
    crawford=False,
    game_state=1,
    turn=None,
    doubled=False,
    resign=0,
    dice=(0, 0),
    length=0,
    score=(0, 0),
    jacoby=False,
):
    """The 12-character gnubg Match ID. ``cube_owner`` is -1 (centred), 0 or 1; ``turn``
    (player to act) defaults to ``dice_owner``; ``length`` 0 = money game; the dice are
    stored larger first, as gnubg does; ``jacoby``: the Jacoby rule is in use."""
    if turn is None:
        turn = dice_owner
    if dice[0] < dice[1]:
        dice = (dice[1], dice[0])
    vals = {
        "cube_log": _log2(cube_value),
        "cube_owner": 3 if cube_owner < 0 else cube_owner,
        "dice_owner": dice_owner,
        "crawford": 1 if crawford else 0,
        "game_state": game_state,
        "turn": turn,
        "doubled": 1 if doubled else 0,
        "resign": resign,
        "die1": dice[0],
        "die2": dice[1],
        "length": length,
        "score0": score[0],
        "score1": score[1],
        "no_jacoby": 0 if jacoby else 1,
    }
    key = bytearray(9)
    for name, off, width in _FIELDS:
        v = vals[name]
        if v < 0 or v >= (1 << width):
            raise ValueError("match field %s=%r out of range" % (name, v))
        for i in range(width):
            if (v >> i) & 1:
                b = off + i
                key[b >> 3] |= 1 << (b & 7)
    return _b64_encode(key, 12)


def decode_match_id(s):
    """Decode a Match ID into a dict with the keyword names of ``match_id`` (plus
    ``cube_value``); raises ValueError when malformed."""
    if not isinstance(s, str):
        raise ValueError("a Match ID is a string")
    s = s.strip()
    if len(s) != 12:
        raise ValueError("a Match ID has 12 characters, got %d: %r" % (len(s), s))
    key = _b64_decode(s, 9, "Match ID")
    raw = {}
    for name, off, width in _FIELDS:
        v = 0
        for i in range(width):
            b = off + i
            if (key[b >> 3] >> (b & 7)) & 1:
                v |= 1 << i
        raw[name] = v
    if raw["cube_owner"] == 2:
        raise ValueError("Match ID %r has an invalid cube owner" % s)
    if raw["die1"] > 6 or raw["die2"] > 6:
        raise ValueError("Match ID %r has invalid dice" % s)
    if raw["game_state"] > 4:
        raise ValueError("Match ID %r has an invalid game state" % s)
    return {
        "cube_value": 1 << raw["cube_log"],
        "cube_owner": -1 if raw["cube_owner"] == 3 else raw["cube_owner"],
        "dice_owner": raw["dice_owner"],
        "crawford": bool(raw["crawford"]),
        "game_state": raw["game_state"],
        "turn": raw["turn"],
        "doubled": bool(raw["doubled"]),
        "resign": raw["resign"],
        "dice": (raw["die1"], raw["die2"]),
        "length": raw["length"],
        "score": (raw["score0"], raw["score1"]),
        "jacoby": not raw["no_jacoby"],
    }


# ------------------------------------------------------------------ XGID
# (in bg.ids._xgid, loaded on first use so that the device need not compile it)
def xgid(pos, side_on_roll, **kw):
    """The XGID of a position and match state; see ``bg.ids._xgid.xgid``."""
    from bg.ids._xgid import xgid as f

    return f(pos, side_on_roll, **kw)


def decode_xgid(s, pos=None):
    """Decode an XGID into ``(pos, info)``; see ``bg.ids._xgid.decode_xgid``."""
    from bg.ids._xgid import decode_xgid as f

    return f(s, pos)
