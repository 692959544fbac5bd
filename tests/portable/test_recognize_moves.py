"""Recognition of ordinary moves through scripted sensor streams: partial progress, dice and
hands in any order, slides, fast moves, lifted checkers and their hints.

The table (tests/portable/recognize_helpers.py) reads hands through the real sensing model and
debouncer; a confirm press records only what the recogniser calls complete.
"""

# everything through the helpers: their source compiles first, while the heap is empty
from recognize_helpers import Table, bgboard, movegen, recognize


def _start(side=0, d1=6, d2=1, **kw):
    return Table(bgboard.start_position(), side, d1, d2, **kw)


def _recorded_end(t, play):
    """The end position a recorded play gives (must equal the physical board)."""
    return bytes(t.end_of(play))


def test_waiting_at_start_and_confirm_records_nothing():
    t = _start()
    assert t.r.state == recognize.WAITING and t.settle() == recognize.WAITING
    assert t.r.confirm() is None
    assert t.r.state == recognize.WAITING


def test_one_die_is_partial_then_complete():
    t = _start(d1=6, d2=1)
    t.move(13, 7)
    assert t.r.state == recognize.PARTIAL
    assert t.r.confirm() is None  # half a play is never recorded
    t.move(8, 7)
    assert t.settle() == recognize.COMPLETE
    play = t.r.confirm()
    assert _recorded_end(t, play) == bytes(t.pos)
    assert movegen.is_legal(t.r.start, 0, 6, 1, play)


def test_dice_in_either_order_and_checkers_in_any_order():
    for order in ((8, 7), (13, 7)), ((13, 7), (8, 7)):
        t = _start(d1=1, d2=6)
        for f, to in order:
            t.move(f, to)
            assert t.r.state in (recognize.PARTIAL, recognize.COMPLETE)
        assert t.settle() == recognize.COMPLETE
        assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_slide_across_points_only_final_state_counts():
    # 6-5: 24/13 slid over every point in between, each long enough to be debounced
    t = _start(d1=6, d2=5)
    t.move(24, 13, dwell=t.debounce + 2)
    assert recognize.COMPLETE not in t.states[:-1]
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_transient_complete_during_slide_is_not_recorded():
    # 2-1: after 6/5, a checker slid 13 -> 10 rests a moment on 11: 13/11 6/5 is a legal
    # play and the recogniser says so while it lasts, but the hand moves on to 10 (illegal)
    t = _start(d1=2, d2=1)
    t.move(6, 5)
    t.move(13, 10, dwell=t.debounce + 2)
    assert recognize.COMPLETE in t.states  # seen in passing...
    assert t.settle() == recognize.ILLEGAL  # ...but the stable state is what a confirm press sees
    assert t.r.confirm() is None
    # the last legal state was the transient 13/11 6/5: put the checker back on 11
    assert t.r.missing == 1 << recognize.row_of(0, 11) and t.r.extra == 1 << recognize.row_of(0, 10)
    t.move(10, 11)
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_lift_shows_hints_and_put_back_restores():
    t = _start(d1=6, d2=1)
    t.lift(0, 13)
    assert t.r.state == recognize.LIFTED
    assert t.r.lifted == 12  # row of point 13
    # 13/7 (one die), 13/7/6 (both); 13/12 is closed (side 1's mid-point): rows 6, 5
    assert t.r.hints == (1 << 6) | (1 << 5)
    assert t.r.dest_points() == (1 << 6) | (1 << 5)
    assert t.r.lifted_point() == 13
    t.put(0, 13)
    assert t.settle() == recognize.WAITING


def test_hints_agree_with_the_engine_at_the_start():
    start = bgboard.start_position()
    for side, d1, d2 in ((0, 6, 1), (1, 4, 2), (0, 2, 1), (1, 6, 5), (0, 3, 3), (1, 5, 5)):
        t = Table(start, side, d1, d2)
        for p in (24, 13, 8, 6):
            t.lift(side, p)
            want = movegen.hints(start, side, d1, d2, start, p)
            got = 0
            for q in range(0, 25):
                if want >> q & 1:
                    got |= 1 << recognize.row_of(side, q)
            assert t.r.state == recognize.LIFTED
            assert t.r.hints == got and t.r.forward_hints() == got, (side, d1, d2, p)
            t.put(side, p)
            assert t.settle() == recognize.WAITING


def test_fast_move_between_scans():
    t = _start(d1=6, d2=1)
    t.lift(0, 13, scans=0)  # both checkers moved between two scans
    t.put(0, 7, scans=0)
    t.lift(0, 8, scans=0)
    t.put(0, 7)
    assert t.states == [recognize.WAITING, recognize.COMPLETE]  # one debounced change, nothing in between
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_fast_move_within_debounce():
    t = _start(d1=6, d2=1)
    t.lift(0, 13, scans=1)  # each hand action shorter than the debounce
    t.put(0, 7, scans=1)
    t.lift(0, 8, scans=1)
    t.put(0, 7)
    assert recognize.COMPLETE not in t.states[:-1]  # transients (a checker in hand) are never complete
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_doubles_partial_progress_every_step():
    t = _start(d1=3, d2=3)
    for f, to in ((24, 21), (13, 10), (21, 18)):
        t.move(f, to)
        assert t.r.state == recognize.PARTIAL
    t.move(8, 5)
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_take_back_after_complete():
    t = _start(d1=6, d2=1)
    t.move(13, 7)
    t.move(8, 7)
    assert t.settle() == recognize.COMPLETE
    t.lift(0, 7)  # changes their mind: either checker may go back where it came from
    assert t.r.state == recognize.LIFTED and t.r.lifted_point() == 7
    assert t.r.hints == (1 << recognize.row_of(0, 13)) | (1 << recognize.row_of(0, 8))
    assert t.r.forward_hints() == 0 and t.r.dest_points() == 0  # no die carries it further
    assert t.r.dest_points(take_backs=True) == (1 << 12) | (1 << 7)
    t.put(0, 8)
    assert t.r.state == recognize.PARTIAL and t.r.confirm() is None
    t.move(24, 18)
    assert t.r.state == recognize.ILLEGAL  # 24/18 on top of 13/7 would use the 6 twice
    t.move(18, 24)
    t.move(24, 23)
    assert t.settle() == recognize.COMPLETE  # 13/7 24/23
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)
