"""``gammon play [--side 0|1] [--ply N]``: GNU Backgammon plays the board's computer side.

The board keeps playing the match itself -- its dice, its LEDs showing the computer's play,
the player moving those checkers, its recogniser confirming them, its journal. This command
only decides for the computer (link request DECIDE, docs/protocol.md): it follows the live
match record by record (``gammon.brain.Follow``), and at each of the computer's decision
points sends GNU Backgammon's play or cube answer (``gammon.brain.Brain``)::

    $ gammon play --ply 2
    gnubg 2-ply plays side 1 (black) on board "salon"; Ctrl-C to stop
    black (gnubg 2-ply) plays 13/7 8/7
    black (gnubg 2-ply) does not double
    white played 24/18 13/10 -- equity lost by white: 0.052 (best: 13/7 13/10)   (--learn)
    ...

The board waits for the host's decision while it hears from it (a HELLO every few seconds);
when the link drops, the board's own computer (pubeval) decides after at most 20 s, nothing
recorded is lost, and this command connects again and takes over at the next decision
(docs/controller.md "A host decides for the computer").
"""

import struct
import time

from bg import link as P
from bg import notation, record
from bg.link import decide as D
from bg.match import F_MATCH_OVER, F_RESIGNING

from gammon import live_copy
from gammon.brain import CUBE, MAX_PLIES, RESIGN, Brain, Follow
from gammon.errors import UserError
from gammon.link import LinkError

HEARTBEAT_S = 5.0  # a HELLO this often keeps the board waiting for us (its BRAIN_MS is 20 s)
RETRY_S = (1.0, 2.0, 4.0, 8.0)  # waits between reconnection attempts (the last one repeats)


def _hello(client, brain):
    try:
        # bit 7: a player at another board decides (``gammon remote``): the board waits for
        # them however long they think, and asks them to answer a resignation
        flag = 0x80 if getattr(brain, "remote", False) else 0
        client.decide(D.DEC_HELLO, bytes([brain.side | flag]) + brain.name.encode())
    except LinkError as e:
        if e.code == P.E_STATE:
            raise UserError("the board refused: %s (start gammon play between matches)" % e) from None
        raise


def _fresh(client):
    """The live match as the board holds it now (a Follow), empty when none is live."""
    f = Follow()
    f.feed_bytes(live_copy.copy(client))
    return f


def _text(brain, follow, d):
    r = follow.r
    name = r.m.names[brain.side] or "side %d" % brain.side
    who = name if name == brain.name else "%s (%s)" % (name, brain.name)
    kind, _turn, value = d
    if kind == RESIGN:
        return "%s resigns (%s)" % (who, ("a single game", "a gammon", "a backgammon")[value - 1])
    if kind == CUBE:
        if r.mt.phase == F_RESIGNING:
            return "%s %s the resignation" % (who, "accepts" if value else "rejects")
        if r.mt.offer >= 0:
            return "%s %s" % (who, "takes" if value else "drops")
        return "%s %s" % (who, "doubles" if value else "does not double")
    if not value:
        return "%s cannot move" % who
    return "%s plays %s" % (who, notation.format_play(r.mt.pos, brain.side, value))


class Player:
    """One ``gammon play`` session: ``connect()`` gives an authenticated ``Client`` (called
    again after the link dropped), ``out`` gets one line per decision and link event."""

    def __init__(self, connect, brain, out, sleep=time.sleep, clock=time.monotonic, credit=None, judge=None):
        self.connect = connect
        # judge(m, g, a): GNU Backgammon's verdict on each play of the player (``--learn``:
        # ``gammon.analyze.play_judge``), said after the play
        self.judge = judge
        # credit(match id hex, side, name): the library names this engine beside the board's
        # computer in a match it took over (``Library.credit``)
        self.credit = credit
        self.credited = set()
        self.brain = brain
        self.out = out
        self.sleep = sleep
        self.clock = clock
        self.client = None
        self.follow = Follow()
        self.sent = None  # the state (records folded) a decision was last sent for
        self.decisions = 0
        self.refused = 0
        self.reconnects = 0
        self.last_hello = 0.0

    def say(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def _open(self):
        c = self.connect()
        _hello(c, self.brain)
        self.client = c
        self._resync()
        self.last_hello = self.clock()

    def _resync(self):
        """The live match from the board's own copy, then the watch from there on, each record
        once: in the copy or as an event, never both nor neither (``gammon.live_copy.settled``:
        what the watch sent before the copy is dropped, the copy holds it)."""
        self.follow = Follow()
        self.follow.feed_bytes(live_copy.settled(self.client))
        self.sent = None

    def _act(self):
        f = self.follow
        d = self.brain.decide(f)
        if d is None or self.sent == f.r.n:
            return
        self.sent = f.r.n
        kind, turn, value = d
        if kind == CUBE:
            body = struct.pack("<HB", turn, 1 if value else 0)
            code = D.DEC_CUBE
        elif kind == RESIGN:  # (``gammon remote``: the player at the other board resigns)
            body = struct.pack("<HB", turn, value)
            code = D.DEC_RESIGN
        else:
            body = struct.pack("<H", turn) + bytes(value)
            code = D.DEC_PLAY
        line = _text(self.brain, f, d)
        try:
            self.client.decide(code, body)
        except LinkError as e:
            if e.code != P.E_STATE:
                raise
            # the match moved on meanwhile (the board decided itself), or this host missed a
            # record: the board's copy again, and a decision for where it really stands
            self.refused += 1
            self.say("(the board did not take it: %s)" % e)
            n = f.r.n
            self._resync()
            if self.follow.r.n != n:
                self._act()
            return
        self.decisions += 1
        self.last_hello = self.clock()  # every decision renews the board's wait as a HELLO does
        self.say(line)
        m = f.r.m
        if self.credit is not None and m is not None and m.names[self.brain.side] != self.brain.name:
            if m.id_hex not in self.credited:  # the records name the board's own computer
                self.credited.add(m.id_hex)
                try:
                    self.credit(m.id_hex, self.brain.side, self.brain.name)
                except UserError as e:  # the library is busy or full: the game goes on
                    self.say("(the library does not name %s yet: %s)" % (self.brain.name, e))

    def _feed(self, recs):
        for rec in recs:
            try:
                if rec is None:
                    raise ValueError("events were lost")
                for k, fl in record.decode_stream(rec):
                    self.follow.feed(k, fl)
                    if k == record.PLAY and self.judge is not None:
                        self._verdict()
            except ValueError:
                # lost events, or a record that does not follow (one was missed): the board's
                # copy holds this one and those before it
                self._resync()
                return

    def _verdict(self):
        """The player's play just recorded, judged by GNU Backgammon (``--learn``)."""
        from gammon.watch_view import verdict_line

        r = self.follow.r
        a = r.g.actions[-1] if r.g is not None and r.g.actions else None
        if a is None or a.kind != "play" or a.side == self.brain.side:
            return
        name = r.m.names[a.side] or ("white", "black")[a.side]
        self.say(
            "%s played %s -- %s" % (name, a.text or "no move", verdict_line(name, self.judge(r.m, r.g, a)))
        )

    def over(self):
        r = self.follow.r
        return r.m is not None and r.mt.phase == F_MATCH_OVER

    def run(self, matches=None, idle=None):
        """Decide until Ctrl-C, or until ``matches`` matches ended; ``idle`` seconds with no
        record ends it too (tests)."""
        ended = 0
        quiet = 0.0
        while True:
            try:
                if self.client is None:
                    self._open()
                    self._act()
                recs = self.client.wait_events(1.0)
                if recs:
                    quiet = 0.0
                    was_over = self.over()
                    self._feed(recs)
                    if self.over() and not was_over:
                        ended += 1
                        self.say("match over: %d-%d" % tuple(self.follow.r.mt.score))
                        if matches is not None and ended >= matches:
                            return ended
                    self._act()
                else:
                    quiet += 1.0
                    if idle is not None and quiet >= idle:
                        return ended
                if self.clock() - self.last_hello >= HEARTBEAT_S:
                    _hello(self.client, self.brain)
                    self.last_hello = self.clock()
            except LinkError as e:
                self._dropped(e)

    def _dropped(self, e):
        self.say("link lost (%s): the board plays on its own meanwhile; reconnecting" % e)
        if self.client is not None:
            try:
                self.client.close()
            except Exception:  # noqa: BLE001, S110 - the transport is gone already
                pass
        self.client = None
        for k in range(1000):
            self.sleep(RETRY_S[min(k, len(RETRY_S) - 1)])
            try:
                self._open()
            except LinkError as e2:
                self.say("(not yet: %s)" % e2)
                continue
            self.reconnects += 1
            self.say("link back: deciding again")
            self._act()
            return
        raise UserError("the board stayed out of reach") from None


def _credit(mid, side, name):
    from gammon.library import Library

    with Library.open() as lib:
        lib.credit(mid, side, name)


def cmd_play(args):
    import sys

    from gammon.board_args import open_board

    side = args.side
    if side is None:
        with open_board(args) as c:
            side = _fresh(c).computer_side()
        if side < 0:
            side = 1
    try:
        brain = Brain(side, args.ply)
    except ValueError as e:
        raise UserError(str(e)) from None
    print("%s plays side %d; Ctrl-C to stop" % (brain.name, side))
    judge = None
    if args.learn:
        from gammon.analyze import play_judge

        judge = play_judge(args.ply)
    p = Player(lambda: open_board(args), brain, sys.stdout, credit=_credit, judge=judge)
    try:
        p.run(matches=args.matches)
    except KeyboardInterrupt:
        pass
    finally:
        if p.client is not None:
            p.client.close()
    return 0


def register(sub):
    from gammon.board_args import add_board_argument

    p = sub.add_parser(
        "play",
        help="GNU Backgammon plays the board's computer side",
        description="Decide for the board's computer with GNU Backgammon (checker play and cube, "
        "at the match score); the board shows the plays on its LEDs as for its own computer.",
    )
    add_board_argument(p)
    p.add_argument(
        "--side", type=int, choices=(0, 1), help="the computer's side (default: the live match's, else 1)"
    )
    p.add_argument("--ply", type=int, default=0, metavar="N", help="look-ahead 0..%d (default 0)" % MAX_PLIES)
    p.add_argument("--matches", type=int, metavar="N", help="stop after N matches ended (default: Ctrl-C)")
    p.add_argument(
        "--learn",
        action="store_true",
        help="after each of your plays, GNU Backgammon's verdict: its best play and the equity yours lost",
    )
    p.set_defaults(func=cmd_play)
