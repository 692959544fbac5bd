"""The controller's timers across the wrap of ``ticks_ms`` (2^30 ms, 12.4 days on the board):
the board's clock is started just below the wrap, and every time the controller compares -- the
match clock's reserve and delay, the half second before an illegal reading is shown -- must run
on as if nothing happened. Before, a reading that turned illegal just before the wrap was never
shown, and the match clock lost the time across it. (The pairing code's digits:
tests/ctl/test_view_ticks_wrap.py; the link's deadlines: tests/portable/test_protocol_login.py.)"""

# mpy-heap: 100k
# The 64-bit port with the firmware in its ROM image needs 84-88k here (the controller and the
# robot's helpers, objects twice the ESP32's size: fails at 80k, passes at 88k in this checkout);
# declared with 8k or more to spare, as test_sim_status. The board model runs it with the
# board's 64k.
import ctl_helpers as H
from app import ctl_defs as D

WRAP = 1 << 30


def test_ticks_since_is_ticks_diff():
    assert D.ticks_since(5, WRAP - 5) == 10
    assert D.ticks_since(WRAP - 5, 5) == -10
    assert D.ticks_since(1000, 400) == 600
    assert D.ticks_since(0, 0) == 0


def test_the_match_clock_charges_the_time_across_the_wrap():
    k = D.Clock(60000, 2000)
    k.run(0, WRAP - 1500)
    assert k.remaining(WRAP - 1000) == -1  # the delay runs
    assert k.remaining(500) == 60000  # 2000 ms later, wrapped: the delay is just used up
    assert k.remaining(3500) == 57000
    assert k.charge(3500) == -1 and k.left[0] == 57000 and k.used[0] == 3000
    k.run(1, 3500)
    assert k.charge(4500) == -1 and k.left[1] == 60000  # the other side's delay


def test_a_flag_falls_across_the_wrap():
    k = D.Clock(1000, 0)
    k.run(0, WRAP - 400)
    assert k.charge(WRAP - 1) == -1 and k.left[0] == 601
    assert k.charge(700) == 0 and k.left[0] == 0  # 1101 ms used, 400 of them after the wrap


def test_an_illegal_reading_is_shown_after_half_a_second_across_the_wrap():
    c, r = H.started()
    r.now = WRAP - 200  # the board has run 12.4 days
    r.sense()
    H.illegal_move(c, r)
    t = r.now
    assert not c.show_errors(t + 100)
    assert c.show_errors((t + 600) % WRAP)  # after the wrap
    assert c.show_errors((t + 5000) % WRAP)
