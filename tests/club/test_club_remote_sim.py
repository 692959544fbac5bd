"""Remote play end to end on one board: the real firmware in the simulator (the MicroPython
unix port, its socket link), its paired host running ``gammon.commands.remote.remote_player`` through
the club's real relay (PostgreSQL, a server process), and the other board's host played by
this test: it plays the other board's joint dice (its commitment, part and shares) and reads
nothing but what a remote host could know of black's turns (the dice and position, here
taken from the local host's fold) and sends black's plays through the relay -- once an
illegal one first. White is a robot moving
checkers on the simulated board. The board's journal ends up with every black play the remote
sent, the illegal one nowhere, and the local host's white plays reached the relay in order."""

import hashlib
import io
import random
import re
import threading
import time
from pathlib import Path

import link_scenario as S
from bg import board as B
from bg import engine as movegen
from bg import match as bgmatch
from bg import record
from bg.dice import commitment, joint
from gammon import link as L
from gammon import remote
from gammon.brain import Follow
from gammon.commands import remote as remote_cmd
from test_play_sim import _plan

from tools.sim import demo, server

ROOT = Path(__file__).resolve().parents[2]


def test_a_remote_player_plays_black_through_the_relay(servers, event, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    home = remote.Relay(servers[0].url, event("home", rate=10_000))
    away = remote.Relay(servers[0].url, event("away", rate=10_000))
    away.join(home.create(0))
    port = S.free_port()
    sim = server.Sim(image=str(tmp_path / "flash.lfs"), settings={"length": 1}, seed="remote", link_port=port)
    sim.start()
    address = "tcp:127.0.0.1:%d" % port
    out = io.StringIO()
    res = {"black": [], "bad": None}
    try:
        deadline = time.monotonic() + 10
        while not any("link: listening" in x for x in sim.log) and time.monotonic() < deadline:
            time.sleep(0.05)
        S.pair_with_buttons(sim, address, "player")
        player = remote_cmd.remote_player(lambda: L.connect(address), home, 1, out)
        robot = demo.Player(sim, random.Random(5))
        stop = threading.Event()

        # the other board's dice (bg.dice.joint: its seed never leaves it)
        seed = hashlib.sha256(b"away board").digest()
        mid = hashlib.sha256(b"away id").digest()[:8]
        ex = remote.DiceExchange(1, mid, commitment(mid, seed))

        def remote_host():
            """The other board's host: its board's dice (its commitment once the home board's
            came, its part, then its share of each throw in order) and black's decisions, the
            first one illegal."""
            n = {"seq": 0, "got": 0, "shares": 0}
            jd = None

            def send(body):
                n["seq"] += 1
                away.send(n["seq"], body)

            done = set()
            while not stop.is_set():
                for got, body in away.recv(n["got"], 0):
                    n["got"] = got
                    if body["kind"] in remote.DICE_KINDS:
                        ex.take(body)
                        if body["kind"] == "commit":
                            send(ex.commit_message())
                            send(ex.part_message(bytes(range(16))))
                if jd is None and None not in ex.parts:
                    jd = joint.JointDice(1, ex.own_commit, seed, ex.other_commit, ex.player_seed())
                while jd is not None and n["shares"] <= player.follow.throws + 1:
                    send(ex.share_message(n["shares"], jd.share_of(n["shares"])))
                    n["shares"] += 1
                f = player.follow
                mt = f.r.mt
                key = (f.throws, mt.phase)
                if f.r.g is not None and mt.side == 1 and key not in done:
                    if mt.phase == bgmatch.F_MOVING:
                        pos, d1, d2 = bytes(mt.pos), mt.dice[0], mt.dice[1]
                        plays = [p[0] for p in movegen.plays(bytearray(pos), 1, d1, d2)]
                        if res["bad"] is None and plays and plays[0]:
                            bad = list(plays[0])
                            bad[1] = 0 if bad[1] > 6 else bad[1]  # bear off from the outfield
                            bad = bad if not movegen.is_legal(bytearray(pos), 1, d1, d2, bad) else [25, 0]
                            send({"kind": "play", "turn": f.throws, "steps": bad})
                            res["bad"] = bad
                        play = list(plays[0]) if plays else []
                        send({"kind": "play", "turn": f.throws, "steps": play})
                        res["black"].append((f.throws, tuple(play)))
                        done.add(key)
                time.sleep(0.05)

        def play_white():
            end = time.monotonic() + 20
            while player.client is None and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.5)  # the HELLO made black the host's for the match that starts now
            robot.start_game(True)
            rng = random.Random(7)
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
                    plays = movegen.plays(robot.pos, 1, robot.dice[0], robot.dice[1])
                    if plays and plays[0][0]:  # (a dance shows no plan: the board passes)
                        robot.make_play(1, _plan(sim))
                    robot.expect(("PLAY",))
                if B.count(robot.pos, side, 0) == 15:
                    robot.expect(("GAME_END",))
                    robot.expect(("MATCH_END",))
                    return
                robot.side = 1 - side
                if robot.side == 0:
                    kind, text = robot.press_until("roll0", ("ROLL",))
                else:
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

        threads = [
            threading.Thread(target=white, daemon=True),
            threading.Thread(target=remote_host, daemon=True),
        ]
        for t in threads:
            t.start()
        ended = player.run(matches=1, idle=120)
        stop.set()
        player.client.close()
        for t in threads:
            t.join(60)
        assert res.get("white") == "done", (res, out.getvalue()[-2000:])
        assert ended == 1 and res["bad"] is not None and len(res["black"]) >= 3
        assert re.search(r"refused remote message \d+: illegal play", out.getvalue()), out.getvalue()
        with L.connect(address) as c:
            data = c.fetch_game(c.list_games()[-1]["id"], resume=False)
        f = Follow()
        black, white = [], []
        for k, fl in record.decode_stream(data):
            if k == record.PLAY:
                (black if fl[0] == 1 else white).append((f.throws, tuple(fl[1])))
            f.feed(k, fl)
        ms = next(fl for k, fl in record.decode_stream(data) if k == record.MATCH_START)
        assert ms[8] == "remote" and ms[3] & record.OPT_COMPUTER1
        assert f.r.mt.phase == bgmatch.F_MATCH_OVER
        # every black play on the board is the one the remote sent for that turn (the board
        # may play one itself if the host was late by BRAIN_MS on a loaded machine)
        sent = dict(res["black"])
        mine = [t for t, steps in black if t in sent and sent[t] == steps]
        assert len(mine) >= len(black) - 1, (black, res["black"])
        assert all(tuple(res["bad"]) != steps for _t, steps in black)
        # white's plays went to the relay, numbered in order, as the other board would get them
        got = []
        while True:  # (the relay answers a page of messages at a time)
            page = away.recv(got[-1][0] if got else 0)
            if not page:
                break
            got += page
        assert [s for s, _b in got] == list(range(1, len(got) + 1))
        plays = [(b["turn"], tuple(b["steps"])) for _s, b in got if b["kind"] == "play"]
        assert plays == white
    finally:
        sim.stop()
