"""eXtreme Gammon XGID encode/decode (used through ``bg.ids._xgid`` / ``bg.ids.decode_xgid``).

X (upper case, the bottom player whose points 1..24 the string follows) is side 1 and O
(lower case) is side 0, as GNU Backgammon reads XGIDs (gnubg's player 1 is X).
"""

from bg.board import POS_LEN, derive_off, validate
from bg.ids import _log2

_XSIDE = 1  # X (upper case, bottom) is side 1
_OSIDE = 0


def xgid(
    pos,
    side_on_roll,
    cube_value=1,
    cube_owner=-1,
    dice=(0, 0),
    score=(0, 0),
    length=0,
    crawford=False,
    jacoby=False,
    beaver=False,
    max_cube=10,
    doubled=False,
):
    """The XGID of a position and match state. ``cube_owner`` -1 (centred), 0 or 1; ``dice``
    (0, 0) when not rolled; ``score`` and ``cube_owner`` by side; ``length`` 0 = money
    (then ``jacoby``/``beaver`` fill the rules field, else ``crawford``); ``doubled`` writes
    the dice field as ``D`` (a double is being offered by ``side_on_roll``)."""
    chars = bytearray(26)
    xb = 25 if _XSIDE else 0
    ob = 25 if _OSIDE else 0
    # char 0: O's bar; chars 1..24: X's points 1..24; char 25: X's bar
    n = pos[ob + 24]
    chars[0] = 96 + n if n else 45  # 'a' - 1 + n, or '-'
    for p in range(1, 25):
        x = pos[xb + p - 1]
        o = pos[ob + 24 - p]
        if x and o:
            raise ValueError("point %d held by both sides" % p)
        chars[p] = 64 + x if x else (96 + o if o else 45)
    n = pos[xb + 24]
    chars[25] = 64 + n if n else 45
    owner = 0 if cube_owner < 0 else (1 if cube_owner == _XSIDE else -1)
    turn = 1 if side_on_roll == _XSIDE else -1
    if doubled:
        dtxt = "D"
    elif dice[0]:
        dtxt = "%d%d" % (dice[0], dice[1])
    else:
        dtxt = "00"
    if length:
        rules = 1 if crawford else 0
    else:
        rules = (1 if jacoby else 0) | (2 if beaver else 0)
    return "XGID=%s:%d:%d:%d:%s:%d:%d:%d:%d:%d" % (
        str(chars, "ascii"),
        _log2(cube_value),
        owner,
        turn,
        dtxt,
        score[_XSIDE],
        score[_OSIDE],
        rules,
        length,
        max_cube,
    )


def decode_xgid(s, pos=None):
    """Decode an XGID into ``(pos, info)``; ``info`` has ``side_on_roll``, ``cube_value``,
    ``cube_owner``, ``dice``, ``doubled``, ``score``, ``length``, ``crawford``, ``jacoby``,
    ``beaver``, ``max_cube``. Raises ValueError when malformed."""
    if not isinstance(s, str):
        raise ValueError("an XGID is a string")
    s = s.strip()
    if s.startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    if len(parts) != 10 or len(parts[0]) != 26:
        raise ValueError("malformed XGID %r" % s)
    if pos is None:
        pos = bytearray(POS_LEN)
    for i in range(POS_LEN):
        pos[i] = 0
    xb = 25 if _XSIDE else 0
    ob = 25 if _OSIDE else 0
    board = parts[0].encode()  # byte codes: no one-character strings
    for i in range(26):
        c = board[i]
        if c == 45:  # '-'
            continue
        if 65 <= c <= 79:  # 'A'..'O'
            n = c - 64
            upper = True
        elif 97 <= c <= 111:  # 'a'..'o'
            n = c - 96
            upper = False
        else:
            raise ValueError("bad character %r in XGID" % chr(c))
        if i == 0:
            if upper:
                raise ValueError("XGID: char 0 is O's bar (lower case)")
            pos[ob + 24] = n
        elif i == 25:
            if not upper:
                raise ValueError("XGID: char 25 is X's bar (upper case)")
            pos[xb + 24] = n
        elif upper:
            pos[xb + i - 1] = n
        else:
            pos[ob + 24 - i] = n
    derive_off(pos, "XGID")
    validate(pos)
    try:
        cube_log = int(parts[1])
        owner = int(parts[2])
        turn = int(parts[3])
        sx = int(parts[5])
        so = int(parts[6])
        rules = int(parts[7])
        length = int(parts[8])
        max_cube = int(parts[9])
    except ValueError:
        raise ValueError("XGID has a non-numeric field") from None
    if owner not in (-1, 0, 1) or turn not in (-1, 1) or not 0 <= cube_log <= 15:
        raise ValueError("XGID cube or turn field out of range")
    dtxt = parts[4]
    doubled = False
    dice = (0, 0)
    if dtxt in ("D", "B", "R"):
        doubled = True
    elif len(dtxt) == 2 and dtxt.isdigit():
        a = int(dtxt[0])
        b = int(dtxt[1])
        if (a == 0) != (b == 0) or a > 6 or b > 6:
            raise ValueError("XGID dice %r invalid" % dtxt)
        dice = (a, b)
    else:
        raise ValueError("XGID dice %r invalid" % dtxt)
    score = [0, 0]
    score[_XSIDE] = sx
    score[_OSIDE] = so
    info = {
        "side_on_roll": _XSIDE if turn == 1 else _OSIDE,
        "cube_value": 1 << cube_log,
        "cube_owner": -1 if owner == 0 else (_XSIDE if owner == 1 else _OSIDE),
        "dice": dice,
        "doubled": doubled,
        "score": (score[0], score[1]),
        "length": length,
        "crawford": bool(length and rules & 1),
        "jacoby": bool(not length and rules & 1),
        "beaver": bool(not length and rules & 2),
        "max_cube": max_cube,
    }
    return pos, info
