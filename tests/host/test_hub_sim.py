"""Every command at once against the simulator (the real firmware on the MicroPython unix
port, its socket link serving one connection): ``gammon play`` (GNU Backgammon decides for the
board's computer) and ``gammon watch`` run for the whole test while ``gammon board info`` and
``gammon sync`` run again and again beside them, each a real ``gammon`` process started the
way a user starts it, through the hub (``gammon.hub``) that the first of them started. A robot
plays white through the simulated reed sensors and moves black's checkers as the board's LEDs
show GNU Backgammon's plays. Nobody is told the board is busy, the watch shows every play, the
library gets the live match, and the hub ends once the last command has gone.

Twice: the firmware in a ROMFS image on the 64-bit port (as ``make sim``), and frozen into the
32-bit board model with the board's heap (``make sim`` with --board-model)."""

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import link_scenario as S
import pytest
from bg import engine as movegen
from bg import notation
from gammon import hub

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]

MODES = [(True, server.DEFAULT_HEAP), ("board", server.BOARD_HEAP)]
COMPUTER_TURNS = 2


def _decided(play, n, pos, dice, timeout=60.0):
    """The steps of GNU Backgammon's ``n``-th play (0-based), once ``gammon play`` says it
    sent it (the board then shows it on its LEDs; the board model's simulator has no status
    panel to read them from)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        lines = [ln for ln in play.out.read_text().splitlines() if _DECISION.match(ln)]
        if len(lines) > n:
            text = _DECISION.match(lines[n]).group(1)
            return () if text in (None, "(no move)") else notation.parse_play(text, pos, 1, dice)
        time.sleep(0.05)
    raise AssertionError("no play %d from gnubg:\n%s" % (n, play.out.read_text()[-1500:]))


_DECISION = re.compile(r"^gnubg 0-ply (?:plays ([0-9bar/()* ]+|\(no move\))|cannot move)$")


class Gammon:
    """``gammon ARGS`` processes of one user (its config, library and runtime dirs)."""

    def __init__(self, tmp_path, run):
        self.env = dict(
            os.environ,
            GAMMON_CONFIG_DIR=str(tmp_path / "cfg"),
            GAMMON_HOME=str(tmp_path / "home"),
            GAMMON_RUNTIME_DIR=run,
            GAMMON_HUB_IDLE="3",
            PYTHONPATH=os.pathsep.join([str(ROOT / "host_tools"), str(ROOT / "firmware")]),
            PYTHONUNBUFFERED="1",
        )
        self.env.pop("GAMMON_NO_DAEMON", None)
        self.dir = tmp_path
        self.n = 0

    def start(self, *args):
        self.n += 1
        out = self.dir / ("out%d.txt" % self.n)
        f = open(out, "w")  # noqa: SIM115 - the process's, closed when it ends
        p = subprocess.Popen(
            [sys.executable, "-m", "gammon.cli", *args], env=self.env, stdout=f, stderr=subprocess.STDOUT
        )
        p.out = out
        f.close()
        return p

    def run(self, *procs_args):
        """Several commands at once; ``[(exit code, output)]``."""
        procs = [self.start(*a) for a in procs_args]
        return [(p.wait(120), p.out.read_text()) for p in procs]


def _white_turn(robot, rng):
    plays = [p[0] for p in movegen.plays(robot.pos, 0, robot.dice[0], robot.dice[1])]
    play = rng.choice(robot.tidy(0, plays) or plays) if plays else ()
    robot.turn_pos = bytearray(robot.pos)
    robot.make_play(0, play)
    time.sleep(robot.settle)
    kind, text = robot.press_until("roll0", ("PLAY", "CHOICE"))
    if kind == "CHOICE":
        robot.choose(0, text)
        robot.expect(("PLAY",))


@pytest.mark.parametrize("rom,heap", MODES, ids=["rom-image", "board-model"])
def test_watch_sync_info_and_play_at_once(tmp_path, monkeypatch, rom, heap):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    run = tempfile.mkdtemp(prefix="gh")  # short: a unix socket's path has ~100 bytes
    monkeypatch.setenv("GAMMON_RUNTIME_DIR", run + "/run")
    port = S.free_port()
    sim = server.Sim(
        image=str(tmp_path / "flash.lfs"),
        settings={"length": 1},
        seed="hub",
        link_port=port,
        heap=heap,
        rom=rom,
    )
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    g = Gammon(tmp_path, run + "/run")
    procs = []
    try:
        deadline = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        S.pair_with_buttons(sim, address, "player")
        play = g.start("play", "--side", "1")
        procs.append(play)
        log = hub.log_path(hub.socket_path(address))
        end = time.monotonic() + 60
        while not (log.exists() and "logged in" in log.read_text()) and time.monotonic() < end:
            time.sleep(0.1)  # the hub it started logged in; its HELLO is its first request
        time.sleep(1.0)  # its HELLO made black the computer for the match that starts now
        watch = g.start("watch", "--no-clear")
        procs.append(watch)
        robot = demo.Player(sim, random.Random(5))
        robot.start_game(True)
        starts = [x for x in sim.log if x.startswith("MATCH_START")]
        assert starts and "gnubg 0-ply" in starts[-1], (starts, play.out.read_text())  # the HELLO came
        rng = random.Random(7)
        side_runs = []
        computer_turns = 0
        while computer_turns < COMPUTER_TURNS:
            # the two short commands at once, beside the watch and the play
            side_runs += g.run(("board", "info"), ("sync", "--keep"))
            if robot.side == 0:
                _white_turn(robot, rng)
            else:
                robot.make_play(1, _decided(play, computer_turns, robot.pos, robot.dice))
                robot.expect(("PLAY",))
                computer_turns += 1
            robot.side = 1 - robot.side
            if robot.side == 0:
                kind, text = robot.press_until("roll0", ("ROLL",))
            else:  # the board throws for the computer once the host said "no double"
                kind, text = robot.expect(("ROLL",))
            nums = [int(x) for x in text.split()]
            robot.dice = (nums[1], nums[2])
        side_runs += g.run(("board", "info"), ("sync", "--keep"))
        time.sleep(1.0)  # the watch prints the last play
        for p in (play, watch):
            assert p.poll() is None, p.out.read_text()  # both still running
            p.send_signal(signal.SIGINT)
        codes = [p.wait(30) for p in (play, watch)]
        played, watched = play.out.read_text(), watch.out.read_text()
        assert codes == [0, 0], (played[-2000:], watched[-2000:])
        for code, text in side_runs:
            assert code == 0 and "busy" not in text, text
        infos = [t for _, t in side_runs if "board_id" in t]
        syncs = [t for _, t in side_runs if "synced:" in t]
        assert len(infos) == len(syncs) == len(side_runs) // 2 >= 3
        assert all("live" in t for t in infos[1:])  # the match, live on the board
        assert any("new " in t or "updated " in t for t in syncs)  # the library has it
        # GNU Backgammon decided every computer turn through the hub, and the watch saw them
        decided = [
            _DECISION.match(ln).group(1) or "(no move)" for ln in played.splitlines() if _DECISION.match(ln)
        ]
        assert len(decided) == COMPUTER_TURNS and "link lost" not in played, played
        shown = [
            _DECISION.match(ln).group(1) or "(no move)" for ln in watched.splitlines() if _DECISION.match(ln)
        ]
        assert shown == decided, (decided, watched[-3000:])
        assert "busy" not in played + watched
        # one hub, one login, for every command; it ends once they are gone
        path = hub.socket_path(address)
        assert log.read_text().count("logged in") == 1, log.read_text()
        end = time.monotonic() + 15
        while path.exists() and time.monotonic() < end:
            time.sleep(0.1)
        assert not path.exists() and not log.exists()  # ended well: nothing left
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        sim.stop()
        shutil.rmtree(run, ignore_errors=True)
