"""The engine called from several threads at once on CPython (the simulator's status thread,
concurrent demos and both players of a remote match do): every thread gets the answers one
thread alone gets. Its generator and pubeval keep their work in preallocated buffers; one
shared instance gave wrong plays and "byte must be in range(0, 256)" under load."""

import random
import sys
import threading

from bg import board, engine
from bg.engine import pubeval


def _positions(n, seed=1):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pos, side = board.start_position(), 0
        for _ in range(rng.randrange(0, 30)):
            ps = engine.plays(pos, side, rng.randint(1, 6), rng.randint(1, 6))
            if ps:
                pos = bytearray(rng.choice(ps)[1])
            side ^= 1
        out.append((bytes(pos), side, rng.randint(1, 6), rng.randint(1, 6)))
    return out


def _answers(case):
    pos, side, d1, d2 = bytearray(case[0]), case[1], case[2], case[3]
    return sorted(p[0] for p in engine.plays(pos, side, d1, d2)), pubeval.best(pos, side, d1, d2)


def test_threads_get_the_answers_one_thread_gets():
    cases = _positions(150)
    want = [_answers(c) for c in cases]
    bad = []

    def work():
        for _ in range(3):
            for c, w in zip(cases, want):
                try:
                    got = _answers(c)
                except Exception as e:  # a corrupted buffer raises here: count it, go on
                    got = repr(e)
                if got != w:
                    bad.append((c, got))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython can: mid-play
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert bad == [], "%d of %d answers differ, first: %r" % (len(bad), 4 * 3 * len(cases), bad[:1])


def test_each_thread_has_its_own_generator_and_one_thread_keeps_one():
    mine = engine._gen()
    assert engine._gen() is mine
    other = []
    t = threading.Thread(target=lambda: other.append(engine._gen()))
    t.start()
    t.join()
    assert other[0] is not mine
