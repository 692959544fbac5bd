"""DECIDE: a host decides for the board's computer (``gammon play``, docs/protocol.md).

Its own module, imported by the first DECIDE only (``bg.link.session``): a board whose host
never plays through it does not pay for it, and the requests every host makes
(``bg.link.requests``) stay as small to import as they were -- on the 64-bit port a bigger
``requests`` needed a larger contiguous block to import and a fragmented heap refused it.
"""

from micropython import const

from bg.link import E_STATE, REQ_DECIDE, RSP

# the decision kinds (the payload's first byte); here, not in ``bg.link``: the package's dict is
# imported by every session, and four more names there moved the 64-bit port's heap layout
# enough to fail a 640-byte import in the BLE session test (session 8)
DEC_HELLO = const(0)  # + side u8 + strength (UTF-8, 1..16 bytes): this host decides for that side
DEC_PLAY = const(1)  # + turn u16 + steps (from, to bytes; 0..4 pairs): the computer's play
DEC_CUBE = const(2)  # + turn u16 + yes u8: double (its turn) / take (doubled) / accept the
# player's offer to resign; no: roll / drop / reject
DEC_RESIGN = const(3)  # + turn u16 + value u8 (1..3: single, gammon, backgammon): it resigns


def decide(s, fr):
    """A host decides for the board's computer (``gammon play``; docs/protocol.md "DECIDE"):
    HELLO names the side (bit 7: a player at another board decides, never the board) and the
    strength, PLAY gives the turn's play, CUBE a cube answer (or a resignation's), RESIGN an
    offer to resign.
    The board checks each against the match (``Board.brain``: the app's controller) and
    refuses (E_STATE, why) what is not the computer's to do now; nothing changes then."""
    p = fr.payload
    b = s.board.brain
    if not p:
        raise ValueError("decide needs a kind")
    k = p[0]
    n = len(p)
    if k == DEC_HELLO:
        if n < 3 or n > 18 or p[1] & 0x7F > 1:
            raise ValueError("hello needs a side (0/1) and a strength of 1..16 bytes")
        name = bytes(p[2:]).decode()  # UnicodeError is a ValueError: E_PAYLOAD
    elif k == DEC_PLAY:
        if n < 3 or n > 11 or n % 2 == 0:
            raise ValueError("play needs a turn (u16) and 0..4 steps (from, to)")
        for i in range(3, n, 2):
            if not (0 < p[i] <= 25 and p[i + 1] < p[i]):
                raise ValueError("bad step %d/%d" % (p[i], p[i + 1]))
    elif k == DEC_CUBE:
        if n != 4 or p[3] > 1:
            raise ValueError("cube needs a turn (u16) and yes/no (u8)")
    elif k == DEC_RESIGN:
        if n != 4 or not 1 <= p[3] <= 3:
            raise ValueError("resign needs a turn (u16) and 1..3 (u8)")
    else:
        raise ValueError("unknown decision kind %d" % k)
    if b is None:
        return s._error(E_STATE, fr.type, fr.seq, 0, "this board takes no decisions from a host")
    now = s.board.clock.ticks_ms()
    if k == DEC_HELLO:
        err = b.brain_hello(p[1], name, now)
    elif k == DEC_PLAY:
        err = b.brain_play(p[1] | (p[2] << 8), tuple(p[3:]), now)
    elif k == DEC_CUBE:
        err = b.brain_cube(p[1] | (p[2] << 8), p[3] == 1, now)
    else:
        err = b.brain_resign(p[1] | (p[2] << 8), p[3], now)
    if err is not None:
        return s._error(E_STATE, fr.type, fr.seq, 0, err)
    s._reply(RSP | REQ_DECIDE, bytes(p[:1]))
