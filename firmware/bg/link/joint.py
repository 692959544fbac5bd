"""JOINT: the other board's dice in a match between two boards (``gammon remote play``,
docs/remote.md, ``bg.dice.joint``).

Its own module, imported by the first JOINT only (``bg.link.session``), as DECIDE is: a board
that never plays another board does not pay for it.
"""

from micropython import const

from bg.link import E_STATE, REQ_JOINT, RSP

# the kinds (the payload's first byte)
J_START = const(0)  # + side u8 + the other board's commitment (32) -> match id (8) + own commitment (32)
J_SHARE = const(1)  # + throw u32 + the other board's share (32) -> throw u32
J_MINE = const(2)  # + throw u32 -> throw u32 + this board's share (32), once that throw is asked for
# + throw u32 -> throw u32: this board's share of that throw went to the other board (its host
# says so), so its player's roll was asked for -- a power cut lost that, not the share
J_ASKED = const(3)


def _u32(p, i):
    return (p[i] << 24) | (p[i + 1] << 16) | (p[i + 2] << 8) | p[i + 3]


def joint(s, fr):
    """The other board's commitment (START, right after this board's MATCH_START), its share
    of a throw (SHARE: the throw due, once) and this board's own share (MINE). The board
    checks each against its match (``Board.brain``: the app's controller) and refuses
    (E_STATE, why) what does not fit; nothing is journaled then."""
    p = fr.payload
    b = s.board.brain
    if not p:
        raise ValueError("joint needs a kind")
    k = p[0]
    n = len(p)
    if k == J_START:
        if n != 34 or p[1] > 1:
            raise ValueError("start needs a side (0/1) and a 32-byte commitment")
    elif k == J_SHARE:
        if n != 37:
            raise ValueError("share needs a throw (u32) and 32 bytes")
    elif k == J_MINE or k == J_ASKED:
        if n != 5:
            raise ValueError("needs a throw (u32)")
    else:
        raise ValueError("unknown joint kind %d" % k)
    if b is None or not hasattr(b, "joint_start"):
        return s._error(E_STATE, fr.type, fr.seq, 0, "this board plays no other board")
    if k == J_START:
        r = b.joint_start(p[1], bytes(p[2:34]))
        if isinstance(r, str):
            return s._error(E_STATE, fr.type, fr.seq, 0, r)
        return s._reply(RSP | REQ_JOINT, bytes(p[:1]) + r[0] + r[1])
    t = _u32(p, 1)
    if k == J_SHARE or k == J_ASKED:
        # (ASKED: ``joint_take`` without a share -- the brain's one method for both)
        err = b.joint_take(t, bytes(p[5:37]) if k == J_SHARE else None, s.board.clock.ticks_ms())
        if err is not None:
            return s._error(E_STATE, fr.type, fr.seq, 0, err)
        return s._reply(RSP | REQ_JOINT, bytes(p[:5]))
    mine = b.joint_share(t)
    if mine is None:
        return s._error(E_STATE, fr.type, fr.seq, 0, "throw %d is not asked for on this board" % t)
    s._reply(RSP | REQ_JOINT, bytes(p[:5]) + mine)
