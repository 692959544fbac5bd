"""Helpers of the club tests: a free loopback port, matches played on the board's controller."""

from tools.sim.drive import free_port  # noqa: F401 - the club's tests import it from here


def played(n, names=("Ann", "Bob"), clock_s=0):
    """``(records, data)`` of a one-game match played through the board's controller
    (``app.controller``, dice from ``bg.dice.fairness.Fairness``): each record as the board
    journals it, and the finished match's bytes (the seed revealed at its end)."""
    import ctl_helpers as H
    from app import controller as C
    from app import rules
    from bg import record
    from bg.dice.fairness import Fairness

    mid = bytes([0xC1, 0x0B, n >> 8, n & 0xFF, 0, 0, 0, n & 0xFF])
    s = C.Settings(length=1, names=names, clock_s=clock_s, delay_s=8 if clock_s else 0)
    c = C.Controller(s, rules, lambda m: Fairness(m, H.seed_for(m)), lambda: mid, lambda: 1767225600)
    r = H.Robot(c, n)
    r.set_start()
    if c.phase == C.IDLE:
        r.press(0, C.ROLL)
    r.play_game()
    recs = [record.encode(k, f) for k, f in c.outbox]
    return recs, b"".join(recs)
