"""DECIDE (``bg.link.decide.decide``): a host decides for the board's computer (``gammon
play``). Every malformed frame is refused with E_PAYLOAD before the board's brain hears of it;
a board without a brain refuses with E_STATE; the brain's refusal comes back as E_STATE with
its reason; an accepted decision echoes its kind. The brain here is a recorder (the controller
side is tests/ctl/test_opponent_host.py).

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 78k
# (The same two ends of a paired session as test_protocol_requests, which needs 58-59k on the
# 64-bit port: declared as it is, its need + 8k and more; on the board model the board's 64k.)

from link_fakes import roomy

if roomy(120000, 90000):
    from bg import link as P
    from bg.link import decide
    from link_helpers import error_code, one, paired_session


class _Brain:
    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer

    def brain_hello(self, side, name, now):
        self.calls.append(("hello", side, name))
        return self.answer

    def brain_play(self, turn, steps, now):
        self.calls.append(("play", turn, steps))
        return self.answer

    def brain_cube(self, turn, yes, now):
        self.calls.append(("cube", turn, yes))
        return self.answer

    def brain_resign(self, turn, value, now):
        self.calls.append(("resign", turn, value))
        return self.answer


def _text(reply):
    return P.parse_error(reply[1])[4]


def _req(kind, *rest):
    return bytes([kind]) + bytes(rest)


def test_decisions_reach_the_brain_and_echo_their_kind():
    b, s, h, _ = paired_session()
    brain = b.brain = _Brain()
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_HELLO, 1) + b"gnubg 2-ply"), P.RSP | P.REQ_DECIDE)
    _, p = one(
        s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_PLAY, 0x34, 0x12, 13, 7, 8, 7)), P.RSP | P.REQ_DECIDE
    )
    assert p == bytes([decide.DEC_PLAY])
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_PLAY, 5, 0)), P.RSP | P.REQ_DECIDE)  # no legal play
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_CUBE, 9, 0, 1)), P.RSP | P.REQ_DECIDE)
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_CUBE, 9, 0, 0)), P.RSP | P.REQ_DECIDE)
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_RESIGN, 9, 0, 2)), P.RSP | P.REQ_DECIDE)
    one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_HELLO, 0x81) + b"ana"), P.RSP | P.REQ_DECIDE)
    assert brain.calls == [
        ("hello", 1, "gnubg 2-ply"),
        ("play", 0x1234, (13, 7, 8, 7)),
        ("play", 5, ()),
        ("cube", 9, True),
        ("cube", 9, False),
        ("resign", 9, 2),
        ("hello", 0x81, "ana"),  # bit 7: a player at another board (app.opponent)
    ]


def test_malformed_decisions_are_refused_before_the_brain_hears_them():
    b, s, h, _ = paired_session()
    brain = b.brain = _Brain()
    bad = [
        b"",  # no kind
        _req(7, 0, 0),  # unknown kind
        _req(decide.DEC_HELLO, 0),  # no strength
        _req(decide.DEC_HELLO, 2) + b"x",  # no such side
        _req(decide.DEC_HELLO, 0x82) + b"x",  # no such side, at another board
        _req(decide.DEC_RESIGN, 1, 0, 0),  # resigning nothing
        _req(decide.DEC_RESIGN, 1, 0, 4),  # more than a backgammon
        _req(decide.DEC_RESIGN, 1, 0),  # no value
        _req(decide.DEC_HELLO, 0) + b"x" * 17,  # a strength longer than a record's name
        _req(decide.DEC_HELLO, 0) + b"\xff\xfe",  # not UTF-8
        _req(decide.DEC_PLAY, 1),  # no turn
        _req(decide.DEC_PLAY, 1, 0, 13),  # half a step
        _req(decide.DEC_PLAY, 1, 0, 13, 7, 13, 7, 13, 7, 13, 7, 13, 7),  # five steps
        _req(decide.DEC_PLAY, 1, 0, 7, 13),  # a step backwards
        _req(decide.DEC_PLAY, 1, 0, 26, 20),  # from beyond the bar
        _req(decide.DEC_PLAY, 1, 0, 0, 0),  # from the tray
        _req(decide.DEC_CUBE, 1, 0),  # no answer
        _req(decide.DEC_CUBE, 1, 0, 2),  # neither yes nor no
        _req(decide.DEC_CUBE, 1, 0, 1, 0),  # too long
    ]
    for payload in bad:
        assert error_code(one(s, h, h.request(P.REQ_DECIDE, payload))) == P.E_PAYLOAD, payload
    assert brain.calls == []


def test_the_brains_refusal_and_a_board_without_one():
    b, s, h, _ = paired_session()
    fr = one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_CUBE, 1, 0, 1)))
    assert error_code(fr) == P.E_STATE and "no decisions" in _text(fr)
    b.brain = _Brain("not the computer's play")
    fr = one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_PLAY, 3, 0, 24, 18)))
    assert error_code(fr) == P.E_STATE and _text(fr) == "not the computer's play"


def test_a_stranger_cannot_decide():
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_helpers import Rand, make_board

    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    brain = b.brain = _Brain()
    fr = one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_CUBE, 1, 0, 1)))
    assert error_code(fr) == P.E_AUTH and brain.calls == []


def test_no_response_type_reads_as_a_board_initiated_frame():
    """A request type with bit 0x20 set would answer as DATA/EVENT/ERROR (0x60..0x7F): the
    host would take the answer for something else (DECIDE was 0x20 once and hung the host)."""
    types = [getattr(P, n) for n in list(P.__dict__) + list(P.rare_names()) if n.startswith("REQ_")]
    assert len(types) == len(set(types)) and P.REQ_DECIDE in types
    for t in types:
        assert 0 < t < 0x20, hex(t)
        assert (P.RSP | t) not in (P.DATA, P.EVENT, P.ERROR)


def test_watch_on_sends_first_the_throw_the_file_does_not_hold_yet():
    """A ROLL waits in the app for its PLAY (the two are stored as one TURN record): a host
    that fetched the live match and then turns the watch on gets that throw first, so the file
    and the events join up (``Board.unstored``); once only, not again while watching."""
    from bg import record

    b, s, h, _ = paired_session()
    roll = bytes(record.encode(record.ROLL, (1, 6, 5)))
    b.unstored = lambda: roll
    out = []
    s.feed(h.request(P.REQ_WATCH, b"\x01"))
    f = s.pump()
    while f is not None:
        out.extend(h.feed(f))
        f = s.pump()
    assert [fr[0] for fr in out] == [P.RSP | P.REQ_WATCH, P.EVENT]
    assert bytes(out[1][1]) == b"\x00" + roll
    one(s, h, h.request(P.REQ_WATCH, b"\x01"), P.RSP | P.REQ_WATCH)  # already on: nothing more
    b.unstored = lambda: None  # no throw waiting: nothing but the answer
    one(s, h, h.request(P.REQ_WATCH, b"\x00"), P.RSP | P.REQ_WATCH)
    one(s, h, h.request(P.REQ_WATCH, b"\x01"), P.RSP | P.REQ_WATCH)


def test_a_decision_lets_the_hosts_other_requests_go_and_they_answer_again():
    """A host that plays through the board (DECIDE, JOINT: once a turn) asks its lists, files,
    watch and seed parts before the match and after it: on MicroPython ``bg.link.requests``
    and ``bg.journal.serve`` go at a decision (0.8 kB not held through the match,
    docs/memory.md) and the next LIST imports them again and is answered the same."""
    import sys

    b, s, h, _ = paired_session()
    b.brain = _Brain()
    lists = []
    for _ in range(2):
        lists.append(one(s, h, h.request(P.REQ_LIST, b"\x00\x00"), P.RSP | P.REQ_LIST)[1])
        assert "bg.link.requests" in sys.modules
        one(s, h, h.request(P.REQ_DECIDE, _req(decide.DEC_HELLO, 1) + b"x"), P.RSP | P.REQ_DECIDE)
        kept = "bg.link.requests" in sys.modules
        assert kept == (sys.implementation.name != "micropython")
        assert kept == ("requests" in P.__dict__)  # (P.requests would import it again)
        assert "bg.journal.serve" not in sys.modules or kept
    assert lists[0] == lists[1] and len(b.brain.calls) == 2
