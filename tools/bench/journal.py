"""Journal benchmark: bytes per game, append time on littlefs, power-cut points tried.

Usage: ``.venv/bin/python -m tools.bench.journal OUTDIR`` -> ``OUTDIR/journal.json``.

* Bytes per game, raw (as appended while a game is played: one TURN record per turn,
  GAME_START/OPENING/GAME_END, cube records) and packed (one GAME_PACKED record after the
  game-end compaction, checked to expand to the same records), three kinds of games:
  - realistic: GNU Backgammon (``gnubg_nn``, 0-ply) plays both sides, cubeless, and again
    with a simple cube policy (doubles, takes, drops that end games early);
  - random legal: uniformly random legal plays from ``bg.engine`` (longer games).
  Match overhead (MATCH_START with two 5-letter names and no player seed, MATCH_END,
  SEED_REVEAL) is reported apart: it is paid once per match.
* Append time: the real journal under the MicroPython unix port on littlefs (``vfs.VfsLfs2``,
  4096-byte blocks, image in a host file), one ``append()`` = open, write, flush (sync),
  close; and on CPython on a host directory.
* Game-end compaction on MicroPython/littlefs: 20 gnubg games appended as the board does;
  time and block writes of a GAME_END append with its compaction, boot replay of the
  packed match.
* Power-cut points: runs ``tests/mpy/test_journal_powercut.py`` under MicroPython.
"""

import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from tools import mpy
from tools.bench import SMOKE, size

ROOT = Path(__file__).resolve().parents[2]

from bg import record as R  # noqa: E402


def _first_visit(gen, pos, side, d1, d2, target):
    """The steps the board records for a play ending in ``target``: the first visit of
    ``for_each_end`` that reaches it (as ``app.rules.plays_matching`` does)."""
    found = []

    def visit(w, st, n):
        if bytes(w) == target:
            found.append(tuple(st[: 2 * n]))
            gen.stop = True

    gen.for_each_end(pos, side, d1, d2, visit)
    return found[0] if found else None


def gnubg_games(n, seed=1, cube=False):
    """[(record bytes of the game, turns)] for ``n`` games GNU Backgammon (0-ply) plays
    against itself, exactly as the board appends them (GAME_START, OPENING, bare first PLAY,
    TURN records, cube records, GAME_END; steps as the board's recognizer reports them). With
    ``cube``, a simple money-play cube policy on gnubg's cubeless equity: the player with
    access doubles at equity >= 0.45 (not when >= 0.9: playing on for a gammon), the
    opponent drops at >= 0.55 and takes otherwise; a drop ends the game."""
    import gnubg_nn as g
    from bg import board
    from bg import engine as movegen

    gen = movegen.MoveGen()
    rng = random.Random(seed)
    out = []
    for gi in range(n):
        recs = bytearray(R.encode(R.GAME_START, (gi + 1, 0, 0, 0)))
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        while d1 == d2:
            recs += R.encode(R.OPENING, (0, (d1, d2)))
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        recs += R.encode(R.OPENING, (0, (d1, d2)))
        side = 0 if d1 > d2 else 1
        pos = board.start_position()
        owner = None
        cubev = 1
        turns = 0
        first = True
        end = None
        while True:
            b = board.to_gnubg(pos, side)
            if cube and not first and owner in (None, side):
                w, wg, wb, lg, lb = g.probabilities(b, 0)
                eq = 2 * w - 1 + wg - lg + wb - lb
                if 0.45 <= eq < 0.9:
                    recs += R.encode(R.DOUBLE, (side, 2 * cubev))
                    if eq >= 0.55:
                        recs += R.encode(R.DROP, (side ^ 1,))
                        end = (side, cubev, 1, R.END_DROP)
                        break
                    recs += R.encode(R.TAKE, (side ^ 1,))
                    cubev *= 2
                    owner = side ^ 1
            mv = g.best_move(b, d1, d2)
            tgt = bytearray(pos)
            for f, t in mv:
                board.apply_step(tgt, side, f, t)
            steps = _first_visit(gen, pos, side, d1, d2, bytes(tgt))
            if steps is None:
                steps = tuple(x for s in mv for x in s)  # never seen; keeps the game honest
            if first:  # the starter plays the opening dice: a bare PLAY (docs/dice.md)
                recs += R.encode(R.PLAY, (side, steps, 0))
                first = False
            else:
                recs += R.encode(R.TURN, (side, d1, d2, steps, 0))
            turns += 1
            pos = tgt
            if pos[50 + side] == 15:
                kind = board.game_result(pos, side)
                end = (side, cubev * kind, kind, R.END_BEAROFF)
                break
            side ^= 1
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        recs += R.encode(R.GAME_END, end)
        out.append((bytes(recs), turns))
    return out


def random_legal_games(n, seed=2):
    """[(record bytes, turns)] of ``n`` games of uniformly random legal plays (a random
    visit of ``for_each_end``), cubeless."""
    from bg import board
    from bg import engine as movegen

    gen = movegen.MoveGen()
    rng = random.Random(seed)
    out = []
    for gi in range(n):
        recs = bytearray(R.encode(R.GAME_START, (gi + 1, 0, 0, 0)))
        recs += R.encode(R.OPENING, (0, (2, 1)))
        pos = board.start_position()
        side = 0
        turns = 0
        d1, d2 = 2, 1
        while True:
            vis = []
            gen.for_each_end(pos, side, d1, d2, lambda w, st, k, vis=vis: vis.append(tuple(st[: 2 * k])))
            steps = vis[rng.randrange(len(vis))] if vis else ()
            if turns == 0:
                recs += R.encode(R.PLAY, (side, steps, 0))
            else:
                recs += R.encode(R.TURN, (side, d1, d2, steps, 0))
            gen.apply(pos, side, steps)
            turns += 1
            if pos[50 + side] == 15:
                break
            side ^= 1
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        recs += R.encode(R.GAME_END, (side, 1, 1, R.END_BEAROFF))
        out.append((bytes(recs), turns))
    return out


def packed(raw):
    """The GAME_PACKED record of one game's raw bytes, checked to expand to the same
    actions; None when the game does not fit (it stays raw on the board)."""
    from bg.record.packenc import Packer

    p = Packer()
    p.begin()
    try:
        for k, f in R.Decoder(raw, split_turns=False):
            p.add(k, f)
        pl = p.finish()
    except ValueError:
        return None
    rec = bytearray((R.GAME_PACKED, len(pl))) + pl
    c = R.crc16(rec)
    rec += bytes((c >> 8, c & 255))
    if list(R.Decoder(bytes(rec), split_turns=False)) != list(R.Decoder(raw, split_turns=False)):
        raise RuntimeError("packed game does not expand to its records")
    return bytes(rec)


def match_overhead():
    ms = R.encode(
        R.MATCH_START,
        (b"\x00" * 8, 1763700000, 7, R.OPT_CRAWFORD, 0, 0, 0, "Alice", "Bruno", b"\x00" * 32, b""),
    )
    return len(ms) + len(R.encode(R.MATCH_END, (0, 7, 3))) + len(R.encode(R.SEED_REVEAL, (b"\x00" * 32,)))


_MPY_APPEND = r"""
import gc, time
gc.collect()
import journal_load
import journal_flash as F
from bg import journal, record
dev = F.fresh(F.tmpdir() + "/bench.img", 64, "/flash")
j = journal.Journal("/flash")
j.open()
j.begin_match((b"benchmrk", 0, 0, 0, 0, 0, 0, "a", "b", bytes(32), b""), bytes(32))
N = 400
worst = 0
t0 = time.ticks_us()
for i in range(N):
    f = 24 - i % 20
    a = time.ticks_us()
    j.append(record.TURN, (i & 1, 3, 1, (f, f - 3, 6, 5), 0))
    worst = max(worst, time.ticks_diff(time.ticks_us(), a))
tot = time.ticks_diff(time.ticks_us(), t0)
gc.collect()
a = time.ticks_us()
k = journal.Journal("/flash")
n = 0
for _ in k.open():
    n += 1
boot = time.ticks_diff(time.ticks_us(), a)
print("RESULT", tot / N, worst, boot, n, dev.writes, gc.mem_free())
F.umount("/flash")
"""


def mpy_append():
    p = mpy.run(["-c", _MPY_APPEND], heap="64k", path=[mpy.HARNESS], timeout=300)
    m = re.search(r"RESULT (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)", p.stdout)
    if not m:
        raise RuntimeError("micropython append bench failed:\n" + p.stdout + p.stderr)
    mean, worst, boot, n, writes, free = m.groups()
    return {
        "mpy_append_mean_us": round(float(mean)),
        "mpy_append_worst_us": int(worst),
        "mpy_boot_replay_400_turns_us": int(boot),
        "mpy_block_writes_per_append": round(int(writes) / 401, 2),
        "mpy_heap_free_after_bytes": int(free),
    }


_MPY_PACK = r"""
import gc, sys, time
gc.collect()
import journal_load
for m in ("board", "engine._core", "engine._visit", "record.packdec", "record.packenc"):
    gc.collect()
    __import__("bg." + m)
import journal_flash as F
from bg import journal, record
games = open(sys.argv[1], "rb").read()
dev = F.fresh(F.tmpdir() + "/pbench.img", 64, "/flash")
j = journal.Journal("/flash")
j.open()
j.begin_match((b"packbnch", 0, 0, 0, 0, 0, 0, "a", "b", bytes(32), b""), bytes(32))
tot = worst = writes = ngames = 0
for kind, fields in record.Decoder(games, split_turns=False):
    if kind == record.GAME_END:
        w0 = dev.writes
        a = time.ticks_us()
    j.append(kind, fields)
    if kind == record.GAME_END:
        dt = time.ticks_diff(time.ticks_us(), a)
        tot += dt
        worst = max(worst, dt)
        writes += dev.writes - w0
        ngames += 1
a = time.ticks_us()
k = journal.Journal("/flash")
n = 0
for _ in k.open():
    n += 1
boot = time.ticks_diff(time.ticks_us(), a)
import os
path = "/flash/journal/" + "%02x" * 8 % tuple(b"packbnch") + ".m"
size = os.stat(path)[6]
packed = sum(1 for kd, _ in record.Decoder(open(path, "rb"), False, False) if kd == record.GAME_PACKED)
print("RESULT", ngames, tot // ngames, worst, writes / ngames, boot, n, size, packed)
F.umount("/flash")
"""


def mpy_pack(games):
    """Game-end compaction on MicroPython/littlefs: ``games`` (record bytes) appended as the
    board does; times the GAME_END append (record + compaction) and the boot replay."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "games.bin"
        src.write_bytes(b"".join(games))
        script = Path(d) / "pack.py"
        script.write_text(_MPY_PACK)
        p = mpy.run([script, src], heap="192k", path=[mpy.HARNESS], timeout=600)
    m = re.search(r"RESULT (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+) (\S+)", p.stdout)
    if not m:
        raise RuntimeError("micropython pack bench failed:\n" + p.stdout + p.stderr)
    ng, mean, worst, writes, boot, n, size, kept = m.groups()
    raw = sum(len(g) for g in games)
    return {
        "mpy_pack_games": int(ng),
        "mpy_game_end_with_compaction_mean_us": int(mean),
        "mpy_game_end_with_compaction_worst_us": int(worst),
        "mpy_block_writes_per_compaction": round(float(writes), 1),
        "mpy_boot_replay_packed_match_us": int(boot),
        "mpy_boot_replay_packed_match_actions": int(n),
        "mpy_packed_match_file_bytes": int(size),
        "mpy_raw_match_bytes": raw,
        "mpy_games_packed": int(kept),
    }


def cpython_append():
    from bg import journal

    with tempfile.TemporaryDirectory() as d:
        j = journal.Journal(d)
        j.open()
        j.begin_match((b"benchmrk", 0, 0, 0, 0, 0, 0, "a", "b", bytes(32), b""), bytes(32))
        n = 2000
        t = time.perf_counter()
        for i in range(n):
            f = 24 - i % 20
            j.append(R.TURN, (i & 1, 3, 1, (f, f - 3, 6, 5), 0))
        return {"cpython_append_mean_us": round((time.perf_counter() - t) / n * 1e6, 1)}


def powercut_points():
    p = mpy.run_tests("test_journal_powercut", "64k", "source", timeout=600)
    m = re.search(r"power-cut points tried: (\d+) images checked: (\d+)", p.stdout)
    ok = "1 passed, 0 failed" in p.stdout
    return {
        "powercut_points_tried": int(m.group(1)) if m else 0,
        "powercut_images_checked": int(m.group(2)) if m else 0,
        "powercut_test_passed": ok,
    }


def _stats(games):
    """Raw and packed sizes of [(record bytes, turns)]: what the journal holds while a game
    is played (raw) and after its GAME_END (packed, or raw when it does not fit)."""
    raw = sorted(len(b) for b, _ in games)
    pk = []
    unpacked = 0
    for b, _ in games:
        r = packed(b)
        if r is None or len(r) >= len(b):
            unpacked += 1
            pk.append(len(b))
        else:
            pk.append(len(r))
    pk.sort()
    turns = sum(t for _, t in games)
    return {
        "games": len(games),
        "turns_per_game_mean": round(turns / len(games), 1),
        "raw_bytes_per_game_mean": round(sum(raw) / len(raw), 1),
        "raw_bytes_per_game_median": raw[len(raw) // 2],
        "raw_bytes_per_turn_mean": round(sum(raw) / turns, 2),
        "packed_bytes_per_game_mean": round(sum(pk) / len(pk), 1),
        "packed_bytes_per_game_median": pk[len(pk) // 2],
        "packed_bytes_per_game_max": pk[-1],
        "packed_bytes_per_turn_mean": round(sum(pk) / turns, 2),
        "games_left_raw": unpacked,
    }


def main(outdir):
    t0 = time.time()
    out = {"target_bytes_per_game": 128}
    gn = None
    try:
        gn = gnubg_games(size(1000, 3))
        out["gnubg_selfplay"] = _stats(gn)
        out["gnubg_selfplay_with_cube"] = _stats(gnubg_games(size(1000, 3), seed=3, cube=True))
    except ImportError:
        out["gnubg_selfplay"] = "gnubg_nn not installed"
    rl = random_legal_games(size(300, 3))
    out["random_legal"] = _stats(rl)
    out["match_overhead_bytes"] = match_overhead()
    out["cube_double_take_bytes"] = len(R.encode(R.DOUBLE, (0, 2))) + len(R.encode(R.TAKE, (1,)))
    out.update(cpython_append())
    out.update(mpy_append())
    out.update(mpy_pack([b for b, _ in (gn or rl)[: size(20, 2)]]))
    if not SMOKE:  # (the smoke run: make test runs this test through the bridge already, 20 s)
        out.update(powercut_points())
    out["bench_wall_s"] = round(time.time() - t0, 1)
    Path(outdir).mkdir(parents=True, exist_ok=True)
    with open(Path(outdir) / "journal.json", "w") as f:
        json.dump(out, f, indent=2)
    g = out["gnubg_selfplay"]
    if isinstance(g, dict):
        c = out["gnubg_selfplay_with_cube"]
        print(
            "journal: gnubg self-play %.1f turns/game: %.1f bytes/game packed (%.1f raw), target 128;"
            " with a cube policy %.1f packed (%.1f raw)"
            % (
                g["turns_per_game_mean"],
                g["packed_bytes_per_game_mean"],
                g["raw_bytes_per_game_mean"],
                c["packed_bytes_per_game_mean"],
                c["raw_bytes_per_game_mean"],
            )
        )
    r = out["random_legal"]
    print(
        "journal: random legal %.1f turns/game: %.1f bytes/game packed (%.1f raw), %d left raw"
        % (
            r["turns_per_game_mean"],
            r["packed_bytes_per_game_mean"],
            r["raw_bytes_per_game_mean"],
            r["games_left_raw"],
        )
    )
    print(
        "journal: append %d us on MicroPython/littlefs, %.1f us on CPython; GAME_END + compaction %d us;"
        " power-cut points %d"
        % (
            out["mpy_append_mean_us"],
            out["cpython_append_mean_us"],
            out["mpy_game_end_with_compaction_mean_us"],
            out.get("powercut_points_tried", 0),
        )
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tools.bench.journal OUTDIR")
    main(sys.argv[1])
