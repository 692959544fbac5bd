"""The view's pairing code across the wrap of ``ticks_ms`` (2^30 ms on the board): its digits run
on in order when the code is shown just below the wrap (before, they jumped to another digit).
The controller's timers: tests/portable/test_controller_ticks_wrap.py."""

import ctl_helpers as H

WRAP = 1 << 30


def test_the_pairing_code_runs_its_digits_across_the_wrap():
    _, v = H.view()
    start = WRAP - 700
    v.show_code("123456", start)
    seen = [v.code_digit((start + dt) % WRAP) for dt in range(0, 9000, 50)]
    v.show_code("123456", 0)
    want = [v.code_digit(dt) for dt in range(0, 9000, 50)]
    assert seen == want
    assert any(i == 5 for i, _ in seen)
