"""Slot-count study: how often can the reed sensors alone not tell a play from another legal play?

Plays ``--games`` (default 10,000) seeded games with uniformly random legal plays (a random
distinct end position each turn, from ``bg.engine.plays``) and, for every turn with a legal
play, computes what the sensors read for every distinct legal end position: per board point
the checker count capped at ``N`` slots ("N or more"), each bar row capped at its 6 slots, each
tray exact (15 slots), colours invisible. A turn's play is **ambiguous** when another distinct
legal end position gives the same reading. Variants: N = 5, 6, 7, 8, "inf" (uncapped: what
colour-blindness alone costs) and N = 6 without tray sensors.

On a subsample (``--recognizer-games``, default 300 games) the real recogniser
(``bg.recognize``, strict mode) is run on the chosen play's end reading: how often a confirm
press has to ask (stack or colour ambiguity, or a reading that could also be an unfinished play).

Usage::

    .venv/bin/python -m tools.slot_study [--games 10000] [--seed 1] [--jobs 2] [--force]

Results are cached in ``build/slot_study.json`` (reused when the parameters match) and
``docs/slot-study.md`` quotes them. About 3 minutes on two cores (random policy; gnubg ~1.5).
"""

import argparse
import json
import os
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from bg import board, recognize
from bg import engine as movegen

ROOT = Path(__file__).resolve().parent.parent

CACHE = ROOT / "build" / "slot_study.json"
VERSION = 2
# name -> (point cap, bar cap, tray cap); a cap of 0 = row not sensed
VARIANTS = {
    "5": (5, 6, 15),
    "6": (6, 6, 15),
    "7": (7, 6, 15),
    "8": (8, 6, 15),
    "inf": (15, 15, 15),
    "6-no-trays": (6, 6, 0),
}
RECOGNIZER_SLOTS = (5, 6, 7, 8)
POLICIES = {
    "random": "uniformly random distinct legal end position each turn",
    "gnubg": "GNU Backgammon 0-ply best move (gnubg_nn.bestmove) for both sides",
}

# reading of row r = pos[_A[r]] + pos[_B[r]] (index 52 is a zero column)
_A = np.array(list(range(24)) + [24, 49, 50, 51])
_B = np.array([48 - r for r in range(24)] + [52, 52, 52, 52])


def _caps(v):
    n, bar, tray = VARIANTS[v]
    return np.array([n] * 24 + [bar, bar, tray, tray], dtype=np.uint8)


def _readings(e52, caps):
    ext = np.concatenate([e52, np.zeros((len(e52), 1), np.uint8)], axis=1)
    c = ext[:, _A] + ext[:, _B]
    return np.minimum(c, caps)


def _choose(pl, pos, side, d1, d2, rng, policy, stats):
    """Index of the play to make: uniformly random, or GNU Backgammon's 0-ply best move."""
    if policy == "gnubg" and len(pl) > 1:
        import gnubg_nn

        best = gnubg_nn.bestmove(board.to_gnubg(pos, side), d1, d2)
        end = bytearray(pos)
        try:
            for f, t in best:
                board.apply_step(end, side, f, t)
        except ValueError:
            end = None
        for i, (_, e) in enumerate(pl):
            if end is not None and e == end:
                return i
        stats["policy_fallbacks"] = stats.get("policy_fallbacks", 0) + 1
    return rng.randrange(len(pl))


def play_games(first, count, seed, policy="random", stats=None):
    """Games ``first .. first+count-1``: every turn's distinct ends, choice and start."""
    stats = {} if stats is None else stats
    ends = []
    turn_of = []
    chosen = []
    starts = []
    nturn = 0
    for g in range(first, first + count):
        rng = random.Random(seed * 1_000_003 + g)
        pos = board.start_position()
        side = rng.randrange(2)
        while True:
            d1 = rng.randint(1, 6)
            d2 = rng.randint(1, 6)
            pl = movegen.plays(pos, side, d1, d2)
            if pl:
                k = _choose(pl, pos, side, d1, d2, rng, policy, stats)
                for i, (_, e) in enumerate(pl):
                    ends.append(e)
                    turn_of.append(nturn)
                    chosen.append(i == k)
                starts.append(bytes(pos))
                nturn += 1
                pos = bytearray(pl[k][1])
                if pos[50 + side] == 15:
                    break
            side ^= 1
    e = np.frombuffer(b"".join(ends), np.uint8).reshape(-1, 52)
    s = np.frombuffer(b"".join(starts), np.uint8).reshape(-1, 52)
    return e, np.array(turn_of), np.array(chosen), s


def analyse(e, turn_of, chosen, starts, variant):
    """Counts for one variant over one batch of turns."""
    rd = _readings(e, _caps(variant))
    w = np.random.default_rng(12345).integers(1, 2**63, size=28, dtype=np.uint64)
    key = (rd.astype(np.uint64) * w).sum(axis=1)  # 64-bit hash, checked row by row below
    order = np.lexsort((key, turn_of))
    ts = turn_of[order]
    ks = key[order]
    rs = rd[order]
    eq = (ts[1:] == ts[:-1]) & (ks[1:] == ks[:-1]) & (rs[1:] == rs[:-1]).all(axis=1)
    group = np.concatenate([[0], np.cumsum(~eq)])
    size = np.bincount(group)
    gsize = size[group]  # distinct ends sharing this row's reading (sorted order)
    ch = chosen[order]
    nturns = int(turn_of.max()) + 1
    choice_amb = int((gsize[ch] > 1).sum())
    any_amb = len(np.unique(ts[1:][eq]))
    # the chosen end reads exactly like the turn's start (nothing visibly moved)
    rstart = _readings(starts, _caps(variant))
    hidden = int((rd[chosen] == rstart[turn_of[chosen]]).all(axis=1).sum())
    return {
        "turns": nturns,
        "choice_ambiguous": choice_amb,
        "any_ambiguous": any_amb,
        "max_candidates": int(gsize[ch].max()),
        "reads_like_start": hidden,
    }


def recognizer_sample(first, count, seed, policy="random"):
    """The real recogniser (strict) on the chosen end of every turn of these games."""
    stats = {}
    out = {}
    for n in RECOGNIZER_SLOTS:
        out[str(n)] = {"turns": 0, "complete": 0, "asked_ambiguous": 0, "asked_unfinished": 0, "wrong": 0}
    recs = {n: recognize.Recognizer(slots=n) for n in RECOGNIZER_SLOTS}
    buf = bytearray(28)
    for g in range(first, first + count):
        rng = random.Random(seed * 1_000_003 + g)
        pos = board.start_position()
        side = rng.randrange(2)
        while True:
            d1 = rng.randint(1, 6)
            d2 = rng.randint(1, 6)
            pl = movegen.plays(pos, side, d1, d2)
            if pl:
                k = _choose(pl, pos, side, d1, d2, rng, policy, stats)
                end = pl[k][1]
                for n, r in recs.items():
                    o = out[str(n)]
                    r.begin(pos, side, d1, d2)
                    st = r.update(recognize.observe(end, buf, r.caps))
                    o["turns"] += 1
                    if st == recognize.COMPLETE:
                        o["complete"] += 1
                        if r.end(0) != end:
                            o["wrong"] += 1
                    elif st == recognize.AMBIGUOUS:
                        o["asked_ambiguous"] += 1
                    else:
                        o["asked_unfinished"] += 1
                pos = bytearray(end)
                if pos[50 + side] == 15:
                    break
            side ^= 1
    return out


def _chunk(args):
    first, count, seed, rec_count, policy = args
    t0 = time.time()
    stats = {}
    e, turn_of, chosen, starts = play_games(first, count, seed, policy, stats)
    res = {v: analyse(e, turn_of, chosen, starts, v) for v in VARIANTS}
    res["6"]["policy_fallbacks"] = stats.get("policy_fallbacks", 0)
    rec = recognizer_sample(first, rec_count, seed, policy) if rec_count else None
    return res, rec, len(e), time.time() - t0


def _merge(into, part):
    for k, v in part.items():
        if k == "max_candidates":
            into[k] = max(into.get(k, 0), v)
        else:
            into[k] = into.get(k, 0) + v


def run(games, seed, jobs, rec_games, policy="random", chunk=100):
    tasks = []
    g = 0
    while g < games:
        n = min(chunk, games - g)
        r = max(0, min(n, rec_games - g))
        tasks.append((g, n, seed, r, policy))
        g += n
    tasks.sort(key=lambda t: -t[3])  # the slow recogniser chunks first, so both cores finish together
    t0 = time.time()
    variants = {v: {} for v in VARIANTS}
    rec = {}
    ends = 0
    pool = Pool(jobs) if jobs > 1 else None
    try:
        results = pool.imap_unordered(_chunk, tasks) if pool else map(_chunk, tasks)
        for res, rr, ne, _ in results:
            ends += ne
            for v in VARIANTS:
                _merge(variants[v], res[v])
            if rr:
                for n, d in rr.items():
                    _merge(rec.setdefault(n, {}), d)
    finally:
        if pool:
            pool.close()
            pool.join()
    for d in variants.values():
        t = d["turns"]
        d["choice_ambiguous_pct"] = round(100.0 * d["choice_ambiguous"] / t, 3)
        d["any_ambiguous_pct"] = round(100.0 * d["any_ambiguous"] / t, 3)
        d["reads_like_start_pct"] = round(100.0 * d["reads_like_start"] / t, 4)
    for d in rec.values():
        t = d["turns"]
        d["asked_pct"] = round(100.0 * (d["asked_ambiguous"] + d["asked_unfinished"]) / t, 3)
    return {
        "version": VERSION,
        "games": games,
        "seed": seed,
        "recognizer_games": rec_games,
        "policy": POLICIES[policy],
        "turns_with_a_play": variants["6"]["turns"],
        "distinct_ends_examined": ends,
        "variants": variants,
        "recognizer": rec,
        "wall_s": round(time.time() - t0, 1),
        "jobs": jobs,
    }


def cache_path(policy):
    return CACHE if policy == "random" else CACHE.with_name("slot_study_%s.json" % policy)


def load_or_run(games=10000, seed=1, jobs=2, rec_games=300, force=False, policy="random"):
    cache = cache_path(policy)
    if cache.exists() and not force:
        data = json.loads(cache.read_text())
        same = (data.get("version"), data.get("games"), data.get("seed"), data.get("recognizer_games"))
        if same == (VERSION, games, seed, rec_games):
            data["cached"] = True
            return data
    data = run(games, seed, jobs, rec_games, policy)
    data["policy_name"] = policy
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(data, indent=2) + "\n")
    data["cached"] = False
    return data


def table(data):
    """The Markdown table docs/slot-study.md quotes."""
    v = data["variants"]
    rec = data.get("recognizer", {})
    lines = [
        "| slots per point | play ambiguous (sensors alone) | turns with any ambiguous pair "
        "| largest candidate set | confirm has to ask (recogniser, strict) |",
        "|---|---|---|---|---|",
    ]
    for name in ("5", "6", "7", "8", "inf", "6-no-trays"):
        d = v[name]
        r = rec.get(name)
        ask = "%.2f %%" % r["asked_pct"] if r else "-"
        lines.append(
            "| %s | %.3f %% (%d) | %.2f %% | %d | %s |"
            % (
                name,
                d["choice_ambiguous_pct"],
                d["choice_ambiguous"],
                d["any_ambiguous_pct"],
                d["max_candidates"],
                ask,
            )
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--recognizer-games", type=int, default=300)
    ap.add_argument("--policy", choices=sorted(POLICIES), default="random")
    ap.add_argument("--force", action="store_true", help="ignore the cache")
    a = ap.parse_args(argv)
    if a.games < 1 or a.jobs < 1 or a.recognizer_games < 0:
        ap.error("--games and --jobs must be >= 1, --recognizer-games >= 0")
    data = load_or_run(a.games, a.seed, a.jobs, a.recognizer_games, a.force, a.policy)
    print("policy: %s" % data["policy"])
    print(
        "%d games, %d turns with a play, %d distinct ends (%s, %.0f s)"
        % (
            data["games"],
            data["turns_with_a_play"],
            data["distinct_ends_examined"],
            "cached" if data["cached"] else "computed",
            data["wall_s"],
        )
    )
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
