"""``gammon watch --learn``: after every board the pip counts (who leads, by how much); when
a game's first play is to be made, Carlit's book play for the opening roll (seed 002,
``bg.aids``); right after a play the shots at the blots it left (counted again here by brute
force over the 36 rolls and every legal play) and the equity it lost against GNU Backgammon's
best play (the same judgement as ``gammon analyze``) -- checked on seeded whole matches fed
record by record, and through the watch loop against a client that publishes a live match."""

import io

from bg import aids, board, record
from bg import engine as movegen
from export_helpers import random_match
from gammon import analyze, model
from gammon.commands import library as cmds
from gammon.watch_view import learning_lines

# the seed's wording for some opening rolls (points nA = 25 - n), in gnubg notation
SEED_BOOK = {(3, 1): "8/5 6/5", (6, 5): "24/13", (4, 2): "8/4 6/4", (6, 1): "13/7 8/7"}


def _records(data):
    dec = record.Decoder(data, split_turns=False)
    at = 0
    out = []
    for _ in dec:
        out.append(data[at : dec.valid])
        at = dec.valid
    return out


def _pips(pos, side):
    b = board.base(side)
    return sum(p * pos[b + p - 1] for p in range(1, 26))


def _brute_shots(pos, side, q):
    """Rolls of 36 on which ``side``'s opponent has a legal play that sends ``side``'s blot on
    its point ``q`` to the bar (every distinct play listed, no shortcut)."""
    opp = 1 - side
    b = board.base(side)
    n = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            for _steps, end in movegen.plays(pos, opp, d1, d2):
                if end[b + q - 1] == 0 and end[b + 24] > pos[b + 24]:
                    n += 1
                    break
    return n


def _shots_text(r, side):
    b = board.base(side)
    blots = [q for q in range(1, 25) if r.pos[b + q - 1] == 1]
    name = r.m.names[side] or "side %d" % side
    if not blots:
        return "%s left no blot" % name
    counts = ", ".join("%d-pt %d/36" % (q, _brute_shots(r.pos, side, q)) for q in blots)
    return "shots at %s's blots: %s" % (name, counts)


def test_learning_lines_follow_a_whole_match():
    books = 0
    shot_lines = 0
    for seed in (3, 4, 5):
        data, _seen = random_match(seed, length=5)
        r = model._Replay()
        games_started = 0
        for rec in _records(data):
            for k, f in record.decode_stream(rec):
                r.feed(k, f)
                if k == record.GAME_START:
                    games_started += 1
                lines = learning_lines(r)
                if r.g is None:
                    assert lines == []
                    continue
                p0, p1 = _pips(r.pos, 0), _pips(r.pos, 1)
                names = [r.m.names[s] or "side %d" % s for s in (0, 1)]
                lead = "even" if p0 == p1 else "%s leads by %d" % (names[p1 < p0], abs(p0 - p1))
                assert lines[0] == "pips: %s %d, %s %d (%s)" % (names[0], p0, names[1], p1, lead)
                opening = r.phase in ("moving", "choice") and bytes(r.pos) == bytes(board.start_position())
                last = r.g.actions[-1] if r.g.actions else None
                played = last is not None and last.kind == "play" and r.phase == "await_roll"
                assert len(lines) == 1 + opening + played, (lines, r.phase)
                if opening:
                    d1, d2 = r.dice
                    want = SEED_BOOK.get((max(d1, d2), min(d1, d2)), aids.opening_text(d1, d2))
                    assert lines[1].startswith("book play for %d%d (Carlit): %s" % (d1, d2, want)), lines
                    books += 1
                if played and shot_lines < 60:  # (the brute force lists every play: a sample)
                    assert lines[-1] == _shots_text(r, last.side), lines
                    shot_lines += 1
        assert games_started >= 1
    assert books >= 3
    assert shot_lines == 60


def test_the_equity_lost_is_gnubgs_judgement_of_each_play():
    judge = analyze.play_judge()
    data, _seen = random_match(11, length=3)
    m = model.load_match(data)
    want = {}
    for g in m.games:
        for a in g.actions:
            got = judge(m, g, a)
            if got is not None:
                want[id(a)] = got
    assert len(want) >= 10
    r = model._Replay()
    seen = best = lost = nochoice = 0
    for rec in _records(data):
        for k, f in record.decode_stream(rec):
            r.feed(k, f)
            lines = learning_lines(r, judge)
            last = r.g.actions[-1] if r.g is not None and r.g.actions else None
            if last is None or last.kind != "play" or r.phase != "await_roll":
                assert not any("equity lost" in x or "best play" in x or "no choice" in x for x in lines)
                continue
            name = r.m.names[last.side]
            got = judge(r.m, r.g, last)
            if got is None:
                assert lines[-1] == "%s had no choice" % name
                nochoice += 1
            elif got[0] < 0.0005:
                assert lines[-1] == "%s made GNU Backgammon's best play" % name
                best += 1
            else:
                assert lines[-1] == "equity lost by %s: %.3f (best: %s)" % (name, got[0], got[1])
                assert got[0] > 0
                lost += 1
            seen += 1
    assert seen >= 10 and lost >= 1 and best + lost == len(want), (seen, best, lost, nochoice, len(want))


class _LiveBoard:
    """The link Client's watch side over one match: the first records stored, the rest
    published one by one."""

    def __init__(self, data, n_stored):
        self.recs = _records(data)
        self.stored = b"".join(self.recs[:n_stored])
        self.n = n_stored
        self.id = model.load_match(self.stored).id_hex

    def list_games(self):
        return [{"id": self.id, "size": len(self.stored), "state": 0, "finished": False}]

    def fetch_game(self, gid, progress=None, resume=True):
        return self.stored

    def watch(self):
        yield from self.recs[self.n :]


def test_watch_loop_prints_them_only_when_learning():
    data, _seen = random_match(7, length=3)
    lb = _LiveBoard(data, 1)  # MATCH_START stored; the game and its opening come live
    out = io.StringIO()
    cmds.watch_loop(lb, out=out, clear=False, learn=True)
    text = out.getvalue()
    boards = text.count("BAR")
    games = model.load_match(data).games
    assert text.count("\npips: ") == boards - 1  # every board once a game has started
    assert text.count("book play for ") >= len(games)  # each game's first play (a re-throw choice: more)
    quiet = io.StringIO()
    cmds.watch_loop(_LiveBoard(data, 1), out=quiet, clear=False)
    assert "pips: " not in quiet.getvalue() and "book play" not in quiet.getvalue()
    assert quiet.getvalue().count("BAR") == boards
