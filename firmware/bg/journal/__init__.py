"""The on-flash match journal: one append-only record file per match, secrets apart,
recovery after power cuts (see docs/journal.md)."""

#
# Layout (under the storage root, e.g. ``/flash``)::
#
#     journal/
#       <id>.m     one append-only file of ``bg.record`` records per match (id = 16 hex digits)
#       <id>.s     the secret dice seed of a match still in progress (34 bytes: seed + CRC-16);
#                  written atomically (temp file + rename), deleted once revealed
#       active     the id of the match being played (written atomically)
#       *.t        temp files (a power cut may leave one; removed at ``open()``)
#
# A match is *live* while its ``.s`` file exists and *done* once its seed has been revealed
# (``SEED_REVEAL`` appended, ``.s`` removed). The secret is never in a ``.m`` file before
# that, and ``list_matches``/``read_match`` only ever read ``.m`` files, so the link can serve
# games in progress without exposing the seed.
#
# Durability: ``append()`` writes the record and ``flush()``es the file, which is littlefs's
# ``lfs_file_sync``: a copy-on-write commit that is atomic, so after a power cut the file is
# exactly as after some completed ``append()`` (the one in flight is either wholly there or
# not). Each record also carries its own length and checksum, so on a filesystem without
# that guarantee (the simulator's host files) a torn tail is recognised and dropped, never
# replayed. Details and the error states: ``docs/journal.md``.
#
# Example::
#
#     >>> j = Journal("/flash")
#     >>> replay = j.open()                 # actions of the interrupted match, if any
#     >>> j.begin_match(match_start_fields, seed)
#     >>> j.append(record.TURN, (0, 3, 1, (8, 5, 6, 5), 0))
#     >>> j.end_match(0, 7, 3)              # MATCH_END + SEED_REVEAL, secret deleted
#

import os

from micropython import const

from bg import record

# Error states (``Journal.error``; the LED layer shows them). Nothing stored is lost in any.
OK = const(0)
ERR_NO_FS = const(1)  # storage root missing / not mounted: nothing can be saved
ERR_FULL = const(2)  # ENOSPC: the last append was NOT stored; delete synced matches
ERR_CORRUPT = const(3)  # the active match file is damaged: replay stops before the damage,
# the file is kept untouched for the host, appends are refused
ERR_IO = const(4)  # any other I/O failure
ERR_NOMEM = const(5)  # the app had no heap left to store an action (app.journal_policy)
ERROR_NAMES = ("ok", "no filesystem", "storage full", "corrupt journal", "I/O error", "out of memory")

# Match states in list_matches()
MATCH_LIVE = const(1)  # in progress (secret seed still held)
MATCH_DONE = const(2)  # finished or abandoned, seed revealed
MATCH_DAMAGED = const(3)  # the active match's file failed its checks (kept as is)

_ENOSPC = const(28)
_ENOENT = const(2)
_SEED_LEN = const(32)
_MAX_READ = const(4096)


class JournalError(Exception):
    """An operation failed; ``code`` is one of the ``ERR_*`` states."""

    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def _errno(e):
    return e.args[0] if e.args and isinstance(e.args[0], int) else getattr(e, "errno", None)


def _hexid(match_id):
    if not isinstance(match_id, (bytes, bytearray)) or len(match_id) != 8:
        raise ValueError("match id must be 8 bytes")
    h = "%02x" * 8
    return h % tuple(match_id)


def _parse_hexid(name):
    # 16 lowercase hex digits -> 8 bytes, else None
    if len(name) != 16:
        return None
    out = bytearray(8)
    for i in range(8):
        try:
            out[i] = int(name[2 * i : 2 * i + 2], 16)
        except ValueError:
            return None
    if _hexid(out) != name:
        return None
    return bytes(out)


def _exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _size(path):
    return os.stat(path)[6]


class Journal:
    """The journal under ``root`` (a mounted littlefs directory such as ``/flash``).

    Call ``open()`` once at boot; ``error`` then holds the state to show. All methods raise
    ``JournalError`` (with ``code``) on storage failures and ``ValueError`` on bad
    arguments; neither ever deletes or rewrites stored records.
    """

    def __init__(self, root):
        self.root = root.rstrip("/")
        self.dir = self.root + "/journal"
        self.error = OK
        self.active = None  # match id (bytes) of the match in progress, or None
        self.finished = False  # True when the active match has a MATCH_END
        self._wpos = 0  # end of the valid records of the active match
        self.dropped = 0  # bytes of a torn or damaged last record dropped by ``open()``
        # scratch for encoding one record (``record.encode``), free between calls: the app's link
        # publishes each stored record from it too (one 518-byte block instead of two)
        self.buf = bytearray(2 * record.MAX_RECORD)

    # -- paths -------------------------------------------------------------------------
    def _path(self, match_id, ext):
        return self.dir + "/" + _hexid(match_id) + ext

    def _fail(self, e, what):
        code = ERR_FULL if _errno(e) == _ENOSPC else ERR_IO
        if code == ERR_IO and not _exists(self.root):
            code = ERR_NO_FS
        self.error = code
        raise JournalError(code, "%s: %s (%s)" % (what, ERROR_NAMES[code], e))

    def _need_fs(self):
        if self.error == ERR_NO_FS:
            raise JournalError(ERR_NO_FS, "journal: no filesystem at " + self.root)

    # -- small atomic files --------------------------------------------------------------
    def _write_atomic(self, path, data):
        tmp = path[:-2] + ".t" if path[-2] == "." else path + ".t"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
        os.rename(tmp, path)

    def _read_small(self, path, n):
        with open(path, "rb") as f:
            return f.read(n)

    # -- boot ------------------------------------------------------------------------------
    def open(self):
        """Mount-time recovery. Returns an iterator over the confirmed actions of the match
        in progress (empty when there is none) -- the list to replay, in order, torn tail
        excluded. ``error`` says what to show; a missing filesystem gives ``ERR_NO_FS`` and
        an empty replay rather than an exception."""
        from bg.journal import recover as jrecover

        return jrecover.open_journal(self)

    def _remove_quiet(self, path):
        try:
            os.remove(path)
        except OSError:
            pass

    def replay(self, match_id=None):
        """Iterator over the confirmed actions of ``match_id`` (default: the active match),
        read from flash in small chunks, stopping before any torn or damaged record."""
        mid = self.active if match_id is None else match_id
        if mid is None:
            return iter(())
        return self._replay(self._path(mid, ".m"))

    def _replay(self, path):
        with open(path, "rb") as f:
            for a in record.Decoder(f):
                yield a

    # -- a match ---------------------------------------------------------------------------
    def begin_match(self, fields, seed):
        """Start a match: its secret ``seed`` (32 bytes, atomically) and its ``MATCH_START``
        record (``fields`` as in ``bg.record``). A match still in progress is abandoned
        first (its seed revealed). Durable when it returns."""
        from bg.journal import recover as jrecover

        jrecover.begin_match(self, fields, seed)

    def append(self, kind, fields):
        """Append one action (``record.TURN`` for a roll and its play) to the active match.
        The record is durable when this returns. On failure nothing stored changes and
        ``JournalError`` says why (``ERR_FULL``: the action was not saved)."""
        if self.active is None:
            raise ValueError("no match in progress")
        if self.error == ERR_CORRUPT:
            raise JournalError(ERR_CORRUPT, "journal damaged; start a new match")
        self._need_fs()
        if kind in (record.MATCH_START, record.SEED_REVEAL):
            raise ValueError("use begin_match/end_match")
        rec = record.encode(kind, fields, self.buf)
        try:
            self._append_bytes(rec)
        except OSError as e:
            self._fail(e, "append")
        if kind == record.MATCH_END:
            self.finished = True
        self.error = OK
        if kind == record.GAME_END:
            # The game is durable as it is; now swap in its packed form (bg.journal.pack), or keep
            # it raw if that is not possible. Either file is complete at every instant.
            from bg.journal import pack as jpack

            jpack.compact(self)

    def _append_bytes(self, rec):
        with open(self._path(self.active, ".m"), "r+b") as f:
            f.seek(self._wpos)
            f.write(rec)
            f.flush()
        self._wpos += len(rec)

    def end_match(self, winner, score0, score1):
        """Finish the active match: ``MATCH_END`` and ``SEED_REVEAL`` in one durable write,
        then the secret file is deleted. A power cut anywhere in here is completed by the
        next ``open()``."""
        self._end((record.MATCH_END, (winner, score0, score1)))

    def abandon_match(self):
        """Give up the active match without a result: reveal its seed so it can still be
        verified, and stop holding the secret."""
        self._end(None)

    def _end(self, match_end):
        if self.active is None:
            raise ValueError("no match in progress")
        self._need_fs()
        mid = self.active
        out = b""
        if match_end is not None and not self.finished:
            out = bytes(record.encode(match_end[0], match_end[1], self.buf))
        try:
            out += bytes(record.encode(record.SEED_REVEAL, (self._seed(mid),), self.buf))
            if self.error == ERR_CORRUPT:
                # Never write over a damaged file: put the reveal after all of its bytes,
                # where a resynchronising reader on the host still finds it.
                self._wpos = _size(self._path(mid, ".m"))
            self._append_bytes(out)
            self._remove_quiet(self._path(mid, ".s"))
            self._remove_quiet(self.dir + "/active")
        except OSError as e:
            self._fail(e, "end match")
        self.active = None
        self.finished = False
        self.error = OK

    # -- the secret --------------------------------------------------------------------------
    def _seed(self, mid):
        try:
            raw = self._read_small(self._path(mid, ".s"), _SEED_LEN + 4)
        except OSError:
            raise ValueError("no secret seed for this match") from None
        if len(raw) != _SEED_LEN + 2 or record.crc16(raw, 0, _SEED_LEN) != (raw[32] << 8 | raw[33]):
            self.error = ERR_CORRUPT
            raise JournalError(ERR_CORRUPT, "secret seed file damaged")
        return bytes(raw[:_SEED_LEN])

    def secret_seed(self, match_id=None):
        """The dice seed of a match in progress (for ``bg.dice`` only; never for the link)."""
        self._need_fs()
        return self._seed(self.active if match_id is None else bytes(match_id))

    # -- what the link serves (bg.journal.serve) ------------------------------------------------------
    def list_matches(self):
        """``[(match_id, size, state)]`` of every stored match (``MATCH_*``)."""
        from bg.journal import serve as jserve

        return jserve.list_matches(self)

    def read_match(self, match_id, offset, n):
        """Up to ``n`` (<= 4096) bytes of a match's records from ``offset``; no secrets."""
        from bg.journal import serve as jserve

        return jserve.read_match(self, match_id, offset, n)

    def delete_match(self, match_id):
        """Delete a finished match the host confirmed it stored; refuses a live one."""
        from bg.journal import serve as jserve

        jserve.delete_match(self, match_id)
