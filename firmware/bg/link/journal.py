"""``bg.link.store.Store`` on the flash journal (``bg.journal.Journal``) for the link.

The journal keeps the matches; this adapter adds the small link files next to it:
``<root>/link/name`` (the board's name), ``<root>/link/hosts`` (the paired-hosts blob) and,
on a board without a hardware id (the simulator), ``<root>/link/id`` (8 random bytes drawn
once: the board id), all written atomically (temp file + rename).

Match states map as: journal ``MATCH_DONE`` -> ``STATE_FINISHED``; ``MATCH_LIVE`` ->
``STATE_LIVE``; ``MATCH_DAMAGED`` (the active match's file failed its checks and is kept as
is) -> ``STATE_DAMAGED``: not being played, so a host must not wait for it to go on, but its
seed is still secret and it is never deleted or revealed over the link (the link treats it
like a live match). A finished match's dice seed is its ``SEED_REVEAL`` record.

Example::

    j = Journal("/flash"); j.open()
    store = JournalStore(j, "/flash", board_id=hw.board_id())  # None: link/id, random once
"""

import os

# the modules, not their names: this module's dict holds 10 names, not 14 (17 slots, 56 B
# more of the board's heap while the link is loaded)
from bg import journal as J
from bg import link as P
from bg import record

_DEFAULT_NAME = "Gammon"


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _write_atomic(path, data):
    tmp = path + ".t"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


class JournalStore:
    """The link's ``Store`` over a ``Journal`` (see ``bg.link.store.Store`` for the contract).
    ``spare``: None, or a callable giving the heap back a reserve the device keeps (True when
    it did; ``app.journal_policy.Recorder.spare``), asked when a read meets a MemoryError."""

    spare = None  # (read from the class until the device sets it: no slot in the store's dict)

    def __init__(self, journal, root, board_id=None, urandom=None):
        self.j = journal
        self.root = root
        self.dir = root + "/link"
        try:
            os.mkdir(self.dir)
        except OSError:
            pass  # exists
        if board_id:
            self._id = (bytes(board_id) + bytes(P.ID_LEN))[: P.ID_LEN]
        else:
            self._id = self._stored_id(urandom or os.urandom)
        # the factory name ends in the board id's last 4 hex digits: a second board in the
        # same room (or paired to the same PC) is told apart before anyone renames it
        default = "%s %02x%02x" % (_DEFAULT_NAME, self._id[-2], self._id[-1])
        raw = _read(self.dir + "/name")
        try:
            self._name = raw.decode() if raw else default
        except UnicodeError:
            self._name = default

    def _stored_id(self, urandom):
        """The board id kept in ``link/id`` (a board without a hardware id: the simulator,
        one per flash image); drawn once, at random, when missing or damaged."""
        path = self.dir + "/id"
        raw = _read(path)
        if raw is not None and len(raw) == P.ID_LEN:
            return bytes(raw)
        new = bytes(urandom(P.ID_LEN))
        _write_atomic(path, new)
        return new

    def board_id(self):
        return self._id

    def get_name(self):
        return self._name

    def set_name(self, name):
        _write_atomic(self.dir + "/name", name.encode())
        self._name = name

    def list_matches(self):
        out = []
        for m, size, st in self.j.list_matches():
            if st == J.MATCH_DONE:
                s = P.STATE_FINISHED
            elif st == J.MATCH_DAMAGED:
                s = P.STATE_DAMAGED
            else:
                s = P.STATE_LIVE
            out.append((m, size, s))
        return out

    def read_match(self, match_id, offset, n):
        try:
            try:
                return self.j.read_match(match_id, offset, n)
            except MemoryError:
                # After a long match the heap is kilobytes free in short runs, and littlefs's
                # file object wants one (208 B): what the device keeps in reserve is given
                # back if it can be (``spare``: between matches) and the read tried once more
                s = self.spare
                if s is None or not s():
                    raise
                return self.j.read_match(match_id, offset, n)
        except ValueError:
            raise KeyError(match_id) from None

    def delete_match(self, match_id):
        try:
            self.j.delete_match(match_id)
        except ValueError:
            raise KeyError(match_id) from None

    def reveal_seed(self, match_id):
        """The seed from the match's ``SEED_REVEAL`` record (streamed, never all in RAM;
        packed games are skipped, not expanded: the rules engine is never loaded for this)."""
        path = self.j._path(bytes(match_id), ".m")
        try:
            f = open(path, "rb")
        except OSError:
            raise KeyError(match_id) from None
        try:
            for kind, fields in record.Decoder(f, True, False):
                if kind == record.SEED_REVEAL:
                    return bytes(fields[0])
        finally:
            f.close()
        raise ValueError("match has no revealed seed")

    def load_keys(self):
        return _read(self.dir + "/hosts")

    def save_keys(self, blob):
        _write_atomic(self.dir + "/hosts", blob)

    def crash_log(self, start):
        from bg.crashlog import CrashLog

        return CrashLog(self.root).page(start)
