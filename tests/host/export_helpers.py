"""Seeded random matches for the host-tool tests, built the way the board records them: every
play is a random legal play from the rules engine (``bg.engine``), the record bytes come from
``bg.record.encode``. Features can be forced so each match has what a test needs (hits and bar
entries come from random play; dances, doubles/takes/drops, beavers, resignations, the Crawford
game come from the options below)."""

import random

from bg import board, record
from bg import engine as movegen

NAMES = ("Alice", "Bob")


class MatchWriter:
    """Writes one match's records with the controller's ordering (see firmware/app/controller)."""

    def __init__(
        self,
        seed,
        length=3,
        flags=record.OPT_CRAWFORD,
        names=NAMES,
        auto_limit=0,
        p_double=0.04,
        p_resign=0.01,
        p_beaver=0.5,
        p_drop=0.35,
        unix_time=1_700_000_000,
    ):
        self.rng = random.Random(seed)
        self.out = bytearray()
        self.length = length
        self.flags = flags
        self.auto_limit = auto_limit
        self.p_double = p_double
        self.p_resign = p_resign
        self.p_beaver = p_beaver
        self.p_drop = p_drop
        self.score = [0, 0]
        self.crawford_done = False
        self.match_id = bytes(self.rng.getrandbits(8) for _ in range(8))
        self.seen = set()
        self.emit(
            record.MATCH_START,
            (self.match_id, unix_time, length, flags, auto_limit, 0, 0, names[0], names[1], bytes(32), b""),
        )

    def emit(self, kind, fields):
        self.out += record.encode(kind, fields)

    def dice(self):
        return self.rng.randint(1, 6), self.rng.randint(1, 6)

    def play_match(self, max_games=12):
        g = 0
        while g < max_games:
            g += 1
            self.play_game(g)
            if self.length and max(self.score) >= self.length:
                break
        w = 0 if self.score[0] > self.score[1] else 1
        self.emit(record.MATCH_END, (w, self.score[0], self.score[1]))
        self.emit(record.SEED_REVEAL, (bytes(range(32)),))
        return bytes(self.out)

    def _end(self, winner, points, kind, reason):
        self.emit(record.GAME_END, (winner, points, kind, reason))
        self.score[winner] += points
        self.seen.add(("end", reason))

    def play_game(self, number):
        L = self.length
        crawford = bool(
            L and self.flags & record.OPT_CRAWFORD and not self.crawford_done and max(self.score) == L - 1
        )
        if crawford:
            self.crawford_done = True
            self.seen.add("crawford")
        self.emit(
            record.GAME_START, (number, self.score[0], self.score[1], record.GAME_CRAWFORD if crawford else 0)
        )
        pos = board.start_position()
        cube, owner = 1, -1
        rng = self.rng
        # opening: ties are thrown again (money: automatic doubles up to the limit)
        while self.flags & record.OPT_HOUSE_OPENING:
            # seed 004: each side throws two dice, the higher total starts with its own dice
            # and may throw once more
            a, b = self.dice(), self.dice()
            self.emit(record.OPENING, (record.OPEN_HOUSE, a + b))
            if sum(a) == sum(b):
                continue
            side = 0 if sum(a) > sum(b) else 1
            d = a if side == 0 else b
            self.seen.add("house_opening")
            if rng.random() < 0.4:
                d = self.dice()
                # bg.record wants four dice with OPEN_HOUSE; the re-roll's own pair comes first
                self.emit(record.OPENING, (record.OPEN_HOUSE | record.OPEN_REROLL, d + d))
                self.seen.add("house_reroll")
            break
        while not self.flags & record.OPT_HOUSE_OPENING:
            d = self.dice()
            self.emit(record.OPENING, (0, d))
            if d[0] != d[1]:
                break
            if not L and cube < (1 << self.auto_limit):
                cube *= 2
                self.emit(record.AUTO_DOUBLE, (cube,))
                self.seen.add("auto_double")
        if not self.flags & record.OPT_HOUSE_OPENING:
            side = 0 if d[0] > d[1] else 1
        first = True
        jacoby = not L and self.flags & record.OPT_JACOBY
        post_crawford = L and self.crawford_done and not crawford
        while True:
            if not first:
                # cube action before rolling
                may = (
                    not crawford
                    and owner in (-1, side)
                    and (not L or self.score[side] + cube < L or post_crawford)
                )
                if may and rng.random() < self.p_double:
                    self.emit(record.DOUBLE, (side, 2 * cube))
                    opp = 1 - side
                    if (
                        not L
                        and self.flags & record.OPT_BEAVER
                        and owner == -1
                        and rng.random() < self.p_beaver
                    ):
                        self.emit(record.BEAVER, (opp, 4 * cube))
                        cube *= 4
                        owner = opp
                        self.seen.add("beaver")
                    elif rng.random() < self.p_drop:
                        self.emit(record.DROP, (opp,))
                        self._end(side, cube, 1, record.END_DROP)
                        self.seen.add("drop")
                        return
                    else:
                        self.emit(record.TAKE, (opp,))
                        cube *= 2
                        owner = opp
                        self.seen.add("take")
                if rng.random() < self.p_resign:
                    v = rng.randint(1, 3)
                    self.emit(record.RESIGN, (side, v))
                    if rng.random() < 0.5:
                        self.emit(record.RESIGN_REJECT, (1 - side,))
                        self.seen.add("resign_reject")
                    else:
                        self.emit(record.RESIGN_ACCEPT, (1 - side,))
                        k = 1 if jacoby and owner == -1 else v
                        self._end(1 - side, cube * k, v, record.END_RESIGN)
                        self.seen.add("resign")
                        return
                d = self.dice()
            plays = movegen.plays(pos, side, d[0], d[1])
            if plays:
                steps = rng.choice(plays)[0]
                for i in range(0, len(steps), 2):
                    if steps[i] == 25:
                        self.seen.add("bar")
                    if steps[i + 1] == 0:
                        self.seen.add("bearoff")
                    if board.apply_step(pos, side, steps[i], steps[i + 1]):
                        self.seen.add("hit")
            else:
                steps = ()
                self.seen.add("dance")
            if first:
                self.emit(record.PLAY, (side, steps, 0))
            else:
                self.emit(record.TURN, (side, d[0], d[1], steps, 0))
            first = False
            if pos[50 + side] == 15:
                k = board.game_result(pos, side)
                self.seen.add(("kind", k))
                self._end(side, cube * (1 if jacoby and owner == -1 else k), k, record.END_BEAROFF)
                return
            side = 1 - side


def random_match(seed, **kw):
    """(record bytes, features seen) of one seeded random match."""
    w = MatchWriter(seed, **kw)
    data = w.play_match()
    return data, w.seen


# --- GNU Backgammon as the oracle ------------------------------------------------------------

GNUBG_CLI = "/usr/games/gnubg"  # Debian's gnubg: its SGF reader works (the PyPI build lacks one)
_PLAYER = {"X": 0, "O": 1}


def gnubg_view(m):
    """Our match as gnubg reports one from ``gnubg.match()``: per game the list of
    ``(player, action, dice, board)`` and ``(winner, points)``."""
    from bg import ids as bgids

    games = []
    for g in m.games:
        acts = []
        for a in g.actions:
            if a.kind == "play":
                acts.append((a.side, "move", tuple(a.dice), bgids.position_id(a.pos, a.side)))
            elif a.kind in ("double", "take", "drop"):
                acts.append((a.side, a.kind, None, None))
            elif a.kind == "beaver":
                acts.append((a.side, "double", None, None))
                acts.append((1 - a.side, "take", None, None))
        games.append((acts, (g.winner, g.points) if g.finished else (None, 0)))
    return games


def gnubg_games(gm):
    """The same view of a ``gnubg.match()`` dict."""
    games = []
    for g in gm["games"]:
        acts = []
        for a in g["game"]:
            k = a["action"]
            p = _PLAYER[a["player"]]
            if k == "move":
                acts.append((p, "move", tuple(a["dice"]), a["board"]))
            elif k in ("double", "take", "drop"):
                acts.append((p, k, None, None))
        info = g["info"]
        w = info.get("winner")
        games.append((acts, (_PLAYER[w], info.get("points-won", 0)) if w else (None, 0)))
    return games


def final_score(gm):
    """The match score after the last game of a ``gnubg.match()`` dict."""
    info = gm["games"][-1]["info"]
    s = [info["score-X"], info["score-O"]]
    if info.get("winner"):
        s[_PLAYER[info["winner"]]] += info["points-won"]
    return tuple(s)


def mismatches(m, gm):
    """Human-readable differences between our match and gnubg's import of it (empty = equal)."""
    ours = gnubg_view(m)
    theirs = gnubg_games(gm)
    out = []
    if len(ours) != len(theirs):
        out.append("games: ours %d, gnubg %d" % (len(ours), len(theirs)))
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a[0] != b[0]:
            for k, (x, y) in enumerate(zip(a[0], b[0])):
                if x != y:
                    out.append("game %d action %d: ours %r, gnubg %r" % (i + 1, k, x, y))
                    break
            else:
                out.append("game %d: ours %d actions, gnubg %d" % (i + 1, len(a[0]), len(b[0])))
        if a[1] != b[1]:
            out.append("game %d result: ours %r, gnubg %r" % (i + 1, a[1], b[1]))
    if tuple(m.final_score) != final_score(gm):
        out.append("final score: ours %r, gnubg %r" % (m.final_score, final_score(gm)))
    return out


_CLI_SCRIPT = """
import gnubg, json, sys
gnubg.command('load match %s')
json.dump(gnubg.match(), open(%r, 'w'))
"""


def gnubg_cli_load_sgf(sgf_path, tmp_path):
    """``gnubg.match()`` of ``load match SGF`` in Debian's gnubg (a subprocess), as a dict."""
    import json
    import subprocess

    out = tmp_path / "gnubg_match.json"
    script = tmp_path / "load_sgf.py"
    script.write_text(_CLI_SCRIPT % (sgf_path, str(out)))
    subprocess.run(
        [GNUBG_CLI, "-t", "-q", "-p", str(script)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    if not out.exists():
        raise AssertionError("gnubg could not load %s" % sgf_path)
    return json.loads(out.read_text())
