"""This host's part in dice the board cannot choose (docs/dice.md): when it sees a match that
has published its commitment and not yet thrown (a live ``MATCH_START`` while watching, or
a live match while syncing), it remembers the commitment in the library and sends the board
its 16-byte part (``REQ_PLAYER_SEED``): the hash of its signature over the commitment and the
parts before it (``gammon.dice_proof``), with the proof, which the board journals beside the part
and the library keeps. ``gammon verify`` later checks the journal against what was remembered
and the journaled proofs."""

import os

from bg import dice, record
from bg.link import E_PAYLOAD, E_STATE

from gammon.link import LinkError


def open_window(data):
    """``(match_id, commitment, parts)`` when the record bytes ``data`` end with a match that is
    between its commitment and its first throw (still taking player seeds), else None;
    ``parts``: the contributions ``[(source, part)]`` it holds so far."""
    start = None
    closed = False
    parts = []
    for kind, f in record.decode_stream(data):
        if kind == record.MATCH_START:
            start = f
            parts = []
            closed = bool(f[10])  # a journal from before contributions: the seed is in here
        elif kind == record.SEED_PART:
            closed = closed or f[0] == dice.SRC_BUTTONS
            parts.append((f[0], bytes(f[2])))
        else:
            closed = True  # GAME_START (the opening press), a throw, the end
    if start is None or closed:
        return None
    return bytes(start[0]), bytes(start[9]), parts


def contribute(client, lib, match_id, commitment, board="", urandom=os.urandom, prior=()):
    """Remember ``commitment`` for ``match_id``, then send this host's signed part for it
    (``prior``: the parts seen before it). Returns the part sent, or None when the board
    refused it (too late: the opening throw came first; a match with another board) -- its
    proof is then forgotten -- or did not answer."""
    from gammon import dice_proof

    lib.remember_commitment(match_id, commitment, b"", board)
    key = dice_proof.host_key(lib.path.parent)
    seed, proof = dice_proof.make(key, match_id, commitment, list(prior), bytes(urandom(16)))
    lib.remember_proof(match_id, seed, dice_proof.to_json(proof))  # before the board has it
    try:
        try:
            client.send_player_seed(commitment, seed, dice_proof.pack(proof))
        except LinkError as e:
            if e.code != E_PAYLOAD:
                raise
            # firmware from before journaled proofs takes the part alone (the proof stays here)
            client.send_player_seed(commitment, seed)
    except LinkError as e:
        if e.code == E_STATE:
            # the board answered that it takes no part (the opening came first; a match with
            # another board, whose parts are its players' hosts'): no journal will hold this
            # one, and a proof kept for it would make verify say the board dropped it. With
            # no answer the board may hold it: the proof stays (verify then tells)
            lib.forget_proof(match_id, seed)
        return None
    lib.remember_commitment(match_id, commitment, seed, board)
    return seed
