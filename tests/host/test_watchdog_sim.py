"""The watchdog end to end on the simulator: each essential task of the real firmware (scan,
buttons, leds, clock, recognise) is made to die or hang mid-match (``Sim.fault``: the
simulator's test hook, docs/simulator.md); the supervisor stops feeding the hardware watchdog, the simulated
watchdog resets the board (the server kills the firmware and starts it on the same flash
image), and the board comes back into the same match: every confirmed play is in the journal,
the side on roll throws the same dice again, the LEDs show the same guidance, the match plays
on, and the crash log says why."""

import random
import time
from pathlib import Path

import pytest
from bg import crashlog as CL
from bg import record

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]

RESET_WAIT = 30.0  # s: the watchdog's 8 s (+ a 4 s deadline for a stall) on a loaded machine


def _wait(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def _frames(sim, seconds=1.5):
    """The distinct LED frames shown over ``seconds`` (blinking guidance has several), once
    the roll animation is over."""
    time.sleep(1.5)
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.add(sim.leds)
        time.sleep(0.02)
    return seen


def _plays(lines):
    return [x for x in lines if x.startswith("PLAY ")]


CASES = [
    ("scan", "block", None, True),  # the event loop stuck: nothing is logged before the reset
    ("buttons", "raise", CL.CAUSE_TASK_DIED, True),
    ("leds", "stall", CL.CAUSE_TASK_HUNG, True),
    ("clock", "raise", CL.CAUSE_TASK_DIED, True),
    ("recognise", "stall", CL.CAUSE_TASK_HUNG, True),
    # the board model: MicroPython 32-bit, the firmware frozen, the board's 64k heap
    ("scan", "raise", CL.CAUSE_TASK_DIED, "board"),
    ("buttons", "stall", CL.CAUSE_TASK_HUNG, "board"),
]


@pytest.mark.parametrize(
    "task,how,logged,rom",
    CASES,
    ids=["%s-%s%s" % (c[0], c[1], "-board-model" if c[3] == "board" else "") for c in CASES],
)
def test_a_dead_or_hung_task_resets_the_board_into_the_same_match(tmp_path, task, how, logged, rom):
    img = tmp_path / "flash.lfs"
    sim = server.Sim(image=str(img), settings={"length": 3}, seed="wd-" + task, rom=rom)
    sim.start()
    try:
        assert _wait(lambda: any("supervisor: all tasks alive" in x for x in sim.log), 15), sim.log[-10:]
        p = demo.Player(sim, random.Random(7))
        p.start_game(True)
        for _ in range(3):
            assert p.turn() is None
        before = _frames(sim)  # the guidance for the play just thrown
        confirmed = _plays(sim.log)
        dice = p.dice
        sim.fault(task, how)
        assert _wait(lambda: sim.resets, RESET_WAIT), sim.log[-15:]
        assert sim.resets == ["watchdog"]
        assert _wait(lambda: any("reset cause: watchdog" in x for x in sim.log), 15), sim.log[-15:]
        alive = lambda: sum("supervisor: all tasks alive" in x for x in sim.log) == 2  # noqa: E731
        assert _wait(alive, 15), sim.log[-15:]  # booted again: replayed, every task running
        resumed = [x for x in sim.log if x.startswith("resumed match: ")]
        assert len(resumed) == 1, sim.log[-15:]
        # the throw not yet played was not journaled (a roll waits for its play): the board
        # waits for the roll again, and the same dice come back (docs/journal.md)
        assert "phase await_roll" in resumed[0]
        p.con.skip()  # the console before the reset (the dead task's exception) is read
        kind, text = p.press_until("roll%d" % p.side, ("ROLL",))
        assert tuple(int(x) for x in text.split()[1:3]) == dice
        assert _frames(sim) == before  # the same LED guidance as before the reset
        assert p.turn() is None  # the match plays on
        after = _plays(sim.log)
    finally:
        sim.stop()
    files = demo.dump_image(img)
    [acts] = [list(record.decode_stream(d)) for path, d in files.items() if path.endswith(".m")]
    stored = [f for k, f in acts if k == record.PLAY]
    assert len(stored) == len(after) == len(confirmed) + 1  # every confirmed play, once
    es = CL.parse(files["/crash.log"])
    causes = [e[2] for e in es]
    if logged is None:
        assert causes == [CL.CAUSE_POWER_ON, CL.CAUSE_WATCHDOG]
    else:
        assert causes == [CL.CAUSE_POWER_ON, logged, CL.CAUSE_WATCHDOG], es
        assert es[1][3].startswith(task + ": "), es[1]
        if how == "raise":
            assert "RuntimeError: injected fault in " + task in es[1][3]
        assert es[1][1] > 1700000000  # the wall time of the failure
