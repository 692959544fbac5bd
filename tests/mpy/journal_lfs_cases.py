"""The cases of test_journal_littlefs (kept out of the test module so that module compiles
before the firmware modules load into the 64k heap)."""

import journal_flash as F
from bg import journal
from bg import record as R

MID = b"\x01\x01\x02\x03\x05\x08\x0d\x15"
OLD = b"\x22\x37\x59\x90\xe9\x79\x62\xdb"


def _start(mid):
    return (mid, 1763700000, 0, R.OPT_JACOBY, 0, 0, 0, "Kim", "Lee", bytes(32), b"")


def _turn(i):
    # distinct for i < 120 apart (so a byte pattern locates one turn on the device)
    f = 24 - i % 20
    d1 = (i // 20) % 6 + 1
    d2 = d1 % 6 + 1
    return (i & 1, d1, d2, (f, max(f - d1, 0), 8, 8 - d2), 0)


def _count(it):
    n = 0
    for _ in it:
        n += 1
    return n


def test_storage_full_loses_nothing_and_recovers_after_a_delete():
    dev = F.fresh(F.tmpdir() + "/full.img", 9, "/full")
    try:
        j = journal.Journal("/full")
        j.open()
        # an old, finished match the host has not synced yet fills part of the volume
        with open("/full/journal/22375990e97962db.m", "wb") as f:
            f.write(R.encode(R.MATCH_START, _start(OLD)))
            for i in range(1500):
                f.write(R.encode(R.TURN, _turn(i)))
            f.write(R.encode(R.MATCH_END, (0, 1, 0)))
        j.begin_match(_start(MID), bytes(range(32)))
        n = 0
        while True:
            try:
                j.append(R.TURN, _turn(n))
            except journal.JournalError as e:
                assert e.code == journal.ERR_FULL and j.error == journal.ERR_FULL
                break
            n += 1
            assert n < 20000, "never filled"
        assert n > 100, n
        assert _count(j.replay()) == 1 + 2 * n
        # the old match is intact and still deletable once synced
        assert _count(j.replay(OLD)) == 1 + 2 * 1500 + 1
        F.umount("/full")
        F.mount(dev, "/full")
        k = journal.Journal("/full")
        assert _count(k.open()) == 1 + 2 * n and k.active == MID
        k.delete_match(OLD)
        k.append(R.TURN, _turn(n))
        assert k.error == journal.OK and _count(k.replay()) == 3 + 2 * n
    finally:
        F.umount("/full")
        dev.close()


def test_bytes_flipped_in_the_flash_image():
    # Damage the match file's data block on the device itself (bit rot littlefs cannot see).
    dev = F.fresh(F.tmpdir() + "/rot.img", 16, "/rot")
    try:
        j = journal.Journal("/rot")
        j.open()
        j.begin_match(_start(MID), bytes(range(32)))
        for i in range(200):
            j.append(R.TURN, _turn(i))
        F.umount("/rot")
        chunk = bytearray(512)
        marker = R.encode(R.TURN, _turn(100)) + R.encode(R.TURN, _turn(101))
        hit = 0
        for b in range(16):
            for off in range(0, F.BS - 256, 256):  # overlapping windows of 512 bytes
                dev.readblocks(b, chunk, off)
                at = bytes(chunk).find(marker)
                if at >= 0:
                    dev.writeblocks(b, bytes((chunk[at + 1] ^ 0x10,)), off + at + 1)
                    hit += 1
                    break
        assert hit, "match data not found on the device"
        F.mount(dev, "/rot")
        k = journal.Journal("/rot")
        n = _count(k.open())
        assert k.error == journal.ERR_CORRUPT and n == 1 + 2 * 100, (k.error, n, hit)
        ((mid, size, state),) = k.list_matches()
        assert state == journal.MATCH_DAMAGED and len(k.read_match(MID, 0, 4096)) == size
        try:
            k.append(R.TAKE, (0,))
            raise AssertionError("appended after damage")
        except journal.JournalError as e:
            assert e.code == journal.ERR_CORRUPT
    finally:
        F.umount("/rot")
        dev.close()


def test_missing_and_vanishing_volume():
    j = journal.Journal("/nothing-mounted-here")
    assert list(j.open()) == [] and j.error == journal.ERR_NO_FS
    dev = F.fresh(F.tmpdir() + "/gone.img", 16, "/gone")
    try:
        j = journal.Journal("/gone")
        j.open()
        j.begin_match(_start(MID), bytes(range(32)))
        j.append(R.TURN, _turn(0))
    finally:
        F.umount("/gone")
    try:
        j.append(R.TURN, _turn(1))
        raise AssertionError("append without a volume")
    except journal.JournalError as e:
        assert e.code == journal.ERR_NO_FS
    F.mount(dev, "/gone")
    try:
        k = journal.Journal("/gone")
        assert _count(k.open()) == 3 and k.error == journal.OK
    finally:
        F.umount("/gone")
        dev.close()
