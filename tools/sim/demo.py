"""A whole match played automatically on the simulator, through the simulated sensors.

    .venv/bin/python -m tools.sim.demo [--length 3] [--image .sim/demo.lfs] [--seed demo]

Two robot players sit at the virtual board: they read the dice from the firmware (its serial
console, the same lines the page shows), pick a random legal play with the rules engine,
move the checkers one by one exactly as a hand would (lift, put down; a hit blot is put on
the bar first), press the roll/confirm and cube buttons, and set the checkers up again after
each game. The firmware records everything in its journal (a littlefs image); at the end the
demo reads the journal back (``tools/sim/lfs_dump.py`` on MicroPython), decodes it with
``bg.record`` and verifies the dice with the revealed seed.
"""

import argparse
import json
import random
import re
import sys
import threading
import time
from pathlib import Path

from bg import board as B
from bg import engine as movegen

from tools import mpy
from tools.sim import server
from tools.sim import status as words

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

ACTION = re.compile(r"^([A-Z_]+) ?(.*)$")
# Every wait is on the firmware's own console (the records it journals), never a fixed sleep
# racing it: WAIT is how long an answer may take on a loaded machine before the demo gives up.
WAIT = 60.0


class Console:
    """Follows the firmware's serial console for confirmed actions."""

    def __init__(self, sim):
        self.sim = sim
        self.seen = 0
        self.cv = threading.Condition()

    def next(self, kinds, timeout=WAIT):
        """The next action line whose kind is in ``kinds`` -> (kind, text); None on timeout."""
        end = time.monotonic() + timeout
        while True:
            lines, total = self.sim.log_since(self.seen)
            for line in lines:
                self.seen += 1
                m = ACTION.match(line)
                if m and m.group(1) in kinds:
                    return m.group(1), m.group(2)
                if line.startswith("Traceback") or "Error" in line:
                    raise RuntimeError("firmware failed:\n" + "\n".join(self.sim.log[-20:]))
            if time.monotonic() > end or self.sim.exit_code is not None:
                return None
            time.sleep(0.005)

    def skip(self):
        self.seen = self.sim.log_since(0)[1]


def loc(side, point):
    """Physical location of ``side``'s own ``point`` (25 = its bar, 0 = its tray)."""
    if point == 25:
        return 24 + side
    if point == 0:
        return 26 + side
    return (point if side == 0 else 25 - point) - 1


class Player:
    """Both robot players at one simulated board."""

    def __init__(
        self, sim, rng, step_ms=15, settle_ms=40, double_rate=0.0, verbose=False, house=False, length=0
    ):
        self.sim = sim
        self.con = Console(sim)
        self.rng = rng
        self.step = step_ms / 1000
        self.settle = settle_ms / 1000
        self.double_rate = double_rate
        self.verbose = verbose
        self.pos = B.start_position()
        self.side = -1
        self.dice = (0, 0)
        self.games = 0
        self.turns = 0
        self.result = None
        self.house = house
        self.length = length
        self.score = [0, 0]

    def say(self, *a):
        if self.verbose:
            print(*a, flush=True)

    def press(self, name):
        i = [b["name"] for b in self.sim.board["buttons"]].index(name)
        self.sim.click(i)

    def press_until(self, name, kinds, tries=5, timeout=3.0):
        """Press a button until the firmware confirms one of ``kinds`` -- a player presses
        again when the board did not react (e.g. the last checker was put down a moment
        before the press and was not debounced yet). A press answered late is harmless: the
        console is read in order, and a second press at the wrong time is ignored by the
        board (a confirm with nothing moved is refused). After the tries, one long wait."""
        for _ in range(tries):
            self.press(name)
            r = self.con.next(kinds, timeout)
            if r is not None:
                return r
        return self.expect(kinds)

    def hand_move(self, a, b):
        self.sim.physical.move(a, b)
        self.sim.send_bits()
        time.sleep(self.step)

    def firmware_saw(self):
        """Wait until the firmware has run on after the last sensor change (two LED frames
        later; up to WAIT on a loaded machine). The reeds cannot tell colours: a hit blot
        lifted and the hitter put down within one scan would read as one checker more on the
        bar and nothing else (docs/recognition: colour-blind hits), so a hand pauses there."""
        n = self.sim.frames
        self.sim.wait_frame(n, WAIT)
        self.sim.wait_frame(n + 1, WAIT)

    def make_play(self, side, play):
        """Move the checkers of ``play`` on the physical board, checker by checker."""
        opp = 1 - side
        for i in range(0, len(play), 2):
            f, t = play[i], play[i + 1]
            if t:
                blot = B.opp_count(self.pos, side, t)
                if blot == 1:
                    self.hand_move(loc(side, t), 24 + opp)  # the hit blot goes to its bar
                    self.firmware_saw()
            self.hand_move(loc(side, f), loc(side, t))
            B.apply_step(self.pos, side, f, t)

    def expect(self, kinds, timeout=WAIT):
        r = self.con.next(kinds, timeout)
        if r is None:
            tail = "\n".join(self.sim.log[-15:])
            raise RuntimeError("no %s from the firmware; console:\n%s" % ("/".join(kinds), tail))
        return r

    def start_game(self, first):
        """Checkers to the start position, then the opening throw(s)."""
        self.sim.physical.set_start()
        self.sim.send_bits()
        self.pos = B.start_position()
        time.sleep(self.settle)
        if first:
            self.press_until("roll0", ("MATCH_START",))  # IDLE -> OPENING (the dice seed is drawn)
            time.sleep(self.settle)
        while True:
            if self.house:
                # seed 004: side 0 throws two dice (not journaled yet), then side 1; a press
                # of side 1 before side 0's throw is ignored, so pressing again is safe
                self.press("roll0")
                time.sleep(self.settle)
                kind, text = self.press_until("roll1", ("OPENING",))
            else:
                kind, text = self.press_until("roll0", ("OPENING",))
            d = [int(x) for x in re.findall(r"\d", text.split(" ", 1)[1])]
            if self.house:
                a, b = d[0] + d[1], d[2] + d[3]
                if a != b:  # the higher total starts with its own dice; it keeps them (ROLL)
                    self.side = 0 if a > b else 1
                    self.dice = (d[0], d[1]) if a > b else (d[2], d[3])
                    self.press("roll%d" % self.side)
                    return
            elif d[0] != d[1]:
                self.side = 0 if d[0] > d[1] else 1
                self.dice = (d[0], d[1])
                return
            # a tie: throw again

    def choose(self, side, text):
        """Several legal plays read the same (a stack beyond the slots): the board shows one
        candidate at a time (and says which on its console); CUBE shows the next, ROLL takes
        the one shown."""
        while True:
            m = re.match(r"(\d+) (\d+) \((.*)\)", text)
            steps = tuple(int(x) for x in m.group(3).replace(",", " ").split())
            end = B.start_position()
            B.copy_into(end, self.turn_pos)
            for i in range(0, len(steps), 2):
                B.apply_step(end, side, steps[i], steps[i + 1])
            if end == self.pos:
                self.press("roll%d" % side)
                return
            self.press("cube%d" % side)
            text = self.expect(("CHOICE",))[1]

    def tidy(self, side, plays):
        """The plays that leave no point with more checkers than it has sensor slots: a person
        does not pile 13 checkers on one point, and the board cannot read such a pile."""
        cap = self.sim.board["sensors"]["slots_per_point"]
        out = []
        end = B.start_position()
        for play in plays:
            B.copy_into(end, self.pos)
            for i in range(0, len(play), 2):
                B.apply_step(end, side, play[i], play[i + 1])
            if all(B.count(end, side, q) <= cap for q in range(1, 25)):
                out.append(play)
        return out

    def turn(self):
        """Play the turn of ``self.side`` with ``self.dice``; returns the GAME_END text or None."""
        side = self.side
        self.turn_pos = bytearray(self.pos)
        plays = [p[0] for p in movegen.plays(self.pos, side, self.dice[0], self.dice[1])]
        play = self.rng.choice(self.tidy(side, plays) or plays) if plays else ()
        self.make_play(side, play)
        time.sleep(self.settle)
        kind, text = self.press_until("roll%d" % side, ("PLAY", "CHOICE"))  # confirm: picks up the dice
        if kind == "CHOICE":
            self.choose(side, text)
            kind, text = self.expect(("PLAY",))
        self.turns += 1
        if B.count(self.pos, side, 0) == 15:  # the last checker off: the game ends
            return self.expect(("GAME_END",))[1]
        self.side = side = 1 - side
        if self.double_rate and self.rng.random() < self.double_rate:
            # the board may refuse the double (cube owned, Crawford): nothing is logged then,
            # so no wait on DOUBLE here; if it is offered, the roll press below sees it
            self.press("cube%d" % side)
            time.sleep(self.settle)
        while True:
            kind, text = self.press_until("roll%d" % side, ("ROLL", "DOUBLE"))
            if kind == "ROLL":
                break
            self.press_until("roll%d" % (1 - side), ("TAKE",))  # the opponent takes
        nums = [int(x) for x in text.split()]
        self.dice = (nums[1], nums[2])
        return None

    def play_match(self, max_games=50):
        first = True
        while self.games < max_games:
            self.start_game(first)
            first = False
            self.games += 1
            while True:
                end = self.turn()
                if end:
                    break
            said = words.decode_log("GAME_END " + end) or end
            self.say("game %d: %s (%d turns so far)" % (self.games, said, self.turns))
            w, pts = [int(x) for x in end.split()[:2]]
            self.score[w] += pts
            if self.length and self.score[w] >= self.length:  # the firmware ends the match
                r = self.expect(("MATCH_END",))
            else:  # money play (or a caller that did not say the length): it may say so
                r = self.con.next(("MATCH_END",), 0.0 if self.length else 2.0)
            if r:
                self.result = r[1]
                self.say("match over:", match_words(r[1]))
                return r[1]
            self.press_until("roll0", ("GAME_START",))  # next game
        return None


def match_words(fields):
    """MATCH_END's fields (``winner score0 score1``, as the console logs them) in words."""
    try:
        w, s0, s1 = (int(x) for x in fields.split()[:3])
        return "%s wins the match, white %d - black %d" % (words.SIDES[w], s0, s1)
    except (ValueError, IndexError):
        return fields


def dump_image(image):
    """The files of a littlefs image, read by MicroPython (``lfs_dump.py``): {path: bytes}."""
    out = mpy.run([HERE / "lfs_dump.py", image], heap="256k", timeout=60)
    if out.returncode:
        raise RuntimeError("lfs_dump failed: " + out.stdout[-2000:] + out.stderr)
    files = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return {f["path"]: bytes.fromhex(f["hex"]) for f in files}


def check_journal(image):
    """Decode the finished matches in the image and verify their dice. Returns a list of
    ``(match file, actions, verify message)``."""
    from bg import dice, record

    out = []
    for path, data in sorted(dump_image(image).items()):
        if not path.endswith(".m"):
            continue
        acts = list(record.decode_stream(data))
        ms = [f for k, f in acts if k == record.MATCH_START]
        seeds = [f[0] for k, f in acts if k == record.SEED_REVEAL]
        rolls = []
        for k, f in acts:
            if k == record.OPENING:
                d = f[1]
                rolls.extend([tuple(d[i : i + 2]) for i in range(0, len(d), 2)])
            elif k == record.ROLL:
                rolls.append((f[1], f[2]))
        msg = "no seed revealed"
        if ms and seeds:
            m = ms[0]
            ps = m[10] or None  # a journal from before SEED_PART: the seed is in MATCH_START
            if ps is None:
                mix = dice.SeedMixer()  # the contributions after the commitment (docs/dice.md)
                for k, f in acts:
                    if k == record.SEED_PART:
                        mix.add(f[0], f[2])
                ps = mix.digest()
            ok, _, msg = dice.verify_transcript(m[0], m[9], seeds[0], ps, rolls)
        out.append((path, acts, msg, len(data)))
    return out


def linger(sim, seconds, res):
    """--watch: the page shows the match's end (the status panel's "match over" line, the
    firmware still running), then stays up ``seconds`` for the watcher; Ctrl-C ends it."""
    end = time.monotonic() + 5.0
    while res and "match over" not in sim.status.get("next", "") and time.monotonic() < end:
        time.sleep(0.05)
    if seconds > 0:
        print(
            "the page shows the final position for %d s (Ctrl-C ends sooner): %s"
            % (seconds, sim.status.get("next", "")),
            flush=True,
        )
        time.sleep(seconds)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Play a whole match automatically on the simulator.")
    ap.add_argument("--image", default=str(ROOT / ".sim" / "demo.lfs"), help="littlefs image for the journal")
    ap.add_argument("--keep", action="store_true", help="keep earlier matches in the image")
    ap.add_argument(
        "--seed",
        default="demo",
        help="seed of the robots' choices and the board's dice: a seed replays the same match "
        "(docs/simulator.md); 'random' = a truly random board",
    )
    ap.add_argument("--heap", default=None, help="MicroPython heap (default: the simulator's)")
    ap.add_argument("--doubles", type=float, default=0.05, help="chance the side on roll doubles")
    ap.add_argument("--watch", action="store_true", help="serve the page: watch the robots play in a browser")
    ap.add_argument("--port", type=int, default=8080, help="the page's port with --watch")
    ap.add_argument(
        "--step-ms", type=int, default=None, help="pause after each checker moved, ms (15; 400 with --watch)"
    )
    ap.add_argument(
        "--linger",
        type=float,
        default=None,
        help="with --watch: keep the page up this many seconds after the match, its final "
        "state shown (60; Ctrl-C ends sooner)",
    )
    ap.add_argument("--quiet", action="store_true", help="only the summary lines")
    server.add_setting_args(ap)
    args = ap.parse_args(argv)
    if args.length is None:
        args.length = 3
    image = Path(args.image)
    if image.exists() and not args.keep:
        image.unlink()
    kw = {"heap": args.heap} if args.heap else {}
    seed = None if args.seed == "random" else args.seed
    settings = server.parse_settings(args)
    sim = server.Sim(image=str(image), settings=settings, seed=seed, **kw)
    httpd = None
    step = 15 if args.step_ms is None else args.step_ms
    if args.watch:
        httpd = server.serve(sim, "127.0.0.1", args.port)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        print("watch the robots play: http://127.0.0.1:%d/" % httpd.server_address[1], flush=True)
        if args.step_ms is None:
            step = 400  # slow enough to follow
    sim.start()
    t0 = time.monotonic()
    try:
        p = Player(
            sim,
            random.Random(args.seed),
            step_ms=step,
            double_rate=args.doubles,
            verbose=not args.quiet,
            house=bool(settings.get("house")),
            length=args.length,
        )
        res = p.play_match()
        if httpd is not None:
            linger(sim, 60.0 if args.linger is None else args.linger, res)
    except (RuntimeError, OSError):
        print("\n".join(sim.log[-25:]), file=sys.stderr)
        raise
    except KeyboardInterrupt:
        res = p.result if "p" in locals() else None
        print("stopped (Ctrl-C)", flush=True)
    finally:
        sim.stop()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
    dt = time.monotonic() - t0
    print(
        "played %d game%s, %d turns in %.1f s; %s"
        % (p.games, "" if p.games == 1 else "s", p.turns, dt, match_words(res) if res else "no result")
    )
    for path, acts, msg, size in check_journal(image):
        print("journal %s: %d actions, %d bytes; dice %s" % (path, len(acts), size, msg))
    return 0 if res else 1


if __name__ == "__main__":
    sys.exit(main())
