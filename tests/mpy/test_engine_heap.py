"""Heap used by the device-side searches on the worst position of the issue (1-1, 2,140
distinct plays), measured on MicroPython with the collector off: recognition + hints +
partial_ok + forced together must allocate at most 2 KiB."""

import gc

from bg import board
from bg import engine as movegen


class SkipTest(Exception):
    pass


def _worst():
    singles = {}
    for p in (3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 19, 20, 22, 23):
        singles[p] = 1
    return board.from_points(singles, {1: 2})


def test_device_queries_allocate_at_most_2k_on_the_worst_position():
    if not hasattr(gc, "mem_alloc"):
        raise SkipTest("needs MicroPython's gc.mem_alloc")
    gen = movegen.MoveGen()
    start = _worst()
    end = bytearray(start)
    gen.apply(end, 0, (23, 22, 22, 21, 4, 3, 3, 2))
    cur = bytearray(start)
    gen.apply(cur, 0, (23, 22))
    wrong = bytearray(start)
    gen.apply(wrong, 0, (23, 21))
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        r = gen.recognize(start, 0, 1, 1, end)
        assert gen.recognize(start, 0, 1, 1, wrong) is None
        m = gen.hints(start, 0, 1, 1, cur, 22)
        m2 = gen.hints(start, 0, 1, 1, start, 25 - 1)
        ok = gen.partial_ok(start, 0, 1, 1, cur)
        f = gen.forced(start, 0, 1, 1)
        used = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert r is not None and ok and f is None
    assert m == (1 << 21) | (1 << 20) | (1 << 19) and m2 == 0
    assert used <= 2048, used
