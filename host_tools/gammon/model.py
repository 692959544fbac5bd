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

import time

from bg import board, notation, record  # noqa: E402
from bg import engine as movegen  # noqa: E402
from bg import match as bgmatch  # noqa: E402
from bg.dice.cup import CHOICE, DONE, Opening  # noqa: E402

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
        return ",".join(opts)

    def result_text(self):
        if self.winner is None:
            return "unfinished"
        return "%s won %d-%d" % (self.names[self.winner], self.final_score[0], self.final_score[1])


class _Replay:
    """Folds ``(kind, fields)`` actions into a Match, validating each against the rules: the
    checker play with ``bg.engine``, the cube, scores, Crawford and resignations with
    ``bg.match.Match`` (the engine's match logic; this class only tracks whose turn it is)."""

    def __init__(self):
        self.m = None
        self.g = None
        self.mt = None  # bg.match.Match: cube, score, Crawford, resignations
        self.pos = board.start_position()
        self.phase = "start"  # match, opening, choice, await_roll, moving, doubled, resigning,
        self.side = -1  # ended (by drop/resignation), game_over, match_over
        self.dice = None
        self.opening = None
        self.opening_play = False
        self.pending_end = None
        self.pending_resign = None
        self.n = 0

    @property
    def score(self):
        return self.mt.score if self.mt else [0, 0]

    def fail(self, msg):
        raise ValueError("action %d: %s" % (self.n, msg))

    def _add(self, kind, side, pos=None, cube=None, owner=None, **kw):
        g = self.g
        a = Action(
            kind,
            side,
            pos or bytes(self.pos),
            self.mt.cube if cube is None else cube,
            self.mt.owner if owner is None else owner,
            index=len(g.actions),
            **kw,
        )
        g.actions.append(a)
        return a

    def _sync_cube(self):
        self.g.cube = self.mt.cube
        self.g.owner = self.mt.owner
        self.g.auto_doubles = self.mt.autos

    def _rule(self, fn, *args):
        """Call a ``bg.match.Match`` method; its ValueError becomes this action's error."""
        try:
            return fn(*args)
        except ValueError as e:
            self.fail(str(e))

    def feed(self, kind, f):
        self.n += 1
        if self.m is None:
            if kind != record.MATCH_START:
                self.fail("a match must begin with MATCH_START, got %s" % record.name(kind))
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
            money = not m.length
            self.mt = self._rule(
                bgmatch.Match, m.length, money and m.jacoby, money and m.beaver, m.auto_limit if money else 0
            )
            self.phase = "match"
            return
        if kind == record.SEED_PART:
            if self.m.games:
                self.fail("a player seed contribution after the first game started")
            self.m.seed_parts.append(f)
            return
        handler = _HANDLERS.get(kind)
        if handler is None:
            self.fail("unexpected %s" % record.name(kind))
        if self.phase == "match_over" and kind not in (record.SEED_REVEAL, record.CLOCK):
            self.fail("%s after MATCH_END" % record.name(kind))
        if kind != record.GAME_START and kind not in (record.MATCH_END, record.SEED_REVEAL, record.CLOCK):
            if self.g is None or self.phase == "game_over":
                self.fail("%s outside a game" % record.name(kind))
        handler(self, self.m, f)
        if self.g is not None:
            self._sync_cube()

    # --- handlers -------------------------------------------------------------------

    def game_start(self, m, f):
        no, s0, s1, flags = f
        mt = self.mt
        if self.phase not in ("match", "game_over"):
            self.fail("GAME_START before the previous game ended")
        if (s0, s1) != tuple(mt.score):
            self.fail("GAME_START score %d-%d, expected %d-%d" % (s0, s1, mt.score[0], mt.score[1]))
        if no != len(m.games) + 1:
            self.fail("GAME_START number %d, expected %d" % (no, len(m.games) + 1))
        self._rule(mt.new_game)
        crawford = bool(flags & record.GAME_CRAWFORD)
        if m.length and not m.crawford:
            mt.crawford = False  # a match played without the Crawford rule
            mt.crawford_done = False
        elif crawford != mt.crawford:
            self.fail(
                "GAME_START %s the Crawford game, but the score says it %s"
                % ("marks" if crawford else "does not mark", "is" if mt.crawford else "is not")
            )
        self.g = Game(no, (s0, s1), crawford)
        m.games.append(self.g)
        board.set_start(self.pos)
        self.opening = Opening(m.house_opening)
        self.phase = "opening"
        self.side = -1

    def opening_throw(self, m, f):
        flags, dice = f
        o = self.opening
        try:
            if self.phase == "choice" and flags & record.OPEN_REROLL:
                o.reroll()
                o.feed(dice[0], dice[1])
            elif self.phase == "opening" and not flags & record.OPEN_REROLL:
                if bool(flags & record.OPEN_HOUSE) != m.house_opening:
                    self.fail("OPENING does not match the match's opening rule")
                o.feed(dice[0], dice[1])
                if len(dice) == 4:
                    o.feed(dice[2], dice[3])
            else:
                self.fail("unexpected OPENING")
        except ValueError as e:
            if str(e).startswith("action "):
                raise
            self.fail("bad OPENING: %s" % e)
        self.g.openings.append((flags, tuple(dice)))
        if o.state in (DONE, CHOICE):
            self.g.starter = o.starter
            self.side = o.starter
            self.dice = tuple(o.dice)
            self.phase = "moving" if o.state == DONE else "choice"
            self.opening_play = True
            self._rule(self.mt.start_turn, o.starter)
            self.mt.rolled_dice()

    def auto_double(self, m, f):
        (value,) = f
        if self.phase != "opening":
            self.fail("AUTO_DOUBLE is only for a tied opening roll")
        before = self.mt.cube
        if not self.mt.auto_double():
            self.fail("AUTO_DOUBLE not allowed (match play, or over the limit of %d)" % m.auto_limit)
        if value != self.mt.cube:
            self.fail("AUTO_DOUBLE to %d with the cube at %d" % (value, before))
        self._add(AUTO_DOUBLE, -1, cube=before, owner=-1, value=value)

    def roll(self, m, f):
        side, d1, d2 = f
        if self.phase != "await_roll" or side != self.side:
            self.fail("ROLL by side %d out of turn" % side)
        self.mt.rolled_dice()
        self.dice = (d1, d2)
        self.phase = "moving"
        self.opening_play = False

    def play(self, m, f):
        side, steps, flags = f
        if self.phase not in ("moving", "choice") or side != self.side:
            self.fail("PLAY by side %d out of turn" % side)
        d1, d2 = self.dice
        before = bytes(self.pos)
        if flags & record.PLAY_CASUAL_ACCEPTED_ILLEGAL:
            if not m.casual:
                self.fail("an illegal play accepted, but the match is not casual")
            try:
                for i in range(0, len(steps), 2):
                    board.apply_step(self.pos, side, steps[i], steps[i + 1])
            except ValueError as e:
                self.fail("impossible play %r: %s" % (steps, e))
            text = notation.format_play(before, side, steps)
        else:
            if not movegen.is_legal(self.pos, side, d1, d2, steps):
                txt = notation.format_play(before, side, steps) if _steps_ok(steps) else repr(steps)
                self.fail(
                    "illegal play %r with %d%d by %s in game %d"
                    % (txt or "(no move)", d1, d2, self.m.names[side] or "side %d" % side, self.g.number)
                )
            text = notation.format_play(before, side, steps)
            movegen.apply(self.pos, side, steps)
        self._add(
            PLAY,
            side,
            pos=before,
            dice=(d1, d2),
            steps=tuple(steps),
            text=text,
            after=bytes(self.pos),
            opening=self.opening_play,
            flags=flags,
        )
        self.opening_play = False
        self.side = 1 - side
        self.dice = None
        self.phase = "await_roll"
        if self.pos[50 + side] != board.NCHECKERS:
            self._rule(self.mt.start_turn, self.side)

    def double(self, m, f):
        side, value = f
        mt = self.mt
        if self.phase != "await_roll" or side != self.side:
            self.fail("DOUBLE by side %d out of turn" % side)
        if not mt.can_double(side):
            why = (
                "no doubling in the Crawford game"
                if mt.crawford
                else "side %d does not own the cube" % side
                if mt.owner not in (-1, side)
                else "the cube is at its limit"
            )
            self.fail("DOUBLE not allowed: %s" % why)
        if value != 2 * mt.cube:
            self.fail("DOUBLE to %d with the cube at %d" % (value, mt.cube))
        self._add(DOUBLE, side, value=value)
        mt.double(side)
        self.phase = "doubled"

    def _answer(self, side, what):
        if self.phase != "doubled" or side != 1 - self.mt.offer:
            self.fail("%s without a double to answer" % what)

    def take(self, m, f):
        (side,) = f
        self._answer(side, "TAKE")
        self._add(TAKE, side, value=2 * self.mt.cube)
        self.mt.take()
        self.phase = "await_roll"

    def beaver(self, m, f):
        side, value = f
        mt = self.mt
        self._answer(side, "BEAVER")
        if not mt.can_beaver():
            self.fail("BEAVER when beavers are not allowed")
        if value != 4 * mt.cube:
            self.fail("BEAVER to %d with the cube at %d" % (value, mt.cube))
        self._add(BEAVER, side, value=value)
        mt.beaver()
        mt.take()  # the record's BEAVER is the redouble and its acceptance in one action
        self.phase = "await_roll"

    def drop(self, m, f):
        (side,) = f
        self._answer(side, "DROP")
        self._add(DROP, side, value=2 * self.mt.cube)
        winner = self.mt.offer
        points = self.mt.drop()
        self.phase = "ended"
        self.pending_end = (winner, points, 1, record.END_DROP)

    def resign(self, m, f):
        side, value = f
        if self.phase not in ("await_roll", "moving", "choice"):
            self.fail("RESIGN at the wrong time")
        self._add(RESIGN, side, value=value)
        self._rule(self.mt.resign, side, value)
        self.pending_resign = (side, value, self.phase)
        self.phase = "resigning"

    def resign_answer(self, m, f, accept):
        (side,) = f
        if self.phase != "resigning" or side != 1 - self.pending_resign[0]:
            self.fail("resignation answered without an offer")
        rside, value, prev = self.pending_resign
        self._add(RESIGN_ACCEPT if accept else RESIGN_REJECT, side, value=value)
        if accept:
            points = self.mt.accept_resign()
            self.phase = "ended"
            self.pending_end = (side, points, value, record.END_RESIGN)
        else:
            self.mt.reject_resign()
            self.phase = prev
        self.pending_resign = None

    def game_end(self, m, f):
        winner, points, kind, reason = f
        g = self.g
        mt = self.mt
        if reason == record.END_BEAROFF:
            if self.phase != "await_roll" or self.pos[50 + winner] != board.NCHECKERS:
                self.fail("GAME_END by bear-off, but side %d has not borne off all checkers" % winner)
            k = board.game_result(self.pos, winner)
            exp = (winner, mt.game_value(k), k)
            if (winner, points, kind) != exp:
                self.fail(
                    "GAME_END %r does not match the final position (expected %r)"
                    % ((winner, points, kind), exp)
                )
            mt.end_game(winner, k)
        elif reason in (record.END_DROP, record.END_RESIGN):
            if self.phase != "ended":
                self.fail("GAME_END by %s without one" % END_REASONS[reason])
            if (winner, points, kind, reason) != self.pending_end:
                self.fail("GAME_END %r, expected %r" % ((winner, points, kind, reason), self.pending_end))
        elif reason == record.END_TIME:
            # a flag fall on the match clock: bg.match has no clock, the record says the stake
            self._rule(mt._finish, winner, points, bgmatch.END_RESIGN)
        else:
            self.fail("unknown GAME_END reason %d" % reason)
        g.winner = winner
        g.points = points
        g.result_kind = kind
        g.reason = END_REASONS[reason]
        g.final_pos = bytes(self.pos)
        self.phase = "game_over"

    def match_end(self, m, f):
        winner, s0, s1 = f
        if self.g is not None and self.phase != "game_over":
            self.fail("MATCH_END in the middle of a game")
        if (s0, s1) != tuple(self.mt.score):
            self.fail("MATCH_END score %d-%d, expected %d-%d" % (s0, s1, self.mt.score[0], self.mt.score[1]))
        m.winner = winner
        m.complete = True
        self.phase = "match_over"

    def seed_reveal(self, m, f):
        m.seed = f[0]

    def clock(self, m, f):
        pass  # clock readings are kept by the board; the exports do not carry them


def _steps_ok(steps):
    return all(0 <= s <= 25 for s in steps)


_HANDLERS = {
    record.GAME_START: _Replay.game_start,
    record.OPENING: _Replay.opening_throw,
    record.AUTO_DOUBLE: _Replay.auto_double,
    record.ROLL: _Replay.roll,
    record.PLAY: _Replay.play,
    record.DOUBLE: _Replay.double,
    record.TAKE: _Replay.take,
    record.BEAVER: _Replay.beaver,
    record.DROP: _Replay.drop,
    record.RESIGN: _Replay.resign,
    record.RESIGN_ACCEPT: lambda r, m, f: r.resign_answer(m, f, True),
    record.RESIGN_REJECT: lambda r, m, f: r.resign_answer(m, f, False),
    record.GAME_END: _Replay.game_end,
    record.MATCH_END: _Replay.match_end,
    record.SEED_REVEAL: _Replay.seed_reveal,
    record.CLOCK: _Replay.clock,
}


def build(actions):
    """A Match from an iterable of ``(kind, fields)`` actions (one match)."""
    r = _Replay()
    for kind, fields in actions:
        r.feed(kind, fields)
    if r.m is None:
        raise ValueError("no match in the record (no MATCH_START)")
    m = r.m
    m.final_score = tuple(r.mt.score)
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
