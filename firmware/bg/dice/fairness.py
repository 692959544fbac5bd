"""One match's dice on the board: the secret seed, its commitment, the player seed, the throw
counter, the seed file that survives a power cut, and the reveal after the match.

The derivation itself is :mod:`bg.dice`; this module adds the secrecy and the life cycle
(the host's verifier needs only the derivation). See docs/dice.md.

Example::

    >>> f = Fairness(bytes(8), bytes(range(32)))
    >>> ps = f.fix()                  # player seed fixed (journal MATCH_START now)
    >>> list(f.roll())                # throw 0
    [1, 1]
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
    DiceStream,
    _check_len,
    commitment,
)

TIMING_TAG = b"smartgammon-timing-v1"
SECRET_MAGIC = b"SGD1"
SECRET_LEN = const(48)  # magic 4 + match id 8 + board seed 32 + check 4


class TimingMixer:
    """Player seed from button timing: every press's timestamp (microseconds, any wrap) goes
    into SHA-256; ``digest()`` gives ``SHA-256(TIMING_TAG || t1(4) || t2(4) ...)[:16]``.

    Human timing jitter at microsecond resolution is unpredictable to the board's firmware
    author (not to the firmware itself: see docs/dice.md, threat model).
    """

    def __init__(self):
        self._h = hashlib.sha256(TIMING_TAG)
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
       docs/dice.md); ``secret()`` is written to the seed file, ``commitment`` shown/journaled.
    2. Before any throw: ``set_player_seed(seed16)`` (host) or ``mix_timing(ticks)`` (buttons).
    3. ``fix()`` freezes the player seed and returns it: journal MATCH_START with it *before*
       the first throw, so a power cut can never turn a seen throw into a different one.
    4. ``roll()`` -> the next throw (each counter value is used once, in order).
    5. ``end_match()``; only then ``reveal()`` returns the board seed.

    After a power cut: ``Fairness.resume(secret, commitment, player_seed, counter)`` with the
    counter = number of throws in the journal, so the next throw is the same one again.
    """

    def __init__(self, match_id, board_seed, player_seed=None, counter=0, over=False):
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
        if player_seed is not None:
            self.set_player_seed(player_seed)
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
        return cls(match_id, seed)

    @classmethod
    def resume(cls, secret, commitment_, player_seed, counter, over=False):
        """Rebuild after a power cut from the seed file and the journal (commitment, player
        seed, number of throws recorded). Refuses a seed file that does not match."""
        match_id, seed = unpack_secret(secret)
        f = cls(match_id, seed, player_seed or NO_PLAYER_SEED, counter, over)
        if f.commitment != bytes(commitment_):
            raise ValueError("seed file does not match the journal's commitment")
        f.fix()  # MATCH_START (with the player seed) is in the journal already
        return f

    def secret(self):
        """The seed-file bytes (see :func:`pack_secret`); never send these over the link."""
        return pack_secret(self.match_id, self._seed)

    @property
    def fixed(self):
        return self._stream is not None

    def set_player_seed(self, seed):
        """Set the 16-byte player seed (from the host); only before the seed is fixed."""
        if self.fixed:
            raise ValueError("player seed is fixed once the match has started")
        _check_len("player seed", seed, PLAYER_SEED_LEN)
        self._player = bytes(seed)

    def mix_timing(self, ticks):
        """Mix a button press time into the player seed (ignored once fixed or when the host
        has set one: a host seed is used verbatim so the host can check it)."""
        if self.fixed or self._player is not None:
            return
        if self._mixer is None:
            self._mixer = TimingMixer()
        self._mixer.feed(ticks)

    def fix(self):
        """Freeze and return the player seed (host seed, else button timing, else zeros)."""
        if self._stream is None:
            if self._player is None:
                self._player = self._mixer.digest() if self._mixer else NO_PLAYER_SEED
            self._mixer = None
            self._stream = DiceStream(self.match_id, self._seed, self._player)
        return self._player

    @property
    def player_seed(self):
        return self._player

    @property
    def dice(self):
        """The last throw's faces (a 2-byte buffer reused by every throw)."""
        return self._stream.dice if self._stream else bytearray(2)

    def roll(self):
        """The next throw: its two faces in a reused ``bytearray(2)``; the counter advances,
        so no throw can ever be taken back. Use :class:`bg.dice.cup.Cup` to gate it by the rules."""
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
    body = SECRET_MAGIC + bytes(match_id) + bytes(board_seed)
    return body + _check4(body)


def unpack_secret(data):
    """``(match_id, board_seed)`` from seed-file bytes; ValueError if torn or foreign."""
    if len(data) != SECRET_LEN or bytes(data[0:4]) != SECRET_MAGIC:
        raise ValueError("not a dice seed file")
    body = bytes(data[0:44])
    if _check4(body) != bytes(data[44:48]):
        raise ValueError("dice seed file is corrupted")
    return body[4:12], body[12:44]
