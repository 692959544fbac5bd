"""A heap too fragmented for one of ``begin_match``'s writes (seen on the board
model at 64k): the journal leaves no half-started match behind, so the recorder's retry with
its reserve given back starts the match cleanly. Before, the retry found the match's own file
("match id already in use"): a ValueError out of the button press that started the match (on
the board, the button task died) and a match never journaled."""

import os

import pytest
from app.journal_policy import Recorder
from bg import record as R
from bg.journal import Journal

MID = b"MATCH-01"
FIELDS = (MID, 1767225600, 3, R.OPT_CRAWFORD, 0, 0, 0, "ann", "bob", bytes(32), b"")


class _FailingJournal(Journal):
    """A real journal whose ``n``-th atomic write (1: the seed, 2: the active pointer) meets a
    MemoryError once, as littlefs does when no block of a write's size is left."""

    def __init__(self, root, n):
        Journal.__init__(self, root)
        self.n = n
        self.writes = 0

    def _write_atomic(self, path, data):
        self.writes += 1
        if self.writes == self.n:
            raise MemoryError("memory allocation failed, allocating 256 bytes")
        Journal._write_atomic(self, path, data)


def _files(root):
    return sorted(os.listdir(os.path.join(root, "journal")))


@pytest.mark.parametrize("n", [1, 2], ids=["at-the-seed", "at-the-active-pointer"])
def test_a_memory_error_leaves_no_half_started_match(tmp_path, n):
    root = str(tmp_path)
    j = _FailingJournal(root, n)
    assert list(j.open()) == []
    before = _files(root)
    with pytest.raises(MemoryError):
        j.begin_match(FIELDS, bytes(range(32)))
    assert not [f for f in _files(root) if f.endswith((".m", ".s"))], _files(root)
    assert j.active is None
    j.begin_match(FIELDS, bytes(range(32)))  # the retry starts it
    assert j.active == MID and set(before) <= set(_files(root))
    j2 = Journal(root)
    assert [k for k, _ in j2.open()] == [R.MATCH_START]


class _Ctl:
    def __init__(self):
        self.outbox = []

    def board_seed(self):
        return bytes(range(32))


def test_the_recorder_starts_the_match_from_its_reserve(tmp_path):
    root = str(tmp_path)
    logs, errors = [], []
    rec = Recorder(_Ctl(), logs.append, errors.append)
    rec.verbose = False
    rec.journal = j = _FailingJournal(root, 2)
    list(j.open())
    rec._reserve = bytearray(1024)
    rec.ctl.outbox.append((R.MATCH_START, FIELDS))
    rec.drain()  # no exception out of the press that started the match
    assert "journal: stored from the reserve" in logs and j.active == MID
    assert [k for k, _ in Journal(root).open()] == [R.MATCH_START]
