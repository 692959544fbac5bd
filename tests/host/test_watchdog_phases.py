"""A task that hangs in every phase of a match: on the simulator, the firmware's essential tasks
take turns stalling while the board is idle, waiting for the opening throw, waiting for a play,
after a roll not yet played, holding a double, and between two games; each time the supervisor
stops feeding the watchdog, the board resets and comes back into the same phase from the
journal (a throw not yet played comes back as the same roll to throw: docs/journal.md), and the
match plays on. After MATCH_END the journal is closed and the board boots idle, as in the first
case. (Each task dying or hanging mid-turn, and the crash log: tests/host/test_watchdog_sim.py.)"""

import random
import time
from pathlib import Path

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]

RESET_WAIT = 30.0  # s: the watchdog's 8 s (+ a 4 s deadline for a stall) on a loaded machine
TASKS = ["leds", "buttons", "recognise", "clock", "scan"]


def _wait(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def _alive(sim):
    return sum("supervisor: all tasks alive" in x for x in sim.log)


class _Hangs:
    def __init__(self, sim, p):
        self.sim = sim
        self.p = p
        self.n = 0
        self.seen = []

    def hang(self, *resumes_in):
        """A task stalls now; the board must reset and come back in the phase it was in (or one
        of ``resumes_in``)."""
        sim = self.sim
        time.sleep(0.3)  # the last input's records are journaled
        before = sim.status.get("phase")
        task = TASKS[self.n % len(TASKS)]
        self.n += 1
        alive = _alive(sim)
        sim.fault(task, "stall" if task != "scan" else "block")
        assert _wait(lambda: len(sim.resets) == self.n, RESET_WAIT), (task, before, sim.log[-15:])
        assert _wait(lambda: _alive(sim) == alive + 1, 20), (task, before, sim.log[-15:])
        want = (before,) + resumes_in
        assert _wait(lambda: sim.status.get("phase") in want, 10), (task, before, sim.status, sim.log[-10:])
        self.seen.append((before, sim.status.get("phase"), task))
        self.p.con.skip()


def test_a_task_hanging_in_every_phase_resets_into_the_same_phase(tmp_path):
    sim = server.Sim(image=str(tmp_path / "flash.lfs"), settings={"length": 3}, seed="wd-phases")
    sim.start()
    try:
        assert _wait(lambda: _alive(sim) == 1, 15), sim.log[-10:]
        p = demo.Player(sim, random.Random(3), double_rate=0.0)
        h = _Hangs(sim, p)
        h.hang()  # idle: no match
        p.sim.physical.set_start()
        p.sim.send_bits()
        time.sleep(p.settle)
        p.press_until("roll0", ("MATCH_START",))
        h.hang()  # opening: waiting for the opening throw
        p.start_game(False)
        h.hang()  # moving: the opening throw is journaled
        assert p.turn() is None
        h.hang("await_roll")  # a roll not yet played comes back to be thrown again
        p.press("cube%d" % p.side)
        p.expect(("DOUBLE",))
        h.hang()  # doubled: the offer is journaled
        p.press_until("cube%d" % (1 - p.side), ("DROP",))  # dropped: the game is over
        p.expect(("GAME_END",))
        h.hang()  # game over, the next game not started
        p.press_until("roll0", ("GAME_START",))
        p.start_game(False)
        assert p.turn() is None  # the match plays on
    finally:
        sim.stop()
    phases = [b for b, _, _ in h.seen]
    assert phases == ["idle", "opening", "moving", "moving", "doubled", "game_over"], h.seen
