"""The one copy of the rule that checks a match's dice from a board's journal, read by
``gammon verify`` (``gammon.commands.dice``) and by the club before it stores a pushed match
(``gammon.club.checks``): the record order (``matches_from_journal``: who gave a part when, the
other board's commitment and shares of a match between two boards), the proofs journaled with
the hosts' parts (``check_parts``), in words who could have chosen the dice
(``Match.contributions``, ``Match.joint_order``) and the derivation of every throw from the
revealed seed (``derive``; for two boards ``verify_joint_journal``). See docs/dice.md.
"""

from bg import dice  # firmware/ is on the path: gammon/__init__ imports gammon._paths

from gammon.errors import UserError


class Match:
    """One match's dice as read from a file: what verify and dice-stats need."""

    def __init__(self, source, match_id, commitment, player_seed, board_seed, throws, note=""):
        self.source = source
        self.match_id = match_id
        self.commitment = commitment
        self.player_seed = player_seed
        self.board_seed = board_seed
        self.throws = throws
        self.note = note
        self.parts = []  # SEED_PART contributions (source, name, part), in journal order
        self.proofs = {}  # {index in parts: the packed proof journaled with that part}
        self.legacy_seed = False  # MATCH_START carried the player seed (journals before SEED_PART)
        self.order_error = None  # why the record order proves nothing (verify FAILs)
        self.from_json = False  # a JSON transcript: a player seed, no record order
        self.joint = None  # a match with another board (JOINT_START): (side, its commitment)
        self.other_shares = []  # the other board's share of each throw, as taken (JOINT_SHARE)

    def add_part(self, source, name, part, proof=b""):
        if proof:
            self.proofs[len(self.parts)] = bytes(proof)
        if self.order_error is None:
            if self.throws:
                self.order_error = "a player seed contribution (%s) comes after the first throw" % _who(
                    source, name
                )
            elif self.legacy_seed:
                self.order_error = "MATCH_START carries a player seed, yet contributions follow"
        self.parts.append((source, name, part))
        m = dice.SeedMixer()  # the one rule of what may follow what, shared with the board
        try:
            for s, _, p in self.parts:
                m.add(s, p)
        except ValueError:
            if self.order_error is None:
                self.order_error = "a player seed contribution (%s) comes after the button timing" % _who(
                    source, name
                )
            return
        if m.late and self.order_error is None:
            hosts = _names([n for s, n, _ in self.parts if s == dice.SRC_HOST])
            self.order_error = (
                "button timing, measured by the board itself, comes after the part of %s: the board "
                "could have ground it until the throws suited it" % hosts
            )
        self.player_seed = m.digest()

    def hosts(self):
        """The names of the hosts that gave a part, in journal order."""
        return [n for s, n, _ in self.parts if s == dice.SRC_HOST]

    def contributions(self):
        """In words, who could have chosen these dice."""
        hosts = self.hosts()
        if self.joint is not None:
            # two boards (docs/dice.md, 9): each throw is both boards' shares, each share fixed
            # by its board's committed seed and both hosts' parts; what the reveals prove comes
            # with the throws (verify_joint_journal)
            if self.order_error:
                return "two boards, but the record order proves nothing (below)"
            side = self.joint[0]
            return (
                "two boards: every throw is this board's share (side %d) and the other board's (side "
                "%d), each fixed by its board's committed seed and the player seed of both hosts' parts, "
                "side 0's host's first" % (side, 1 - side)
            )
        if hosts and not self.order_error:
            last = "host '%s'" % hosts[-1]
            given = "%s gave the last input" % last
            if len(hosts) > 1:
                given = "%s (in that order); %s" % (_names(hosts), given)
            return (
                "%s, after the board had committed to its seed: the board could not have chosen these "
                "dice without the help of %s (or by making its part up)" % (given, last)
            )
        why = "board alone: the board could have chosen these dice"
        if self.order_error:
            return why + " (the record order proves nothing, below)"
        if self.legacy_seed:
            return why + " (its player seed was recorded with the commitment, not after it)"
        if self.from_json:
            return why + " (a transcript has no record order to show who gave its player seed)"
        if self.parts:
            return why + " (button timing mixed in, but measured by the board itself)"
        return why

    def joint_order(self, signed):
        """The steps that fixed the dice of a match with another board, in this journal's
        order (its record order is checked: ``matches_from_journal``). ``signed``: ``{part index:
        key fingerprint}`` of the parts whose proof holds (``check_parts``)."""
        side, theirs = self.joint
        steps = [
            "this board (side %d) committed to its seed: %s (MATCH_START)" % (side, self.commitment.hex()),
            "the other board (side %d) committed to its seed: %s (JOINT_START)" % (1 - side, theirs.hex()),
        ]
        hosts = [i for i, (s, _, _) in enumerate(self.parts) if s == dice.SRC_HOST]
        for k, i in enumerate(hosts):
            how = (
                "key %s, signed over both commitments" % signed[i]
                if i in signed
                else "unproven: nothing here shows it came after both commitments"
            )
            steps.append("side %d's host's part: part %d, host '%s' (%s)" % (k, i + 1, self.parts[i][1], how))
        steps.append(
            "each throw: this board's share and the other board's share of it (JOINT_SHARE, %d journaled)"
            % len(self.other_shares)
        )
        return ["%d. %s" % (n + 1, step) for n, step in enumerate(steps)]

    def last_input_note(self, mine):
        """In words, where this host's remembered part ``mine`` stands among the host parts."""
        hosts = [(n, p) for s, n, p in self.parts if s == dice.SRC_HOST]
        if hosts[-1][1] == mine:
            return "this host's part is the last input: the board could not have chosen these dice"
        i = max(j for j, (_, p) in enumerate(hosts) if p == mine)
        return (
            "this host's part is in, but %s came after it: the board could have chosen these dice "
            "with their help (or by making them up)" % _names([n for n, _ in hosts[i + 1 :]])
        )

    def after_mine(self, mine, vouched, signed=None):
        """Why the parts after this host's part ``mine`` leave the dice choosable, or None. This
        host knows its part was the last when it sent it; a part after it under another host's
        name is either another watching host's or one the board made up after seeing ``mine``
        (to grind the throws), and only the user can tell which: ``vouched`` names the hosts
        they know were watching too, by name or by the key fingerprint that ``signed``
        ({part index: fingerprint}, ``check_parts``) shows for their part."""
        signed = signed or {}
        i = max(j for j, (s, _, p) in enumerate(self.parts) if s == dice.SRC_HOST and p == mine)
        later = [
            n
            for j, (s, n, _) in enumerate(self.parts)
            if j > i and s == dice.SRC_HOST and n not in vouched and signed.get(j) not in vouched
        ]
        if not later:
            return None
        return (
            "%s gave a part after this host's: this host cannot tell another watching host's part "
            "from one the board made up under that name after seeing this host's, so the board could "
            "have chosen these dice (if %s watched this match too: --after-me %s)"
            % (_names(later), "they" if len(later) > 1 else "it", " --after-me ".join(later))
        )


def _names(hosts):
    return ("host " if len(hosts) == 1 else "hosts ") + ", ".join("'%s'" % n for n in hosts)


def _who(source, name):
    return "host '%s'" % name if source == dice.SRC_HOST else "button timing"


def matches_from_journal(data, source):
    """Every match in a journal byte stream (``bg.record``). Throws, in counter order:

    - ``OPENING`` with two dice: one throw; with four (house variant): two throws, side 0's
      pair then side 1's (a house re-roll follows as its own ``OPENING`` or ``ROLL``);
    - ``ROLL`` (also the roll half of a compact turn record): one throw.
    """
    from bg import record

    dec = record.decode_stream(data)
    out = []
    cur = None
    early = None  # a contribution outside any match's window: before its commitment
    for kind, f in dec:
        if kind == record.MATCH_START:
            ps = bytes(f[10] or b"")
            cur = Match(source, bytes(f[0]), bytes(f[9]), ps or dice.NO_PLAYER_SEED, None, [])
            cur.legacy_seed = bool(ps)
            if early is not None:
                cur.order_error = "a player seed contribution (%s) comes before the commitment" % early
                early = None
            out.append(cur)
        elif kind == record.SEED_PART:
            if cur is None or cur.board_seed is not None:
                early = _who(f[0], f[1])
            else:
                cur.add_part(f[0], f[1], bytes(f[2]), f[3] if len(f) > 3 else b"")
        elif cur is None:
            continue
        elif kind == record.OPENING:
            d = f[1]
            for j in range(0, len(d), 2):
                cur.throws.append((d[j], d[j + 1]))
        elif kind == record.ROLL:
            cur.throws.append((f[1], f[2]))
        elif kind == record.SEED_REVEAL:
            cur.board_seed = bytes(f[0])
        elif kind == record.JOINT_START:
            # both commitments before anything that decides a throw: the board takes the other
            # board's right after its own (app.controller.joint_start)
            if (cur.parts or cur.throws) and cur.order_error is None:
                cur.order_error = "the other board's commitment (JOINT_START) comes after %s" % (
                    "a player seed contribution (%s)" % _who(*cur.parts[0][:2])
                    if cur.parts
                    else "the first throw"
                )
            cur.joint = (f[0], bytes(f[1]))
        elif kind == record.JOINT_SHARE:
            # the board takes each share once, in throw order: any other order is no journal of it
            k = len(cur.other_shares)
            if f[0] != k and cur.order_error is None:
                cur.order_error = "the other board's share of throw %d comes before that of throw %d" % (
                    f[0],
                    k,
                )
            cur.other_shares.append(bytes(f[1]))
    for m in out:
        n = len(m.hosts())
        if m.joint is not None and m.throws and n != 2 and m.order_error is None:
            # each side's host gives one part, side 0's first, before the first throw
            m.order_error = "a match between two boards takes one part from each side's host; this has %d" % n
    if not out:
        raise UserError("%s: no match in this file (%s)" % (source, dec.error or "no MATCH_START record"))
    if dec.status != record.OK:
        out[-1].note = "journal ends with a damaged record (%s); read up to it" % dec.error
    return out


def check_parts(m, proofs, own=None):
    """``(lines, bad, signed)``: a line per host part saying whose key signed it, why a proof
    fails (``bad``), and ``{part index: key fingerprint}`` of the parts whose proof holds. The
    proofs: the one journaled with each part (``gammon.dice_proof.unpack``) and ``proofs`` (this
    host's library, ``--proofs`` files); a part with neither is *unproven*. ``own``: this host's
    key fingerprint, named as such."""
    from gammon import dice_proof

    lines, bad, signed = [], [], {}
    mine = [p for p in proofs if p["match_id"] == m.match_id]
    used = set()
    proved = {}  # signature -> the part it proved: one signed part counts once
    prior = []
    for i, (src, name, part) in enumerate(m.parts):
        if src == dice.SRC_HOST and m.joint is not None:
            _check_joint_part(m, i, name, part, lines, bad, signed, own)
        elif src == dice.SRC_HOST:
            ps = []
            blob = m.proofs.get(i)
            if blob is not None:
                try:
                    ps.append(dice_proof.unpack(blob, m.match_id, prior))
                except ValueError as e:
                    bad.append("part %d (host '%s'): %s" % (i + 1, name, e))
                    lines.append("part %d: host '%s': %s" % (i + 1, name, e))
            for p in mine:
                if dice_proof.part_of(p["signature"]) == part:
                    used.add(id(p))
                    if not any(q["signature"] == p["signature"] and q["key"] == p["key"] for q in ps):
                        ps.append(p)
            if not ps and blob is None:
                lines.append(
                    "part %d: host '%s': unproven: no proof in the journal or here (only its host can "
                    "tell it is theirs)" % (i + 1, name)
                )
            for p in ps:
                fp = dice_proof.fingerprint(p["key"])
                key = fp + (" (this host's)" if fp == own else "")
                ok, note = dice_proof.check(p, m.match_id, m.commitment, part, prior)
                sig = bytes(p["signature"])
                if ok and sig in proved and proved[sig] != i:
                    ok = False
                    note = "the same signed part as part %d: a copy proves nothing" % (proved[sig] + 1)
                if ok:
                    proved[sig] = i
                    signed[i] = fp
                    after = note or "and the %d part(s) before it" % len(prior)
                    lines.append(
                        "part %d: host '%s', key %s: signature holds (over the commitment %s)"
                        % (i + 1, name, key, after)
                    )
                else:
                    bad.append("part %d (host '%s', key %s): %s" % (i + 1, name, key, note))
                    lines.append("part %d: host '%s', key %s: %s" % (i + 1, name, key, note))
        prior.append((src, part))
    for p in mine:
        if id(p) not in used:
            bad.append(
                "the part of key %s (signed after %d part(s)) is not in the journal: the board dropped it"
                % (dice_proof.fingerprint(p["key"]), p["before"])
            )
    return lines, bad, signed


def _check_joint_part(m, i, name, part, lines, bad, signed, own):
    """``check_parts`` for part ``i`` of a match with another board: its host signed both
    boards' commitments, side 0's first (``gammon.dice_proof.make_joint``), so the proof
    journaled with it holds on either board."""
    from gammon import dice_proof

    side, other = m.joint
    c0, c1 = (m.commitment, other) if side == 0 else (other, m.commitment)
    blob = m.proofs.get(i)
    if blob is None:
        lines.append("part %d: host '%s': unproven: no proof in the journal" % (i + 1, name))
        return
    ok, why, fp = dice_proof.check_joint_packed(blob, c0, c1, part)
    copied = [j for j in signed if m.parts[j][2] == part]
    if ok and copied:
        ok, why = False, "the same signed part as part %d: a copy proves nothing" % (copied[0] + 1)
    key = "key %s%s" % (fp, " (this host's)" if fp == own else "") if fp else "its proof"
    if ok:
        signed[i] = fp
        lines.append(
            "part %d: host '%s', %s: signature holds (over both boards' commitments)" % (i + 1, name, key)
        )
    else:
        bad.append("part %d (host '%s', %s): %s" % (i + 1, name, key, why))
        lines.append("part %d: host '%s', %s: %s" % (i + 1, name, key, why))


def verify_joint_journal(m, seed, other=None):
    """``(ok, index, message, notes)``: the throws of ``m``, one board's journal of a match with
    another board, from that journal alone. Throw ``k`` is this board's share (from ``seed``, its
    revealed seed, checked against its commitment) and the other board's share of ``k`` as
    journaled (``JOINT_SHARE``), combined by ``bg.dice.joint.combine`` (the board's own rule).
    ``other``: the other board's ``(match id, seed)`` once it revealed them (not in this
    journal): its shares are then checked against its commitment (``JOINT_START``) too.
    ``notes``: in words what this check proves and what it cannot."""
    from bg.dice import joint as J

    side, theirs = m.joint
    c0, c1 = (m.commitment, theirs) if side == 0 else (theirs, m.commitment)
    notes = []
    try:
        jid = J.joint_id(c0, c1)
    except ValueError as e:
        return False, -1, "FAIL: " + str(e), notes
    if dice.commitment(m.match_id, seed) != m.commitment:
        return False, -1, "FAIL: this board's revealed seed does not match its commitment", notes
    mine = J.Share(jid, side, seed, m.player_seed)
    gen = None
    if other is not None:
        if dice.commitment(other[0], other[1]) != theirs:
            return (
                False,
                -1,
                "FAIL: the other board's revealed seed does not match its commitment (JOINT_START)",
                notes,
            )
        gen = J.Share(jid, 1 - side, other[1], m.player_seed)
    got = m.other_shares
    out = bytearray(2)
    for k, r in enumerate(m.throws):
        if k >= len(got):
            return False, k, "FAIL: throw %d: the journal holds no share of the other board for it" % k, notes
        if len(got[k]) != J.SHARE_LEN:
            return (
                False,
                k,
                "FAIL: throw %d: the other board's share is not %d bytes" % (k, J.SHARE_LEN),
                notes,
            )
        if gen is not None and gen.share(k) != got[k]:
            return (
                False,
                k,
                "FAIL: throw %d: the other board's share is not the one its seed gives%s"
                % (k, _parts_swapped(m, jid, seed)),
                notes,
            )
        if tuple(r) != _joint_throw(side, mine.share(k), got[k], out):
            return (
                False,
                k,
                "FAIL: throw %d recorded %s, this board's share and the other's give %d-%d%s"
                % (k, "-".join(str(x) for x in r), out[0], out[1], _parts_swapped(m, jid, seed)),
                notes,
            )
    if len(got) > len(m.throws) + 1:
        # the board takes a share only for the throw due: one taken before its throw was
        # journaled (a cut mid-throw) is the most there can be
        n = len(m.throws)
        return (
            False,
            n,
            "FAIL: the journal holds the other board's shares of %d throws, %d thrown" % (len(got), n),
            notes,
        )
    notes.append(
        "proven by this journal alone: this board's seed matches its commitment and, with both hosts' "
        "parts in this order, gives its share of every throw; every throw is that share and the other "
        "board's share as journaled (JOINT_SHARE), the other board's commitment %s (JOINT_START)"
        % theirs.hex()
    )
    if gen is not None:
        notes.append(
            "proven with the other board's seed (--other-seed): it matches its commitment and every "
            "share the other board sent is the one its committed seed gives, with the same parts in "
            "the same order: neither board could have chosen these dice"
        )
    else:
        notes.append(
            "needs the other board's seed, which is not in this journal: that the journaled shares are "
            "the ones its committed seed gives, with these parts in this order. Until then the other "
            "board could have chosen its shares after seeing this board's, and this board could have "
            "journaled shares of its own making; give --other-match-id and --other-seed once the other "
            "board revealed them, or run gammon remote verify with both journals"
        )
    return (
        True,
        -1,
        "PASS: all %d throws match (this board's share and the other board's share as journaled)"
        % len(m.throws),
        notes,
    )


def _joint_throw(side, mine, theirs, out):
    """The faces of a throw from this board's share ``mine`` (board ``side``) and the other's."""
    from bg.dice import joint as J

    if side == 0:
        J.combine(mine, theirs, out)
    else:
        J.combine(theirs, mine, out)
    return out[0], out[1]


def _parts_swapped(m, jid, seed):
    """Why a throw of ``m`` (a match between two boards) fails when it is the hosts' parts
    journaled in another order than this board mixed them: every throw follows with the two
    parts the other way round. Else ""."""
    from bg.dice import joint as J

    hosts = [p for s, _, p in m.parts if s == dice.SRC_HOST]
    if len(hosts) != 2 or len(m.other_shares) < len(m.throws):
        return ""
    mixer = dice.SeedMixer()
    for p in reversed(hosts):
        mixer.add(dice.SRC_HOST, p)
    mine = J.Share(jid, m.joint[0], seed, mixer.digest())
    out = bytearray(2)
    for k, r in enumerate(m.throws):
        try:
            if tuple(r) != _joint_throw(m.joint[0], mine.share(k), m.other_shares[k], out):
                return ""
        except ValueError:  # a share of another length: not a matter of order
            return ""
    return (
        ": the hosts' parts are journaled in another order than this board mixed them (with part 2 "
        "before part 1 every throw follows): side 0's host's part comes first"
    )


def derive(m, seed, other=None):
    """``(ok, index, message, notes)`` of the throws of ``m`` from the revealed ``seed``: a match
    with another board by both boards' shares (``other``: the other board's revealed ``(match id,
    seed)``, or None), any other by this board's seed alone."""
    if m.joint is not None:
        return verify_joint_journal(m, seed, other)
    if other is not None:
        raise UserError(
            "match %s is one board's: --other-seed and --other-match-id are for a match between two boards"
            % m.match_id.hex()
        )
    return dice.verify_transcript(m.match_id, m.commitment, seed, m.player_seed, m.throws) + ([],)
