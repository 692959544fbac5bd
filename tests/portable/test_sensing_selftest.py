"""Boot self-test and faults appearing mid-game: stuck, dead, broken chain."""

from bg import sensing
from bg.hwdesc import NROWS
from sensing_helpers import board, feed, start_rows


def test_clean_board_passes():
    b = board()
    for counts in (bytearray(NROWS), start_rows()):
        s = sensing.Sensing(b)
        t = sensing.SelfTest().run(s, b.fill_chain(counts))
        assert t.chain_ok and t.found == [] and t.ambiguous == 0 and t.report(b) == []


def test_broken_chain_detected():
    b = board()
    for level in (0x00, 0xFF):
        s = sensing.Sensing(b)
        raw = bytearray([level] * b.nbytes)  # floating/shorted data line
        t = sensing.SelfTest().run(s, raw)
        assert not t.chain_ok
        assert "chain broken" in t.report(b)[0]


def test_unfitted_input_closed_is_wiring_fault():
    b = board()
    raw = b.idle_chain()
    bit = 8 * 0 + 7  # register 0 input H: not fitted with 6 slots per point
    assert b.slots_per_point <= 7
    raw[0] ^= 0x80
    s = sensing.Sensing(b)
    t = sensing.SelfTest().run(s, raw)
    assert (bit, sensing.WIRING) in t.found
    feed(s, raw, s.debounce)  # the frame check then ignores that input
    assert s.bad_frames == 0 and s.primed


def test_stuck_switch_above_gap():
    b = board()
    c = start_rows()
    raw = b.fill_chain(c)
    b.set_slot(raw, 9, 4, True)  # empty point 10, slot 4 stuck closed
    s = sensing.Sensing(b)
    t = sensing.SelfTest().run(s, raw)
    assert t.found == [(b.slot_bit(9, 4), sensing.STUCK)]
    assert t.report(b) == ["point 10 slot 4: stuck closed"]
    feed(s, raw, s.debounce)
    assert s.point(10) == 0 and not s.irregular(9)


def test_dead_switch_below_stack():
    b = board()
    c = start_rows()
    raw = b.fill_chain(c)
    b.set_slot(raw, 12, 1, False)  # point 13 holds 5, slot 1 dead
    s = sensing.Sensing(b)
    t = sensing.SelfTest().run(s, raw)
    assert t.found == [(b.slot_bit(12, 1), sensing.DEAD)]
    feed(s, raw, s.debounce)
    assert s.point(13) == 5 and not s.irregular(12)


def test_ambiguous_row_is_reported_not_guessed():
    b = board()
    c = bytearray(NROWS)
    c[4] = 1
    raw = b.fill_chain(c)
    b.set_slot(raw, 4, 2, True)  # slots 0 and 2 closed: one stuck or one dead, can't tell
    s = sensing.Sensing(b)
    t = sensing.SelfTest().run(s, raw)
    assert t.found == [] and t.ambiguous == 1 << 4
    assert "point 5" in t.report(b)[0]


def test_expect_against_confirmed_start_position():
    b = board()
    c = start_rows()
    raw = b.fill_chain(c)
    b.set_slot(raw, 5, 0, False)  # point 6 (5 checkers): slot 0 dead; looks like a gap
    b.set_slot(raw, 1, 0, True)  # empty point 2: slot 0 stuck -- invisible to the static test
    s = sensing.Sensing(b)
    sensing.SelfTest().run(s, raw)
    t = sensing.SelfTest().expect(s, c, raw)
    assert (b.slot_bit(1, 0), sensing.STUCK) in t.found
    assert s.fault_of(b.slot_bit(5, 0)) == sensing.DEAD
    feed(s, raw, s.debounce)
    assert s.point(2) == 0 and s.point(6) == 5
    assert s.fault_rows() == (1 << 1) | (1 << 5)


def test_stuck_sensor_appearing_mid_game():
    b = board()
    c = start_rows()
    s = sensing.Sensing(b)
    feed(s, b.fill_chain(c), s.debounce)
    seq = s.seq
    # mid-game a reed on empty point 10 sticks at slot 3
    raw = b.fill_chain(c)
    b.set_slot(raw, 9, 3, True)
    feed(s, raw, s.debounce)
    assert s.seq == seq + 1
    assert s.irregular(9)  # not a plausible checker: recognition must refuse it
    feed(s, raw, 400)
    assert s.persistent_irregular(400) == 1 << 9
    # the controller asks the player; the point is confirmed empty -> the switch is stuck
    t = sensing.SelfTest().expect_row(s, 9, 0)
    assert t.found == [(b.slot_bit(9, 3), sensing.STUCK)]
    assert s.point(10) == 0 and not s.irregular(9)
    # play continues: checkers arrive on point 10, the stuck slot is inferred
    c[9] = 5
    raw = b.fill_chain(c)
    feed(s, raw, s.debounce)
    assert s.point(10) == 5 and not s.irregular(9)


def test_fault_codes_of_neighbouring_switches_stay_apart():
    # the codes are packed four to a byte: marking one switch must leave its neighbours'
    # codes alone, a switch marked again takes the new code, and the last bit of the chain
    # is as addressable as the first; a bit beyond the chain or an unknown code is refused
    b = board()
    s = sensing.Sensing(b)
    nbits = 8 * b.nbytes
    codes = (sensing.STUCK, sensing.DEAD, sensing.WIRING)
    marks = {}
    for bit in (0, 1, 2, 3, 4, 7, nbits - 2, nbits - 1):
        code = codes[bit % 3]
        s.mark_faulty(bit, code)
        marks[bit] = code
    s.mark_faulty(2, sensing.STUCK)  # a different code on a marked switch replaces it
    marks[2] = sensing.STUCK
    for bit in range(nbits):
        assert s.fault_of(bit) == marks.get(bit, sensing.OK), bit
    assert s.faults() == sorted(marks.items())
    for bad in (-1, nbits):
        try:
            s.fault_of(bad)
        except IndexError:
            pass
        else:
            raise AssertionError("fault_of(%d) answered" % bad)
    try:
        s.mark_faulty(5, sensing.OK)
    except ValueError:
        pass
    else:
        raise AssertionError("mark_faulty took code OK")
    assert s.fault_of(5) == sensing.OK
