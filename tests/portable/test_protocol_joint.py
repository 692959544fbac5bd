"""JOINT (``bg.link.joint.joint``): a host hands its board the other board's commitment and
shares and reads the board's own share (``gammon remote play``). Every malformed frame is
refused with E_PAYLOAD before the board's brain hears of it; a board that plays no other board
refuses with E_STATE; the brain's refusal (a share out of order, twice, a share not yet asked
for) comes back as E_STATE with its reason. The brain here is a recorder (the controller side
is tests/ctl/test_controller_joint.py).

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 78k
# (The paired session of test_protocol_decide: its need + 8k and more; on the board model the
# board's 64k.)

from link_fakes import roomy

if roomy(120000, 90000):
    from bg import link as P
    from bg.link import joint as link_joint
    from link_helpers import error_code, one, paired_session


class _Brain:
    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer

    def joint_start(self, side, commitment):
        self.calls.append(("start", side, commitment))
        return self.answer or (b"M" * 8, b"C" * 32)

    def joint_take(self, k, share, now):
        self.calls.append(("take", k, share))
        return self.answer

    def joint_share(self, k):
        self.calls.append(("mine", k))
        return None if self.answer or k > 3 else bytes([k]) * 32


def _u32(k):
    return bytes([k >> 24, (k >> 16) & 255, (k >> 8) & 255, k & 255])


def test_commitment_shares_and_the_boards_own_share():
    b, s, h, _ = paired_session()
    brain = b.brain = _Brain()
    _, p = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_START, 1]) + b"c" * 32), P.RSP | P.REQ_JOINT)
    assert bytes(p) == bytes([link_joint.J_START]) + b"M" * 8 + b"C" * 32
    _, p = one(
        s,
        h,
        h.request(P.REQ_JOINT, bytes([link_joint.J_SHARE]) + _u32(0x01020304) + b"s" * 32),
        P.RSP | P.REQ_JOINT,
    )
    assert bytes(p) == bytes([link_joint.J_SHARE]) + _u32(0x01020304)
    _, p = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_MINE]) + _u32(3)), P.RSP | P.REQ_JOINT)
    assert bytes(p) == bytes([link_joint.J_MINE]) + _u32(3) + bytes([3]) * 32
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_MINE]) + _u32(4)))  # not asked for yet
    assert error_code(fr) == P.E_STATE and "not asked for" in P.parse_error(fr[1])[4]
    _, p = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_ASKED]) + _u32(7)), P.RSP | P.REQ_JOINT)
    assert bytes(p) == bytes([link_joint.J_ASKED]) + _u32(7)  # the host says the roll was asked
    assert brain.calls == [
        ("start", 1, b"c" * 32),
        ("take", 0x01020304, b"s" * 32),
        ("mine", 3),
        ("mine", 4),
        ("take", 7, None),  # ASKED: no share
    ]


def test_malformed_requests_are_refused_before_the_brain_hears_them():
    b, s, h, _ = paired_session()
    brain = b.brain = _Brain()
    bad = [
        b"",  # no kind
        bytes([4]) + _u32(0),  # unknown kind
        bytes([link_joint.J_ASKED]) + _u32(0) + b"x",  # a long throw
        bytes([link_joint.J_START, 2]) + b"c" * 32,  # no such side
        bytes([link_joint.J_START, 0]) + b"c" * 31,  # a short commitment
        bytes([link_joint.J_SHARE]) + _u32(0) + b"s" * 31,  # a short share
        bytes([link_joint.J_SHARE]) + _u32(0) + b"s" * 33,  # a long one
        bytes([link_joint.J_MINE, 0, 0]),  # no throw
    ]
    for payload in bad:
        assert error_code(one(s, h, h.request(P.REQ_JOINT, payload))) == P.E_PAYLOAD, payload
    assert brain.calls == []


def test_the_boards_refusal_and_a_board_without_another():
    b, s, h, _ = paired_session()
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_MINE]) + _u32(0)))
    assert error_code(fr) == P.E_STATE and "no other board" in P.parse_error(fr[1])[4]
    b.brain = _Brain("a share for throw 5; throw 4 is due")
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_SHARE]) + _u32(5) + b"s" * 32))
    assert error_code(fr) == P.E_STATE and P.parse_error(fr[1])[4] == "a share for throw 5; throw 4 is due"
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_START, 0]) + b"c" * 32))
    assert error_code(fr) == P.E_STATE
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_ASKED]) + _u32(5)))
    assert error_code(fr) == P.E_STATE and P.parse_error(fr[1])[4] == "a share for throw 5; throw 4 is due"


def test_a_stranger_cannot_hand_in_a_share():
    from bg.link.host import HostEnd
    from bg.link.session import Session
    from link_helpers import Rand, make_board

    b = make_board()
    s = Session(b, 185)
    h = HostEnd(Rand())
    brain = b.brain = _Brain()
    fr = one(s, h, h.request(P.REQ_JOINT, bytes([link_joint.J_SHARE]) + _u32(0) + b"s" * 32))
    assert error_code(fr) == P.E_AUTH and brain.calls == []
