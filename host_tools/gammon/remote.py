"""``gammon remote``: one match between two boards in two places, relayed by the club.

Each board plays the remote player's side as it plays a host-driven computer (DECIDE,
docs/protocol.md): its host says HELLO for that side and sends that side's decisions. Here
those decisions come from the other board's host through the club's relay
(``gammon.club.remote``), and the host is the referee of what reaches its board: every
message is checked against the rules' one fold of the local board's own match
(``gammon.brain.Follow`` over ``bg.match.Fold``, every play with ``bg.engine``) before it is
sent; an illegal play, a message for another turn or out of its side's turn, a replayed or
reordered number is refused, shown, and never sent to the board (so never journaled).

Messages (JSON ``body`` of a relay message; ``turn`` is the board's throw counter, as in
DECIDE):

| body | the remote side... | DECIDE |
|---|---|---|
| ``{"kind": "play", "turn": t, "steps": [from, to, ...]}`` | played these checkers | PLAY |
| ``{"kind": "cube", "turn": t, "yes": true/false}`` | doubled / rolled; took / dropped | CUBE |
| ``{"kind": "resign", "turn": t, "value": 1..3}`` | offers to resign a single, gammon, backgammon | RESIGN |
| ``{"kind": "answer", "turn": t, "yes": true/false}`` | accepts / rejects this side's offer | CUBE |

docs/remote.md has the design (why a relay, the joint dice, what each side can do).
"""

import json
import struct
import time
import urllib.parse

from bg import match as bgmatch
from bg import record
from bg.link import decide as D

from gammon.brain import Follow
from gammon.club.push import ClubError, Pusher
from gammon.errors import UserError

PLAY = "play"
CUBE = "cube"
RESIGN = "resign"
ANSWER = "answer"
KINDS = (PLAY, CUBE, RESIGN, ANSWER)


class Refused(UserError):
    """A message from the remote side that the local board must not see (why in the text)."""


class Relay:
    """This host's seat in a relay room (HTTP to the club, ``gammon.club.push.Pusher``)."""

    def __init__(self, url, token, timeout=30.0):
        self.http = Pusher(url, token, timeout)
        self.room = None
        self.seat = -1

    def create(self, seat):
        r = self.http.request("POST", "/api/v1/remote", json.dumps({"seat": seat}).encode())
        self.room, self.seat = r["room"], r["seat"]
        return self.room

    def join(self, room):
        r = self.http.request("POST", "/api/v1/remote/%s/join" % urllib.parse.quote(room, safe=""))
        self.room, self.seat = r["room"], r["seat"]
        return self.seat

    def send(self, seq, body):
        path = "/api/v1/remote/%s/send" % urllib.parse.quote(self.room, safe="")
        return self.http.request("POST", path, json.dumps({"seq": seq, "body": body}).encode())["seq"]

    def recv(self, after, wait=0.0):
        """The other seat's messages numbered above ``after``: ``[(seq, body)...]``."""
        room = urllib.parse.quote(self.room, safe="")
        path = "/api/v1/remote/%s/recv?after=%d&wait=%g" % (room, after, wait)
        return [(m["seq"], m["body"]) for m in self.http.request("GET", path)["messages"]]


def _turn(body):
    t = body.get("turn")
    if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t <= 0xFFFF:
        raise Refused("a message needs its turn (the throw counter, 0..65535)")
    return t


class Referee:
    """The local board's match and the remote side's messages.

    ``feed(kind, fields)`` each record the local board publishes (its own match, as
    ``gammon play`` follows it); ``take(seq, body)`` a message of the remote side: checked,
    then ``forward(code, payload)`` (the DECIDE request to the board) -- or ``Refused`` and
    nothing is forwarded. ``outgoing(kind, fields)`` (called before ``feed``) turns a record
    of the local side's decision into the message for the other board."""

    def __init__(self, remote_side, forward, dice=None):
        if remote_side not in (0, 1):
            raise ValueError("the remote side is 0 or 1")
        self.side = remote_side
        self.forward = forward
        self.dice = dice  # a DiceExchange: the joint dice's messages go there, not to the board
        self.follow = Follow()
        self.records = []  # (kind, fields) of the local board's match: the copy a check folds
        self.last_seq = 0  # the last remote message taken
        self.refused = []  # (seq, why) of every refused message, for the panel and the log

    def feed(self, kind, fields):
        if kind == record.MATCH_START:
            self.records = []
        self.records.append((kind, fields))
        self.follow.feed(kind, fields)

    def _fold_with(self, kind, fields):
        """The match with one more record, folded by the rules on a copy (ValueError: refused)."""
        f = bgmatch.Fold(check=True)
        for k, fl in self.records:
            f.apply(k, fl)
        f.apply(kind, fields)
        return f

    def check(self, body):
        """``(code, payload)`` of the DECIDE that carries ``body`` to the board, or Refused."""
        if not isinstance(body, dict) or body.get("kind") not in KINDS:
            raise Refused("unknown message %r" % (body,))
        turn = _turn(body)
        mt = self.follow.r.mt
        me = self.side
        if self.follow.r.m is None or self.follow.r.g is None:
            raise Refused("no game is being played on this board")
        if turn != self.follow.throws:
            raise Refused("a message for turn %d, this board is at turn %d" % (turn, self.follow.throws))
        ph = mt.phase
        if body["kind"] == PLAY:
            steps = body.get("steps")
            if (
                not isinstance(steps, list)
                or len(steps) % 2
                or len(steps) > 8
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 25 for x in steps)
            ):
                raise Refused("a play is up to four steps (from, to), each 0..25")
            if ph != bgmatch.F_MOVING or mt.side != me:
                raise Refused("a play when it is not the remote side's to move")
            try:
                self._fold_with(record.PLAY, (me, tuple(steps), 0))
            except ValueError as e:
                raise Refused(str(e)) from None
            return D.DEC_PLAY, struct.pack("<H", turn) + bytes(steps)
        if body["kind"] == RESIGN:
            v = body.get("value")
            if v not in (1, 2, 3) or isinstance(v, bool):
                raise Refused("an offer to resign is 1 (single), 2 (gammon) or 3 (backgammon)")
            # the board takes an offer on its side's turn only (before or after its throw)
            if ph not in (bgmatch.F_AWAIT, bgmatch.F_MOVING) or mt.side != me:
                raise Refused("an offer to resign when it is not the remote side's turn")
            return D.DEC_RESIGN, struct.pack("<HB", turn, v)
        yes = body.get("yes")
        if body["kind"] == ANSWER:
            if not isinstance(yes, bool):
                raise Refused("an answer to an offer to resign says yes or no")
            if ph != bgmatch.F_RESIGNING or mt.resign_offer != 1 - me:
                raise Refused("an answer when this board's player offers no resignation")
            return D.DEC_CUBE, struct.pack("<HB", turn, 1 if yes else 0)
        if not isinstance(yes, bool):
            raise Refused("a cube message says yes or no")
        if ph == bgmatch.F_AWAIT and mt.side == me:
            if yes and not mt.can_double(me):
                raise Refused("the remote side may not double now")
        elif not (ph == bgmatch.F_DOUBLED and mt.offer == 1 - me):
            raise Refused("a cube action when the cube is not the remote side's")
        return D.DEC_CUBE, struct.pack("<HB", turn, 1 if yes else 0)

    def take(self, seq, body):
        """Check and forward one remote message; Refused (recorded in ``refused``) when it is
        replayed or reordered (the number is not taken) or not the remote side's to make now
        (the number is used up, nothing forwarded)."""
        if not isinstance(seq, int) or seq != self.last_seq + 1:
            e = Refused("message %r out of order: %d comes next" % (seq, self.last_seq + 1))
            self.refused.append((seq, str(e)))
            raise e
        # from here on the number is used up: a refused message is shown, never forwarded,
        # and the remote side must send a valid one under the next number
        self.last_seq = seq
        try:
            if isinstance(body, dict) and body.get("kind") in DICE_KINDS:
                if self.dice is None:
                    raise Refused("a dice message, but this match has no joint dice")
                self.dice.take(body)
                return None
            code, payload = self.check(body)
        except Refused as e:
            self.refused.append((seq, str(e)))
            raise
        self.forward(code, payload)
        return code, payload

    def outgoing(self, kind, fields):
        """The message for the other board when record ``(kind, fields)`` (not yet fed) is a
        decision of the local side, else None."""
        return outgoing(self.follow, self.side, kind, fields)


def outgoing(follow, remote_side, kind, fields):
    """The message for the other board when record ``(kind, fields)``, about to be fed to
    ``follow``, is a decision of the local side (``1 - remote_side``), else None."""
    mt = follow.r.mt
    mine = 1 - remote_side
    t = follow.throws
    if kind == record.PLAY and fields[0] == mine:
        return {"kind": PLAY, "turn": t, "steps": list(fields[1])}
    if kind == record.DOUBLE and fields[0] == mine:
        return {"kind": CUBE, "turn": t, "yes": True}
    if (
        kind == record.ROLL
        and fields[0] == mine
        and mt.can_double(mine)
        and not getattr(follow, "joint", False)
    ):
        # could double and rolled (with joint dice the share of the throw says so, and comes
        # before the throw: ``BoardDice``)
        return {"kind": CUBE, "turn": t, "yes": False}
    if kind in (record.TAKE, record.DROP) and fields[0] == mine:
        return {"kind": CUBE, "turn": t, "yes": kind == record.TAKE}
    if kind == record.RESIGN and fields[0] == mine:
        return {"kind": RESIGN, "turn": t, "value": fields[1]}
    if kind in (record.RESIGN_ACCEPT, record.RESIGN_REJECT) and fields[0] == mine:
        return {"kind": ANSWER, "turn": t, "yes": kind == record.RESIGN_ACCEPT}
    return None


COMMIT = "commit"
PART = "part"
SHARE = "share"
REVEAL = "reveal"
DICE_KINDS = (COMMIT, PART, SHARE, REVEAL)


def _hexfield(body, key, n):
    v = body.get(key)
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else None
    except ValueError:
        b = None
    if b is None or len(b) != n:
        raise Refused("%s must be %d bytes (hex)" % (key, n))
    return b


class DiceExchange:
    """The joint dice between two hosts (docs/dice.md §9), checked in the order that makes
    them fair: both commitments first, then the hosts' parts, then each throw's shares in
    counter order, the seeds at the end. This host's ``own_*`` come from its board; ``take``
    checks what the other host sends (Refused, and nothing changes, when it is out of that
    order, another commitment, a share for another throw, a seed its commitment does not
    bind); ``transcript()`` is this board's joint transcript for ``gammon remote verify``."""

    def __init__(self, side, match_id, own_commit, require_proofs=False):
        from bg.dice import COMMIT_LEN, MATCH_ID_LEN

        if len(match_id) != MATCH_ID_LEN or len(own_commit) != COMMIT_LEN:
            raise ValueError("a match id of 8 bytes and a commitment of 32")
        self.side = side
        self.match_id = bytes(match_id)
        self.own_commit = bytes(own_commit)
        self.other_commit = None
        self.other_match_id = None
        self.parts = [None, None]  # by side
        self.proofs = [b"", b""]  # by side: the packed proof sent with each part (``gammon.dice_proof``)
        # the other host's part must carry a proof that holds (a host with a dice key asks it)
        self.require_proofs = require_proofs
        self.own_part_sent = False
        self.other_shares = []
        self.own_shares = []
        self.throws = []
        self.other_seed = None

    # what this host sends (each returns the message body)
    def commit_message(self):
        return {"kind": COMMIT, "match_id": self.match_id.hex(), "commitment": self.own_commit.hex()}

    def commitments(self):
        """Both boards' commitments, side 0's first (what a part's proof signs)."""
        if self.side == 0:
            return self.own_commit, self.other_commit
        return self.other_commit, self.own_commit

    def part_message(self, part, proof=b""):
        if self.other_commit is None:
            raise ValueError("a part goes only after both commitments are known")
        if self.own_part_sent:
            raise ValueError("this host's part was sent already")
        self.parts[self.side] = bytes(part)
        self.proofs[self.side] = bytes(proof)
        self.own_part_sent = True
        body = {"kind": PART, "part": bytes(part).hex()}
        if proof:
            body["proof"] = bytes(proof).hex()
        return body

    def signed_part(self, key, nonce):
        """This host's part and its message: the hash of its dice ``key``'s signature over both
        commitments (``gammon.dice_proof.make_joint``), the packed proof beside it."""
        from gammon import dice_proof

        part, proof = dice_proof.make_joint(key, *self.commitments(), nonce)
        return self.part_message(part, dice_proof.pack(proof))

    def player_seed(self):
        from bg.dice import SRC_HOST, SeedMixer

        if None in self.parts:
            raise ValueError("both hosts' parts are not in yet")
        m = SeedMixer()
        for p in self.parts:
            m.add(SRC_HOST, p)
        return m.digest()

    def share_message(self, k, share):
        if k != len(self.own_shares):
            raise ValueError("shares go in throw order")
        self.own_shares.append(bytes(share))
        return {"kind": SHARE, "k": k, "share": bytes(share).hex()}

    def thrown(self, dice):
        """The throw the board made from both shares (recorded for the transcript)."""
        self.throws.append((dice[0], dice[1]))

    def take(self, body):
        from bg.dice import commitment

        kind = body.get("kind")
        if kind == COMMIT:
            if self.other_commit is not None:
                raise Refused("a second commitment: the other board committed already")
            c = _hexfield(body, "commitment", 32)
            mid = _hexfield(body, "match_id", 8)
            if c == self.own_commit:
                raise Refused("the other board sent this board's own commitment")
            self.other_commit, self.other_match_id = c, mid
        elif kind == PART:
            from gammon import dice_proof

            if self.other_commit is None or self.parts[1 - self.side] is not None:
                raise Refused("a part before both commitments are known, or a second one")
            part = _hexfield(body, "part", 16)
            proof = b""
            if "proof" in body or self.require_proofs:
                # signed over the two commitments this host knows: one of another match, or
                # altered on the way, is refused before either board has the part
                proof = _hexfield(body, "proof", dice_proof.PACKED_LEN)
                ok, why, _fp = dice_proof.check_joint_packed(proof, *self.commitments(), part)
                if not ok:
                    raise Refused("the other host's part: " + why)
            self.parts[1 - self.side] = part
            self.proofs[1 - self.side] = proof
        elif kind == SHARE:
            k = body.get("k")
            if None in self.parts or k != len(self.other_shares):
                raise Refused(
                    "a share for throw %r, throw %d is due (after both parts)" % (k, len(self.other_shares))
                )
            self.other_shares.append(_hexfield(body, "share", 32))
        elif kind == REVEAL:
            seed = _hexfield(body, "seed", 32)
            if self.other_commit is None or commitment(self.other_match_id, seed) != self.other_commit:
                raise Refused("the other board's revealed seed does not match its commitment")
            self.other_seed = seed
        else:
            raise Refused("unknown dice message %r" % (kind,))
        return self.other_shares[-1] if kind == SHARE else None

    def transcript(self, own_seed):
        """This board's joint transcript (``gammon.formats.joint_transcript``), both parts'
        proofs in it as they came (b"": a part sent without one)."""
        from gammon.formats import joint_transcript

        return joint_transcript.to_dict(
            self.side,
            self.match_id,
            self.own_commit,
            own_seed,
            self.other_commit,
            list(self.parts),
            self.own_shares,
            self.throws,
            self.other_shares,
            list(self.proofs),
        )

    def state(self):
        """What a restarted host needs to go on with this exchange (JSON; ``from_state``)."""

        def h(b):
            return None if b is None else b.hex()

        return {
            "side": self.side,
            "match_id": self.match_id.hex(),
            "own_commit": self.own_commit.hex(),
            "other_commit": h(self.other_commit),
            "other_match_id": h(self.other_match_id),
            "parts": [h(p) for p in self.parts],
            "proofs": [p.hex() for p in self.proofs],
            "require_proofs": self.require_proofs,
            "own_part_sent": self.own_part_sent,
            "own_shares": [s.hex() for s in self.own_shares],
            "other_shares": [s.hex() for s in self.other_shares],
            "throws": [list(t) for t in self.throws],
            "other_seed": h(self.other_seed),
        }

    @classmethod
    def from_state(cls, d):
        def u(v):
            return None if v is None else bytes.fromhex(v)

        x = cls(d["side"], bytes.fromhex(d["match_id"]), bytes.fromhex(d["own_commit"]))
        x.other_commit, x.other_match_id = u(d["other_commit"]), u(d["other_match_id"])
        x.parts = [u(p) for p in d["parts"]]
        x.proofs = [bytes.fromhex(p) for p in d.get("proofs", ("", ""))]
        x.require_proofs = bool(d.get("require_proofs", False))
        x.own_part_sent = bool(d["own_part_sent"])
        x.own_shares = [bytes.fromhex(s) for s in d["own_shares"]]
        x.other_shares = [bytes.fromhex(s) for s in d["other_shares"]]
        x.throws = [tuple(t) for t in d["throws"]]
        x.other_seed = u(d["other_seed"])
        return x


class BoardDice:
    """This host's part of the joint dice: between its board (link request JOINT and
    PLAYER_SEED, docs/protocol.md) and the other host (a ``DiceExchange`` through the relay).

    ``match(match_id, commitment)`` when the board publishes a new match: this board's
    commitment goes to the other host. ``take(body)`` the other host's dice messages (the
    referee's ``dice``). ``step(client)`` moves what can move, in the order that makes the
    dice fair: the other board's commitment to the board (JOINT START) and only then this
    host's part to the other host; both parts to the board, side 0's first; each share the
    other host sent to the board (the throw due; a share the board is not yet at is handed in
    again on the next step); this board's share of the next throw to the other host once the
    board gives it (it does only when that throw is asked for on the board). The other board's
    share of a throw its side could have doubled before is also its "rolled": given ``follow``
    (this board's match), the board's computer is told so (DECIDE CUBE no) once this board
    has that side on roll -- a separate "rolled" message would come after the throw, which
    waits for both shares. ``send(body)`` sends one message to the relay (the seat's next
    number)."""

    def __init__(self, side, send, urandom=None, key=None):
        import os

        self.side = side  # the side this board plays
        self.send = send
        # this host's dice key (``gammon.dice_proof.host_key``): its part is signed, and the
        # other host's must be; None: a random part, no proof either way
        self.key = key
        self.urandom = urandom or os.urandom
        self.x = None  # the live match's DiceExchange
        self.started = False  # the board took the other board's commitment
        self.parts_in = 0  # parts handed to the board
        self.shares_in = 0  # the other board's shares handed to the board
        self.rolled = -1  # the last throw whose "rolled" went to the board
        self.ask = False  # a copy fetched again: tell the board a roll its power cut lost
        self.early = []  # the other host's messages before this board's match began

    def match(self, match_id, commitment):
        self.x = DiceExchange(self.side, match_id, commitment, require_proofs=self.key is not None)
        self.started = False
        self.parts_in = self.shares_in = 0
        self.send(self.x.commit_message())
        early, self.early = self.early, []
        for body in early:
            self.x.take(body)

    def state(self):
        """What a restarted host needs (JSON): the exchange with the other host (this host's
        part and every share sent and taken), the last "rolled" told, the early messages.
        Its own part is in it before the part goes anywhere (``send`` writes the state
        first), so a restarted host never sends another part."""
        return {"x": None if self.x is None else self.x.state(), "rolled": self.rolled, "early": self.early}

    def restore(self, d, records):
        """A restarted host: the exchange ``state`` saved, if it is the one of the board's
        live match ``records`` ((kind, fields) from its MATCH_START: the board's copy). What
        was handed to the board is read from those records, not the saved state (the board's
        journal is the truth, and a part handed in again would be taken as the other side's).
        Returns True when the saved exchange is that match's (else nothing changes)."""
        x = d.get("x") if isinstance(d, dict) else None
        if x is None or not records or records[0][0] != record.MATCH_START:
            return False
        if bytes(records[0][1][0]).hex() != x["match_id"]:
            return False  # another match began while this host was away
        self.x = DiceExchange.from_state(x)
        self.rolled = d.get("rolled", -1)
        self.early = list(d.get("early", []))
        self.board_has(records)
        return True

    def board_has(self, records):
        """What was handed to the board, read from its live match's ``records`` (its copy,
        fetched again: after its power cut the last records it took may be gone, its
        "rolled" too), so each is handed in again where the board lost it."""
        from bg.dice import SRC_HOST

        self.started = any(k == record.JOINT_START for k, f in records)
        self.parts_in = sum(1 for k, f in records if k == record.SEED_PART and f[0] == SRC_HOST)
        self.shares_in = sum(1 for k, f in records if k == record.JOINT_SHARE)
        self.rolled = -1
        self.ask = True

    def take(self, body):
        if self.x is None:
            # the other board began first: kept (in order) until this one publishes its match
            self.early.append(body)
            return None
        return self.x.take(body)

    def step(self, client, follow=None):
        from bg import link as P
        from bg.link import joint as LJ

        from gammon.link import LinkError

        x = self.x
        if x is None or x.other_commit is None:
            return
        if not self.started:
            r = client.joint(LJ.J_START, bytes([self.side]) + x.other_commit)
            if bytes(r[9:41]) != x.own_commit:
                raise Refused("the board answered with another commitment than it published")
            self.started = True
            if self.key is not None:
                self.send(x.signed_part(self.key, self.urandom(16)))
            else:
                self.send(x.part_message(self.urandom(16)))
        if None in x.parts:
            return
        while self.parts_in < 2:
            # naming the other board's commitment: the board takes no part naming its own in a
            # match with another board (a host's automatic seed would come first); its proof
            # journaled beside it, so either board's journal proves both parts
            i = self.parts_in
            try:
                client.send_player_seed(x.other_commit, x.parts[i], x.proofs[i])
            except LinkError as e:
                if e.code != P.E_PAYLOAD or not x.proofs[i]:
                    raise
                client.send_player_seed(x.other_commit, x.parts[i])  # firmware before proofs
            self.parts_in += 1
        while self.shares_in < len(x.other_shares):
            k = self.shares_in
            try:
                client.joint(LJ.J_SHARE, struct.pack(">I", k) + x.other_shares[k])
            except LinkError:
                return  # not the throw due on this board yet: again on the next step
            self.shares_in += 1
        self.asked(client, follow)
        if follow is not None and follow.r.g is not None:
            mt = follow.r.mt
            t = follow.throws
            other = 1 - self.side
            if (
                t < len(x.other_shares)
                and t != self.rolled
                and mt.phase == bgmatch.F_AWAIT
                and mt.side == other
                and mt.can_double(other)
            ):
                try:
                    client.decide(D.DEC_CUBE, struct.pack("<HB", t, 0))
                except LinkError:
                    pass  # the board moved on (or decided itself): nothing to tell
                self.rolled = t
        self.mine(client)

    def asked(self, client, follow):
        """Once after the board's copy was fetched again (``board_has``): when this board's
        share of the throw due went out but the board waits for its player's ROLL, a power cut
        lost the ask (the journal holds none), and a CUBE press now would double on a turn the
        other board may have thrown: JOINT ASKED, the ask again. ``remote_player`` calls it on
        a new link before its HELLO: until that HELLO the board refuses its player's doubles
        and offers to resign ("remote player not connected"), so none slips in between."""
        from bg.link import joint as LJ

        from gammon.link import LinkError

        x = self.x
        if not self.ask or x is None or follow is None or follow.r.g is None:
            return
        self.ask = False
        mt = follow.r.mt
        t = follow.throws
        if t < len(x.own_shares) and mt.phase == bgmatch.F_AWAIT and mt.side == self.side:
            try:
                client.joint(LJ.J_ASKED, struct.pack(">I", t))
            except LinkError:
                pass  # asked again already (or firmware without it): nothing to tell

    def mine(self, client):
        """This board's shares the other host has not had yet, each to it once the board gives
        it (only once its throw is asked for there, or thrown), in throw order; returns how
        many it has had. ``remote_player`` asks before it sends a decision on a throw: the
        other host takes its seat's messages in order and holds a decision for a turn its
        board has not reached, which it reaches only with this board's share of that throw
        -- a play sent before it stopped the match on both boards."""
        from bg.link import joint as LJ

        from gammon.link import LinkError

        x = self.x
        if x is None or None in x.parts:
            return 0
        while True:
            k = len(x.own_shares)
            try:
                r = client.joint(LJ.J_MINE, struct.pack(">I", k))
            except LinkError:
                return k  # that throw is not asked for on this board yet
            self.send(x.share_message(k, bytes(r[5:37])))


class SeatFile:
    """This host's seat in a relay room, kept where a restarted host finds it
    (``$GAMMON_HOME/remote/<room>-<seat>.json``; ``path`` None: in memory only), written
    atomically (a temporary file, fsync, rename: a power cut leaves the old file or the new).

    ``sent``: every message this seat sent, in order (number i + 1), each written here
    **before** it goes to the relay (``post``) -- a message the relay may have got is never
    forgotten, nor its number reused with another body (the relay would refuse that as a
    replay); sending one again is acknowledged again. ``acked``: how many the relay took;
    ``taken``: the last remote number taken; ``last``: the last remote decision taken
    (``RemoteBrain.last``: its number is used up, so the relay never sends it again, while
    the board may lose it -- it journals the play only once its player moved the checkers --
    in a power cut that takes this host down too); ``data``: the rest (the joint dice,
    ``BoardDice.state``, and how many of each match's decisions were posted)."""

    def __init__(self, path=None):
        from pathlib import Path

        self.path = None if path is None else Path(path)
        self.sent = []
        self.acked = 0
        self.taken = 0
        self.last = None
        self.data = {}
        self._written = None
        if self.path is not None and self.path.exists():
            try:
                d = json.loads(self.path.read_text(encoding="utf-8"))
                self.sent = list(d["sent"])
                self.acked = min(int(d["acked"]), len(self.sent))
                self.taken = int(d["taken"])
                self.last = d.get("last")  # (absent in a seat written before it was kept)
                if self.last is not None and not isinstance(self.last, dict):
                    raise ValueError("the last remote decision is not a message")
                self.data = dict(d["data"])
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise UserError("%s: not a readable remote seat (%s)" % (self.path, e)) from None

    @staticmethod
    def for_room(room, seat):
        """The file of ``room``'s ``seat`` in this host's library directory."""
        import re

        from gammon.library import home

        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", room or ""):
            raise UserError("a room is letters, digits, - and _ (got %r)" % (room,))
        return SeatFile(home() / "remote" / ("%s-%d.json" % (room, seat)))

    def save(self):
        """Write the seat when it changed (atomically)."""
        import os

        obj = {
            "sent": self.sent,
            "acked": self.acked,
            "taken": self.taken,
            "last": self.last,
            "data": self.data,
        }
        text = json.dumps(obj, sort_keys=True)
        if self.path is None or text == self._written:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        self._written = text

    def post(self, body):
        """Number ``body`` as this seat's next message and write it down (before sending)."""
        self.sent.append(body)
        self.save()
        return len(self.sent)

    def push(self, relay):
        """Send every message the relay has not acknowledged yet, in order. A relay that does
        not answer leaves them for the next call (ClubError other than 409 is returned);
        409 (this seat's numbers refused: another program sends for it) is raised."""
        while self.acked < len(self.sent):
            try:
                relay.send(self.acked + 1, self.sent[self.acked])
            except ClubError as e:
                if e.status == 409:
                    raise
                return e
            self.acked += 1
        self.save()
        return None


def pump(relay, referee, wait=0.0, say=print):
    """Take every remote message the relay holds after the last one taken; a refused one is
    shown and not forwarded. Returns how many were forwarded."""
    n = 0
    for seq, body in relay.recv(referee.last_seq, wait):
        try:
            referee.take(seq, body)
        except Refused as e:
            say("refused remote message %s: %s" % (seq, e))
            if referee.last_seq != seq:
                break  # out of order: nothing after it can be taken
            continue
        n += 1
    return n


__all__ = ["BoardDice", "ClubError", "Refused", "Relay", "Referee", "SeatFile", "pump"]


def _ahead(body, follow):
    """``body`` is a decision for a later turn than ``follow`` has reached."""
    if not isinstance(body, dict) or body.get("kind") in DICE_KINDS:
        return False
    t = body.get("turn")
    return isinstance(t, int) and not isinstance(t, bool) and t > follow.throws


class RemoteBrain:
    """The remote player as ``gammon play``'s brain: ``decide(follow)`` is the next message of
    the other seat, checked by the referee against ``follow`` (this board's match), as
    ``(kind, turn, value)``; None while none has come. A refused message is shown and
    skipped (``referee.refused``); a number out of order stops the stream."""

    remote = True  # HELLO's bit 7: a player decides, the board never decides for them

    def __init__(self, relay, side, name="remote", say=print):
        self.relay = relay
        self.side = side
        self.name = name
        self.say = say
        self.referee = Referee(side, lambda code, payload: None)
        self.pending = []
        self.last = None  # the last decision taken, until the board's records show it
        self.again = False  # a new link to the board: ``last`` may have been lost
        self.ahead_at = None  # (monotonic s) since when the next decision waits for the board

    def decide(self, follow):
        ref = self.referee
        if self.last is not None:
            # taken, but a link cut (or the board's power cut) may have lost it on the way:
            # once the link is back (``again``) it is the decision again
            # as long as the board still waits for it (or has yet to get back to it: a power
            # cut lost the throw it is for); nothing new is taken before the board has it
            if _ahead(self.last, follow):
                if self.ahead_at is None:
                    self.ahead_at = time.monotonic()
                return None
            self.ahead_at = None
            ref.follow = follow
            ref.records = follow.records
            try:
                ref.check(self.last)
            except Refused:
                self.last = None  # the board has it (or moved on): the stream goes on
            else:
                if self.again:
                    self.again = False
                    return _decision(self.last)
                return None
        if not self.pending:
            self.pending = self.relay.recv(ref.last_seq, 0)
        if not self.pending:
            return None
        seq, body = self.pending[0]
        if _ahead(body, follow):
            # a decision for a turn this host has not seen its board reach waits (not taken,
            # not refused) until it does: the throw it needs may wait for the other board's
            # share taken just before it (handed to the board on the next step), or the
            # board threw and its record is still on the way here. The shares a throw needs
            # come before any decision on it, so an honest stream never waits forever.
            if self.ahead_at is None:
                self.ahead_at = time.monotonic()
            return None
        self.ahead_at = None
        ref.follow = follow  # the Player's fold of the board's match: one copy
        ref.records = follow.records
        try:
            ref.take(seq, body)
        except Refused as e:
            self.say("refused remote message %s: %s" % (seq, e))
            self.pending = self.pending[1:] if ref.last_seq == seq else []
            return None
        del self.pending[0]
        if body["kind"] in DICE_KINDS:  # taken by the joint dice (``ref.dice``), not a decision
            return self.decide(follow) if self.pending else None
        self.last = body
        self.again = False  # (a link opened before it was taken lost nothing of it)
        return _decision(body)


def _decision(body):
    """``gammon play``'s ``(kind, turn, value)`` of a remote decision (checked)."""
    if body["kind"] == PLAY:
        return PLAY, body["turn"], tuple(body["steps"])
    if body["kind"] == RESIGN:
        return RESIGN, body["turn"], body["value"]
    return CUBE, body["turn"], body["yes"]  # a cube action, or the answer to a resignation


class RecordingFollow(Follow):
    """A Follow that keeps the match's records (the referee folds a copy with one more), the
    local side's decisions as messages for the other board (``outgoing``, in order) and the
    match's key (its MATCH_START fields)."""

    def __init__(self, remote_side):
        Follow.__init__(self)
        self.remote_side = remote_side
        self.joint = False
        self.records = []
        self.outgoing = []
        self.key = None

    def feed(self, kind, fields):
        if kind == record.MATCH_START:
            self.records = []
            self.outgoing = []
            self.key = repr(fields)
            self.joint = False
        elif kind == record.JOINT_START:
            self.joint = True  # two boards' dice: see ``outgoing``
        if self.r.m is not None or kind == record.MATCH_START:
            self.records.append((kind, fields))
            msg = outgoing(self, self.remote_side, kind, fields)
            if msg is not None:
                self.outgoing.append(msg)
        Follow.feed(self, kind, fields)


# the records both boards of a match hold alike (each board's ids, seeds and shares differ)
GAME_KINDS = (
    record.GAME_START,
    record.OPENING,
    record.ROLL,
    record.PLAY,
    record.DOUBLE,
    record.TAKE,
    record.DROP,
    record.RESIGN,
    record.RESIGN_ACCEPT,
    record.RESIGN_REJECT,
    record.GAME_END,
    record.MATCH_END,
)


def match_hash(records):
    """SHA-256 (hex) of a match's game records ``(kind, fields)``, each as the board encodes
    it: both boards of a remote match end with the same one, and each host shows it."""
    import hashlib

    h = hashlib.sha256()
    for k, f in records:
        if k in GAME_KINDS:
            h.update(record.encode(k, f))
    return h.hexdigest()
