"""bg.crashlog on a plain directory (littlefs and power cuts: tests/mpy): the ring
never grows, damage reads as damage, texts are clipped on a character boundary, the link's
pages round-trip and a malformed page is refused."""

import os

from bg import crashlog as CL


def _root():
    r = "/tmp/bgcl_%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(r)
    return r


def _rm(root):
    for n in os.listdir(root):
        os.remove(root + "/" + n)
    os.rmdir(root)


def _size(path):
    return os.stat(path)[6]


def test_ring_keeps_the_last_entries_and_never_grows():
    root = _root()
    try:
        log = CL.CrashLog(root)
        assert log.entries() == [] and not log.damaged
        big = "x" * 500  # far beyond MAX_TEXT: clipped, never stored whole
        sizes = []
        for i in range(3 * CL.MAX_ENTRIES):
            seq = log.add(CL.CAUSE_WATCHDOG if i % 2 else CL.CAUSE_TASK_DIED, big + str(i), 1763700000 + i)
            assert seq == i + 1
            sizes.append(_size(log.path))
        es = log.entries()
        assert len(es) == CL.MAX_ENTRIES
        # oldest first, the newest kept, seq counts every entry ever added
        assert [e[0] for e in es] == list(range(2 * CL.MAX_ENTRIES + 1, 3 * CL.MAX_ENTRIES + 1))
        assert es[-1][1] == 1763700000 + 3 * CL.MAX_ENTRIES - 1
        assert es[-1][3].endswith(str(3 * CL.MAX_ENTRIES - 1))  # the end of the text is kept
        assert max(sizes) <= CL.MAX_FILE and max(sizes) == CL.MAX_FILE  # bounded, and the bound is tight
        assert sizes[-1] == sizes[-CL.MAX_ENTRIES]  # full: it stopped growing
    finally:
        _rm(root)


def test_clip_keeps_the_end_and_whole_characters():
    t = "é" * 100  # 200 bytes of 2-byte characters
    b = CL.clip(t)
    assert len(b) <= CL.MAX_TEXT
    assert str(b, "utf-8") == "é" * (len(b) // 2)  # decodes: no half character
    assert CL.clip("abc") == b"abc"
    assert CL.clip("0123456789", 4) == b"6789"


def test_damaged_log_reads_as_damaged_and_the_next_add_starts_afresh():
    root = _root()
    try:
        log = CL.CrashLog(root)
        log.add(CL.CAUSE_POWER_ON, "", 1)
        log.add(CL.CAUSE_WATCHDOG, "", 2)
        with open(log.path, "rb") as f:
            data = bytearray(f.read())
        for at in (3, 5, len(data) - 3, len(data) - 1):  # count, an entry, the text area, the CRC
            bad = bytearray(data)
            bad[at] ^= 0x10
            with open(log.path, "wb") as f:
                f.write(bad)
            assert log.entries() == [] and log.damaged, at
        for cut in (0, 5, len(data) - 1):  # truncated files
            with open(log.path, "wb") as f:
                f.write(data[:cut])
            assert log.entries() == [] and log.damaged, cut
        assert log.add(CL.CAUSE_HARD, "after", 3) == 1
        assert log.entries() == [(1, 3, CL.CAUSE_HARD, "after")] and not log.damaged
    finally:
        _rm(root)


def test_a_leftover_temp_file_changes_nothing():
    root = _root()
    try:
        log = CL.CrashLog(root)
        log.add(CL.CAUSE_SOFT, "one", 5)
        with open(log.path + ".t", "wb") as f:  # a power cut during the next write left this
            f.write(b"CL\x01\x09garbage")
        assert log.entries() == [(1, 5, CL.CAUSE_SOFT, "one")]
        log.add(CL.CAUSE_BROWNOUT, "two", 6)
        assert [e[3] for e in log.entries()] == ["one", "two"]
    finally:
        _rm(root)


def test_bad_cause_refused_and_log_untouched():
    root = _root()
    try:
        log = CL.CrashLog(root)
        log.add(CL.CAUSE_SOFT, "one", 5)
        for c in (-1, 256):
            try:
                log.add(c, "x", 1)
                raise AssertionError("cause %d accepted" % c)
            except ValueError:
                pass
        assert log.entries() == [(1, 5, CL.CAUSE_SOFT, "one")]
    finally:
        _rm(root)


def test_pages_round_trip_and_malformed_pages_refused():
    root = _root()
    try:
        log = CL.CrashLog(root)
        for i in range(CL.MAX_ENTRIES):
            log.add(i % len(CL.CAUSE_NAMES), "t%d" % i + "z" * CL.MAX_TEXT, i)
        got = []
        start = 0
        while True:
            p = log.page(start)
            assert len(p) <= 512  # one frame's payload
            total, s0, es = CL.parse_page(p)
            assert total == CL.MAX_ENTRIES and s0 == start
            got += es
            start += len(es)
            if not es or start >= total:
                break
        assert got == log.entries()
        assert CL.parse_page(log.page(200)) == (CL.MAX_ENTRIES, 200, [])  # past the end: nothing
        p = log.page(0)
        for bad in (
            p[:2],
            p[:-1],
            p + b"x",
            bytes([1, 0, 2]) + p[3:],
            bytes([p[0], p[1], CL.PAGE + 1]) + p[3:],
        ):
            try:
                CL.parse_page(bad)
                raise AssertionError("malformed page accepted")
            except ValueError:
                pass
    finally:
        _rm(root)


def test_exception_text_names_the_task_and_the_error():
    try:
        raise ValueError("boom in the scanner")
    except ValueError as e:
        t = CL.exc_text("scan", e)
    assert t.startswith("scan: ")
    assert "ValueError" in t and "boom in the scanner" in t
    assert len(t.encode()) <= CL.MAX_TEXT
    try:
        raise OSError("y" * 300)
    except OSError as e:
        t = CL.exc_text("leds", e)
    assert t.startswith("leds: ") and len(t.encode()) <= CL.MAX_TEXT and t.endswith("y")


def _inner():
    raise KeyError("deep")


def _outer():
    _inner()


def test_exception_text_puts_the_exception_first_then_innermost_frames():
    try:
        _outer()
    except KeyError as e:
        t = CL.exc_text("clock", e)
    assert t.startswith("clock: KeyError"), t
    assert "deep" in t
    i = t.find("_inner")
    assert i > 0 and (t.find("_outer") < 0 or t.find("_outer") > i), t  # innermost first
    assert "test_crashlog.py:" in t
