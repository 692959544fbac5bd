"""The power-cut check behind test_journal_packcut: game-end compaction (``bg.journal.pack``) cut at
every block program and erase, on littlefs with 4096-byte blocks.

A match of legal games from the rules engine (a full game borne off with dances, hits and
doubles; a short one with a double/take, a rejected and an accepted resignation) is written
once as plain records (the reference). It is then appended to a journal; while each
``GAME_END`` append (the record, then the compaction: temp file, sync, rename) is in flight,
the flash image is copied at every program/erase, as is and torn, mounted fresh and opened.
The replay must be the reference actions up to the game end (without it only when the cut
hit the GAME_END record itself), no temp file may survive ``open()``, the file must be the
raw game or the packed one, and appending must resume.
"""

import gc
import sys

import journal_flash as F
from bg import journal, record

NBLK = 64
MATCH_ID = b"\x21\x43\x65\x87\xa9\xcb\xed\x0f"
MPATH = "/snap/journal/21436587a9cbed0f.m"
SEED = bytes(range(7, 39))


def reference():
    """(record bytes of the match after MATCH_START, end offset of each action, indexes of
    the GAME_END actions), from journal_packref -- imported for this call only and then
    dropped, so its bytecode is free for the replays."""
    import journal_packref

    try:
        return journal_packref.reference()
    finally:
        del journal_packref
        sys.modules.pop("journal_packref", None)
        gc.collect()


class _Run:
    def __init__(self):
        self.ref, self.ends, self.game_ends = reference()
        self.done = 0  # actions whose append() returned
        self.in_end = False  # a GAME_END append (record + compaction) is in flight
        self.packed_seen = 0  # snapshots whose file held a packed game after open()
        self.tmp_seen = 0  # snapshots with a temp file (cut before the rename)


def _same(replay, run, n):
    # The replay is exactly the first n reference actions, after MATCH_START.
    it = iter(replay)
    a = next(it, None)
    if a is None or a[0] != record.MATCH_START:
        return False
    # (a memoryview: no copy of the reference per snapshot)
    exp = record.decode_stream(memoryview(run.ref)[: run.ends[n - 1]] if n else b"")
    for e in exp:
        if next(it, None) != e:
            return False
    return next(it, None) is None


def _verify(run):
    if not F.missing(MPATH[:-2] + ".t"):
        run.tmp_seen += 1  # cut while the packed file was being written
    j = journal.Journal("/snap")
    replay = j.open()
    assert j.error == journal.OK, j.error
    assert j.active == MATCH_ID
    assert F.missing(MPATH[:-2] + ".t"), "temp file left after open()"
    n = run.done
    if not _same(replay, run, n):
        assert _same(j.replay(), run, n + 1), "replay mismatch"
        n += 1
    with open(MPATH, "rb") as f:
        for kind, _ in record.Decoder(f, split_turns=False, expand=False):
            if kind == record.GAME_PACKED:
                run.packed_seen += 1
                break
    if n < len(run.ends):
        # Resume: the next action appends and replays.
        d = record.Decoder(run.ref[run.ends[n - 1] : run.ends[n]], split_turns=False)
        kind, fields = next(d)
        j.append(kind, fields)
        assert _same(j.replay(), run, n + 1)
    gc.collect()


def _check(dev, buf, run, op, block, off, data, torn):
    F.copy_image(dev, F.tmpdir() + "/psnap.img", buf)
    snap = F.FlashDev(F.tmpdir() + "/psnap.img", NBLK, create=False)
    if torn:
        F.apply_torn(snap, op, block, off, data)
    try:
        F.mount(snap, "/snap")
        try:
            _verify(run)
        finally:
            F.umount("/snap")
    finally:
        snap.close()


def test_power_cut_during_game_end_compaction():
    gc.collect()
    run = _Run()
    dev = F.fresh(F.tmpdir() + "/plive.img", NBLK, "/flash")
    buf = bytearray(1024)
    cuts = [0]
    try:
        j = journal.Journal("/flash")
        assert list(j.open()) == []

        def hook(op, block, off, data):
            if run.in_end:
                for torn in (False, True):
                    _check(dev, buf, run, op, block, off, data, torn)
                cuts[0] += 1

        dev.hook = hook
        j.begin_match((MATCH_ID, 1763700000, 0, 0, 0, 0, 0, "Ann", "Bo", bytes(32), b""), SEED)
        raw = j._wpos + len(run.ref)
        d = record.Decoder(run.ref, split_turns=False)
        for i in range(len(run.ends)):
            kind, fields = next(d)
            run.in_end = kind == record.GAME_END
            j.append(kind, fields)
            run.in_end = False
            run.done = i + 1
        dev.hook = None
        # Both games were packed: two GAME_PACKED records, far fewer bytes, same actions.
        path = "/flash/journal/21436587a9cbed0f.m"
        with open(path, "rb") as f:
            kinds = [k for k, _ in record.Decoder(f, split_turns=False, expand=False)]
        assert kinds == [record.MATCH_START, record.GAME_PACKED, record.GAME_PACKED], kinds
        size = F.missing(path) or __import__("os").stat(path)[6]
        assert size * 2 < raw, (size, raw)
        with open(path, "rb") as f:
            assert _same(record.decode_stream(f), run, len(run.ends))
    finally:
        F.umount("/flash")
        dev.close()
    print(
        "compaction power-cut points:",
        cuts[0],
        "images:",
        2 * cuts[0],
        "with a temp file:",
        run.tmp_seen,
        "packed after open():",
        run.packed_seen,
    )
    # Cuts landed while the temp file was written (open() discards it and packs again), after
    # the rename, and before GAME_END itself was stored (nothing to pack: raw).
    assert cuts[0] > 8 and run.tmp_seen and run.packed_seen and run.packed_seen < 2 * cuts[0]
