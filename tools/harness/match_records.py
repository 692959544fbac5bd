"""Whole matches played through the board's controller, as records (the club's tests and its
benchmark push them); apart from ``ctl_helpers`` so that the controller's tests, which load
that module into MicroPython's heap, do not pay for this one."""

from app import controller as C
from app import rules
from bg.dice.fairness import Fairness
from ctl_helpers import Robot, seed_for


def one_game_match(mid, names, robot_seed, clock_s=0):
    """The records ``(kind, fields)`` of a one-game (1-point) match played through the board's
    controller as the board journals them (dice from ``Fairness``); ``mid``: its 8-byte id."""
    s = C.Settings(length=1, names=names, clock_s=clock_s, delay_s=8 if clock_s else 0)
    c = C.Controller(s, rules, lambda m: Fairness(m, seed_for(m)), lambda: mid, lambda: 1767225600)
    r = Robot(c, robot_seed)
    r.set_start()
    if c.phase == C.IDLE:
        r.press(0, C.ROLL)
    r.play_game()
    return c.outbox
