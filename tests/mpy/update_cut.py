"""The power-cut check behind test_update_powercut (a separate module so the test module
itself compiles in the 64k heap)."""

import gc
import hashlib
import os

import journal_flash as F
import update_helpers
from bg.update import boot
from bg.update.bundle import bundle_id, header_len
from bg.update.slots import Updater

NBLK = 48
POINTS = [0]
SIZE = 1500  # three files of 1.5 kB or more, sent in 256-byte chunks: many block writes


def _kind(kind):
    # the bundle's files: a few modules; one module (laid over the built-in package). A whole
    # firmware is an app image, written into an app partition, not littlefs: its cuts are
    # test_update_app's
    if kind == "one module":
        return [("bg/notation.py", b"#" * SIZE)]
    return update_helpers.files(b"v2", 3, SIZE)


class _Run:
    def __init__(self, kind):
        from bg.update.sign import bundle

        self.stage = 0  # 0 receiving, 1 commit in flight, 2 committed, 3 boot in flight,
        # 4 booted (on trial), 5 healthy() in flight, 6 confirmed
        gc.collect()
        files = _kind(kind)
        self.blob = bundle("2.0.0", files, update_helpers.SEED, boot.COUNTER + 2)
        self.want = {}
        for name, data in files:
            self.want[name] = hashlib.sha256(data).digest()
        del files


def _intact(root, slot, want, buf):
    for name, digest in want.items():
        h = hashlib.sha256()
        with open(boot.slot_dir(root, slot) + "/" + name, "rb") as f:
            while True:
                n = f.readinto(buf)
                if not n:
                    break
                h.update(memoryview(buf)[:n])
        if h.digest() != digest:
            return False
    return True


def _verify(run, buf):
    """The cut image boots the old (built-in) firmware or the whole new one, as far as the
    update had got; then the update resumes and completes from what is on flash."""
    state = boot.read_state("/snap")
    # the security counter rises with the confirmation, never before it, never back
    c = boot.confirmed("/snap")
    if run.stage < 5:
        assert c == boot.COUNTER, (run.stage, c)
    elif run.stage == 6:
        assert c == boot.COUNTER + 2, (run.stage, c)
    else:
        assert c in (boot.COUNTER, boot.COUNTER + 2) and (c == boot.COUNTER) == (state[0] != "a"), (c, state)
    path = [""]
    s = boot.start(path, {}, "/snap")
    if s == boot.NONE:
        assert run.stage <= 1, (run.stage, state)  # committed means the next boot tries it
        out = "old"
    else:
        assert s == "a" and run.stage >= 1, (run.stage, state, s)
        assert _intact("/snap", "a", run.want, buf), "the slot booted is not the bundle"
        out = "new"
    if run.stage == 0:
        # the transfer resumes from what survived and completes
        blob = run.blob
        u = Updater("/snap", [""], update_helpers.pub())
        off = u.begin(bundle_id(blob[: header_len(blob)]), len(blob))
        update_helpers.send(u, blob, off, step=256)
        assert u.commit() == "2.0.0"
        assert _intact("/snap", "a", run.want, buf)
        out = "resumed"
    return out


def _check(dev, buf, run, op, block, off, data, torn):
    F.copy_image(dev, F.tmpdir() + "/usnap.img", buf)
    snap = F.FlashDev(F.tmpdir() + "/usnap.img", NBLK, create=False)
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


def test_power_cut_at_every_write_of_an_update():
    # one test, the biggest bundle first: what a run leaves behind (interned paths) splits
    # the heap, and the next bundle must still be allocated in one piece
    for kind in ("modules", "one module"):
        gc.collect()
        _cut_everywhere(kind)


def _cut_everywhere(kind):
    gc.collect()
    POINTS[0] = 0
    run = _Run(kind)
    blob = run.blob
    dev = F.fresh(F.tmpdir() + "/ulive.img", NBLK, "/flash")
    buf = bytearray(512)
    seen = {}
    try:

        def hook(op, block, off, data):
            for torn in (False, True):
                r = _check(dev, buf, run, op, block, off, data, torn)
                seen[r] = seen.get(r, 0) + 1
            POINTS[0] += 1

        dev.hook = hook
        u = Updater("/flash", [""], update_helpers.pub())
        assert u.begin(bundle_id(blob[: header_len(blob)]), len(blob)) == 0
        update_helpers.send(u, blob, step=256)
        run.stage = 1
        assert u.commit() == "2.0.0"
        run.stage = 3
        path = [""]
        assert boot.start(path, {}, "/flash") == "a"
        run.stage = 5
        assert boot.healthy("/flash", path)
        run.stage = 6
        assert boot.confirmed("/flash") == boot.COUNTER + 2
        dev.hook = None
        assert boot.read_state("/flash") == ("a", "-", 0)
    finally:
        F.umount("/flash")
        dev.close()
        for n in ("ulive.img", "usnap.img"):
            try:
                os.remove(F.tmpdir() + "/" + n)
            except OSError:
                pass
    print(kind, "power-cut points tried:", POINTS[0], "images checked:", 2 * POINTS[0], "outcomes:", seen)
    assert seen.get("resumed") and seen.get("old") and seen.get("new")
    assert POINTS[0] > 10
