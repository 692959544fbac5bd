"""What the club accepts: a match or a live event is decoded by ``bg.record``, replayed by the
rules' one fold (``gammon.model``, over ``bg.match.Fold``) and, for a finished match, its dice
verified by the rule ``gammon verify`` reads (``gammon.dice_check``: the commitment, the order
of the seed parts, the hosts' proofs journaled with their parts, every throw, one board's or
both boards' shares of a match between two boards) before anything is stored. Anything else
raises :class:`Refused` with one line saying why.
"""

import hashlib

from bg import dice, record

from gammon import dice_check, model


class Refused(ValueError):
    """A push the club does not store: ``status`` is the HTTP status to answer with."""

    def __init__(self, msg, status=422):
        ValueError.__init__(self, msg)
        self.status = status


def replay(data, what="match"):
    """``model.load_match`` of bytes that must be whole: Refused on damage or a broken rule."""
    try:
        m = model.load_match(data)
    except ValueError as e:
        raise Refused("the %s does not replay: %s" % (what, e)) from None
    if m.note:
        raise Refused("the %s is damaged: %s" % (what, m.note))
    if len(model.split_matches(data)) != 1:
        raise Refused("the %s holds more than one match" % what)
    return m


def dice_verdict(data, other=None):
    """``gammon verify`` over one match's bytes: ``(ok, text)``; ``ok`` None while the board seed
    is unrevealed (the match is live), False when the record order or a throw fails. ``other``:
    for a match between two boards, the other board's revealed ``(match id, seed)`` (from its
    own push, ``joint_reveal``): its shares are then checked too."""
    try:
        (v,) = dice_check.matches_from_journal(bytes(data), "pushed match")
    except ValueError as e:
        return False, str(e)
    if v.order_error:
        return False, "the record order proves nothing: " + v.order_error
    _lines, bad, signed = dice_check.check_parts(v, [])  # the proofs the journal carries
    if bad:
        return False, "a part's proof does not hold: " + "; ".join(bad)
    who = v.contributions()
    hosts = [i for i, p in enumerate(v.parts) if p[0] == dice.SRC_HOST]
    if v.joint is not None:
        # two boards: no last input (both parts come before any share); the steps in order
        who += ". In this journal's order: " + " ".join(v.joint_order(signed))
    elif hosts:
        last = signed.get(hosts[-1])
        who += "; the last host part is " + ("key %s's" % last if last else "unproven")
    if v.board_seed is None:
        return None, "not yet: the board seed is revealed at the end of the match"
    if other is not None and v.joint is None:
        return False, "a one-board match has no other board"
    ok, _idx, msg, notes = dice_check.derive(v, v.board_seed, other)
    text = "%s (%s)" % (msg, who)
    if ok and notes:
        text += ". " + ". ".join(notes)
    return bool(ok), text


def joint_of(data):
    """``(this board's commitment, the other board's commitment or None)`` of a finished
    match's bytes (hex): how the club finds the other board's push of a match between two
    boards (each board pushes its own journal, under its own match id)."""
    (v,) = dice_check.matches_from_journal(bytes(data), "pushed match")
    return v.commitment.hex(), (v.joint[1].hex() if v.joint is not None else None)


def joint_reveal(data):
    """A finished match's ``(match id, revealed seed)``: what the other board's journal needs
    to prove its shares (``dice_verdict``'s ``other``)."""
    (v,) = dice_check.matches_from_journal(bytes(data), "pushed match")
    return v.match_id, v.board_seed


def check_pair(data, theirs):
    """Both boards' journals of one match between two boards, each checked with the other's
    revealed seed: ``(ok, text for this one, text for theirs)``."""
    ok_a, text_a = dice_verdict(data, joint_reveal(theirs))
    ok_b, text_b = dice_verdict(theirs, joint_reveal(data))
    return bool(ok_a and ok_b), text_a, text_b


def check_finished(data):
    """A finished match's ``(model.Match, verdict text)``; Refused unless it replays whole, the
    board has revealed its seed and every throw verifies."""
    data = bytes(data)
    m = replay(data)
    ok, text = dice_verdict(data)
    if ok is None:
        raise Refused("the match is not finished (its dice cannot be verified yet): push it live instead")
    if not ok:
        raise Refused("the dice do not verify: " + text)
    return m, text


def check_live(data):
    """A live match's bytes so far: the replay (``model._Replay``), Refused when they do not
    replay or the seed parts are out of order."""
    data = bytes(data)
    dec = record.decode_stream(data)
    r = model._Replay()
    r.clocks = [None, None]  # each side's time left (ms), from the board's CLOCK records
    try:
        for k, f in dec:
            r.feed(k, f)
            if k == record.CLOCK:
                r.clocks[f[0]] = f[2]
    except ValueError as e:
        raise Refused("the live match does not replay: %s" % e) from None
    if dec.status != record.OK:
        raise Refused("bad record in the live match: %s" % dec.error)
    if r.m is None:
        raise Refused("a live match starts with MATCH_START")
    ok, text = dice_verdict(data)
    if ok is False:
        raise Refused("the dice do not verify: " + text)
    return r


_ACTING = ("opening", "await_roll", "moving", "doubled", "resigning", "choice")


def live_state(r, board, seq):
    """What the broadcast page shows of one board (JSON-ready)."""
    m = r.m
    mt = r.mt
    return {
        "board": board,
        "seq": seq,
        "match": m.id_hex,
        "names": list(m.names),
        "length": m.length,
        "score": [mt.score[0], mt.score[1]],
        "pos": list(bytes(mt.pos)),
        "turn": mt.side if r.phase in _ACTING else -1,
        "phase": r.phase,
        "dice": list(r.dice) if r.dice else None,
        "cube": mt.cube,
        "owner": mt.owner,
        "game": len(m.games),
        "winner": m.winner,
        "clock": list(r.clocks) if m.clock[0] else None,
    }


def sha256_hex(data):
    return hashlib.sha256(bytes(data)).hexdigest()
