# Runs on MicroPython (unix port): the whole board application -- sensing, controller, rules,
# dice, LED frames, journal on a littlefs image -- driven headless through the sim HAL by two
# robot players for GAMES consecutive games, printing one JSON line per game with the heap in
# use after a collection, and first one "boot: board=N hal=N app=N boot=N" line: the bytes each
# boot step keeps (the board description, the sim HAL, App(), App.boot()). Usage:
#   micropython -X heapsize=H tools/sim/heapcheck.py GAMES IMAGE [SEED [computer]]
# ("computer": the board's computer plays black -- pubeval, app.opponent -- and the robot moves
# its checkers as its LEDs show them; the board records those plays by itself.)
# (tools/bench/sim.py and tests/host/test_sim_heap.py run it on precompiled .mpy modules.)
import gc
import sys

gc.collect()
_base = gc.mem_alloc()

from app import main as M  # noqa: E402, I001 - first, as the board's main.py imports it
from app import controller as C  # noqa: E402
from bg import board as B  # noqa: E402
from bg import hwdesc  # noqa: E402
from bg import engine as movegen  # noqa: E402
from hal import sim  # noqa: E402

# modules the application imports lazily: loaded now so code_bytes counts all the bytecode
for _m in (
    "bg.recognize",
    "bg.journal",
    "bg.dice.fairness",
    "bg.dice.cup",
    "bg.record",
    "bg.leds",
    "bg.sensing",
    "app.view",
    "app.dice_anim",
):
    __import__(_m)

# the robot players' move generator (bg.engine's shared one) made now, before the board's heap
# is measured or fragmented: a real board has no robot competing for its 64k
movegen.max_steps(B.start_position(), 0, 3, 1)

GAMES = int(sys.argv[1])
IMAGE = sys.argv[2]
SEED = sys.argv[3] if len(sys.argv) > 3 else "heap"
COMPUTER = 1 if len(sys.argv) > 4 and sys.argv[4] == "computer" else -1


class Lcg:
    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


class Pick:
    """Choose the k-th legal end position without building a list."""

    def __init__(self):
        self.k = 0
        self.n = 0
        self.steps = bytearray(8)
        self.len = 0

    def visit(self, w, st, n):
        if self.n == self.k:
            for i in range(2 * n):
                self.steps[i] = st[i]
            self.len = 2 * n
        self.n += 1


def _used():
    gc.collect()
    return gc.mem_alloc()


def main():
    steps = []  # (what, bytes it keeps after a collection): the boot breakdown (docs/memory.md)
    a = _used()
    board = hwdesc.load()
    steps.append(("board", _used() - a))
    a = _used()
    hw = sim.make(
        {
            "sensor_bytes": board.nbytes,
            "leds": board.nleds,
            "buttons": len(board.buttons),
            "seed": SEED.encode(),
            "image": IMAGE,
        }
    )
    steps.append(("hal", _used() - a))
    a = _used()
    app = M.App(hw, board, C.Settings(length=0, computer=COMPUTER), lambda m: None)
    steps.append(("app", _used() - a))
    app.recorder.verbose = False
    app.presses.animate = False
    counts = bytearray(28)
    chain = bytearray(board.nbytes)
    pos = B.start_position()
    scratch = B.start_position()
    rng = Lcg(7)
    pick = Pick()
    ctl = app.ctl
    now = [0]
    roll = [board.button_index("roll", s) for s in (0, 1)]

    def sense():
        for i in range(24):
            p = i + 1
            counts[i] = min(6, pos[p - 1] + pos[49 - p])
        counts[24] = min(6, pos[24])
        counts[25] = min(6, pos[49])
        counts[26] = pos[50]
        counts[27] = pos[51]
        board.fill_chain(counts, chain)
        hw.sensors.set_bits(chain)
        for _ in range(board.debounce_scans):
            hw.sensors.read_into(app.raw)
            if app.sensing.feed(app.raw):
                now[0] += 5
                app.engine.on_board(now[0])
        app.view.paint(ctl, now[0])

    def press(i):
        now[0] += 50
        app.presses.press(i, C.PRESS, now[0])
        app.view.paint(ctl, now[0])

    a = _used()
    app.boot()
    steps.append(("boot", _used() - a))
    print("boot: " + " ".join("%s=%d" % s for s in steps))
    sense()
    press(roll[0])  # IDLE -> OPENING
    games = 0
    while games < GAMES:
        for i in range(52):
            pos[i] = 0
        B.set_start(pos)
        sense()
        while ctl.phase == C.OPENING:
            press(roll[0])
        while ctl.phase not in (C.GAME_OVER, C.MATCH_OVER):
            if ctl.phase == C.AWAIT_ROLL:
                press(roll[ctl.side])
            side = ctl.side
            if side == COMPUTER:  # its play, as the LEDs show it: the board records it itself
                plan = ctl.opp.plan
                for i in range(0, len(plan), 2):
                    B.apply_step(pos, side, plan[i], plan[i + 1])
                    sense()
                if ctl.phase == C.MOVING and ctl.side == side:
                    raise SystemExit("the computer's play was not recorded")
                continue
            pick.n = 0
            pick.len = 0
            pick.k = 0
            total = movegen.for_each_end(ctl.mt.pos, side, ctl.dice[0], ctl.dice[1], pick.visit)
            if total:
                pick.k = rng.below(total)
                pick.n = 0
                movegen.for_each_end(ctl.mt.pos, side, ctl.dice[0], ctl.dice[1], pick.visit)
            for i in range(0, pick.len, 2):
                B.apply_step(pos, side, pick.steps[i], pick.steps[i + 1])
            sense()
            press(roll[side])
            if ctl.phase == C.MOVING and ctl.choices:
                # several legal plays read the same: cycle (CUBE) to ours, then confirm
                cube = board.button_index("cube", side)
                for _ in range(len(ctl.choices)):
                    B.copy_into(scratch, ctl.turn_start)
                    cand = ctl.choices[ctl.choice]
                    for i in range(0, len(cand), 2):
                        B.apply_step(scratch, side, cand[i], cand[i + 1])
                    if scratch == pos:
                        break
                    press(cube)
                press(roll[side])
            if ctl.phase == C.MOVING and ctl.side == side:
                raise SystemExit("confirm refused: " + ctl.message)
        games += 1
        gc.collect()
        print(
            '{"game": %d, "heap_bytes": %d, "free_bytes": %d, "code_bytes": %d, "score": [%d, %d]}'
            % (games, gc.mem_alloc(), gc.mem_free(), _code, ctl.mt.score[0], ctl.mt.score[1])
        )
        press(roll[0])  # next game


gc.collect()
_code = gc.mem_alloc() - _base
main()
