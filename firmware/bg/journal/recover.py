"""Boot-time half of ``bg.journal`` (loaded by ``open()``/``begin_match()``): scan the match in
progress, drop a torn tail, finish an interrupted reveal, clean temp files. Kept apart so
each module compiles in an ESP32-sized heap; ``j`` is the ``Journal``."""

import os

from bg import record
from bg.journal import (
    ERR_CORRUPT,
    ERR_NO_FS,
    OK,
    _exists,
    _hexid,
    _parse_hexid,
    _size,
)


def open_journal(j):
    """Mount-time recovery. Returns an iterator over the confirmed actions of the match
    in progress (empty when there is none) -- the list to replay, in order, torn tail
    excluded. ``error`` says what to show; a missing filesystem gives ``ERR_NO_FS`` and
    an empty replay rather than an exception."""
    j.error = OK
    j.active = None
    j.finished = False
    j._wpos = 0
    j.dropped = 0
    try:
        os.stat(j.root)
    except OSError:
        j.error = ERR_NO_FS
        return iter(())
    try:
        if not _exists(j.dir):
            os.mkdir(j.dir)
        names = os.listdir(j.dir)
        cut = []  # ids whose temp file was left: maybe an interrupted game-end compaction
        for n in names:
            if n.endswith(".t"):
                os.remove(j.dir + "/" + n)
                cut.append(n[:-2])
        # A seed without a started match (power cut inside begin_match: the match file is
        # missing or empty, littlefs never shows half a write) is dropped: the commitment was
        # never stored, so nothing can depend on it. A match file that HAS bytes but no
        # readable MATCH_START is damaged, not unstarted: keep every byte (and the seed) for
        # the host, report it, and do not resume it.
        live = []
        for n in names:
            if n.endswith(".s"):
                mid = _parse_hexid(n[:-2])
                if mid is None:
                    continue
                if _has_match_start(j, mid):
                    live.append(mid)
                elif _exists(j._path(mid, ".m")) and _size(j._path(mid, ".m")) > 0:
                    j.error = ERR_CORRUPT
                else:
                    j._remove_quiet(j.dir + "/" + n)
                    j._remove_quiet(j._path(mid, ".m"))
        active = None
        try:
            a = _parse_hexid(str(j._read_small(j.dir + "/active", 16), "ascii"))
            if a is not None and a in live:
                active = a
        except (OSError, ValueError):
            pass
        if active is None and live:
            active = live[-1]
    except OSError as e:
        j._fail(e, "journal open")
    if active is None:
        return iter(())
    j.active = active
    _recover(j, active)
    if j.error == OK and _hexid(active) in cut:
        # The raw game is authoritative; pack it again now (a no-op unless the file ends
        # with a finished game; the engine is loaded only if it does).
        from bg.journal import pack as jpack

        jpack.compact(j)
    return j.replay()


def _has_match_start(j, mid):
    try:
        with open(j._path(mid, ".m"), "rb") as f:
            for kind, _ in record.Decoder(f):
                return kind == record.MATCH_START
    except OSError:
        pass
    return False


def _scan(path):
    """(valid bytes, file size, status, saw MATCH_END, saw SEED_REVEAL)."""
    end = rev = False
    with open(path, "rb") as f:
        d = record.Decoder(f, split_turns=False, expand=False)  # a packed game holds neither
        for kind, _ in d:
            if kind == record.MATCH_END:
                end = True
            elif kind == record.SEED_REVEAL:
                rev = True
    return d.valid, _size(path), d.status, end, rev


def _recover(j, mid):
    path = j._path(mid, ".m")
    try:
        valid, size, status, end, rev = _scan(path)
        j._wpos = valid  # appends go after the last good record, whatever follows
        if valid < size:
            if status == record.CORRUPT and _records_after(j, path, valid, size):
                # Damage in the middle: keep every byte for the host, stop appending.
                j.error = ERR_CORRUPT
                return
            # A torn tail (only possible without littlefs's atomic sync): rewrite the
            # good prefix to a temp file and swap it in atomically. Without room for the
            # copy, appends simply overwrite the torn bytes from ``_wpos``. Either way the
            # bytes are gone: ``dropped`` says how many (the app reports it).
            j.dropped = size - valid
            try:
                _copy_prefix(j, path, valid)
            except OSError:
                j._remove_quiet(path[:-2] + ".t")
        j.finished = end
        if end:
            # Power cut inside end_match: finish the reveal.
            if not rev:
                j._append_bytes(record.encode(record.SEED_REVEAL, (j._seed(mid),), j.buf))
            j._remove_quiet(j._path(mid, ".s"))
            j._remove_quiet(j.dir + "/active")
            j.active = None
    except OSError as e:
        j._fail(e, "journal recovery")


def _records_after(j, path, valid, size):
    """True if a well-formed record starts anywhere after the damaged one (then the
    bytes after ``valid`` hold data, not a torn append)."""
    buf = j.buf
    with open(path, "rb") as f:
        pos = valid + 1
        while pos < size:
            f.seek(pos)
            n = f.readinto(buf)
            if not n:
                break
            for k in range(min(n, record.MAX_RECORD)):
                try:
                    record.decode_record(buf, k, n)
                    return True
                except (EOFError, ValueError, IndexError):
                    pass
            pos += record.MAX_RECORD
    return False


def _copy_prefix(j, path, n):
    tmp = path[:-2] + ".t"
    buf = j.buf
    with open(path, "rb") as src:
        with open(tmp, "wb") as dst:
            left = n
            while left:
                got = src.readinto(buf)
                if not got:
                    break
                got = min(got, left)
                dst.write(memoryview(buf)[:got])
                left -= got
            dst.flush()
    os.rename(tmp, path)


def begin_match(j, fields, seed):
    """Start a match: store its secret ``seed`` (32 bytes, atomically) and its
    ``MATCH_START`` record (``fields`` as in ``bg.record``). A match still in progress
    is abandoned first (its seed revealed). Durable when it returns."""
    j._need_fs()
    if not isinstance(seed, (bytes, bytearray)) or len(seed) != 32:
        raise ValueError("seed must be 32 bytes")
    mid = fields[0]
    # validates before touching flash; encoded in the journal's buffer (no 518-byte scratch),
    # copied out at its exact size
    rec = bytes(record.encode(record.MATCH_START, fields, j.buf))
    if j.active is not None:
        if j.active == bytes(mid):
            raise ValueError("match id already in use")
        j.abandon_match()
    pm = j._path(mid, ".m")
    ps = j._path(mid, ".s")  # (made before any file is: the clean-up below allocates nothing)
    if _exists(pm):
        raise ValueError("match id already in use")
    try:
        c = record.crc16(seed)
        j._write_atomic(ps, bytes(seed) + bytes((c >> 8, c & 255)))
        with open(pm, "wb") as f:
            f.write(rec)
            f.flush()
        j._write_atomic(j.dir + "/active", _hexid(mid).encode())
    except MemoryError:
        # A heap too fragmented for a write: no half-started match either, so that the
        # caller's retry (app.journal_policy gives back its reserve) starts it cleanly
        # instead of finding its own file ("match id already in use")
        j._remove_quiet(pm)
        j._remove_quiet(ps)
        raise
    except OSError as e:
        # Leave no half-started match behind (open() would drop it anyway).
        j._remove_quiet(pm)
        j._remove_quiet(ps)
        j._fail(e, "begin match")
    j.active = bytes(mid)
    j.finished = False
    j._wpos = len(rec)
    j.error = OK
