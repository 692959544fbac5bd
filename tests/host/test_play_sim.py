"""``gammon play`` end to end: the real firmware in the simulator (the MicroPython unix port,
its socket link), a paired host running ``gammon.commands.play.Player`` with GNU Backgammon
for black, and a robot player for white moving checkers through the simulated reed sensors.

The host's HELLO between matches makes black the board's computer under the name "gnubg 0-ply";
on black's turns the board waits for the host's cube answer and play, shows the play on its
LEDs (the status line's plan), the robot moves those checkers and the board records the play
itself. Half-way the host's connection is cut: the host connects again and decides on; the
match plays to its end and the board's journal holds every record, the computer named as the
host said, each of black's plays the one the host sent."""

import io
import random
import socket
import threading
import time
from pathlib import Path

import link_scenario as S
from bg import board as B
from bg import engine as movegen
from bg import record
from gammon import link as L
from gammon.brain import Brain, Follow
from gammon.commands.play import Player

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]


def _pair(sim, address):
    S.pair_with_buttons(sim, address, "player")


class _Recorder(Player):
    """The real Player, remembering each play it sent (turn -> steps)."""

    def __init__(self, *a, **kw):
        Player.__init__(self, *a, **kw)
        self.plays = {}

    def _act(self):
        d = self.brain.decide(self.follow)
        if d is not None and d[0] == "play" and self.sent != self.follow.r.n:
            self.plays[d[1]] = d[2]
        Player._act(self)


def _plan(sim, timeout=60.0):
    """The computer's play the board's LEDs show (the status line's plan), once it shows."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = sim._st
        pl = st.get("pl")
        if st.get("ph") == 4 and st.get("s") == 1 and pl and not pl[1]:
            return tuple(pl[0])
        if sim.exit_code is not None:
            break
        time.sleep(0.02)
    raise AssertionError("the computer's play never showed; console:\n" + "\n".join(sim.log[-15:]))


def test_gnubg_plays_the_boards_computer_through_a_dropped_link(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    port = S.free_port()
    sim = server.Sim(image=str(tmp_path / "flash.lfs"), settings={"length": 1}, seed="play", link_port=port)
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    out = io.StringIO()
    res = {}
    try:
        deadline = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        _pair(sim, address)
        player = _Recorder(lambda: L.connect(address), Brain(1, 0), out)
        robot = demo.Player(sim, random.Random(5))
        got = {"computer_turns": 0}

        def play_white():
            """White at the board (a thread: GNU Backgammon's module runs on the main thread
            only, where the host's Player runs)."""
            end = time.monotonic() + 20
            while player.client is None and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.5)  # the HELLO made black the computer for the match that starts now
            robot.start_game(True)
            rng = random.Random(7)
            cut = False
            for _turn in range(300):
                side = robot.side
                if side == 0:
                    plays = [p[0] for p in movegen.plays(robot.pos, 0, robot.dice[0], robot.dice[1])]
                    play = rng.choice(robot.tidy(0, plays) or plays) if plays else ()
                    robot.turn_pos = bytearray(robot.pos)
                    robot.make_play(0, play)
                    time.sleep(robot.settle)
                    kind, text = robot.press_until("roll0", ("PLAY", "CHOICE"))
                    if kind == "CHOICE":
                        robot.choose(0, text)
                        robot.expect(("PLAY",))
                else:
                    steps = _plan(sim)
                    robot.make_play(1, steps)
                    robot.expect(("PLAY",))
                    got["computer_turns"] += 1
                    if got["computer_turns"] == 3 and not cut:
                        cut = True
                        c = player.client
                        assert player.reconnects == 0 and c is not None, out.getvalue()
                        c.t.sock.shutdown(socket.SHUT_RDWR)  # the link drops: the host must come back
                if B.count(robot.pos, side, 0) == 15:
                    robot.expect(("GAME_END",))
                    robot.expect(("MATCH_END",))
                    return
                robot.side = 1 - side
                if robot.side == 0:
                    kind, text = robot.press_until("roll0", ("ROLL",))
                else:  # the board throws for the computer once the host said "no double"
                    kind, text = robot.expect(("ROLL",))
                nums = [int(x) for x in text.split()]
                robot.dice = (nums[1], nums[2])
            raise AssertionError("the match did not end")

        def white():
            try:
                play_white()
                res["white"] = "done"
            except Exception as e:  # noqa: BLE001 - reported by the assertion below
                res["error"] = e

        th = threading.Thread(target=white, daemon=True)
        th.start()
        ended = player.run(matches=1, idle=120)
        player.client.close()  # (the board serves one connection at a time)
        th.join(60)
        computer_turns = got["computer_turns"]
        assert not th.is_alive() and res.get("white") == "done", (res, out.getvalue()[-2000:])
        assert ended == 1 and computer_turns >= 3
        assert player.reconnects >= 1 and "link lost" in out.getvalue()
        # the board's own copy: the computer named as the host said, its plays the host's
        with L.connect(address) as c:
            games = c.list_games()
            data = c.fetch_game(games[-1]["id"], resume=False)
        f = Follow()
        black = []
        for k, fl in record.decode_stream(data):
            if k == record.PLAY and fl[0] == 1:
                black.append((f.throws, bytes(f.r.mt.pos), tuple(fl[1])))
            f.feed(k, fl)
        ms = next(fl for k, fl in record.decode_stream(data) if k == record.MATCH_START)
        assert ms[8] == "gnubg 0-ply" and ms[3] & record.OPT_COMPUTER1
        assert f.r.mt.phase == 10  # F_MATCH_OVER: the match ended on the board
        assert len(black) == computer_turns
        sent = 0
        for throws, pos, steps in black:
            if throws in player.plays:  # the host's (a turn during the cut may be the board's)
                sent += 1
                a = movegen.MoveGen().apply(bytearray(pos), 1, steps)
                b = movegen.MoveGen().apply(bytearray(pos), 1, player.plays[throws])
                assert a == b, (throws, steps, player.plays[throws])
        # every turn is the host's; one may be the board's own when the host came back after
        # BRAIN_MS (a loaded machine): the promise is that the match goes on either way
        assert sent >= computer_turns - 1, (sent, computer_turns, out.getvalue())
    finally:
        sim.stop()
