"""Controller building blocks (both interpreters): the colour-blind sensor view, settings
flags, the match clock, casual-mode steps, and the record values the controller repeats."""

# mpy-heap: 76k
# (make bench heapmargin, 2026-11-27: smallest passing 68k on the 64-bit port; declared +8k)
# (the 64-bit port with the firmware in its ROM image needs 64k since the controller imports
# bg.match's fold, 54k before: tools/bench/heapmargin.py; the board model needs 20k of 64k)

from app import ctl_defs as D
from app import rules
from bg import board as B


def test_counts_of_start_position():
    c = rules.counts_of(B.start_position())
    # board point 24 = white's 24 (2), 19 = black's 6 (5), 1 = black's 24 (2), 6 = white's 6 (5)
    assert (c[23], c[18], c[0], c[5], c[12], c[7]) == (2, 5, 2, 5, 5, 3)
    assert sum(c[:24]) == 30 and c[24] == c[25] == c[26] == c[27] == 0


def test_counts_cap_stack_reads_cap_or_more():
    pos = B.from_points({6: 9, 8: 6}, {1: 15})
    c = rules.counts_of(pos, cap=6)
    assert c[5] == 6 and c[7] == 6  # 9 and 6 checkers both read "6 or more"
    assert c[26] == 0 and c[27] == 0


def test_counts_bar_and_trays():
    pos = B.from_points({25: 2, 1: 3}, {25: 1, 23: 4})
    c = rules.counts_of(pos)
    assert (c[24], c[25], c[26], c[27]) == (2, 1, 10, 10)
    assert c[0] == 3 and c[1] == 4  # black's 23 is board point 2


def test_counts_are_the_recognisers_reading_and_caps_follow_the_slots():
    from bg import recognize

    pos = B.from_points({6: 8, 8: 6, 25: 1}, {1: 7, 23: 4, 25: 2})
    for cap in (5, 6, 8):
        want = recognize.observe(pos, bytearray(28), recognize.make_caps(cap, cap, 15))
        assert rules.counts_of(pos, cap=cap) == want
    assert rules.counts_of(pos, cap=5)[5] == 5 and rules.counts_of(pos, cap=8)[5] == 8
    r = rules.recognizer(5, 4, 15)
    assert (r.caps[0], r.caps[24], r.caps[26]) == (5, 4, 15)


def test_settings_flags_round_trip():
    s = D.Settings(
        length=0,
        crawford=False,
        jacoby=True,
        beaver=True,
        auto_doubles=2,
        casual=True,
        clock_s=600,
        delay_s=12,
        house=True,
        names=("ann", "bob"),
    )
    f = (
        b"\x00" * 8,
        0,
        s.length,
        s.flags(),
        s.auto_doubles,
        s.clock_s,
        s.delay_s,
        "ann",
        "bob",
        b"\x00" * 32,
        b"",
    )
    t = D.Settings.from_record(f)
    assert (
        t.length,
        t.crawford,
        t.jacoby,
        t.beaver,
        t.auto_doubles,
        t.casual,
        t.clock_s,
        t.delay_s,
        t.house,
        t.names,
    ) == (0, False, True, True, 2, True, 600, 12, True, ("ann", "bob"))


def test_settings_reject_bad_values():
    for kw in ({"length": -1}, {"length": 300}, {"auto_doubles": 9}, {"clock_s": 70000}):
        try:
            D.Settings(**kw)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (kw,))


def test_clock_delay_is_free_then_reserve_runs():
    c = D.Clock(10000, 2000)
    c.run(0, 0)
    assert c.charge(1500) == -1 and c.left[0] == 10000  # inside the delay
    c.charge(3000)
    assert c.left[0] == 9000 and c.left[1] == 10000  # 1 s past the delay


def test_clock_charges_only_the_running_side():
    c = D.Clock(5000, 0)
    c.run(1, 0)
    c.charge(1000)
    c.run(-1, 1000)  # the board waits on nobody (e.g. checkers out of place)
    c.charge(60000)
    assert c.left == [5000, 4000]


def test_clock_delay_restarts_for_each_turn():
    c = D.Clock(10000, 1000)
    c.run(0, 0)
    c.charge(1500)
    c.run(1, 1500)
    c.run(0, 2000)  # back to side 0: a fresh delay
    c.charge(2900)
    assert c.left[0] == 9500


def test_clock_flag_falls_at_zero():
    c = D.Clock(1000, 0)
    c.run(0, 0)
    assert c.charge(999) == -1
    assert c.charge(1200) == 0 and c.left[0] == 0


def test_clock_remaining_reads_without_charging():
    c = D.Clock(10000, 2000)
    assert c.remaining(0) == -1  # no side runs yet
    c.run(0, 0)
    assert c.remaining(1500) == -1  # the delay still runs
    assert c.remaining(5000) == 7000  # 3 s past the delay
    assert c.left[0] == 10000 and c.used[0] == 0  # reading charged nothing
    assert c.remaining(60000) == 0  # never below zero
    c.charge(5000)
    assert c.left[0] == 7000 and c.remaining(5000) == 7000  # agrees with charging
    assert D.Clock(0, 0).remaining(100) == -1  # no clock in this match


def test_steps_between_for_an_illegal_play():
    start = B.start_position()
    end = bytearray(start)
    B.apply_step(end, 0, 13, 10)
    B.apply_step(end, 0, 13, 10)  # white moved two checkers 3 pips each with, say, 6-1
    steps = rules.steps_between(start, 0, rules.counts_of(end))
    again = bytearray(start)
    rules.apply_free(again, 0, steps)
    assert again == end


def test_steps_between_side1_and_backwards():
    start = B.start_position()
    end = bytearray(start)
    end[25 + 6 - 1] -= 1  # black's 6 -> black's 7 (backwards, never legal)
    end[25 + 7 - 1] += 1
    steps = rules.steps_between(start, 1, rules.counts_of(end))
    assert steps == (6, 7)
    again = bytearray(start)
    rules.apply_free(again, 1, steps)
    assert again == end


def test_steps_between_refuses_opponent_moves():
    start = B.start_position()
    end = bytearray(start)
    end[25 + 6 - 1] -= 1
    end[25 + 7 - 1] += 1
    assert rules.steps_between(start, 0, rules.counts_of(end)) is None
