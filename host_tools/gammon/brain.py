"""GNU Backgammon deciding for the board's computer side (``gammon play``).

``Follow`` replays the live match record by record (``gammon.model``'s replay, the rules'
one fold ``bg.match.Fold``) and counts the throws the way the board counts its turns (the
board refuses a decision for another turn). ``Brain.decide(follow)`` says what the computer's
side decides at that point, or None when nothing is its to decide:

- its play: GNU Backgammon's best play (``gnubg.findbestmoves``, cubeful at the match score:
  the match equity table, the cube, Crawford), at ``plies`` 0..2, checked legal with
  ``bg.engine`` before it is sent;
- whether to double (its turn, when ``bg.match`` allows it) and whether to take: the cube
  model of ``gammon analyze`` (``gammon.analyze``: gnubg's cubeless chances at the same depth,
  Janowski's live/dead cube at the match score), the same judgement that rates a player's
  cube decisions. It never beavers, never resigns; the board accepts resignations itself.

Example::

    >>> from gammon.brain import Brain, Follow
    >>> f = Follow()
    >>> for kind, fields in record.decode_stream(live_match_bytes):   # doctest: +SKIP
    ...     f.feed(kind, fields)
    >>> Brain(side=1, plies=2).decide(f)                                # doctest: +SKIP
    ('play', 12, (13, 7, 8, 7))
"""

from gammon import analyze, model  # noqa: I001  (puts firmware/ on sys.path for bg)
from bg import board
from bg import engine as movegen
from bg import ids as bgids
from bg import match as bgmatch
from bg import record

MAX_PLIES = 2
PLAY = "play"
CUBE = "cube"
RESIGN = "resign"  # a decision of a player at another board (``gammon.remote``), never an engine's


class Follow:
    """The live match as the board publishes it: ``feed(kind, fields)`` per record. ``r`` is
    the replay (``r.mt`` the fold: phase, side, dice, position, cube), ``throws`` the board's
    turn counter (a MATCH_START resets both; records before one are ignored)."""

    def __init__(self):
        self.r = model._Replay()
        self.throws = 0

    def feed(self, kind, fields):
        if kind == record.MATCH_START:
            self.r = model._Replay()
            self.throws = 0
        elif self.r.m is None:
            return  # the middle of a match whose start this host did not see
        self.r.feed(kind, fields)
        if kind == record.OPENING:
            self.throws += 1 if len(fields[1]) == 2 else 2  # the house opening: two throws
        elif kind == record.ROLL:
            self.throws += 1

    def feed_bytes(self, data):
        for k, f in record.decode_stream(data):
            self.feed(k, f)

    def computer_side(self):
        """The side the match's MATCH_START gives the board's computer, or -1."""
        m = self.r.m
        if m is None:
            return -1
        if m.flags & record.OPT_COMPUTER0:
            return 0
        return 1 if m.flags & record.OPT_COMPUTER1 else -1


class Brain:
    """GNU Backgammon for ``side`` at ``plies`` (0..2); ``name`` is what the board records
    ("gnubg 2-ply"). ``gnubg``: the in-process module (``pip install gnubg``; tests may pass
    their own)."""

    def __init__(self, side, plies=0, gnubg=None):
        if side not in (0, 1):
            raise ValueError("side must be 0 or 1")
        if not 0 <= plies <= MAX_PLIES:
            raise ValueError("plies must be 0..%d" % MAX_PLIES)
        self.side = side
        self.plies = plies
        self.gnubg = gnubg or analyze._gnubg()
        self.play_ec = self.gnubg.evalcontext(1, plies, 1, 1, 0.0)  # cubeful chequer play
        self.cube_ec = self.gnubg.evalcontext(0, plies, 1, 1, 0.0)  # cubeless, as analyze_cube
        self.gen = movegen.MoveGen()

    @property
    def name(self):
        return "gnubg %d-ply" % self.plies

    def decide(self, follow):
        """``(PLAY, turn, steps)``, ``(CUBE, turn, yes)`` or None (nothing is the computer's
        to decide in this state)."""
        r = follow.r
        mt = r.mt
        me = self.side
        if r.m is None or r.g is None:
            return None
        ph = mt.phase
        if ph == bgmatch.F_MOVING and mt.side == me:
            return PLAY, follow.throws, self.play(r)
        if ph == bgmatch.F_AWAIT and mt.side == me and mt.can_double(me):
            return CUBE, follow.throws, self.doubles(r)
        if ph == bgmatch.F_DOUBLED and mt.offer == 1 - me:
            return CUBE, follow.throws, self.takes(r)
        return None

    def play(self, r):
        """GNU Backgammon's best play for the side moving in replay ``r`` (steps, () when
        there is none), in the engine's canonical steps."""
        mt = r.mt
        me = mt.side
        d1, d2 = mt.dice[0], mt.dice[1]
        g = r.g
        gb = self.gnubg.positionfromid(bgids.position_id(mt.pos, me))
        ci = self.gnubg.cubeinfo(mt.cube, mt.owner, me, r.m.length, tuple(g.score), int(g.crawford), 0)
        moves = self.gnubg.findbestmoves(gb, ci, self.play_ec, (d1, d2))
        if not moves:
            return ()
        legal = self._legal(mt.pos, me, d1, d2, analyze._gnubg_steps(moves[0]["move"]))
        if legal is None:
            # the module's move tuple stops at the first checker borne off (gnubg's -1 ends
            # it): a play bearing off before its last step comes back cut short. Such plays
            # are chosen by gnubg's nets through gnubg_nn, which hands back the position after
            # the play (cubeless: in the bear-off the cube rarely changes the play)
            legal = self._nn_play(mt.pos, me, d1, d2)
        return legal

    def _legal(self, pos, side, d1, d2, steps):
        """``steps`` as the engine's canonical legal play, or None when they are not one."""
        try:
            end = self.gen.apply(bytearray(pos), side, steps)
        except ValueError:
            return None
        legal = self.gen.recognize(pos, side, d1, d2, end)
        return tuple(legal) if legal else None

    def _nn_play(self, pos, side, d1, d2):
        import gnubg_nn

        anboard = [list(h) for h in board.to_gnubg(pos, side)]
        moves, key = gnubg_nn.best_move(anboard, d1, d2, n=self.plies, b=1)
        if not moves:
            return ()
        end = board.from_gnubg(gnubg_nn.board_from_position_key(key), side_on_roll=1 - side)
        legal = self.gen.recognize(pos, side, d1, d2, end)
        if not legal:
            raise ValueError("gnubg's play %r is not legal for %d-%d" % (moves, d1, d2))
        return tuple(legal)

    def _evaluator(self, r, doubler):
        mt = r.mt
        return analyze._Evaluator(self.gnubg, self.cube_ec, r.m, r.g, mt.pos, doubler, mt.cube, mt.owner)

    def doubles(self, r):
        """Double now (the side on roll, before its throw)? Right when double/take or
        double/drop (whichever the taker picks) beats no double; never past what the side
        needs to win the match."""
        me = r.mt.side
        if r.m.length and r.mt.cube >= r.m.length - r.g.score[me]:
            return False
        ev = self._evaluator(r, me)
        return min(ev.dt, ev.dp) > ev.nd

    def takes(self, r):
        """Take the double offered in replay ``r``? When double/take costs the taker no more
        than double/drop (equities from the doubler's side)."""
        ev = self._evaluator(r, r.mt.offer)
        return ev.dt <= ev.dp
