"""GAME_PACKED on the host: many random legal games (and GNU Backgammon games) round-trip,
random bit damage never raises, and plain decoding never loads the engine."""

import os
import random
import subprocess
import sys
from pathlib import Path

import pack_games as PG
from bg import record as R

ROOT = Path(__file__).resolve().parents[2]


def test_many_random_games_round_trip():
    rng = PG.Rng(20261122)
    kept_raw = 0
    for g in range(150):
        raw = bytes(PG.game(rng, g + 1, g % 3 != 0))
        try:
            rec = PG.packed_record(raw)
        except ValueError:
            kept_raw += 1  # only a game too long for 255 bytes may be refused
            continue
        assert PG.same_actions(raw, rec, True), g
        assert PG.same_actions(raw, rec, False), g
    assert kept_raw < 5


def test_gnubg_games_round_trip_with_the_controllers_plays():
    # gnubg picks the play; the board records the first visit reaching that position.
    gnubg_nn = __import__("pytest").importorskip("gnubg_nn")
    from bg import board
    from bg import engine as movegen

    gen = movegen.MoveGen()
    rnd = random.Random(5)
    for _ in range(10):
        recs = [(R.GAME_START, (1, 0, 0, 0))]
        pos = board.start_position()
        side = 0
        first = True
        for _turn in range(200):
            d1, d2 = rnd.randint(1, 6), rnd.randint(1, 6)
            if first:
                while d1 == d2:
                    d1, d2 = rnd.randint(1, 6), rnd.randint(1, 6)
                recs.append((R.OPENING, (0, (d1, d2))))
                side = 0 if d1 > d2 else 1
            b = board.to_gnubg(pos, side)
            mv = gnubg_nn.best_move(b, d1, d2)
            tgt = bytearray(pos)
            for f, t in mv:
                board.apply_step(tgt, side, f, t)
            found = []

            def visit(w, st, n, tgt=tgt, found=found):
                if not found and bytes(w) == bytes(tgt):
                    found.append(tuple(st[: 2 * n]))
                    gen.stop = True

            gen.for_each_end(pos, side, d1, d2, visit)
            assert found or gen.no_play(pos, side, d1, d2)
            steps = found[0] if found else ()
            recs.append((R.PLAY, (side, steps, 0)) if first else (R.TURN, (side, d1, d2, steps, 0)))
            first = False
            gen.apply(pos, side, steps)
            if pos[50 + side] == 15:
                break
            side ^= 1
        recs.append((R.GAME_END, (side, 1, 1, R.END_BEAROFF)))
        raw = b"".join(bytes(R.encode(k, f)) for k, f in recs)
        rec = PG.packed_record(raw)
        assert PG.same_actions(raw, rec) and PG.same_actions(raw, rec, False)
        assert len(rec) < 128


def test_random_damage_never_raises():
    rng = PG.Rng(77)
    rec = PG.packed_record(bytes(PG.game(rng, 1, True)))
    rnd = random.Random(1)
    for _ in range(300):
        bad = bytearray(rec)
        for _k in range(rnd.randint(1, 4)):
            bad[rnd.randrange(len(bad))] ^= 1 << rnd.randrange(8)
        # re-frame so the CRC passes and the expander itself meets the damage
        pl = bytes(bad[2:-2])
        fr = bytearray((R.GAME_PACKED, len(pl))) + pl
        c = R.crc16(fr)
        fr += bytes((c >> 8, c & 255))
        d = R.Decoder(bytes(fr))
        for _a in d:
            pass
        assert d.status in (R.OK, R.CORRUPT)
        assert d.valid in (0, len(fr))


def test_plain_decoding_does_not_load_the_engine():
    code = (
        "import sys\n"
        "from bg import record as R\n"
        "b = R.encode(R.GAME_START, (1, 0, 0, 0)) + R.encode(R.TURN, (0, 3, 1, (8, 5, 6, 5), 0))\n"
        "assert len(list(R.decode_stream(b))) == 3\n"
        "bad = ('bg.engine', 'bg.record.packdec', 'bg.board')\n"
        "assert not [m for m in sys.modules if m in bad], sys.modules\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(ROOT / d) for d in ("firmware", "host_tools/shim")))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_packdec_visits_exactly_like_movegen():
    # bg.record.packdec loads only MoveGenVisit; MoveGen (what the controller records from) must
    # visit in the same order on random positions.
    from bg import board
    from bg import engine as movegen
    from bg.record.packdec import Track

    a, b = movegen.MoveGen(), Track().gen

    rnd = random.Random(3)
    for _ in range(3):
        pos = board.start_position()
        side = 0
        for _t in range(80):
            d1, d2 = rnd.randint(1, 6), rnd.randint(1, 6)
            va, vb = [], []
            a.for_each_end(pos, side, d1, d2, lambda w, st, n, va=va: va.append(bytes(st[: 2 * n])))
            b.for_each_end(pos, side, d1, d2, lambda w, st, n, vb=vb: vb.append(bytes(st[: 2 * n])))
            assert va == vb
            if va:
                steps = va[rnd.randrange(len(va))]
                for i in range(0, len(steps), 2):
                    board.apply_step(pos, side, steps[i], steps[i + 1])
            if pos[50 + side] == 15:
                break
            side ^= 1
