"""Time and heap of ``Recognizer.update`` (run by tools/bench/slots.py on both interpreters).

Runs unchanged on CPython and on the MicroPython unix port (``MICROPYPATH=firmware``); prints
one JSON line: per scenario, microseconds per update and (MicroPython) bytes allocated per
update measured with ``gc.disable()`` and ``gc.mem_alloc()`` deltas.
"""

import gc
import sys
import time

from bg import board, recognize
from bg import engine as movegen

try:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
except AttributeError:  # CPython

    def ticks_us():
        return int(time.perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b


def worst():
    """The worst position known: 1-1, 2,140 distinct plays."""
    pos = board.new_position()
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        pos[p - 1] = 1
    pos[25 + 1 - 1] = 2  # the opponent's two checkers on the mover's 24-point (its 1-point)
    pos[51] = 13
    return pos


class _First:
    def __init__(self):
        self.end = bytearray(52)
        self.n = 0

    def visit(self, w, st, n):
        if not self.n:
            board.copy_into(self.end, w)
        self.n += 1


def scenarios():
    out = []
    s = board.start_position()
    e = bytearray(s)
    movegen.apply(e, 0, (13, 7, 8, 7))
    out.append(("start_61_complete", s, 0, 6, 1, e))
    out.append(("start_61_waiting", s, 0, 6, 1, bytearray(s)))
    lift = bytearray(s)
    lift[12] -= 1  # a checker lifted from 13: hints
    out.append(("start_61_lifted", s, 0, 6, 1, lift))
    w = worst()
    f = _First()
    movegen.for_each_end(w, 0, 1, 1, f.visit)
    out.append(("worst_11_complete", w, 0, 1, 1, f.end))
    out.append(("worst_11_waiting", w, 0, 1, 1, bytearray(w)))
    wl = bytearray(w)
    wl[22] -= 1  # the checker on 23 in the hand: hints
    out.append(("worst_11_lifted", w, 0, 1, 1, wl))
    return out


def main(reps):
    r = recognize.Recognizer()
    obs = bytearray(28)
    other = bytearray(28)
    res = {}
    for name, start, side, d1, d2, end in scenarios():
        r.begin(start, side, d1, d2)
        recognize.observe(end, obs, r.caps)
        for i in range(28):
            other[i] = obs[i]
        other[27] = 15 if obs[27] != 15 else 14  # an illegal reading to alternate with
        state = r.update(obs)
        gc.collect()
        t0 = ticks_us()
        for _ in range(reps):  # the whole recognition of this reading, again and again
            # (what ``feed`` + ``work(0)`` do once the reading differs from the last)
            r._reset_result()
            if r._classify_start():
                r.work(0)
        dt = ticks_diff(ticks_us(), t0) / float(reps)
        alloc = -1
        if hasattr(gc, "mem_alloc"):
            r.update(other)
            gc.collect()
            gc.disable()
            a = gc.mem_alloc()
            r.update(obs)
            alloc = gc.mem_alloc() - a
            gc.enable()
        res[name] = {
            "us_per_update": round(dt, 1),
            "state": recognize.STATE_NAMES[state],
            "alloc_bytes": alloc,
        }
    impl = sys.implementation.name
    print('{"impl": "%s", "results": %s}' % (impl, _json(res)))


def _json(d):
    parts = []
    for k in d:
        v = d[k]
        parts.append(
            '"%s": {"us_per_update": %s, "state": "%s", "alloc_bytes": %d}'
            % (k, v["us_per_update"], v["state"], v["alloc_bytes"])
        )
    return "{" + ", ".join(parts) + "}"


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
