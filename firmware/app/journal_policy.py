"""The journal-writing policy: which of the controller's confirmed actions are stored how.

The controller (``app.controller``) is pure: each confirmed action lands in its ``outbox`` as a
``bg.record`` kind and field tuple. ``Recorder.drain()`` empties the outbox in order:

- MATCH_START opens a new match file with the secret dice seed (``Journal.begin_match``);
- a ROLL waits for its PLAY so the pair is stored as one compact TURN record (the throw is
  derived from the journal's throw count, so a roll lost to a power cut comes back identical on
  the next press); any other record first flushes a waiting ROLL on its own. In a match with
  another board a ROLL is stored at once: the other board has thrown too and waits for this
  side's play, so this board must come back moving, not waiting for a press that could now
  become a double (docs/remote.md, power cuts);
- MATCH_END closes the file (``end_match`` writes the seed reveal itself);
- before a brown-out (``close``, from ``app.power``) the waiting ROLL is stored on its own and
  nothing more is written until ``reopen``;
- once an action of the match in progress could not be stored (storage full, flash error) the
  later ones are not stored either: the journal stays a prefix of the match and replays
  correctly (the next ``begin_match`` abandons it, which reveals its dice seed). The error code
  goes to ``on_error`` (the view shows it) and the game goes on.

Every action also goes to each of ``watchers`` (the link's live watch) -- also when the journal
could not store it, so a watching host still sees the game as it is played.

``open(storage_root)`` at boot: opens the journal and replays the match in progress into the
controller, so a power cut loses nothing confirmed.

The journal's rarely used modules (recovery, compaction, decoding) are dropped from
``sys.modules`` after boot, after a match starts and after a game's end (``release``) and
imported again from flash when next needed: measured in docs/memory.md.

Example::

    rec = Recorder(ctl, log=print, on_error=view_error)
    rec.open(hw.storage.root)          # replays the match in progress into ctl
    ctl.button(...)                    # confirmed actions land in ctl.outbox
    rec.drain()                        # ... and are stored, then shown to watchers
"""

import gc

from bg import forget
from bg import record as R
from bg.journal import ERR_NOMEM
from micropython import const

# After boot, after a match starts and after each game's end (its compaction done or given up)
# these go until next needed. At a game's end the compaction imports them again: the peak is
# the same, but the game in between has their heap (board model, 14 games against the
# computer: 0.5 kB more free between games; docs/memory.md). In ~5% of games a stale pointer on
# the C stack keeps some of them alive until the next game; the compaction then meets a
# MemoryError and leaves that game raw, as designed.
_RESERVE = const(1024)  # bytes the journal keeps in reserve (see Recorder)
_RARE = ("journal.recover", "journal.pack", "record.packenc", "record.packdec", "record.decode")


def release(names=_RARE):
    """Forget rarely used ``bg`` modules (sys.modules and the package's attribute) so the
    collector can take their objects back (``bg.forget``)."""
    for n in names:
        forget("bg." + n)


def _short(f):
    out = []
    for x in f:
        if isinstance(x, (bytes, bytearray)):
            x = "".join("%02x" % b for b in x[:4]) + ".."
        out.append(str(x))
    return " ".join(out)


class Recorder:
    """Stores the controller's confirmed actions (``drain``) and replays them at boot (``open``).

    ``ctl``: the controller (``outbox``, ``apply``, ``resume``, ``board_seed``, ``phase``);
    ``log(text)``: the console; ``on_error(code)``: a storage error code (0: stored again)."""

    def __init__(self, ctl, log, on_error):
        self.ctl = ctl
        self.log = log
        self.on_error = on_error
        self.journal = None
        self.watchers = []  # callables(kind, fields): live watch (the link)
        self.verbose = True  # the console shows every confirmed action
        self.pending_roll = None  # a ROLL's fields waiting for its PLAY (not in the file yet)
        self._unstored = False  # an action of the match in progress could not be stored
        # The journal's parachute: a block kept from boot and given back to the heap when a
        # store meets a MemoryError (a heap fragmented by the link: littlefs wants ~250
        # contiguous bytes per write), so the write is tried once more with it free -- the
        # journal, not the link, gets the last kilobyte. Taken again after the next store.
        self._reserve = None
        self.closed = False  # before a brown-out (``close``): nothing is written

    def open(self, root, match_over):
        """Open the journal under ``root`` and replay the match in progress into the
        controller; ``match_over`` is the controller's MATCH_OVER phase. Returns the number of
        actions replayed. A damaged journal never stops the board: the error is reported."""
        from bg.journal import Journal

        ctl = self.ctl
        self.journal = j = Journal(root)
        self._reserve = bytearray(_RESERVE)  # early: one contiguous block while the heap is fresh
        n = 0
        try:
            for k, f in j.open():
                ctl.apply(k, f)
                n += 1
            seed = None
            if j.active is not None and ctl.phase != match_over:
                seed = j.secret_seed()
            ctl.resume((), seed)
            if j.error:
                # a match file damaged in the middle replays up to the damage without raising:
                # show it now, not only when the next action cannot be stored
                self.on_error(j.error)
                self.log("journal: error %d at boot" % j.error)
            if j.dropped:
                # a torn or damaged last record: no action in it could be read
                self.log("journal: dropped %d damaged bytes at the end" % j.dropped)
        except Exception as e:  # noqa: BLE001 - a damaged journal must not stop the board
            self.log("journal: %s" % (e,))
            self.on_error(j.error or 4)
        release()
        gc.collect()
        return n

    def close(self):
        """The battery is about to give out (``app.power``): store the ROLL that waits for its
        play (so nothing confirmed is only in RAM), then write nothing until ``reopen``:
        actions confirmed meanwhile stay in the controller's outbox, in order. Every record
        is durable when its append returns, so no write is left half done."""
        j = self.journal
        if j is not None and not self._unstored and not self.closed:
            from bg.journal import JournalError

            try:
                self._flush_roll(j)
            except JournalError as e:
                self.on_error(e.code)
                self._unstored = True
                self.log("journal: %s" % (e,))
        self.closed = True

    def reopen(self):
        """The cell is charged again: store what waited, then carry on."""
        self.closed = False
        self.drain()

    def drain(self):
        """Store the controller's confirmed actions, in order, and show them to watchers
        (nothing while ``closed``: they wait in the outbox)."""
        if self.closed:
            return
        ob = self.ctl.outbox
        rare = False
        while ob:
            k, f = ob.pop(0)
            if self.verbose:
                self.log("%s %s" % (R.name(k), _short(f)))
            self.store(k, f)
            for w in self.watchers:
                w(k, f)
            rare = rare or k == R.MATCH_START or k == R.GAME_END
        if rare:
            release()  # a new match's file is made, a game compacted: until next time

    def spare(self):
        """Give the reserve back to the heap for a reader that met a MemoryError (the link's
        fetch of a finished match: littlefs's file object in one piece, in a heap left in
        short runs by the match), but only while no match is being stored: in a match the
        reserve is the journal's. True when given; the next store takes it again first."""
        j = self.journal
        if self._reserve is None or j is None or j.active is not None:
            return False
        self._reserve = None
        gc.collect()
        return True

    def store(self, k, f):
        """Store one action; a MemoryError is met with the reserve (see ``__init__``), and when
        even that is gone it is a storage error like a full flash: the game goes on, the view
        shows it, and the journal stays a prefix of the match (nothing out of order)."""
        if self._reserve is None:  # given to a reader between matches (``spare``)
            try:
                self._reserve = bytearray(_RESERVE)
            except MemoryError:
                pass
        try:
            self._store(k, f)
        except MemoryError:
            if self._reserve is None:
                self._lost(ERR_NOMEM, "journal: out of memory, not stored")
                return
            self._reserve = None
            gc.collect()
            try:
                self._store(k, f)
            except MemoryError:
                self._lost(ERR_NOMEM, "journal: out of memory, not stored")
                return
            self.log("journal: stored from the reserve")
        if self._reserve is None:
            try:
                self._reserve = bytearray(_RESERVE)
            except MemoryError:
                pass  # the next store that needs it goes without

    def _lost(self, code, text):
        self.on_error(code)
        self._unstored = True
        self.log(text)

    def _store(self, k, f):
        j = self.journal
        if j is None:
            return
        from bg.journal import JournalError

        if k == R.MATCH_START:
            self._unstored = False
            self.pending_roll = None
        elif self._unstored:
            return  # the journal stays a prefix of the match (see the module's docstring)
        try:
            if k == R.MATCH_START:
                j.begin_match(f, self.ctl.board_seed())
            elif k == R.ROLL and self.ctl.joint_side < 0:
                self.pending_roll = f
                return
            elif k == R.PLAY and self.pending_roll is not None and self.pending_roll[0] == f[0]:
                r = self.pending_roll
                j.append(R.TURN, (f[0], r[1], r[2], f[1], f[2]))
                self.pending_roll = None  # only once stored: a retry must still have it
            elif k == R.MATCH_END:
                self._flush_roll(j)
                j.end_match(f[0], f[1], f[2])
            elif k == R.SEED_REVEAL:
                pass  # end_match wrote it
            else:
                self._flush_roll(j)
                j.append(k, f)
            self.on_error(0)
        except JournalError as e:
            self._lost(e.code, "journal: %s" % (e,))

    def _flush_roll(self, j):
        if self.pending_roll is not None:
            j.append(R.ROLL, self.pending_roll)
            self.pending_roll = None
