"""The match model the exporters and the library use: a match decoded from the board's record
bytes (``bg.record``) and replayed with the rules engine (``bg.engine`` for the checkers,
``bg.match`` for the cube, scores, Crawford and resignations, ``bg.dice.cup`` for the opening
roll), so every exporter sees the position before every action and every action has been
checked against the rules.

Example::

    >>> from gammon import model
    >>> m = model.load_match(record_bytes)          # doctest: +SKIP
    >>> m.names, m.length, m.final_score             # doctest: +SKIP
    (('Alice', 'Bob'), 5, (5, 2))
    >>> for a in m.games[0].actions:                 # doctest: +SKIP
    ...     print(a.side, a.kind, a.dice, a.text)

A file that is not a valid match (a bad checksum, an illegal play, actions out of order)
raises ``ValueError`` with one line naming the first bad action; nothing is guessed.
"""

import os
import time

from bg import match as bgmatch  # noqa: E402
from bg import notation, record  # noqa: E402

from gammon import _paths  # noqa: F401  (firmware/ on sys.path)

# Action kinds of the model (strings: they are what the JSON export writes).
PLAY = "play"
DOUBLE = "double"
TAKE = "take"
DROP = "drop"
BEAVER = "beaver"
AUTO_DOUBLE = "auto_double"
RESIGN = "resign"
RESIGN_ACCEPT = "resign_accept"
RESIGN_REJECT = "resign_reject"

END_REASONS = {
    record.END_BEAROFF: "bearoff",
    record.END_DROP: "drop",
    record.END_RESIGN: "resign",
    record.END_TIME: "time",
}
KIND_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


class Action:
    """One action of a game. ``pos`` is the position before it (bytes, ``bg.board`` layout),
    ``cube``/``owner`` the cube before it (owner -1 = centred). For a play: ``dice`` (in the
    order rolled), ``steps`` (flat tuple, mover's numbering), ``text`` (gnubg notation, ""
    for no move), ``after`` (the position after it), ``opening`` (True for the opening roll's
    play), ``flags`` (``bg.record`` PLAY flags). For cube actions ``value`` is the cube value
    offered/reached; for resignations the value offered (1 single, 2 gammon, 3 backgammon)."""

    __slots__ = (
        "kind",
        "side",
        "pos",
        "cube",
        "owner",
        "dice",
        "steps",
        "text",
        "after",
        "opening",
        "flags",
        "value",
        "index",
    )

    def __init__(self, kind, side, pos, cube, owner, **kw):
        self.kind = kind
        self.side = side
        self.pos = pos
        self.cube = cube
        self.owner = owner
        self.dice = kw.get("dice")
        self.steps = kw.get("steps", ())
        self.text = kw.get("text", "")
        self.after = kw.get("after", pos)
        self.opening = kw.get("opening", False)
        self.flags = kw.get("flags", 0)
        self.value = kw.get("value", 0)
        self.index = kw.get("index", 0)

    @property
    def illegal(self):
        """A play accepted by the opponent although illegal (casual setting, seed 000)."""
        return bool(self.flags & record.PLAY_CASUAL_ACCEPTED_ILLEGAL)

    def __repr__(self):
        return "Action(%s, side=%d, dice=%r, text=%r, value=%r)" % (
            self.kind,
            self.side,
            self.dice,
            self.text,
            self.value,
        )


class Game:
    """One game: ``number`` (1-based), ``score`` at its start (side 0, side 1), ``crawford``,
    ``openings`` (every opening throw as recorded, ties included), ``starter``, ``actions``,
    and once finished ``winner``, ``points``, ``result_kind`` (1/2/3), ``reason``
    (``bearoff``/``drop``/``resign``/``time``); ``final_pos`` (bytes) and ``cube``."""

    def __init__(self, number, score, crawford):
        self.number = number
        self.score = score
        self.crawford = crawford
        self.openings = []
        self.starter = -1
        self.actions = []
        self.winner = None
        self.points = 0
        self.result_kind = 0
        self.reason = None
        self.final_pos = None
        self.cube = 1
        self.owner = -1
        self.auto_doubles = 0

    @property
    def finished(self):
        return self.winner is not None

    def plays(self):
        return [a for a in self.actions if a.kind == PLAY]


class Match:
    """A whole match (or money session) as recorded by the board."""

    def __init__(self):
        self.match_id = b""
        self.unix_time = 0
        self.length = 0
        self.flags = 0
        self.auto_limit = 0
        self.clock = (0, 0)
        self.names = ("", "")
        self.commitment = b""
        self.player_seed = b""
        self.seed_parts = []  # SEED_PART (source, name, part): player-seed contributions
        self.games = []
        self.winner = None
        self.final_score = (0, 0)
        self.seed = None
        self.complete = False  # MATCH_END seen
        self.note = ""  # e.g. "the record ends with a damaged tail"

    # option flags
    @property
    def crawford(self):
        return bool(self.flags & record.OPT_CRAWFORD)

    @property
    def jacoby(self):
        return bool(self.flags & record.OPT_JACOBY)

    @property
    def beaver(self):
        return bool(self.flags & record.OPT_BEAVER)

    @property
    def casual(self):
        return bool(self.flags & record.OPT_CASUAL)

    @property
    def house_opening(self):
        return bool(self.flags & record.OPT_HOUSE_OPENING)

    @property
    def computer(self):
        """The side the board's own computer played (``app.opponent``; MATCH_START's
        ``OPT_COMPUTER0/1``), or None. Its name in ``names`` is its strength, e.g. "pubeval"."""
        if self.flags & record.OPT_COMPUTER0:
            return 0
        if self.flags & record.OPT_COMPUTER1:
            return 1
        return None

    @property
    def id_hex(self):
        return self.match_id.hex()

    @property
    def money(self):
        return self.length == 0

    def date_time(self):
        """``time.struct_time`` (UTC) of the match start, or None when the board had no clock."""
        return time.gmtime(self.unix_time) if self.unix_time else None

    def options_text(self):
        opts = []
        if self.length:
            if self.crawford:
                opts.append("crawford")
        else:
            if self.jacoby:
                opts.append("jacoby")
            if self.beaver:
                opts.append("beaver")
            if self.auto_limit:
                opts.append("auto-doubles:%d" % self.auto_limit)
        if self.house_opening:
            opts.append("house-opening")
        if self.casual:
            opts.append("casual")
        if self.computer is not None:
            opts.append("computer:%s" % ("white", "black")[self.computer])
        return ",".join(opts)

    def result_text(self):
        if self.winner is None:
            return "unfinished"
        return "%s won %d-%d" % (self.names[self.winner], self.final_score[0], self.final_score[1])


_PHASES = (
    "start",
    "match",
    "opening",
    "choice",
    "await_roll",
    "moving",
    "doubled",
    "resigning",
    "ended",
    "game_over",
    "match_over",
)  # indexed by bg.match's F_* (where the fold stands)


class _Fold(bgmatch.Fold):
    """``bg.match.Fold`` naming an illegal play in gnubg notation."""

    def play_text(self, pos, side, steps):
        if not all(0 <= s <= 25 for s in steps):
            return repr(steps)
        try:
            return notation.format_play(bytes(pos), side, steps)
        except ValueError:
            return repr(steps)


# the model's Action kind of each cube/resignation record, and its value from the fold before
_ACTIONS = {
    record.DOUBLE: DOUBLE,
    record.TAKE: TAKE,
    record.BEAVER: BEAVER,
    record.DROP: DROP,
    record.RESIGN: RESIGN,
    record.RESIGN_ACCEPT: RESIGN_ACCEPT,
    record.RESIGN_REJECT: RESIGN_REJECT,
}


class _Replay:
    """Builds the Match model from ``(kind, fields)`` actions. The rules -- checker plays,
    cube, scores, Crawford, Jacoby, resignations, whose turn, how a game ends -- are
    ``bg.match.Fold``'s (the same fold the board's controller runs): this class only records
    what the exporters need (the games, each action with the position and cube before it)."""

    def __init__(self):
        self.m = None
        self.g = None
        self.mt = _Fold()  # bg.match.Fold: the one fold of the record over the rules
        self.n = 0

    @property
    def pos(self):
        return self.mt.pos

    @property
    def phase(self):
        return _PHASES[self.mt.phase]

    @property
    def side(self):
        return self.mt.side

    @property
    def dice(self):
        d = self.mt.dice
        return (d[0], d[1]) if d[0] else None

    @property
    def score(self):
        return self.mt.score

    def fail(self, msg):
        raise ValueError("action %d: %s" % (self.n, msg))

    def feed(self, kind, f):
        self.n += 1
        mt = self.mt
        if self.m is not None and kind == record.MATCH_START:
            self.fail("unexpected MATCH_START")
        before = bytes(mt.pos)
        cube, owner = mt.cube, mt.owner
        resign = (mt.resign_offer, mt.resign_kind)
        dice = (mt.dice[0], mt.dice[1])
        opening = mt.opening_play
        try:
            mt.apply(kind, f)
        except ValueError as e:
            if kind == record.OPENING and str(e).startswith(("no opening", "no re-roll", "die faces")):
                self.fail("bad OPENING: %s" % e)
            self.fail(str(e))
        if kind == record.MATCH_START:
            m = self.m = Match()
            (
                m.match_id,
                m.unix_time,
                m.length,
                m.flags,
                m.auto_limit,
                c_res,
                c_delay,
                n0,
                n1,
                m.commitment,
                m.player_seed,
            ) = f
            m.clock = (c_res, c_delay)
            m.names = (n0, n1)
            return
        m = self.m
        g = self.g
        if kind == record.SEED_PART:
            m.seed_parts.append(f)
        elif kind == record.GAME_START:
            g = self.g = Game(f[0], (f[1], f[2]), bool(f[3] & record.GAME_CRAWFORD))
            m.games.append(g)
        elif kind == record.OPENING:
            g.openings.append((f[0], tuple(f[1])))
            if mt.side >= 0:
                g.starter = mt.side
        elif kind == record.AUTO_DOUBLE:
            self._add(AUTO_DOUBLE, -1, before, cube, -1, value=f[0])
        elif kind == record.PLAY:
            side, steps, flags = f
            self._add(
                PLAY,
                side,
                before,
                cube,
                owner,
                dice=dice,
                steps=tuple(steps),
                text=notation.format_play(before, side, steps),
                after=bytes(mt.pos),
                opening=opening,
                flags=flags,
            )
        elif kind in _ACTIONS:
            if kind == record.DOUBLE or kind == record.BEAVER:
                value = f[1]
            elif kind == record.TAKE or kind == record.DROP:
                value = 2 * cube
            elif kind == record.RESIGN:
                value = f[1]
            else:
                value = resign[1]
            self._add(_ACTIONS[kind], f[0], before, cube, owner, value=value)
        elif kind == record.GAME_END:
            winner, points, result_kind, reason = f
            g.winner = winner
            g.points = points
            g.result_kind = result_kind
            g.reason = END_REASONS[reason]
            g.final_pos = bytes(mt.pos)
        elif kind == record.MATCH_END:
            m.winner = f[0]
            m.complete = True
        elif kind == record.SEED_REVEAL:
            m.seed = f[0]
        if g is not None:
            g.cube = mt.cube
            g.owner = mt.owner
            g.auto_doubles = mt.autos

    def _add(self, kind, side, pos, cube, owner, **kw):
        g = self.g
        g.actions.append(Action(kind, side, pos, cube, owner, index=len(g.actions), **kw))


def build(actions):
    """A Match from an iterable of ``(kind, fields)`` actions (one match)."""
    r = _Replay()
    for kind, fields in actions:
        r.feed(kind, fields)
    if r.m is None:
        raise ValueError("no match in the record (no MATCH_START)")
    m = r.m
    m.final_score = (r.mt.score[0], r.mt.score[1])
    if m.winner is None and r.mt.is_over():
        m.winner = r.mt.match_winner()
    return m


def _records_after(data, at):
    """True if a well-formed record starts anywhere after the damaged one at ``at``: then the
    bytes after it are data (bit rot in the middle), not a torn append. The board's own rule
    (``bg.journal.recover._records_after``) over bytes in memory."""
    for k in range(at + 1, len(data)):
        try:
            record.decode_record(data, k)
            return True
        except (EOFError, ValueError, IndexError):
            pass
    return False


def damage(data, dec):
    """How a decoded stream ends: None (whole), ``"tail"`` (a torn or bad last record, what a
    power cut leaves) or ``"middle"`` (a bad record with well-formed records after it)."""
    if dec.status == record.OK:
        return None
    if dec.status == record.CORRUPT and _records_after(data, dec.valid):
        return "middle"
    return "tail"


# The largest file gammon reads as a journal, a transcript or an export: more than a board's
# whole flash holds, so a real file always fits, and a hostile one never costs more memory.
MAX_FILE = 4 << 20


def read_file(path):
    """The bytes of a file handed to gammon (OSError if unreadable); ValueError, one line, if it
    is larger than ``MAX_FILE`` -- checked before it is read, and again while reading (a file
    that grows, a device)."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        data = b"" if size > MAX_FILE else fh.read(MAX_FILE + 1)
    size = max(size, len(data))
    if size > MAX_FILE:
        raise ValueError(
            "too large: %d bytes (gammon reads files of at most %d MiB)" % (size, MAX_FILE >> 20)
        )
    return data


def split_matches(data, salvage=False):
    """Split a record byte stream into ``[(match_bytes, note)]``, one per MATCH_START, keeping each
    match's exact bytes (what the library stores). A damaged tail ends the last match with a
    note; a stream that starts with garbage raises ValueError. Damage in the middle (a bad
    record with good ones after it) raises ValueError naming the byte offset, unless
    ``salvage``: then the readable part before it is returned, with a note saying what was
    left out."""
    data = bytes(data)
    dec = record.Decoder(data, split_turns=False)
    starts = []
    pos = 0
    for kind, _f in dec:
        if kind == record.MATCH_START:
            starts.append(pos)
        pos = dec.valid
    hurt = damage(data, dec)
    if hurt == "middle":
        what = "%s, with %d bytes of well-formed records after it: damaged in the middle, not a torn tail" % (
            dec.error,
            len(data) - dec.valid,
        )
        if not salvage or not starts or starts[0] != 0:
            raise ValueError(
                what + "; nothing read ('gammon import --salvage' keeps the %d bytes before it)" % dec.valid
            )
    if not starts:
        if dec.status != record.OK:
            raise ValueError("not a board record: %s" % dec.error)
        raise ValueError("no match in the record (no MATCH_START)")
    if starts[0] != 0:
        raise ValueError("the record does not begin with MATCH_START")
    out = []
    ends = starts[1:] + [dec.valid]
    for a, b in zip(starts, ends):
        out.append((data[a:b], ""))
    if hurt == "middle":
        out[-1] = (
            out[-1][0],
            what + "; salvaged the %d bytes before it, the rest is not imported" % dec.valid,
        )
    elif hurt:
        out[-1] = (out[-1][0], "the record ends with a damaged tail (%s); read up to it" % dec.error)
    return out


def load_match(data):
    """Decode and replay one match's record bytes. Raises ValueError (one line) when the bytes
    are damaged before the end or any action breaks the rules."""
    data = bytes(data)
    dec = record.decode_stream(data)
    m = build(dec)
    hurt = damage(data, dec)
    if hurt == "middle":
        m.note = "the record is damaged in the middle (%s)" % dec.error
    elif hurt:
        m.note = "the record ends with a damaged tail (%s)" % dec.error
    return m
