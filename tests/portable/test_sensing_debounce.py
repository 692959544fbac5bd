"""Debounce: a change counts after N equal scans; bounce, noise and corrupt frames never do."""

import gc

from bg import sensing
from sensing_helpers import Lcg, SkipTest, board, feed, start_rows


def _primed(counts=None):
    b = board()
    s = sensing.Sensing(b)
    raw = b.fill_chain(counts if counts is not None else start_rows())
    assert s.feed(raw) is True  # the first good frame is taken as is
    assert s.seq == 1
    return b, s, raw


def test_change_counts_after_exactly_n_scans():
    b, s, raw = _primed()
    n = s.debounce
    assert n == b.debounce_scans and n >= 2
    moved = bytearray(raw)
    b.set_slot(moved, 2, 0, True)  # a checker lands on point 3
    for _ in range(n - 1):
        assert s.feed(moved) is False
        assert s.point(3) == 0
    assert s.feed(moved) is True
    assert s.point(3) == 1 and s.seq == 2 and s.take_changed() and not s.take_changed()


def test_contact_bounce_is_one_change():
    b, s, raw = _primed()
    n = s.debounce
    moved = bytearray(raw)
    b.set_slot(moved, 2, 0, True)
    # the reed chatters: closed/open runs shorter than N, then settles closed
    pattern = [1] * (n - 1) + [0] + [1] * (n - 1) + [0, 0] + [1] * n
    seqs = []
    for closed in pattern:
        s.feed(moved if closed else raw)
        seqs.append(s.seq)
        assert s.point(3) in (0, 1)
    assert s.point(3) == 1
    assert seqs[-1] == 2  # exactly one accepted change
    assert seqs.count(2) == 1  # ... and only on the very last scan


def test_release_bounce_is_one_change():
    b, s, raw = _primed()
    n = s.debounce
    lifted = bytearray(raw)
    b.set_slot(lifted, 23, 1, False)  # one of the two checkers on point 24 is lifted
    pattern = [0, 1, 0, 0, 1] + [0] * n
    for closed in pattern:
        s.feed(lifted if closed == 0 else raw)
    assert s.point(24) == 1 and s.seq == 2


def test_single_scan_glitches_never_change_counts():
    b, s, raw = _primed()
    before = bytearray(s.counts)
    rnd = Lcg(5)
    noisy = bytearray(len(raw))
    last_hit = [-99] * b.nbits
    glitches = 0
    for scan in range(600):
        noisy[:] = raw
        for _ in range(3):  # up to three random bits flip for this one scan
            bit = rnd.below(b.nbits)
            if last_hit[bit] >= scan - (s.debounce - 1) * 2:
                continue  # never glitch the same bit on consecutive scans
            last_hit[bit] = scan
            noisy[bit >> 3] ^= 1 << (bit & 7)
            glitches += 1
        s.feed(noisy)
    assert glitches > 1000
    assert s.seq == 1
    assert s.counts == before
    assert s.bad_frames > 0  # glitches on canaries/unfitted inputs dropped whole frames


def test_noise_then_real_change_is_seen_once():
    b, s, raw = _primed()
    rnd = Lcg(11)
    moved = bytearray(raw)
    b.set_slot(moved, 6, 0, True)
    noisy = bytearray(len(raw))
    for scan in range(200):
        src = raw if scan < 100 else moved
        noisy[:] = src
        if scan % 2 == 0:
            bit = b.slot_bit(rnd.below(24), 0)
            noisy[bit >> 3] ^= 1 << (bit & 7)
        s.feed(noisy)
    assert s.point(7) == 1
    assert s.seq == 2


def test_corrupt_frame_is_dropped():
    b, s, raw = _primed()
    bad = bytearray(raw)
    for r in range(b.nbytes):
        bad[r] = 0  # a stuck-low data line: everything "closed", canaries wrong
    for _ in range(10):
        assert s.feed(bad) is False
    assert s.bad_frames == 10 and s.seq == 1
    assert s.point(6) == 5


def test_short_frame_is_refused_and_changes_nothing():
    # a buffer shorter than the chain (a HAL bug, a truncated capture): the scan reads nbytes,
    # so it must refuse with a clear error, never read past the end
    b, s, raw = _primed()
    for short in (raw[: b.nbytes - 1], b"", bytearray(1)):
        try:
            s.feed(short)
        except ValueError as e:
            assert "chain frame must be" in str(e)
        else:
            raise AssertionError("a %d-byte frame was taken" % len(short))
    assert s.seq == 1 and s.bad_frames == 0 and s.point(6) == 5
    assert s.feed(list(raw)) is False  # a list reads like the bytearray
    moved = bytearray(raw)
    b.set_slot(moved, 2, 0, True)
    for _ in range(s.debounce):
        s.feed(memoryview(moved))
    assert s.point(3) == 1


def test_first_frame_must_be_good():
    b = board()
    s = sensing.Sensing(b)
    bad = bytearray(b.nbytes)
    assert s.feed(bad) is False and not s.primed and s.seq == 0


def test_settled():
    b, s, raw = _primed()
    moved = bytearray(raw)
    b.set_slot(moved, 2, 0, True)
    s.feed(moved)
    assert not s.settled()
    feed(s, moved, s.debounce)
    assert s.settled()


def test_every_debounce_matches_one_count_per_switch():
    # the counts are bit sliced (a plane per bit of a count, eight switches a byte): every
    # plane boundary up to board.json's most (50 scans) against the plain rule, one counter
    # per switch, on twelve switches bouncing in runs shorter than, as long as and longer
    # than the debounce
    b = board()
    sw = [(row, slot) for row in (1, 2, 3, 4) for slot in (0, 1, 2)]
    bits = [b.slot_bit(row, slot) for row, slot in sw]
    for d in (1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 50):
        rng = Lcg(d)
        s = sensing.Sensing(b, debounce=d)
        frame = b.fill_chain(bytearray(28))  # an empty board
        assert s.feed(frame)
        level = [0] * 12  # what each switch reads now
        hold = [0] * 12  # scans until it changes again
        ref = [0] * 12  # the plain rule's debounced level
        cnt = [0] * 12
        flips = 0
        for scan in range(6 * d + 30):
            for i in range(12):
                if not hold[i]:
                    level[i] ^= 1
                    hold[i] = 1 + rng.below(d + 2)
                    b.set_slot(frame, sw[i][0], sw[i][1], level[i])
                hold[i] -= 1
            s.feed(frame)
            for i in range(12):
                if level[i] != ref[i]:
                    cnt[i] += 1
                    if cnt[i] == d:
                        ref[i] ^= 1
                        cnt[i] = 0
                        flips += 1
                else:
                    cnt[i] = 0
                assert s._closed(bits[i]) == ref[i], (d, scan, i)
            assert s.settled() == (max(cnt) == 0), (d, scan)
        assert flips, d  # the run lengths reached the debounce
        planes = 0
        while (1 << planes) < d:
            planes += 1
        assert len(s._cnt) == planes * s.nbytes  # 2 bytes of the board's heap a register at 3


def test_debounce_must_be_positive():
    try:
        sensing.Sensing(board(), debounce=0)
    except ValueError as e:
        assert "debounce" in str(e)
    else:
        raise AssertionError("accepted debounce=0")


def _scan_loop(s, frames, rounds):
    for _ in range(rounds):
        for f in frames:
            s.feed(f)


def test_no_allocation_per_scan():
    b, s, raw = _primed()
    a = bytearray(raw)
    b.set_slot(a, 2, 0, True)
    c = bytearray(a)
    b.set_slot(c, 2, 1, True)
    b.set_slot(c, 5, 0, False)
    # quiet scans, bouncing scans and accepted changes (recounts) all in the loop
    frames = (raw, raw, raw, a, raw, a, a, a, a, c, c, c, c, raw, raw, raw, raw)
    bufs = (s.stable, s.counts, s._cnt)
    _scan_loop(s, frames, 2)
    if hasattr(gc, "mem_alloc"):  # MicroPython: the real measure
        gc.collect()
        gc.disable()
        try:
            before = gc.mem_alloc()
            _scan_loop(s, frames, 20)
            after = gc.mem_alloc()
        finally:
            gc.enable()
        assert after - before == 0, "%d bytes allocated in %d scans" % (after - before, 20 * len(frames))
    else:
        try:
            import tracemalloc
        except ImportError:
            raise SkipTest("no allocation counter") from None
        tracemalloc.start()
        try:
            _scan_loop(s, frames, 2)
            base = tracemalloc.get_traced_memory()[0]
            _scan_loop(s, frames, 40)
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        assert grown < 512, "memory grows per scan: %d bytes" % grown
    assert s.stable is bufs[0] and s.counts is bufs[1] and s._cnt is bufs[2]
    assert s.seq > 40


def test_chain_unplugged_mid_game_freezes_state():
    b, s, raw = _primed()
    counts = bytearray(s.counts)
    floating = bytearray(b"\xff" * b.nbytes)  # MISO pull-up: everything open, closed canary too
    for _ in range(50):
        s.feed(floating)
    assert s.bad_run == 50 and s.seq == 1 and s.counts == counts
    feed(s, raw, 1)
    assert s.bad_run == 0 and s.seq == 1
