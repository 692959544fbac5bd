"""One match's dice on the board: the secret seed, its commitment, the player seed, the throw
counter, the seed file that survives a power cut, and the reveal after the match.

The derivation itself is :mod:`bg.dice`; this module adds the secrecy and the life cycle
(the host's verifier needs only the derivation). See docs/dice.md.

Example::

    >>> from bg.dice import SRC_HOST
    >>> f = Fairness(bytes(8), bytes(range(32)))   # journal MATCH_START (commitment) now
    >>> f.contribute(SRC_HOST, bytes(16))          # a host's seed: journal SEED_PART
    >>> f.mix_timing(123456)                       # a press: measured by the board itself
    >>> f.close_timing()                           # a host's part is in: the timing is left out
    >>> ps = f.fix()                               # the first throw may come
    >>> list(f.roll())                             # throw 0
    [4, 6]
    >>> f.end_match(); len(f.reveal())
    32
"""

import hashlib

from micropython import const

from bg.dice import (
    BOARD_SEED_LEN,
    MATCH_ID_LEN,
    MAX_COUNTER,
    NO_PLAYER_SEED,
    PLAYER_SEED_LEN,
    SRC_BUTTONS,
    DiceStream,
    SeedMixer,
    _check_len,
    commitment,
)

_TIMING_TAG = const(b"smartgammon-timing-v1")
_SECRET_MAGIC = const(b"SGD1")
SECRET_LEN = const(48)  # magic 4 + match id 8 + board seed 32 + check 4


class TimingMixer:
    """Player seed from button timing: every press's timestamp (microseconds, any wrap) goes
    into SHA-256; ``digest()`` gives ``SHA-256(_TIMING_TAG || t1(4) || t2(4) ...)[:16]``.

    Human timing jitter at microsecond resolution is unpredictable to the board's firmware
    author (not to the firmware itself: see docs/dice.md, threat model).
    """

    def __init__(self):
        self._h = hashlib.sha256(_TIMING_TAG)
        self.count = 0
        self._word = bytearray(4)

    def feed(self, ticks):
        w = self._word
        ticks &= 0xFFFFFFFF
        w[0] = ticks >> 24
        w[1] = (ticks >> 16) & 0xFF
        w[2] = (ticks >> 8) & 0xFF
        w[3] = ticks & 0xFF
        self._h.update(w)
        self.count += 1

    def digest(self):
        """The player seed (finalises the mixer)."""
        return self._h.digest()[:PLAYER_SEED_LEN]


class Fairness:
    """One match's dice: secret board seed, commitment, player seed, throw counter, reveal.

    Life cycle (the controller drives it; the journal stores what it says):

    1. ``Fairness.new(random, match_id)`` draws the board seed (radio already on, see
       docs/dice.md); ``secret()`` is written to the seed file, ``commitment`` journaled
       (MATCH_START) and published *before* any player entropy is taken.
    2. Before the first throw: ``contribute(SRC_HOST, seed16)`` for each host seed (journal a
       SEED_PART each) and ``mix_timing(ticks)`` for button presses; ``close_timing()`` turns
       the presses into the last contribution (journal it when it returns bytes) -- only
       when no host gave a part: the board measures the timing, so after a host's part it
       could grind it to choose the throws; a host's part is the last input when there is one.
    3. ``fix()`` freezes the player seed (SHA-256 over the contributions, ``bg.dice.SeedMixer``)
       before the first throw, so a power cut can never turn a seen throw into another one.
    4. ``roll()`` -> the next throw (each counter value is used once, in order).
    5. ``end_match()``; only then ``reveal()`` returns the board seed.

    After a power cut: ``Fairness(match_id, seed, None, counter, parts=journal's SEED_PARTs)``
    (or ``resume``) with the counter = number of throws in the journal, so the next throw is
    the same one again. ``player_seed`` (a 16-byte seed used verbatim) is for journals written
    before contributions existed (MATCH_START carried the seed).
    """

    def __init__(self, match_id, board_seed, player_seed=None, counter=0, over=False, parts=None):
        _check_len("match id", match_id, MATCH_ID_LEN)
        _check_len("board seed", board_seed, BOARD_SEED_LEN)
        if counter < 0 or counter > MAX_COUNTER:
            raise ValueError("throw counter out of range")
        self.match_id = bytes(match_id)
        self._seed = bytes(board_seed)
        self.commitment = commitment(match_id, board_seed)
        self.counter = counter
        self.over = over
        self._player = None
        self._mixer = None
        self._stream = None
        self._parts = None
        self._timing = None  # the source's ``timing(ticks)``, when it has one (see ``new``)
        if player_seed:
            self.set_player_seed(player_seed)
        for p in parts or ():  # the journal's, as written (also by firmware before the rule)
            self._take(p[0], p[1])
        if counter > 0 or over:
            self.fix()

    @classmethod
    def new(cls, random, match_id):
        """A fresh match: 32 bytes from the HAL ``Random`` part (``os.urandom`` on the ESP32).

        A source with a ``ready()`` method is asked first: the ESP32 backend answers False
        while the radio is off (the RNG is then only pseudo-random) and no seed is drawn."""
        ready = getattr(random, "ready", None)
        if ready is not None and not ready():
            raise ValueError("hardware RNG not ready (radio off): no dice seed drawn")
        seed = random.urandom(BOARD_SEED_LEN)
        if len(seed) != BOARD_SEED_LEN:
            raise ValueError("random source returned %d bytes" % len(seed))
        f = cls(match_id, seed)
        # A seeded simulator's source maps press times to a replayable sequence (docs/simulator.md)
        f._timing = getattr(random, "timing", None)
        return f

    @classmethod
    def resume(cls, secret, commitment_, player_seed, counter, over=False, parts=None):
        """Rebuild after a power cut from the seed file and the journal (commitment, player
        seed or contributions, number of throws recorded). Refuses a seed file that does not
        match."""
        match_id, seed = unpack_secret(secret)
        f = cls(match_id, seed, player_seed, counter, over, parts)
        if f.commitment != bytes(commitment_):
            raise ValueError("seed file does not match the journal's commitment")
        return f

    def secret(self):
        """The seed-file bytes (see :func:`pack_secret`); never send these over the link."""
        return pack_secret(self.match_id, self._seed)

    @property
    def fixed(self):
        return self._stream is not None

    def set_player_seed(self, seed):
        """Set a 16-byte player seed used verbatim (journals from before contributions, whose
        MATCH_START carried it); only before the seed is fixed."""
        if self.fixed or self._parts is not None:
            raise ValueError("player seed is fixed once the match has started")
        _check_len("player seed", seed, PLAYER_SEED_LEN)
        self._player = bytes(seed)

    @property
    def open(self):
        """A contribution is still accepted (no verbatim seed, no button timing, no throw)."""
        return not self.fixed and self._player is None and not (self._parts and self._parts.closed)

    def contribute(self, source, part):
        """Add a player-seed contribution (``SRC_HOST``: 16 bytes from a host; journal it as
        SEED_PART before anything else happens). ValueError once the seed is fixed, and for a
        board-measured part once a host's part is in (nothing the board controls enters after
        a host's part)."""
        if not self.open:
            raise ValueError("too late: the player seed is fixed")
        if source == SRC_BUTTONS and self._parts is not None and self._parts.hosts:
            raise ValueError("a host's part is in: nothing the board measures may follow it")
        self._take(source, part)

    def _take(self, source, part):
        if self._parts is None:
            self._parts = SeedMixer()
        self._parts.add(source, part)
        if source == SRC_BUTTONS:
            self._mixer = None

    def close_timing(self):
        """The button presses since the commitment as the last contribution: their 16-byte
        digest (journal it as SEED_PART buttons), or None when there were none or when a
        host gave a part (the board measured the presses: after a host's part they could be
        ground to choose the throws, so they are left out). After this only ``fix()`` and
        throws follow."""
        if not self.open:
            return None
        m = self._mixer
        if self._parts is None:
            self._parts = SeedMixer()
        if m is None or not m.count or self._parts.hosts:
            self._mixer = None
            self._parts.closed = True
            return None
        d = m.digest()
        self.contribute(SRC_BUTTONS, d)
        return d

    def mix_timing(self, ticks):
        """Mix a button press time into the player seed (ignored once closed or fixed)."""
        if not self.open:
            return
        if self._mixer is None:
            self._mixer = TimingMixer()
        if self._timing is not None:
            ticks = self._timing(ticks)
        self._mixer.feed(ticks)

    def fix(self):
        """Freeze and return the player seed (host seed, else button timing, else zeros)."""
        if self._stream is None:
            if self._player is None:
                if self._parts is not None:
                    self._player = self._parts.digest()
                else:  # no contribution API used: the pre-contribution rule (timing verbatim)
                    self._player = self._mixer.digest() if self._mixer else NO_PLAYER_SEED
            # the mixers (a hash state each) and the timing source are done with: a match
            # keeps only what its throws and its reveal read (the heap margin rule)
            self._mixer = self._parts = self._timing = None
            self._stream = DiceStream(self.match_id, self._seed, self._player)
        return self._player

    @property
    def player_seed(self):
        return self._player

    @property
    def pads(self):
        """The HMAC key pads of the board seed once the seed is fixed (None before): a match
        between two boards derives this board's shares with the same key
        (``bg.dice.joint.JointDice``'s ``pads``), so the board keeps them once."""
        s = self._stream
        return None if s is None else (s._ipad, s._opad)

    @property
    def dice(self):
        """The last throw's faces (a 2-byte buffer reused by every throw)."""
        return self._stream.dice if self._stream else bytearray(2)

    def roll(self):
        """The next throw: its two faces in a reused ``bytearray(2)``; the counter advances,
        so no throw can ever be taken back. The controller calls it only when the rules let a
        player roll (``app.controller``'s ``_throw``)."""
        if self._stream is None:
            raise ValueError("fix the player seed (and journal it) before the first throw")
        if self.over:
            raise ValueError("the match is over: no more throws")
        if self.counter > MAX_COUNTER:
            raise ValueError("throw counter exhausted")
        d = self._stream.derive(self.counter)
        self.counter += 1
        return d

    def end_match(self):
        self.fix()
        self.over = True

    def reveal(self):
        """The board seed -- only once the match is over."""
        if not self.over:
            raise ValueError("the dice seed is revealed only after the match ends")
        return self._seed


def _check4(data):
    return hashlib.sha256(data).digest()[:4]


def pack_secret(match_id, board_seed):
    """Seed-file layout (48 bytes): ``b"SGD1" || match_id(8) || board_seed(32) ||
    SHA-256(first 44 bytes)[:4]``."""
    _check_len("match id", match_id, MATCH_ID_LEN)
    _check_len("board seed", board_seed, BOARD_SEED_LEN)
    body = _SECRET_MAGIC + bytes(match_id) + bytes(board_seed)
    return body + _check4(body)


def unpack_secret(data):
    """``(match_id, board_seed)`` from seed-file bytes; ValueError if torn or foreign."""
    if len(data) != SECRET_LEN or bytes(data[0:4]) != _SECRET_MAGIC:
        raise ValueError("not a dice seed file")
    body = bytes(data[0:44])
    if _check4(body) != bytes(data[44:48]):
        raise ValueError("dice seed file is corrupted")
    return body[4:12], body[12:44]
