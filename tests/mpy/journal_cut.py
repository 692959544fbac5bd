"""The power-cut check behind test_journal_powercut (a separate module so the test module
itself compiles in the 64k heap)."""

import gc

import journal_flash as F
import journal_script
from bg import journal, record

NBLK = 64
POWERCUT_POINTS = [0]


class _Run:
    def __init__(self):
        self.stage = 0  # 0 begin_match in flight, 1 playing, 2 end_match in flight, 3 done
        self.done = 0  # script actions whose append() returned
        self.plan = journal_script.plan()


def _expected(run, n):
    # The first n script actions as decoded actions (MATCH_START first).
    yield record.MATCH_START, journal_script.match_fields(record)
    for i in range(n):
        kind, fields = journal_script.action(record, run.plan, i)
        yield from journal_script.expand(record, kind, fields)


def _same(replay, run, n, tail=()):
    exp = _expected(run, n)
    got = 0
    for a in replay:
        e = next(exp, None)
        if e is None:
            if got >= len(tail) or a[0] != tail[got]:
                return False
            got += 1
            continue
        if a != e:
            return False
    return next(exp, None) is None and got == len(tail)


def _verify(run, buf):
    j = journal.Journal("/snap")
    replay = j.open()
    assert j.error == journal.OK, j.error
    if run.stage == 0 and j.active is None:
        assert list(replay) == []
        assert F.missing(journal_script.MPATH)
        return "empty"
    if run.stage >= 2 and j.active is None:
        # end_match committed: the reveal is stored and the secret is gone.
        assert not list(j.replay())
        assert F.missing(journal_script.MPATH[:-2] + ".s")
        with open(journal_script.MPATH, "rb") as f:
            assert _same(record.decode_stream(f), run, len(run.plan), (record.MATCH_END, record.SEED_REVEAL))
        return "done"
    assert j.active == journal_script.MATCH_ID, (run.stage, run.done, j.error, j.active)
    n = run.done
    if not _same(j.replay(), run, n):
        # The action in flight is either wholly there or not at all.
        assert run.stage == 1 and _same(j.replay(), run, n + 1), "replay mismatch"
        n += 1
    assert j.secret_seed() == journal_script.SEED
    # What the link would serve (read_match reads only this file) never holds the secret.
    assert not F.contains(journal_script.MPATH, journal_script.SEED[:8], buf)
    # Resume: the next action appends and replays.
    if n < len(run.plan):
        kind, fields = journal_script.action(record, run.plan, n)
        j.append(kind, fields)
        assert _same(j.replay(), run, n + 1)
    return "live"


def _check(dev, buf, run, op, block, off, data, torn):
    F.copy_image(dev, F.tmpdir() + "/snap.img", buf)
    snap = F.FlashDev(F.tmpdir() + "/snap.img", NBLK, create=False)
    if torn:
        F.apply_torn(snap, op, block, off, data)
    try:
        F.mount(snap, "/snap")
        try:
            return _verify(run, buf)
        finally:
            F.umount("/snap")
    finally:
        snap.close()


def test_power_cut_at_every_write():
    gc.collect()
    run = _Run()
    dev = F.fresh(F.tmpdir() + "/live.img", NBLK, "/flash")
    buf = bytearray(1024)
    seen = {}
    try:
        j = journal.Journal("/flash")
        assert list(j.open()) == []

        def hook(op, block, off, data):
            for torn in (False, True):
                r = _check(dev, buf, run, op, block, off, data, torn)
                seen[r] = seen.get(r, 0) + 1
            POWERCUT_POINTS[0] += 1

        dev.hook = hook
        j.begin_match(journal_script.match_fields(record), journal_script.SEED)
        run.stage = 1
        for i in range(len(run.plan)):
            kind, fields = journal_script.action(record, run.plan, i)
            j.append(kind, fields)
            run.done = i + 1
        run.stage = 2
        j.end_match(0, 2, 1)
        run.stage = 3
        dev.hook = None
        assert _check(dev, buf, run, 0, 0, 0, None, False) == "done"
    finally:
        F.umount("/flash")
        dev.close()
    print(
        "power-cut points tried:",
        POWERCUT_POINTS[0],
        "images checked:",
        2 * POWERCUT_POINTS[0] + 1,
        "outcomes:",
        seen,
    )
    # Every kind of outcome happened: cuts before the match existed, mid-match, after the end.
    assert seen.get("empty") and seen.get("live") and seen.get("done")
    assert POWERCUT_POINTS[0] > 2 * len(run.plan)
