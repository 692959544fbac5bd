"""Which dice a half-made play has used (``Recognizer.used`` / ``dice_lit()``, the dice LEDs):
each die in either order, a doublet's four steps, a bear-off, the mover on either side, a
lifted checker and an illegal reading (both keep the last legal reading's dice), and two
partial plays reading alike that used different dice (neither die is called used)."""

from recognize_helpers import Table, bgboard, position, recognize


def _start(side=0, d1=6, d2=1):
    return Table(bgboard.start_position(), side, d1, d2)


def test_each_die_of_a_roll_in_either_order_and_either_side():
    for side in (0, 1):
        t = _start(side, 6, 1)
        assert t.r.used == 0 and t.r.dice_lit() == 3
        t.move(13, 7)  # the 6 (d1)
        assert t.r.state == recognize.PARTIAL and t.r.used == 1 and t.r.dice_lit() == 2
        t.move(8, 7)
        assert t.settle() == recognize.COMPLETE and t.r.dice_lit() == 0
        t = _start(side, 6, 1)
        t.move(8, 7)  # the 1 (d2) first
        assert t.r.state == recognize.PARTIAL and t.r.used == 2 and t.r.dice_lit() == 1
    t = _start(0, 1, 6)  # the same hand, the dice the other way round
    t.move(13, 7)
    assert t.r.used == 2 and t.r.dice_lit() == 1


def test_one_checker_moved_by_the_other_die_first():
    # one checker left to move, 6-2: its only play is 13/7/5; the engine visits the 6 first,
    # the hand may play the 2 first (13/11): the 2 is used either way it goes
    start = position({13: 1}, {19: 5})
    t = Table(start, 0, 6, 2)
    t.move(13, 11)
    assert t.r.state == recognize.PARTIAL and t.r.used == 2 and t.r.dice_lit() == 1
    t.move(11, 5)
    assert t.settle() == recognize.COMPLETE and t.r.dice_lit() == 0
    t = Table(start, 0, 6, 2)
    t.move(13, 7)
    assert t.r.state == recognize.PARTIAL and t.r.used == 1 and t.r.dice_lit() == 2


def test_doublet_dims_one_die_after_two_steps_both_after_four():
    t = _start(0, 6, 6)
    want = ((1, 3), (2, 1), (3, 1))
    for f, to, k in ((24, 18, 0), (24, 18, 1), (13, 7, 2)):
        t.move(f, to)
        assert t.r.state == recognize.PARTIAL
        assert (t.r.used, t.r.dice_lit()) == want[k], (k, t.r.used)
    t.move(13, 7)
    assert t.settle() == recognize.COMPLETE and t.r.used == 4 and t.r.dice_lit() == 0


def test_lift_and_illegal_keep_the_last_legal_reading():
    t = _start(0, 6, 1)
    t.move(13, 7)
    t.lift(0, 8)  # in the hand: the 6 stays used
    assert t.r.state == recognize.LIFTED and t.r.dice_lit() == 2
    t.put(0, 3)  # 8/3: no die of 6-1 (and the 6 is gone)
    assert t.settle() == recognize.ILLEGAL and t.r.dice_lit() == 2
    t.lift(0, 3)
    t.put(0, 8)  # put back: the part played before, one die used
    assert t.settle() == recognize.PARTIAL and t.r.dice_lit() == 2
    t.lift(0, 7)
    t.put(0, 13)  # everything back: nothing used
    assert t.settle() == recognize.WAITING and t.r.used == 0 and t.r.dice_lit() == 3


def test_bear_off_by_a_higher_die_and_two_readings_alike():
    # checkers on 5 and 2, 6-4: the 5 borne off first is the 6 (a higher die: nothing above
    # it), the 4 is left for the 2
    t = Table(position({5: 1, 2: 1}, {19: 2}), 0, 6, 4)
    t.move(5, 0)
    assert t.r.state == recognize.PARTIAL and t.r.used == 1 and t.r.dice_lit() == 2
    # checkers on 6 and 2, 6-4: 6/off 2/off (the 4 bears off the 2 once the 6 is off) or
    # 6/2 2/off. The 2 borne off first is the 4 in one play and the 6 in the other: neither
    # die is called used
    t = Table(position({6: 1, 2: 1}, {19: 2}), 0, 6, 4)
    t.move(2, 0)
    assert t.r.state == recognize.PARTIAL and t.r.used == 0 and t.r.dice_lit() == 3


def test_a_new_turn_starts_with_both_dice():
    t = _start(0, 6, 1)
    t.move(13, 7)
    assert t.r.dice_lit() == 2
    t.r.begin(t.pos, 0, 5, 2)  # a later turn (the board reads this position)
    assert t.r.used == 0 and t.r.dice_lit() == 3


def test_readings_allocate_nothing_on_micropython():
    # the dice used come out of the search's own pass: readings back and forth between the
    # start and a part played (each one searched again) allocate nothing on the board
    import gc
    import sys

    from recognize_helpers import SkipTest

    if sys.implementation.name != "micropython":
        raise SkipTest("gc.mem_alloc: MicroPython only")
    t = _start(0, 6, 1)
    r = t.r
    part = bytearray(t.pos)
    part[12] -= 1  # 13/7
    part[6] += 1
    a = recognize.observe(t.pos, bytearray(28), r.caps)
    b = recognize.observe(part, bytearray(28), r.caps)
    r.update(b)
    r.update(a)
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(10):
        assert r.update(b) == recognize.PARTIAL and r.dice_lit() == 2
        assert r.update(a) == recognize.WAITING and r.dice_lit() == 3
    assert gc.mem_alloc() - before == 0
