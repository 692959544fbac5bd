"""``gammon remote``: a match between two boards in two places (docs/remote.md).

    gammon remote open --side 0            # a relay room at the club (gammon club join first)
    gammon remote join ROOM                # the other host takes the other seat
    gammon remote play ROOM [--board B]    # this board plays its seat's side; the other
                                           # side's decisions come from the other host
    gammon remote verify MINE.json THEIRS.json   # the joint dice, from both boards' transcripts
    gammon remote verify MATCH THEIRS.m          # ... or journals: a journal file, or a match
                                                 # of this host's library (id, prefix)

A joint transcript (one per board, ``gammon.formats.joint_transcript``) holds one board's
commitment, seed, shares and throws, the other board's commitment and shares as its host
received them, both hosts' parts and the proof that came with each (its host's key and
signature over both commitments). A board's journal of a match with another board holds the
same: its commitment (``MATCH_START``), the other board's (``JOINT_START``), both parts with
their proofs (``SEED_PART``), every throw, the other board's shares as it took them
(``JOINT_SHARE``) and its seed (``SEED_REVEAL``); its own shares are re-derived from the seed.
``verify`` names the key that signed each part in each transcript or journal (a part without
a proof there: *unproven*) and fails a proof that does not hold.
``verify`` exits 0 (PASS), 1 (FAIL: named), 2 (bad input).
"""

import json
import time

from bg.dice import SRC_HOST, SeedMixer
from bg.dice import joint_verify as J

from gammon.errors import UserError
from gammon.formats import joint_transcript
from gammon.formats.joint_transcript import to_dict as transcript  # noqa: F401 - the writer, by its old name


def from_journal(data, name):
    """``load``'s tuple from a board's journal (record bytes) of a two-board match: the
    first match in it that has a JOINT_START."""
    from bg import record

    side = ms = other = seed = None
    parts, throws, received, proofs = [], [], [], []
    for kind, f in record.decode_stream(data):
        if kind == record.MATCH_START:
            if side is not None:
                break  # the next match
            ms = f
            parts, throws, received, proofs = [], [], [], []
        elif kind == record.JOINT_START:
            side, other = f[0], bytes(f[1])
        elif kind == record.SEED_PART and f[0] == SRC_HOST:
            parts.append(bytes(f[2]))
            proofs.append(bytes(f[3]) if len(f) > 3 else b"")  # the host's packed proof
        elif kind == record.JOINT_SHARE:
            if f[0] != len(received):
                raise UserError("%s: the share of throw %d out of order" % (name, f[0]))
            received.append(bytes(f[1]))
        elif kind == record.OPENING:
            d = f[1]
            throws.extend(tuple(d[i : i + 2]) for i in range(0, len(d), 2))
        elif kind == record.ROLL:
            throws.append((f[1], f[2]))
        elif kind == record.SEED_REVEAL and side is not None:
            seed = bytes(f[0])
            break
    if side is None or ms is None:
        raise UserError("%s: no match with another board in this journal" % name)
    if seed is None:
        raise UserError("%s: the match is not over: its board has not revealed its seed" % name)
    b = J.Board(bytes(ms[0]), bytes(ms[9]), seed, throws, None)
    return side, b, other, parts, received, proofs, "journal"


def load(path):
    """``(side, Board, other_commitment, parts, other_shares, proofs, what)`` of a joint
    transcript file, a journal file, or a match of this host's library (id or unique prefix).
    ``proofs``: the packed proof that came with each part (b"": none); ``what``: "journal" or
    "transcript", for verify's words."""
    from pathlib import Path

    p = Path(path)
    if not p.exists() and not p.suffix and "/" not in path:  # a match id, not a file name
        from gammon.library import Library, LibraryError

        try:
            with Library.open(create=False) as lib:
                return from_journal(lib.data(path), path)
        except LibraryError as e:
            raise UserError("%s: no such file, and not a match in the library (%s)" % (path, e)) from None
    try:
        raw = p.read_bytes()
        if not raw.lstrip().startswith(b"{"):
            return from_journal(raw, path)
        obj = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        raise UserError("%s: not a readable joint transcript (%s)" % (path, e)) from None
    return joint_transcript.parse(obj, path) + ("transcript",)


def _proof_lines(name, what, parts, proofs, commit0, commit1):
    """``(lines, bad)``: whose key signed each part in one board's journal or transcript
    (``what``; ``proofs``, packed, b"" where it has none), and why a proof does not hold."""
    from gammon import dice_proof

    lines, bad = [], []
    signed = {}  # signature -> the part it proved: one signed part counts once
    for i, (part, blob) in enumerate(zip(parts, proofs)):
        who = "%s's %s, part %d (side %d's host)" % (name, what, i + 1, i)
        if not blob:
            lines.append(
                "%s: unproven: no proof %s with it" % (who, "journaled" if what == "journal" else "kept")
            )
            continue
        ok, why, fp = dice_proof.check_joint_packed(blob, commit0, commit1, part)
        sig = bytes(blob[-64:])
        if ok and sig in signed:
            ok, why = False, "the same signed part as part %d: a copy proves nothing" % (signed[sig] + 1)
        if ok:
            signed[sig] = i
            lines.append("%s: key %s's signature holds over both commitments" % (who, fp))
        else:
            bad.append("%s: %s" % (who, why))
    return lines, bad


def verify(a, b):
    """``(ok, message)`` over two loaded transcripts or journals (``load``), in either order."""
    if a[0] == b[0]:
        return False, "FAIL: both transcripts are of side %d's board" % a[0]
    if a[0] == 1:
        a, b = b, a
    (_sa, ba, oa, pa, ra, fa, wa), (_sb, bb, ob, pb, rb, fb, wb) = a, b
    # the shares each board really sent are those the other host received
    if ra is not None:
        bb.shares = ra
    if rb is not None:
        ba.shares = rb
    # each host remembered the other board's commitment from before the parts: a board that
    # published one commitment and revealed for another is caught here
    if oa != bb.commit:
        return False, "FAIL: side 1's board committed to another seed than the one side 0's host saw"
    if ob != ba.commit:
        return False, "FAIL: side 0's board committed to another seed than the one side 1's host saw"
    if pa != pb:
        return False, "FAIL: the two boards hold different player seed parts"
    if len(pa) > 8 or any(len(p) != 16 for p in pa):
        return False, "FAIL: player seed parts are 16 bytes each, at most 8"
    # each host signed its part over both commitments (gammon.dice_proof.make_joint): the
    # same proof holds in either board's journal or transcript, one of another match or
    # altered holds in none
    lines = []
    for name, what, parts, proofs in (("side 0's board", wa, pa, fa), ("side 1's board", wb, pb, fb)):
        more, bad = _proof_lines(name, what, parts, proofs, ba.commit, bb.commit)
        if bad:
            return False, "FAIL: a part's proof does not hold: " + "; ".join(bad)
        lines += more
    m = SeedMixer()
    for p in pa:
        m.add(SRC_HOST, p)
    ok, _, msg = J.verify_joint(ba, bb, m.digest())
    return ok, "\n".join([msg] + ["  " + line for line in lines])  # (the verdict first)


def cmd_verify(args):
    ok, msg = verify(load(args.mine), load(args.theirs))
    print(msg)
    return 0 if ok else 1


def _relay():
    from gammon.club.push import load_config
    from gammon.remote import Relay

    c = load_config()
    return Relay(c["url"], c["token"])


def cmd_open(args):
    r = _relay()
    print(
        "room %s, this host plays side %d; the other host runs: gammon remote join %s"
        % (r.create(args.side), r.seat, r.room)
    )


def cmd_join(args):
    r = _relay()
    print("room %s: this host plays side %d" % (args.room, r.join(args.room)))


def cmd_play(args):
    import sys

    from gammon.board_args import open_board

    r = _relay()
    seat = r.join(args.room)
    print(
        "room %s: this board plays side %d, the other host side %d; Ctrl-C to stop"
        % (args.room, seat, 1 - seat)
    )
    from gammon.remote import SeatFile

    # this seat's state on disk: a host restarted mid-match goes on where it stopped
    state = SeatFile.for_room(args.room, seat)
    from gammon import dice_proof
    from gammon.library import home

    key = dice_proof.host_key(home())  # this host's part is signed, the other host's must be
    p = remote_player(lambda: open_board(args), r, 1 - seat, sys.stdout, seat=state, dice_key=key)
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

    p = sub.add_parser("remote", help="a match between two boards in two places (the club relays)")
    rsub = p.add_subparsers(dest="remote_command", metavar="ACTION", required=True)
    q = rsub.add_parser("open", help="open a relay room at the club, taking one seat")
    q.add_argument("--side", type=int, choices=(0, 1), default=0, help="the side this host's board plays")
    q.set_defaults(func=cmd_open)
    q = rsub.add_parser("join", help="take the other seat of a relay room")
    q.add_argument("room")
    q.set_defaults(func=cmd_join)
    q = rsub.add_parser(
        "play", help="play the room's match on this board (the other side is the other host's)"
    )
    add_board_argument(q)
    q.add_argument("room")
    q.add_argument("--matches", type=int, metavar="N", help="stop after N matches ended (default: Ctrl-C)")
    q.set_defaults(func=cmd_play)
    q = rsub.add_parser("verify", help="check the joint dice from both boards' transcripts or journals")
    q.add_argument("mine")
    q.add_argument("theirs")
    q.set_defaults(func=cmd_verify)


AHEAD_S = 2.0  # a remote decision waiting this long for this board's turn: its copy again
RELAY_RETRY_S = 1.0  # the relay out of reach: asked again this often


def remote_player(connect, relay, remote_side, out, say=None, seat=None, dice_key=None):
    """A ``gammon play`` Player whose brain is the other board's host (``RemoteBrain``) and
    which sends this board's own side's decisions to the relay as they are journaled.
    ``seat``: a ``gammon.remote.SeatFile`` (``gammon remote play``: on disk, so a restarted
    host goes on where it stopped: its numbers, the last remote one taken, the joint dice);
    None: in memory. ``dice_key``: this host's dice key (``gammon.dice_proof``): its part is
    signed and the other host's must be; None: unsigned parts."""
    from gammon import live_copy
    from gammon.commands import play
    from gammon.remote import BoardDice, ClubError, RecordingFollow, RemoteBrain, SeatFile, match_hash

    class RemotePlayer(play.Player):
        def __init__(self):
            brain = RemoteBrain(relay, remote_side, say=say or self.say)
            play.Player.__init__(self, connect, brain, out)
            self.follow = RecordingFollow(remote_side)
            self.seat = seat if seat is not None else SeatFile(None)
            self.sent_seq = self.seat.acked  # the last number the relay took from this seat
            # match key -> how many of its decisions were posted (kept with the seat)
            self.sent_of = self.seat.data.setdefault("sent_of", {})
            self.brain.referee.last_seq = self.seat.taken
            # the last decision taken, until the board's records show it: a restarted host
            # hands it in again if the board lost it (checked against the board's copy first)
            self.brain.last = self.seat.last
            self.brain.again = True
            # the joint dice (docs/remote.md): this board's side is the other one's
            self.dice = BoardDice(1 - remote_side, self._send, key=dice_key)
            self.brain.referee.dice = self.dice
            self.dice_key = None
            self.relay_down = False  # said once while the relay is out of reach
            self.restore = self.seat.data.get("dice")  # a restarted host's exchange
            self.noted = 0  # refused remote messages posted to the board's notes (watch)

        def _send(self, body):
            self.seat.data["dice"] = self.dice.state()  # (its part or share in it first)
            self.seat.post(body)
            self._push()

        def _push(self):
            e = self.seat.push(relay)  # 409 (another program sends for this seat) raises
            self.sent_seq = self.seat.acked
            if e is not None:
                self.say("the relay did not take it (%s): sending again later" % e)

        def _save(self):
            self.seat.taken = self.brain.referee.last_seq
            self.seat.last = self.brain.last  # (in the same write as the number it used up)
            self.seat.data["dice"] = self.dice.state()
            self.seat.save()
            self._note_refused()

        def _note_refused(self):
            """Each newly refused remote message to this board's notes: ``gammon watch``
            shows them (the link carries no host text to the board's panel). A seat kept
            in memory only (no ``gammon remote play``) posts none."""
            from gammon import remote_notes

            ref = self.brain.referee.refused
            bid = getattr(self.client, "board_id", None)
            if len(ref) > self.noted and bid and self.seat.path is not None:
                path = remote_notes.path_for(bid)
                for seq, why in ref[self.noted :]:
                    remote_notes.post(path, "message %s: %s" % (seq, why))
            self.noted = len(ref)

        def _dice(self):
            """A new match the board published (its commitment, no throw yet): the joint
            dice begin; then each step of them."""
            f = self._restored()
            if f.key is not None and f.key != self.dice_key and f.r.g is None:
                ms = f.records[0][1]
                self.dice_key = f.key
                self.dice.match(bytes(ms[0]), bytes(ms[9]))
            if self.dice_key == f.key:
                self.dice.step(self.client, f)

        def _restored(self):
            """The live match's follow, a restarted host's saved exchange taken first when it
            is that match's."""
            f = self.follow
            if self.restore is not None and f.key is not None:
                if self.dice.restore(self.restore, f.records):
                    self.dice_key = f.key  # the saved exchange is the live match's
                self.restore = None
            return f

        def _flush(self):
            """Send this board's decisions the relay has not got yet: the board's own copy is
            the list, so a decision journaled while the link or the relay was down goes
            later, in order, and none twice."""
            f = self.follow
            if f.key is None:
                return
            n = self.sent_of.get(f.key, 0)
            end = self._ready(f, n)
            if n < end:
                # numbered and written down first (``SeatFile``), then sent, in order
                self.seat.sent.extend(f.outgoing[n:end])
                self.sent_of[f.key] = end
                self.seat.save()
            self._push()

        def _ready(self, f, n):
            """How many of the match's decisions may go (``n`` went already). With joint
            dice a decision on a throw goes only after this board's share of that throw
            (``BoardDice.mine``, asked of the board here first): the other host holds a
            decision for a turn its board has not reached, and its board throws only with
            that share. A throw and the play on it can reach this host together (in one
            batch of events, after a second without the relay, in the copy of a new link);
            sent in the records' order, the play went first and both boards waited for ever."""
            out = f.outgoing
            if not f.joint or n >= len(out):
                return len(out)
            have = 0
            if self.dice_key == f.key:  # (else its exchange starts on this tick's ``_dice``)
                have = len(self.dice.x.own_shares)
                if out[-1]["turn"] > have:
                    have = self.dice.mine(self.client)
            end = n
            while end < len(out) and out[end]["turn"] <= have:
                end += 1
            return end

        def _resync(self):
            """The board's live match as this host's from now on, each record once: in the
            copy or as an event, never both nor neither (``gammon.live_copy.settled``, as
            ``gammon play`` and ``gammon watch`` take it)."""
            f = RecordingFollow(remote_side)
            f.feed_bytes(live_copy.settled(self.client))
            self._adopt(f)

        def _adopt(self, f):
            """The board's copy ``f`` as this host's match from now on."""
            self.follow = f
            self.sent = None
            if self.dice_key is not None and self.dice_key == f.key:
                self.dice.board_has(f.records)  # (the board may have lost a share in a power cut)
            self._flush()

        def _open(self):
            """A new link: the board's copy, JOINT ASKED where its power cut lost its player's
            roll, and only then the HELLO. A board back from a power cut refuses its player's
            doubles and offers to resign until that HELLO ("remote player not connected":
            only this host knows whether the roll was asked for, its share gone to the
            other board), so no press slips in between the HELLO and the ask."""
            c = self.connect()
            self.client = c
            try:
                self._resync()
                f = self._restored()
                if self.dice_key is not None and self.dice_key == f.key:
                    self.dice.asked(c, f)
                play._hello(c, self.brain)
            except BaseException:
                self.client = None
                c.close()
                raise
            self.last_hello = self.clock()
            self.brain.again = True  # the last remote decision may have died with the old link

        def _feed(self, recs):
            play.Player._feed(self, recs)
            self._flush()

        def run(self, matches=None, idle=None):
            """``Player.run``, asking the relay for the remote side's decision every tick."""
            ended = 0
            quiet = 0.0
            while True:
                try:
                    if self.client is None:
                        self._open()
                    was_over = self.over()
                    recs = self.client.wait_events(0.2)
                    if recs:
                        quiet = 0.0
                        self._feed(recs)
                    else:
                        quiet += 0.2
                        if idle is not None and quiet >= idle:
                            return ended
                    self.sent = None  # a decision may come from the relay in any state
                    self._flush()
                    self._dice()
                    self._act()
                    a = self.brain.ahead_at
                    if a is not None and time.monotonic() - a >= AHEAD_S:
                        # the remote decision still waits for a turn this host has not seen
                        # its board reach: the board's copy again, should this host's fold
                        # lack a record
                        self.brain.ahead_at = None
                        self._resync()
                    self._save()
                    if self.over() and not was_over:  # (seen in an event, or in the board's copy)
                        ended += 1
                        self.say(
                            "match over: %d-%d, match hash %s (the other board shows the same)"
                            % (*self.follow.r.mt.score, match_hash(self.follow.records)[:16])
                        )
                        if matches is not None and ended >= matches:
                            return ended
                    if self.clock() - self.last_hello >= play.HEARTBEAT_S:
                        play._hello(self.client, self.brain)
                        self.last_hello = self.clock()
                except play.LinkError as e:
                    self._dropped(e)
                except ClubError as e:
                    if e.status in (401, 403, 409):
                        raise  # the token revoked, the seat not its, another program sending
                    # the relay out of reach (or busy): the board waits for the other side,
                    # what this side decided waits in the seat; both go on once it answers
                    if not self.relay_down:
                        self.say("the relay is out of reach (%s): trying again" % e)
                    self.relay_down = True
                    time.sleep(RELAY_RETRY_S)
                    continue
                if self.relay_down:
                    self.relay_down = False
                    self.say("the relay answers again")

    return RemotePlayer()
