"""``app.journal_policy.Recorder``: what reaches the journal when the heap runs out in the
middle of a game. A heap fragmented by the link can refuse littlefs the ~250 contiguous bytes a
write needs; the recorder then gives back its reserve and stores the action anyway, keeps a roll
waiting for its play across the retry, and once even the reserve is gone reports "out of
memory" like a full flash: the journal stays a prefix of the match, nothing out of order.
Runs on CPython and MicroPython (tests/host/test_controller_mpy.py)."""

from app.journal_policy import Recorder
from bg import record as R
from bg.journal import ERR_NOMEM


class _Ctl:
    joint_side = -1  # a one-board match: a roll waits for its play

    def __init__(self):
        self.outbox = []

    def board_seed(self):
        return bytes(32)


class _Journal:
    """Records what is stored; ``fail`` MemoryErrors are raised by the next writes."""

    def __init__(self):
        self.stored = []
        self.fail = 0
        self.active = None

    def _w(self, item):
        if self.fail:
            self.fail -= 1
            raise MemoryError("memory allocation failed, allocating 252 bytes")
        self.stored.append(item)

    def begin_match(self, fields, seed):
        self._w((R.MATCH_START, fields[0]))

    def append(self, kind, fields):
        self._w((kind, fields))

    def end_match(self, w, s0, s1):
        self._w((R.MATCH_END, (w, s0, s1)))


def _recorder():
    errors = []
    logs = []
    rec = Recorder(_Ctl(), logs.append, errors.append)
    rec.journal = _Journal()
    rec._reserve = bytearray(1024)  # as open() takes it at boot
    rec.verbose = False
    return rec, errors, logs


def _feed(rec, *actions):
    for a in actions:
        rec.ctl.outbox.append(a)
    rec.drain()


MS = (R.MATCH_START, (b"M" * 8,))
ROLL = (R.ROLL, (0, 3, 1))
PLAY = (R.PLAY, (0, (8, 5, 6, 5), 0))
TURN = (R.TURN, (0, 3, 1, (8, 5, 6, 5), 0))


def test_a_memory_error_is_met_with_the_reserve_and_nothing_is_lost():
    rec, errors, logs = _recorder()
    _feed(rec, MS, ROLL)
    rec.journal.fail = 1  # the play's write meets a fragmented heap
    _feed(rec, PLAY)
    assert rec.journal.stored == [(R.MATCH_START, b"M" * 8), TURN]  # the roll was kept for the retry
    assert "journal: stored from the reserve" in logs and ERR_NOMEM not in errors
    assert rec._reserve is not None and len(rec._reserve) == 1024  # taken again


def test_out_of_memory_twice_is_a_storage_error_and_the_journal_stays_a_prefix():
    rec, errors, logs = _recorder()
    _feed(rec, MS, ROLL)
    rec.journal.fail = 2  # fails with the reserve given back too
    _feed(rec, PLAY)
    assert errors[-1] == ERR_NOMEM and rec.journal.stored == [(R.MATCH_START, b"M" * 8)]
    _feed(rec, (R.DOUBLE, (1,)), (R.TAKE, (0,)))  # later actions: not stored out of order
    assert rec.journal.stored == [(R.MATCH_START, b"M" * 8)]
    _feed(rec, (R.MATCH_START, (b"N" * 8,)))  # a new match is stored again
    assert rec.journal.stored[-1] == (R.MATCH_START, b"N" * 8)


def test_watchers_see_every_action_even_the_unstored_ones():
    rec, errors, logs = _recorder()
    seen = []
    rec.watchers.append(lambda k, f: seen.append(k))
    rec.journal.fail = 2  # the reserve given back too
    _feed(rec, MS, ROLL, PLAY)
    assert errors[0] == ERR_NOMEM and seen == [R.MATCH_START, R.ROLL, R.PLAY]


def test_a_throw_of_a_match_with_another_board_is_stored_at_once():
    """The other board has thrown too and waits for this side's play: a power cut must not
    send this board back to the press before the throw (it could become a double there)."""
    rec, errors, logs = _recorder()
    rec.ctl.joint_side = 1
    _feed(rec, MS, ROLL)
    assert rec.journal.stored == [(R.MATCH_START, b"M" * 8), ROLL] and rec.pending_roll is None
    _feed(rec, PLAY)
    assert rec.journal.stored[1:] == [ROLL, PLAY]


def test_a_reserve_given_to_a_reader_between_matches_is_taken_again_before_the_next_store():
    """``spare``: the link's fetch of a finished match may have the reserve (a file object in
    one piece); the next match's first store takes it back first, so a MemoryError there is
    still met with it. Mid-match it is never given."""
    rec, errors, logs = _recorder()
    rec.journal.active = b"M" * 8  # a match being stored
    assert rec.spare() is False and rec._reserve is not None
    rec.journal.active = None  # between matches
    assert rec.spare() is True and rec._reserve is None
    assert rec.spare() is False  # nothing left to give
    rec.journal.fail = 1
    _feed(rec, MS)
    assert rec.journal.stored == [(R.MATCH_START, b"M" * 8)] and "journal: stored from the reserve" in logs
    assert ERR_NOMEM not in errors and rec._reserve is not None
