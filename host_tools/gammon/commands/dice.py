"""Dice commands: ``gammon verify`` (commit-reveal proof of a match's dice), ``gammon dice-stats``
(frequencies, chi-square, a picture) and ``gammon dice-sim`` (a made-up match to try them on).

A MATCH is a board journal file (binary records, ``bg.record``), a JSON dice transcript, or a
match in the local library (``gammon list``: a match id, a unique prefix of 4+ hex digits, or
``#N``; its stored record bytes are read like a journal). A JSON transcript looks like::

    {"format": "smartgammon-dice/1",
     "match_id": "<16 hex>", "commitment": "<64 hex>",
     "player_seed": "<32 hex, optional: none = 16 zero bytes>",
     "board_seed": "<64 hex, once revealed>",
     "throws": [{"kind": "opening", "dice": [3, 5]}, {"kind": "roll", "side": 1, "dice": [6, 2]}]}

(``throws`` entries may also be bare ``[d1, d2]`` pairs.) See docs/dice.md.

``gammon verify`` exits 0 (PASS), 1 (FAIL: some throw, the seed or the player seed does not
match, the record order does not prove that a host's part was the last input into the dice,
or -- on a host that gave a part -- a part under another host's name follows its own and
``--after-me`` does not vouch for it), 2 (bad input: one line on stderr) or 3 (NOT YET: the
board has not revealed the seed, the match is not over; nothing failed, nothing can be checked
yet). Before that it says in
words who could have chosen the dice.

One board's journal of a match between two boards (a ``JOINT_START``): each throw is rebuilt from
this board's share and the other board's share as journaled (``JOINT_SHARE``); verify lists who
fixed the dice in the journal's order (both boards' commitments, side 0's host's part, side 1's)
and says what one journal cannot prove (the other board's shares are its seed's);
``--other-match-id`` and ``--other-seed`` check them too once the other board revealed its seed
(docs/dice.md section 9).
"""

import json
import os
import sys
from pathlib import Path

from bg import dice  # firmware/ is on the path: gammon/__init__ imports gammon._paths

from gammon import dice_stats
from gammon.errors import UserError

FORMAT = "smartgammon-dice/1"

PASS, FAIL, USAGE, NOT_YET = 0, 1, 2, 3  # gammon verify's exit statuses


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


def _hex(value, n, what, source):
    if not isinstance(value, str):
        raise UserError("%s: %s must be a hex string" % (source, what))
    try:
        b = bytes.fromhex(value)
    except ValueError:
        raise UserError("%s: %s is not hex: %r" % (source, what, value[:70])) from None
    if len(b) != n:
        raise UserError("%s: %s must be %d bytes (%d hex digits)" % (source, what, n, 2 * n))
    return b


def _throw(entry, i, source):
    d = entry.get("dice") if isinstance(entry, dict) else entry
    if (
        not isinstance(d, (list, tuple))
        or len(d) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in d)
    ):
        raise UserError("%s: throw %d must be two dice, got %r" % (source, i, d))
    return (d[0], d[1])


def parse_transcript(obj, source="transcript"):
    """A :class:`Match` from a decoded JSON transcript (ValueError on anything malformed)."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise UserError("%s: not a dice transcript (format must be %r)" % (source, FORMAT))
    mid = _hex(obj.get("match_id"), dice.MATCH_ID_LEN, "match_id", source)
    com = _hex(obj.get("commitment"), dice.COMMIT_LEN, "commitment", source)
    ps = obj.get("player_seed")
    ps = dice.NO_PLAYER_SEED if ps in (None, "") else _hex(ps, dice.PLAYER_SEED_LEN, "player_seed", source)
    seed = obj.get("board_seed")
    seed = None if seed in (None, "") else _hex(seed, dice.BOARD_SEED_LEN, "board_seed", source)
    throws = obj.get("throws")
    if not isinstance(throws, list):
        raise UserError("%s: throws must be a list" % source)
    m = Match(source, mid, com, ps, seed, [_throw(t, i, source) for i, t in enumerate(throws)])
    m.from_json = True
    return m


def transcript(match_id, commitment, player_seed, board_seed, throws, kinds=None):
    """The JSON-ready transcript dict (``kinds``: optional "opening"/"roll" per throw)."""
    out = []
    for i, t in enumerate(throws):
        e = {"kind": kinds[i] if kinds else "roll", "dice": [t[0], t[1]]}
        out.append(e)
    obj = {
        "format": FORMAT,
        "match_id": match_id.hex(),
        "commitment": commitment.hex(),
        "player_seed": (player_seed or dice.NO_PLAYER_SEED).hex(),
    }
    if board_seed is not None:
        obj["board_seed"] = board_seed.hex()
    obj["throws"] = out
    return obj


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


def load_matches(path):
    """All matches in a file: a JSON transcript (or a list of them) or a journal."""
    from gammon import model

    try:
        data = model.read_file(path)
    except OSError as e:
        raise UserError("%s: cannot read (%s)" % (path, e.strerror or e)) from None
    except ValueError as e:
        raise UserError("%s: %s" % (path, e)) from None
    if data.lstrip()[:1] in (b"{", b"["):
        try:
            obj = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise UserError("%s: bad JSON (%s)" % (path, e)) from None
        except RecursionError:
            # a document nested deeper than the parser's stack: no transcript is
            raise UserError("%s: bad JSON (nested too deep)" % path) from None
        objs = obj if isinstance(obj, list) else [obj]
        return [parse_transcript(o, path) for o in objs]
    return matches_from_journal(data, path)


# the local library ------------------------------------------------------------------------


def _library():
    """The library for reading (LibraryError, one line, when nothing was stored yet)."""
    from gammon.library import Library

    return Library.open(create=False)


def library_matches(lib, mid):
    """The :class:`Match` (es) in the stored record bytes of library match ``mid`` (full id)."""
    return matches_from_journal(lib.data(mid), "library match %s" % mid)


def load_spec(spec):
    """The matches of MATCH: a file (journal or JSON transcript) when ``spec`` names one, else a
    library game (id, unique prefix, ``#N``). Neither -> ValueError, one line."""
    p = Path(spec)
    if p.is_file():
        return load_matches(spec)
    if p.exists():
        raise UserError("%s is not a file (give a journal file, a JSON transcript or a match id)" % spec)
    from gammon.library import LibraryError

    try:
        with _library() as lib:
            return library_matches(lib, lib.resolve(spec))
    except LibraryError as e:
        raise UserError("%s: no such file, and not a match in the library (%s)" % (spec, e)) from None


# verify -------------------------------------------------------------------------------


def _against_remembered(m):
    """``(why, seed)``: why ``m`` contradicts what this host's library remembers of its match
    (the commitment the board published, the seed this host sent), or None; and the seed this
    host sent for it (b"" when none, also with no library)."""
    from gammon.library import LibraryError

    try:
        with _library() as lib:
            r = lib.remembered_commitment(m.match_id)
    except LibraryError:
        return None, b""
    if r is None:
        return None, b""
    commitment, seed = r
    if commitment != m.commitment:
        why = "the board published commitment %s to this host, but the journal has %s" % (
            commitment.hex(),
            m.commitment.hex(),
        )
        return why, seed
    if seed and not any(p == seed for s, _, p in m.parts if s == dice.SRC_HOST):
        return "the player seed this host sent (%s) is not in the journal" % seed.hex(), seed
    return None, seed


def _library_proofs(mid):
    """The proofs this host's library keeps of its own parts for match ``mid``."""
    from gammon import dice_proof
    from gammon.library import LibraryError

    try:
        with _library() as lib:
            return [dice_proof.from_json(o, "library") for o in lib.part_proofs(mid)]
    except (LibraryError, ValueError):
        return []


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


def _write_proofs(path, matches):
    from gammon import dice_proof

    out = []
    for m in matches:
        out += [dice_proof.to_json(p) for p in _library_proofs(m.match_id)]
    try:
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    except OSError as e:
        raise UserError("cannot write %s (%s)" % (path, e.strerror or e)) from None
    print("%d proof(s) of this host's parts written to %s" % (len(out), path))


def _derive(m, seed, other):
    """``(ok, index, message, notes)`` of the throws of ``m`` from the revealed ``seed``: a match
    with another board by both boards' shares, any other by this board's seed alone."""
    if m.joint is not None:
        return verify_joint_journal(m, seed, other)
    if other is not None:
        raise UserError(
            "match %s is one board's: --other-seed and --other-match-id are for a match between two boards"
            % m.match_id.hex()
        )
    return dice.verify_transcript(m.match_id, m.commitment, seed, m.player_seed, m.throws) + ([],)


def _other_reveal(args):
    """The other board's ``(match id, seed)`` of a match between two boards, or None."""
    mid, seed = getattr(args, "other_match_id", None), getattr(args, "other_seed", None)
    if mid is None and seed is None:
        return None
    if mid is None or seed is None:
        raise UserError(
            "--other-seed and --other-match-id go together (the other board's commitment covers both)"
        )
    return (
        _hex(mid, dice.MATCH_ID_LEN, "--other-match-id", "argument"),
        _hex(seed, dice.BOARD_SEED_LEN, "--other-seed", "argument"),
    )


def cmd_verify(args):
    from gammon import dice_proof

    matches = load_spec(args.match)
    if args.index is not None:
        if not 0 <= args.index < len(matches):
            raise UserError(
                "%s holds %d match(es); --match-index %d does not exist"
                % (args.match, len(matches), args.index)
            )
        matches = [matches[args.index]]
    expect_ps = None
    if args.player_seed is not None:
        expect_ps = dice.player_seed_from_text(args.player_seed)
    elif args.player_seed_hex is not None:
        expect_ps = _hex(args.player_seed_hex, dice.PLAYER_SEED_LEN, "--player-seed-hex", "argument")
    seed_arg = None
    if args.seed is not None:
        seed_arg = _hex(args.seed, dice.BOARD_SEED_LEN, "--seed", "argument")
    given = []
    for path in getattr(args, "proofs", None) or ():
        try:
            given += dice_proof.load(path)
        except ValueError as e:
            raise UserError(str(e)) from None
    vouched = getattr(args, "after_me", None) or ()
    from gammon.library import home

    own = dice_proof.own_fingerprint(home())
    if getattr(args, "write_proofs", None):
        _write_proofs(args.write_proofs, matches)
    other = _other_reveal(args)
    failed = waiting = False
    for m in matches:
        name = "match %s" % m.match_id.hex()
        seed = seed_arg if seed_arg is not None else m.board_seed
        print("%s: %d throws, commitment %s" % (name, len(m.throws), m.commitment.hex()))
        if m.note:
            print("  note: " + m.note)
        lines, bad, signed = check_parts(m, _library_proofs(m.match_id) + given, own)
        if m.joint is not None and not m.order_error:
            print("  dice chosen by: %s. In this journal's order:" % m.contributions())
            for line in m.joint_order(signed):
                print("    " + line)
        else:
            print("  dice chosen by: " + m.contributions())
        for line in lines:
            print("  " + line)
        hosts = [i for i, (s, _, _) in enumerate(m.parts) if s == dice.SRC_HOST]
        # one board's dice hang on the last host part; two boards' on both seeds (no last input:
        # both parts come before any share, and the shares after them are fixed by commitments)
        if hosts and not m.order_error and m.joint is None:
            if hosts[-1] in signed:
                print(
                    "  the last host part is key %s's: the board could not have chosen these dice "
                    "without that key's holder" % signed[hosts[-1]]
                )
            else:
                print(
                    "  the last host part is unproven: nothing here shows it is a host's, so the board "
                    "could have made it up"
                )
        if bad:
            print("FAIL: a part's proof does not hold: " + "; ".join(bad))
            failed = True
            continue
        if m.order_error:
            if seed is not None:  # still derived, for the record: it proves nothing here
                ok, _, msg = _derive(m, seed, other)[:3]
                print("  derivation alone: " + msg.split(": ", 1)[-1])
            print("FAIL: the record order proves nothing: " + m.order_error)
            failed = True
            continue
        bad, sent = _against_remembered(m)
        if bad:
            print("FAIL: " + bad)
            failed = True
            continue
        if sent:
            print("  " + m.last_input_note(sent))
            # a part after this host's signed with this host's own key is its own (watch and sync
            # both gave one): nobody else could have made it
            why = m.after_mine(sent, tuple(vouched) + ((own,) if own else ()), signed)
            if why:
                print("FAIL: " + why)
                failed = True
                continue
        mine = any(p == expect_ps for src, _, p in m.parts if src == dice.SRC_HOST)
        if expect_ps is not None and expect_ps != m.player_seed and not mine:
            print(
                "FAIL: the recorded player seed %s is not the one you gave (%s)"
                % (m.player_seed.hex(), expect_ps.hex())
            )
            failed = True
            continue
        if expect_ps is not None and mine:
            print("  " + m.last_input_note(expect_ps).replace("this host's part", "your player seed"))
        elif expect_ps is not None and (m.legacy_seed or m.from_json):
            print(
                "  note: your player seed is this match's, but no record shows it came after the "
                "commitment: it does not stop the board from choosing these dice"
            )
        if seed is None:
            print(
                "NOT YET: the board seed is not revealed yet (the match is not over): its dice cannot "
                "be verified before the board reveals the seed at the end of the match "
                "(sync again after the match, or give --seed HEX)"
            )
            waiting = True
            continue
        ok, idx, msg, notes = _derive(m, seed, other)
        for line in notes:
            print("  " + line)
        print(msg)
        failed = failed or not ok
    return FAIL if failed else NOT_YET if waiting else PASS


# dice-stats ---------------------------------------------------------------------------


_FILTERS = ("player", "since", "until", "result", "length", "board")


def library_selection(args):
    """The library matches ``gammon dice-stats`` reads: ``gammon list``'s filters, oldest first.
    Returns ``(matches, total_stored)``."""
    from gammon.commands.library import find_filters  # the exact semantics of gammon list

    filters = find_filters(args)
    with _library() as lib:
        entries = lib.find(**filters)
        out = []
        for e in entries:
            out += library_matches(lib, e.id)
        return out, lib.count()


def cmd_stats(args):
    use_lib = args.library or not args.files
    filtered = [f for f in _FILTERS if getattr(args, f) is not None]
    if filtered and not use_lib:
        raise UserError("--%s selects library matches: add --library" % filtered[0])
    sources = []
    for path in args.files:
        sources += load_matches(path)
    if use_lib:
        lib_matches, stored = library_selection(args)
        if not lib_matches:
            raise UserError(
                "no match in the library%s (%d stored)"
                % (" matches these filters" if filtered else "", stored)
            )
        sources += lib_matches
    st = dice_stats.DiceStats()
    nmatch = 0
    for m in sources:
        nmatch += 1
        st.add_all(m.throws)
    if not st.throws:
        raise UserError("no throws in %s" % ", ".join(args.files + (["the library"] if use_lib else [])))
    t = st.tests()
    n = st.throws
    if args.json:
        print(
            json.dumps(
                {
                    "matches": nmatch,
                    "throws": n,
                    "faces": st.faces,
                    "pairs_ordered": st.pairs,
                    "doubles": st.doubles,
                    "serial_r": st.serial_r(),
                    "tests": {k: {"statistic": v[0], "df": v[1], "p": v[2]} for k, v in t.items()},
                },
                indent=1,
            )
        )
    else:
        print("%d throws (%d dice) in %d match(es)" % (n, 2 * n, nmatch))
        print(
            "faces:   "
            + "  ".join("%d: %d (%.1f%%)" % (i + 1, c, 100.0 * c / (2 * n)) for i, c in enumerate(st.faces))
            + "   fair: 16.7% each"
        )
        print("doubles: %d (%.2f%%, fair 16.67%%)" % (st.doubles, 100.0 * st.doubles / n))
        u = st.unordered()
        print("throws:  " + " ".join("%d%d:%d" % (a, b, u[(a, b)]) for a, b in sorted(u, reverse=True)))
        print("tests (p = chance a fair dice stream looks at least this far off):")
        for key, label in (
            ("faces", "faces chi-square"),
            ("pairs_unordered", "21 throws chi-square"),
            ("pairs_ordered", "36 ordered pairs chi-square"),
            ("doubles", "doubles rate z"),
            ("serial_lag1", "serial correlation z"),
            ("across_throws", "consecutive throws chi-square"),
        ):
            if key in t:
                x, df, p = t[key]
                print("  %-30s %9.3f%s  p = %.4g" % (label, x, " (df %d)" % df if df else "", p))
        if 5 * n < 36 * 5:
            print("note: fewer than 5 expected per pair: the pair p-values are rough")
        if n * 2 < 6 * 5:
            print("note: too few throws for the face chi-square to mean much")
    if args.svg:
        title = "%d match(es)" % nmatch
        try:
            with open(args.svg, "w", encoding="utf-8") as fh:
                fh.write(dice_stats.svg(st, title))
        except OSError as e:
            raise UserError("cannot write %s (%s)" % (args.svg, e.strerror or e)) from None
        if not args.json:
            print("picture: " + args.svg)
    return 0


# dice-sim -----------------------------------------------------------------------------


def cmd_sim(args):
    from bg.dice.fairness import Fairness

    if args.throws < 0 or args.throws > 10_000_000:
        raise UserError("--throws must be 0..10000000")

    class _Rnd:
        def urandom(self, n):
            return os.urandom(n)

    f = Fairness.new(_Rnd(), os.urandom(8))
    if args.player_seed is not None:
        f.set_player_seed(dice.player_seed_from_text(args.player_seed))
    ps = f.fix()
    throws = [tuple(f.roll()) for _ in range(args.throws)]
    f.end_match()
    obj = transcript(f.match_id, f.commitment, ps, f.reveal(), throws)
    text = json.dumps(obj, indent=None if args.throws > 100 else 1) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise UserError("cannot write %s (%s)" % (args.out, e.strerror or e)) from None
        print("%d throws of match %s written to %s" % (args.throws, f.match_id.hex(), args.out))
    return 0


def register(sub):
    p = sub.add_parser(
        "verify",
        help="prove a match's dice were fair (commit-reveal)",
        description="Re-derive every throw of a match from the revealed seed, check the "
        "commitment and the order of the player seed's parts, say who could have chosen the dice, "
        "and print PASS, or FAIL naming the first throw that does not match or why the order "
        "proves nothing. "
        "Exit status: 0 PASS, 1 FAIL, 2 bad input, 3 not verifiable yet (seed not revealed).",
    )
    p.add_argument(
        "match",
        metavar="MATCH",
        help="a journal file from the board/simulator, a JSON transcript, or a library match "
        "(id, unique prefix of 4+ hex digits, or #N from 'gammon list')",
    )
    p.add_argument("--seed", metavar="HEX", help="the revealed board seed, if the file does not hold it")
    p.add_argument(
        "--other-seed",
        metavar="HEX",
        help="a match between two boards: the other board's revealed seed (not in this board's "
        "journal); its shares are then checked against its commitment (with --other-match-id)",
    )
    p.add_argument("--other-match-id", metavar="HEX", help="the other board's match id (with --other-seed)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--player-seed", metavar="TEXT", help="check the board used the phrase you typed")
    g.add_argument("--player-seed-hex", metavar="HEX", help="check the board used this 16-byte player seed")
    p.add_argument(
        "--match-index", dest="index", type=int, metavar="N", help="only the N-th match of the file (0-based)"
    )
    p.add_argument(
        "--after-me",
        action="append",
        metavar="HOST",
        help="a host (its name, or its key fingerprint as verify shows it) you know gave its part "
        "after this host's (another of your hosts watching the match); any other part after "
        "this host's fails verify (repeatable)",
    )
    p.add_argument(
        "--proofs",
        action="append",
        metavar="FILE",
        help="other hosts' part proofs (JSON, from their --write-proofs): verify shows whose key "
        "signed each part (repeatable)",
    )
    p.add_argument(
        "--write-proofs",
        metavar="FILE",
        help="write the proofs of this host's parts for these matches (JSON) for anyone to check",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser(
        "dice-stats",
        help="are the dice fair? frequencies, chi-square, picture",
        description="Face and pair frequencies, doubles rate, chi-square tests with "
        "p-values over the throws of matches (journal files or JSON transcripts; without FILE, "
        "or with --library, every match of the local library that passes the filters).",
    )
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument(
        "--library", action="store_true", help="also every library match (the default without FILE)"
    )
    p.add_argument("--player", help="library: a player's name (part of it, any case)")
    p.add_argument("--since", metavar="YYYY-MM-DD", help="library: started on or after (UTC)")
    p.add_argument("--until", metavar="YYYY-MM-DD", help="library: started on or before (UTC)")
    p.add_argument(
        "--result", choices=("won", "lost", "finished", "unfinished"), help="library: won/lost: by --player"
    )
    p.add_argument("--length", help="library: match length, or 'money'")
    p.add_argument("--board", help="library: the board's name (part of it)")
    p.add_argument("--svg", metavar="PATH", help="also draw an SVG picture there")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("dice-sim", help="write a made-up match's dice transcript (to try verify/dice-stats)")
    p.add_argument("--throws", type=int, default=60)
    p.add_argument("--player-seed", metavar="TEXT")
    p.add_argument("--out", default="-", metavar="FILE")
    p.set_defaults(func=cmd_sim)
