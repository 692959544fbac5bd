"""Helpers of the club tests: a free loopback port, matches played on the board's controller."""

from tools.sim.drive import free_port  # noqa: F401 - the club's tests import it from here


def played(n, names=("Ann", "Bob"), clock_s=0):
    """``(records, data)`` of a one-game match played through the board's controller
    (``match_records.one_game_match``): each record as the board journals it, and the finished
    match's bytes (the seed revealed at its end)."""
    import match_records
    from bg import record

    mid = bytes([0xC1, 0x0B, n >> 8, n & 0xFF, 0, 0, 0, n & 0xFF])
    recs = [record.encode(k, f) for k, f in match_records.one_game_match(mid, names, n, clock_s)]
    return recs, b"".join(recs)
