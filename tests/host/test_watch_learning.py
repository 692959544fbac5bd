"""``gammon watch --learn``: after every board the pip counts (who leads, by how much) and, when
a game's first play is to be made, Carlit's book play for the opening roll (seed 002,
``bg.aids``) -- checked on seeded whole matches fed record by record, and through the watch
loop against a client that publishes a live match."""

import io

from bg import aids, board, record
from export_helpers import random_match
from gammon import model
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


def test_learning_lines_follow_a_whole_match():
    books = 0
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
                assert len(lines) == (2 if opening else 1), (lines, r.phase)
                if opening:
                    d1, d2 = r.dice
                    want = SEED_BOOK.get((max(d1, d2), min(d1, d2)), aids.opening_text(d1, d2))
                    assert lines[1].startswith("book play for %d%d (Carlit): %s" % (d1, d2, want)), lines
                    books += 1
        assert games_started >= 1
    assert books >= 3


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
