"""bg.link.session + bg.link.host after login: every frame is authenticated, ERROR included (a
relay cannot forge the board's errors), the 32-bit session counter runs past 65,535 without a
wrap (a long watch keeps working) while replays across the wrap stay refused, and the board's
revocation reaches a logged-in host in a last signed frame.

Runs unchanged under CPython and the MicroPython unix port.
"""

# mpy-heap: 76k
# (Raised from 68k in session 7: the pass/fail of this module is not monotonic in the heap
# -- fragmentation of both ends' pairing and sessions -- and it failed at 2k-6k below the 68k
# declared; 8k more, checked to pass in a window of 6k either side at two checkout paths.)
# Both ends of a session in one interpreter, as test_protocol_replay: the 64-bit port with the
# firmware in its ROM image needs 58-60k here (tools/bench/heapmargin.py), declared +8k; the
# board model runs it in the board's 64k (needs 30-32k).

from link_fakes import roomy, skip_all

if roomy(120000, 90000):
    from bg import link as P
    from link_helpers import error_code, exchange, one, paired_session, snapshot

_FORGED = "flash damaged: unpair and re-pair"


def _list(s, h):
    return exchange(s, h, h.request(P.REQ_LIST, b"\x00\x00"))


def _text(reply):
    return P.parse_error(reply[1])[4]


def test_unsigned_error_after_login_is_refused_not_believed():
    b, s, h, key = paired_session()
    forged = P.encode_frame(P.ERROR, 3, P.error_payload(P.E_STORE, P.REQ_LIST, 3, 0, _FORGED))
    got = h.feed(forged)
    assert len(got) == 1 and error_code(got[0]) == P.E_MAC
    assert _FORGED not in _text(got[0]) and "forged" in _text(got[0])
    # the session goes on: nothing the host holds was touched by the forgery
    assert _list(s, h)[0][0] == P.RSP | P.REQ_LIST


def test_error_with_a_wrong_mac_after_login_is_refused():
    b, s, h, key = paired_session()

    class Wrong:
        def tag(self, direction, header, payload, epoch=0):
            return b"\x00" * 8

    forged = P.encode_frame(P.ERROR, 9, P.error_payload(P.E_STORE, 0, 0, 0, _FORGED), 0, Wrong())
    got = h.feed(forged)
    assert error_code(got[0]) == P.E_MAC and _FORGED not in _text(got[0])


def test_the_boards_own_errors_after_login_are_signed_and_accepted():
    b, s, h, key = paired_session()
    s.feed(h.request(0x3E))  # an unknown request type
    frame = s.pump()
    assert frame[2] & P.FLAG_MAC  # the board MACs its error
    got = h.feed(frame)
    assert error_code(got[0]) == P.E_TYPE  # and the host believes it


def test_a_watch_runs_past_65535_board_frames():
    b, s, h, key = paired_session()
    assert one(s, h, h.request(P.REQ_WATCH, b"\x01"))[0] == P.RSP | P.REQ_WATCH
    # fast path: as if 65,530 frames had gone by in this session (both ends agree on it)
    s.seq_out = h.last_seq = 65530
    frames = []
    for n in range(12):
        b.publish(bytes([4, n]))
        f = s.pump()
        while f is not None:
            frames.append(f)
            f = s.pump()
    assert len(frames) == 12
    low = [f[3] | (f[4] << 8) for f in frames]
    assert low[:6] == [65531, 65532, 65533, 65534, 65535, 0] and low[-1] == 6
    got = []
    for f in frames:
        got.extend(h.feed(f))
    assert [(t, p) for t, p, _ in got] == [(P.EVENT, bytes([P.EV_RECORD, 4, n])) for n in range(12)]
    assert h.last_seq == 65536 + 6
    # replays across the wrap: a frame of the first epoch whose low bits are above the
    # current ones, one whose low bits are below, and one of this epoch: all refused
    for old in (frames[0], frames[4], frames[8]):
        r = h.feed(old)
        assert r[0][0] == P.ERROR and error_code(r[0]) in (P.E_MAC, P.E_SEQ), r
    assert error_code(h.feed(frames[8])[0]) == P.E_SEQ
    assert error_code(h.feed(frames[2])[0]) == P.E_MAC  # epoch 0's 65533: not epoch 1's
    # and the session still works after the wrap
    assert _list(s, h)[0][0] == P.RSP | P.REQ_LIST


def test_host_requests_run_past_65535_and_replays_across_the_wrap_are_refused():
    b, s, h, key = paired_session()
    h.seq = s.last_seq = 65532  # fast path, as above
    sent = []
    for _ in range(8):
        f = h.request(P.REQ_RENAME, b"Den")
        sent.append(f)
        assert one(s, h, f)[0] == P.RSP | P.REQ_RENAME
    assert s.last_seq == 65536 + 4
    b.store.set_name("Kitchen")
    before = snapshot(b, s)
    assert error_code(one(s, h, sent[0])) == P.E_MAC  # 65533 of epoch 0: not epoch 1's
    assert error_code(one(s, h, sent[2])) == P.E_MAC  # 65535 of epoch 0
    assert error_code(one(s, h, sent[3])) == P.E_SEQ  # 65536 (low bits 0), already seen
    assert error_code(one(s, h, sent[6])) == P.E_SEQ  # 65539, already seen
    assert snapshot(b, s) == before


def test_the_end_of_the_32_bit_counter_ends_the_login_not_wraps():
    b, s, h, key = paired_session()
    s.seq_out = h.last_seq = P.SEQ_MAX - 1  # fast path: 2^32 - 2 frames sent
    got = exchange(s, h, h.request(P.REQ_HOSTS))
    assert got[0][0] == P.RSP | P.REQ_HOSTS and h.last_seq == P.SEQ_MAX
    got = exchange(s, h, h.request(P.REQ_HOSTS))  # the board can sign no more: logged out
    assert error_code(got[0]) == P.E_MAC and not s.authenticated
    h.seq = P.SEQ_MAX
    try:
        h.request(P.REQ_LIST)
        raise AssertionError("the host wrapped its counter")
    except ValueError as e:
        assert "authenticate again" in str(e)


def test_revoke_all_tells_a_logged_in_host_in_a_signed_frame():
    b, s, h, key = paired_session()
    b.revoke_all()
    f = s.pump()
    assert f is not None and f[2] & P.FLAG_MAC
    got = h.feed(f)
    assert error_code(got[0]) == P.E_AUTH and "unpaired" in _text(got[0])
    assert s.pump() is None
    # from then on the board can sign nothing: its unsigned refusal is not believed either
    r = _list(s, h)
    assert error_code(r[0]) == P.E_MAC
    assert b.window_at is None and not b.pairing_open()


def test_the_board_state_keeps_17_names_after_pairing_and_login():
    # the link's board-wide state lives as long as the link: MicroPython's instance dict of
    # 18-23 names takes 23 slots, 48 B more than 17 (docs/memory.md); what the app sets too
    b, s, h, key = paired_session()
    b.open_pairing()
    b.battery = b.brain = b.updater = b.unstored = None
    b.firmware = "1.0"
    names = [n for n in b.__dict__ if n != "codes"]  # (the test harness's record of values shown)
    assert len(names) <= 17, sorted(names)
    assert b.on_rename is None and b.pair_without_button is False
    from bg.link.board import Board

    seen = []
    b2 = Board(b.store, b.clock, b.urandom, on_rename=seen.append, pair_without_button=True)
    assert b2.on_rename == seen.append and b2.pair_without_button is True


if not roomy(120000, 90000):
    skip_all(globals())
