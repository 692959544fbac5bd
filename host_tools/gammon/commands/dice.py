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
from gammon.dice_check import Match, check_parts, matches_from_journal, verify_joint_journal  # noqa: F401
from gammon.dice_check import derive as _derive
from gammon.errors import UserError

FORMAT = "smartgammon-dice/1"

PASS, FAIL, USAGE, NOT_YET = 0, 1, 2, 3  # gammon verify's exit statuses


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
