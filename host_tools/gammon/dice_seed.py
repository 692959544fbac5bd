"""This host's part in dice the board cannot choose (docs/dice.md): when it sees a match that
has published its commitment and not yet thrown (a live ``MATCH_START`` while watching, or
a live match while syncing), it remembers the commitment in the library and sends the board
16 random bytes (``REQ_PLAYER_SEED``). ``gammon verify`` later checks the journal against
what was remembered."""

import os

from bg import dice, record

from gammon.link import LinkError


def open_window(data):
    """``(match_id, commitment)`` when the record bytes ``data`` end with a match that is
    between its commitment and its first throw (still taking player seeds), else None."""
    start = None
    closed = False
    for kind, f in record.decode_stream(data):
        if kind == record.MATCH_START:
            start = f
            closed = bool(f[10])  # a journal from before contributions: the seed is in here
        elif kind == record.SEED_PART:
            closed = closed or f[0] == dice.SRC_BUTTONS
        else:
            closed = True  # GAME_START (the opening press), a throw, the end
    if start is None or closed:
        return None
    return bytes(start[0]), bytes(start[9])


def contribute(client, lib, match_id, commitment, board="", urandom=os.urandom):
    """Remember ``commitment`` for ``match_id``, then send 16 random bytes for it. Returns the
    seed sent, or None when the board refused it (too late: the opening throw came first)."""
    lib.remember_commitment(match_id, commitment, b"", board)
    seed = bytes(urandom(dice.PLAYER_SEED_LEN))
    try:
        client.send_player_seed(commitment, seed)
    except LinkError:
        return None
    lib.remember_commitment(match_id, commitment, seed, board)
    return seed
