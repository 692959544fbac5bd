"""Recognition under mistakes and faults: illegal plays and their correction, contact bounce,
random noise on the chain, a sensor that sticks mid-game, bad input.

The table (tests/portable/recognize_helpers.py) reads hands through the real sensing model and
debouncer; a confirm press records only what the recogniser calls complete.
"""

# everything through the helpers: their source compiles first, while the heap is empty
from recognize_helpers import MICROPYTHON, Lcg, Table, bgboard, recognize


def _start(side=0, d1=6, d2=1, **kw):
    return Table(bgboard.start_position(), side, d1, d2, **kw)


def _recorded_end(t, play):
    return bytes(t.end_of(play))


def test_illegal_play_then_correction():
    t = _start(d1=6, d2=1)
    t.move(13, 8)  # five pips: no die
    assert t.settle() == recognize.ILLEGAL
    assert t.r.missing == 1 << recognize.row_of(0, 13)
    assert t.r.extra == 1 << recognize.row_of(0, 8)
    assert t.r.diff_start() == (t.r.missing, t.r.extra)
    assert t.r.confirm() is None
    t.move(8, 13)
    assert t.settle() == recognize.WAITING
    t.move(13, 7)
    t.move(8, 7)
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_illegal_reference_is_last_legal_state():
    t = _start(d1=6, d2=1)
    t.move(13, 7)
    assert t.r.state == recognize.PARTIAL
    t.move(8, 3)  # not a die
    assert t.settle() == recognize.ILLEGAL
    # put it back where it came from: only that checker is flagged, 13/7 stays
    assert t.r.missing == 1 << recognize.row_of(0, 8) and t.r.extra == 1 << recognize.row_of(0, 3)
    miss, ext = t.r.diff_start()
    assert miss >> recognize.row_of(0, 13) & 1 and ext >> recognize.row_of(0, 7) & 1


def test_contact_bounce_on_put_down():
    t = _start(d1=6, d2=1)
    t.move(13, 7)
    # the checker put down on 7... reed chatters shorter than the debounce
    t.lift(0, 8)
    n = t.debounce
    for _ in range(3):
        t.put(0, 7, scans=n - 1)
        t.lift(0, 7, scans=1)
    t.put(0, 7)
    assert t.settle() == recognize.COMPLETE
    assert t.states.count(recognize.COMPLETE) == 1
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_random_noise_never_completes_a_wrong_play():
    t = _start(d1=6, d2=1)
    t.noise = Lcg(12345)  # one random bit flipped in a quarter of the scans
    seen = []
    moves = ((13, 7), (7, 13), (24, 18), (18, 24), (13, 8), (8, 13), (13, 7), (8, 7), (7, 8), (8, 7))
    for f, to in moves:
        t.move(f, to)
        st = t.settle()
        seen.append(st)
        if st == recognize.COMPLETE:
            assert t.r.end(0) == bytes(t.pos)
    want = [
        recognize.PARTIAL,
        recognize.WAITING,
        recognize.PARTIAL,
        recognize.WAITING,
        recognize.ILLEGAL,
        recognize.WAITING,
        recognize.PARTIAL,
    ]
    assert seen == want + [recognize.COMPLETE, recognize.PARTIAL, recognize.COMPLETE]
    assert t.noisy_scans > 20  # the noise did reach the sensing layer
    if not MICROPYTHON:
        assert t.s.bad_frames > 0  # ... and corrupt frames (canaries) were dropped whole
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_stuck_sensor_appearing_mid_game_is_an_error():
    t = _start(d1=6, d2=1)
    t.move(13, 7)
    # point 20's first reed sticks closed (empty point): a checker that is not there
    t.fault = (recognize.row_of(0, 20), 0, True)
    assert t.settle() == recognize.ILLEGAL
    assert t.r.extra == 1 << recognize.row_of(0, 20)
    t.move(8, 7)
    assert t.settle() == recognize.ILLEGAL  # the right play, but the reading is wrong: never recorded
    assert t.r.confirm() is None
    # a reed high up a point sticks: closed above open is irregular, also an error
    t.fault = (recognize.row_of(0, 7), 4, True)
    assert t.settle() == recognize.ILLEGAL and t.r.irregular == 1 << recognize.row_of(0, 7)
    t.fault = None
    assert t.settle() == recognize.COMPLETE
    assert _recorded_end(t, t.r.confirm()) == bytes(t.pos)


def test_bad_input_is_a_value_error():
    r = recognize.Recognizer()
    for bad in (
        lambda: r.update(bytearray(28)),
        lambda: r.begin(bytearray(51), 0, 3, 1),
        lambda: r.begin(bgboard.start_position(), 2, 3, 1),
        lambda: r.begin(bgboard.start_position(), 0, 0, 1),
    ):
        try:
            bad()
        except ValueError:
            continue
        raise AssertionError("no ValueError")
    r.begin(bgboard.start_position(), 0, 3, 1)
    try:
        r.update(bytearray(10))
    except ValueError:
        pass
    else:
        raise AssertionError("short counts accepted")
    over = bytearray(recognize.observe(bgboard.start_position(), bytearray(28), r.caps))
    over[5] = 7  # point 6 cannot read more than its 6 slots
    try:
        r.update(over)
    except ValueError:
        pass
    else:
        raise AssertionError("a count above the cap accepted")
    try:
        r.steps(0)
    except ValueError:
        pass
    else:
        raise AssertionError("no candidate accepted")
