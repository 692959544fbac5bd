"""Per-row counts: points, bars per colour, trays, stacks beyond the slot count, bad rows."""

# mpy-heap: 68k
# (make bench heapmargin, 2026-11-27: smallest passing 60k on the 64-bit port; declared +8k)

from bg import hwdesc, sensing
from bg.hwdesc import NROWS, ROW_BAR0, ROW_TRAY0
from sensing_helpers import board, feed, start_rows


def _sense(counts):
    b = board()
    s = sensing.Sensing(b)
    feed(s, b.fill_chain(counts), s.debounce)
    return b, s


def test_start_position_counts():
    c = start_rows()
    b, s = _sense(c)
    for p in range(1, 25):
        assert s.point(p) == c[p - 1]
        assert not s.full(p - 1)  # the largest start stack (5) fits in the slots
    assert s.bar(0) == 0 and s.bar(1) == 0 and s.tray(0) == 0 and s.tray(1) == 0
    assert s.irregular_mask() == 0


def test_stack_beyond_slots_reads_n_or_more():
    b = board()
    n = b.slots_per_point
    for k in (n - 1, n, n + 1, n + 4, 15):
        c = bytearray(NROWS)
        c[5] = k
        _, s = _sense(c)
        assert s.point(6) == min(k, n)
        assert s.full(5) == (k >= n)


def test_bar_counts_per_colour():
    c = bytearray(NROWS)
    c[ROW_BAR0] = 2
    c[ROW_BAR0 + 1] = 1
    _, s = _sense(c)
    assert s.bar(0) == 2 and s.bar(1) == 1
    assert not s.full(ROW_BAR0)


def test_tray_counts_are_exact_to_fifteen():
    b = board()
    for k in (1, 8, 9, 14, 15):
        c = bytearray(NROWS)
        c[ROW_TRAY0] = k
        c[ROW_TRAY0 + 1] = 15 - k
        _, s = _sense(c)
        assert s.tray(0) == min(k, b.tray_slots)
        assert s.tray(1) == min(15 - k, b.tray_slots)
    assert b.tray_slots == 15  # so the tray count is never ambiguous on this board


def test_checker_moves_between_points():
    b = board()
    c = start_rows()
    s = sensing.Sensing(b)
    feed(s, b.fill_chain(c), s.debounce)
    c[23] -= 1  # side 0: 24/18
    c[17] += 1
    feed(s, b.fill_chain(c), s.debounce)
    assert s.point(24) == 1 and s.point(18) == 1 and s.seq == 2


def test_irregular_row_is_flagged():
    b = board()
    raw = b.fill_chain(start_rows())
    b.set_slot(raw, 9, 3, True)  # a checker left halfway along empty point 10
    s = sensing.Sensing(b)
    feed(s, raw, s.debounce)
    assert s.irregular(9)
    assert s.irregular_mask() == 1 << 9
    assert s.point(10) == 1
    raw2 = b.fill_chain(start_rows())  # pushed back against the rim
    b.set_slot(raw2, 9, 0, True)
    feed(s, raw2, s.debounce)
    assert not s.irregular(9) and s.point(10) == 1


def test_persistent_irregular_after_timeout():
    b = board()
    raw = b.fill_chain(start_rows())
    b.set_slot(raw, 9, 3, True)
    s = sensing.Sensing(b)
    feed(s, raw, 10)
    assert s.persistent_irregular(50) == 0
    feed(s, raw, 50)
    assert s.persistent_irregular(50) == 1 << 9


def test_known_faulty_top_slot_lowers_cap():
    b = board()
    n = b.slots_per_point
    c = bytearray(NROWS)
    c[0] = n - 1
    s = sensing.Sensing(b)
    s.mark_faulty(b.slot_bit(0, n - 1), sensing.DEAD)
    feed(s, b.fill_chain(c), s.debounce)
    assert s.count(0) == n - 1 and s.full(0)  # reads "N-1 or more" now


def test_known_faulty_middle_slot_is_inferred_or_flagged():
    b = board()
    s = sensing.Sensing(b)
    s.mark_faulty(b.slot_bit(3, 2), sensing.DEAD)  # point 4, slot 2 never closes
    for k, want, maybe in ((0, 0, False), (1, 1, False), (2, 2, True), (3, 2, True), (4, 4, False)):
        c = bytearray(NROWS)
        c[3] = k
        raw = b.fill_chain(c)
        b.set_slot(raw, 3, 2, False)  # the dead switch really reads open
        feed(s, raw, s.debounce)
        assert s.point(4) == want, (k, s.point(4))
        assert s.maybe_one_more(3) == maybe
        assert not s.irregular(3)


def test_faulty_slot_zero():
    b = board()
    s = sensing.Sensing(b)
    s.mark_faulty(b.slot_bit(3, 0), sensing.STUCK)
    c = bytearray(NROWS)
    raw = b.fill_chain(c)
    b.set_slot(raw, 3, 0, True)  # stuck closed on an empty point
    feed(s, raw, s.debounce)
    assert s.point(4) == 0 and s.maybe_one_more(3)
    c[3] = 2
    feed(s, b.fill_chain(c), s.debounce)
    assert s.point(4) == 2 and not s.maybe_one_more(3)


def test_mark_faulty_rejects_unknown_code():
    s = sensing.Sensing(board())
    try:
        s.mark_faulty(0, 9)
    except ValueError as e:
        assert "fault code" in str(e)
    else:
        raise AssertionError("accepted code 9")


def test_borne_off_sensed_or_derived():
    c = bytearray(NROWS)
    c[ROW_TRAY0] = 4
    b, s = _sense(c)
    assert s.borne_off(0) == 4 and s.borne_off(1) == 0
    d = hwdesc.Board(_desc_without_trays())
    s2 = sensing.Sensing(d)
    assert s2.borne_off(0, on_board=11) == 4
    try:
        s2.borne_off(0)
    except ValueError as e:
        assert "not fully sensed" in str(e)
    else:
        raise AssertionError("derived count without the board total")


def _desc_without_trays():
    import json

    with open(hwdesc.find()) as f:
        d = json.load(f)
    d["sensors"]["tray_slots"] = 0
    return d
