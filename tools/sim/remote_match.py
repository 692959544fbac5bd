"""A remote match end to end: two simulators (the real firmware, each with its socket link; one
of them can be the board model), each board's host running ``remote_player`` (what ``gammon
remote play`` runs) through the club's real relay (``gammon club serve`` processes on a
PostgreSQL database), and at each board a robot player who plays its own side and moves the
other side's checkers as the board's LEDs show them (the status line's plan).

``play`` runs one match to its end and returns the boards and both journals; the two-simulator
tests check what they hold (tests/club/test_club_remote_two_sims.py) and ``make bench`` times
each play from its confirm on one board to the other board's LEDs (tools/bench/remote.py).
"""

import io
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from bg import board as B
from bg import engine as movegen
from bg import record
from gammon import dice_proof, remote
from gammon import link as L
from gammon.commands import remote as remote_cmd

from tools.sim import demo, server
from tools.sim.drive import free_port, pair_with_buttons

ROOT = Path(__file__).resolve().parents[2]


class ClubServer:
    """A ``gammon club serve`` process on the database ``conninfo`` (its log in the database's
    socket folder), answering once it has started."""

    def __init__(self, conninfo, rate=1000):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gammon.cli", "club", "serve", "--db", conninfo, "--port", str(self.port)]
            + ["--rate", str(rate), "--window", "10"],
            env=env,
            cwd=str(ROOT),
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(conninfo.split()[0][5:], "server-%d.log" % self.port), "wb"),
        )
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/events/none/state", timeout=2).read()
                return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(
                        "club server did not start (its log is in the cluster folder)"
                    ) from None
                time.sleep(0.1)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


MATCH_S = 150  # a whole match on two loaded cores: far more than it takes (~30-60 s)


def plan_shown(sim, side, timeout=60.0):
    """The remote side's play the board's LEDs show (the status line's plan)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = sim._st
        pl = st.get("pl")
        if st.get("ph") == 4 and st.get("s") == side and pl and not pl[1]:
            return tuple(pl[0])
        time.sleep(0.02)
    raise RuntimeError("the remote play never showed; console:\n" + "\n".join(sim.log[-15:]))


def runner(robot, side):
    """A player who runs: the rearmost checkers first, no hit when it can help it (short
    games keep the test lean; which play does not matter to what is tested)."""
    plays = [p[0] for p in movegen.plays(robot.pos, side, robot.dice[0], robot.dice[1])]
    plays = robot.tidy(side, plays) or plays
    if not plays:
        return ()
    end = B.start_position()

    def cost(play):
        B.copy_into(end, robot.pos)
        for i in range(0, len(play), 2):
            B.apply_step(end, side, play[i], play[i + 1])
        hit = B.count(end, 1 - side, 25) - B.count(robot.pos, 1 - side, 25)
        return 10_000 * hit + sum(B.count(end, side, q) * q * q for q in range(1, 26))

    return min(plays, key=cost)


# Where a board's player cuts its power (``Board._point``), each the nth time it gets there:
# "thrown": its own throw journaled, none of its checkers moved yet;
# "played": its play journaled, its host has it, the relay not yet; "other thrown": the other
# side's throw shown here, its play not come yet; "doubled": this board's double journaled,
# the other player's answer not come yet; "double shown": the other player's double shown
# here, not answered yet; "asked": its player pressed ROLL and its host sent the board's share
# of that throw to the relay, the other board's share not come (the other host held from the
# relay), and its host stays away after the cut while its player presses CUBE, then holds it
# (a double, an offer to resign: ``_asked``).
CUT_POINTS = ("thrown", "played", "other thrown", "doubled", "double shown", "asked")
_STORED = {
    "thrown": (record.ROLL, True),
    "other thrown": (record.ROLL, False),
    "doubled": (record.DOUBLE, True),
    "double shown": (record.DOUBLE, False),
}


# what a press can journal (the board's console shows each record as it stores it)
_JOURNALED = ("ROLL", "DOUBLE", "TAKE", "DROP", "RESIGN", "RESIGN_ACCEPT", "RESIGN_REJECT", "GAME_END")


class Board:
    """One place: a simulator, its host (``remote_player`` through the relay) and its player.

    ``doubles``: the games in which this board's player doubles on its first turn it may;
    ``answers``: {game: "take" or "drop"}, its answer to the other player's double (take)."""

    def __init__(
        self, side, tmp_path, relay, rom=True, length=1, doubles=(), answers=None, heap=None, cuts=None
    ):
        self.side = side
        self.port = free_port()
        self.address = "tcp:127.0.0.1:%d" % self.port
        self.sim = server.Sim(
            image=str(tmp_path / ("flash%d.lfs" % side)),
            settings={"length": length},
            seed="board%d" % side,
            link_port=self.port,
            rom=rom,
            heap=heap,
            status=True,  # the plan on the LEDs, read by the robot (~2 kB on the board model)
            heap_probe=rom == "board",  # the board model's heap figures (``heap``)
        )
        self.relay = relay
        self.out = io.StringIO()
        self.doubles = doubles
        self.answers = answers or {}
        self.redouble = False
        # the confirm-to-LEDs latency: when each play (numbered in the match) was confirmed
        # on this board, and when the other board's play showed on its LEDs
        self.plays = [0]
        self.confirmed = {}
        self.shown = {}
        self.errors = []
        self.done = False
        self.doubled = set()  # games this board's player doubled in
        # power cuts the player makes at points of a turn (``_point``): {point: nth}
        self.cut_at = dict(cuts or {})
        self.reached = {}
        self.cut_done = []
        # the board model's heap probe (``Sim.heap_figures``) read at each stage: [(stage,
        # figures)], stages "booted", "paired", "played" (the match over) and "fetched"
        self.heap = []
        self.host = None
        self.other = None  # the other place (``play``)
        self.away = False  # the host cannot reach its board (``_asked``)
        self.away_presses = []  # (press, message on the board's panel, records since the cut)
        # this host's dice key, in its own library directory, made on first use (as ``gammon
        # remote play`` does): its part is signed, and the other host's must be
        self.dice_key = dice_proof.host_key(tmp_path / ("host%d" % side))
        self.fingerprint = dice_proof.fingerprint(dice_proof.public_key(self.dice_key))

    def heap_mark(self, stage, wait=0.0):
        """The heap probe's figures now (after ``wait`` seconds: its next reading; its first
        one waited for), kept as ``stage``'s; nothing without the probe."""
        if self.sim.heap_probe:
            time.sleep(wait)
            end = time.monotonic() + 5
            while self.sim.heap_figures() is None and time.monotonic() < end:
                time.sleep(0.05)
            self.heap.append((stage, self.sim.heap_figures()))

    def heap_report(self):
        """The heap figures of each stage in one line."""
        marks = ("%s %s / %s" % (s, f and f["most"], f and f["least_free"]) for s, f in self.heap)
        return "board %d's heap, most held / least free (bytes after a collection): %s" % (
            self.side,
            ", ".join(marks),
        )

    def start(self):
        self.sim.start()
        end = time.monotonic() + 20
        while not any("link: listening" in x for x in self.sim.log) and time.monotonic() < end:
            time.sleep(0.05)
        self.heap_mark("booted", 0.6)
        pair_with_buttons(self.sim, self.address, "player%d" % self.side)
        self.heap_mark("paired")
        self.host = remote_cmd.remote_player(
            self._connect, self.relay, 1 - self.side, self.out, dice_key=self.dice_key
        )
        self.robot = demo.Player(self.sim, random.Random(11 + self.side))

    def _connect(self):
        if self.away:
            raise L.LinkError("its board is out of reach (held by the test)")
        return L.connect(self.address)

    def run_host(self):
        try:
            self.host.run(matches=1, idle=MATCH_S)
        except Exception as e:  # noqa: BLE001 - reported when the match is over
            self.errors.append(("host", e))

    def run_player(self):
        try:
            end = time.monotonic() + 20
            while self.host.client is None and time.monotonic() < end:
                time.sleep(0.05)
            time.sleep(0.3)  # its HELLO made the other side this board's remote computer
            self._play()
            self.done = True
        except Exception as e:  # noqa: BLE001
            self.errors.append(("player", e))

    def _point(self, name):
        """The player reached point ``name`` of a turn (``CUT_POINTS``): the board's power is
        cut here (its firmware killed, started again on its flash) when this is the time
        asked for; True then."""
        n = self.reached[name] = self.reached.get(name, 0) + 1
        if self.cut_at.get(name) != n:
            return False
        kind, mine = _STORED.get(name, (None, 0))
        if kind is not None:
            # the board's console shows a record before storing it, its watch after: the
            # cut comes once the host saw it, the record on flash (the last of that side's,
            # or the one before the other player's answer)
            side = self.side if mine else 1 - self.side
            end = time.monotonic() + 20
            while not any(
                k == kind and f[0] == side
                for k, f in self.host.follow.records[-1 - (kind == record.DOUBLE) :]
            ):
                if time.monotonic() > end:
                    raise RuntimeError("the host never saw the board's %s" % record.name(kind))
                time.sleep(0.01)
        self.sim.restart("power-on")
        self.cut_done.append(name)
        return True

    def _due(self, name):
        """The next time the player reaches ``name`` is a power cut."""
        return self.cut_at.get(name) == self.reached.get(name, 0) + 1

    def _asked(self, r, me):
        """Point "asked": this board's player presses ROLL; the other host is held from the
        relay, so the other board's share does not come. Once this host has sent this board's
        share of the throw (the relay took it), the power goes and this host stays away from
        its board; the board back, its player presses CUBE, then holds it (a double, an offer
        to resign), each answered on the board's panel (kept in ``away_presses`` with the
        records the board's console showed meanwhile); then both hosts are let back."""
        seat = self.host.seat
        held = self.other._hold_relay()
        try:
            before = len(seat.sent)
            end = time.monotonic() + 20
            pressed = 0.0
            while not (
                any(m.get("kind") == "share" for m in seat.sent[before:]) and seat.acked == len(seat.sent)
            ):
                if time.monotonic() > end:
                    raise RuntimeError("the host never sent this board's share")
                if time.monotonic() - pressed > 1.5:  # (again should the board not have read it)
                    r.press("roll%d" % me)
                    pressed = time.monotonic()
                time.sleep(0.01)
            self.away = True
            _lines, seen = self.sim.log_since(0)
            self.sim.restart("power-on")
            self.cut_done.append("asked")
            end = time.monotonic() + 30
            while not any("link: listening" in x for x in self.sim.log_since(seen)[0]):
                if time.monotonic() > end:
                    raise RuntimeError("the board did not come back")
                time.sleep(0.05)
            time.sleep(0.5)  # (its first status line)
            st = self.sim._st
            if not (st.get("ph") == 3 and st.get("s") == me):
                raise RuntimeError("the board came back elsewhere than on roll: %r" % st)
            for name, hold in (("cube", 0.0), ("cube hold", 1.2), ("cube", 0.0)):
                self.sim.click([b["name"] for b in self.sim.board["buttons"]].index("cube%d" % me), hold)
                time.sleep(1.0)
                recs = [x for x in self.sim.log_since(seen)[0] if x.split(" ")[0] in _JOURNALED]
                self.away_presses.append((name, self.sim._st.get("m"), recs))
            if any(p[2] for p in self.away_presses):
                raise RuntimeError(
                    "the board journaled a press while its host was away: %r" % self.away_presses
                )
        finally:
            self.away = False
            self.other.relay.http.url = held[0]

    def _hold_relay(self):
        """The host's relay out of reach (its address: nothing listens there) until the
        caller puts back the url returned with the messages the seat had posted."""
        http = self.relay.http
        url, http.url = http.url, "http://127.0.0.1:9"
        return url, list(self.host.seat.sent)

    def _posted(self, before, timeout=20.0):
        """Wait until the host has posted (written down for the relay) a message more than
        ``before``: it has the board's record of this board's play."""
        end = time.monotonic() + timeout
        while len(self.host.seat.sent) <= before:
            if time.monotonic() > end:
                raise RuntimeError("the host never had this board's play")
            time.sleep(0.01)

    def _game_over(self, text):
        """GAME_END seen: True when the match ended too, else the next game is set up."""
        r = self.robot
        w, pts = [int(x) for x in text.split()[:2]]
        r.score[w] += pts
        r.games += 1
        if r.score[w] >= r.length:
            r.expect(("MATCH_END",))
            return True
        r.press_until("roll0", ("GAME_START",))
        r.start_game(False)
        return False

    def _may_double(self):
        """This board's player is on roll (the status line says so) and may double (owns
        the cube, when it is to redouble)."""
        end = time.monotonic() + 10
        while time.monotonic() < end:
            st = self.sim._st
            if st.get("ph") == 3 and st.get("s") == self.side:
                return bool(st.get("md")) and (st.get("o") == self.side or not self.redouble)
            time.sleep(0.02)
        return False

    def _answer(self, r, me):
        """The other player doubled: take or drop as this game's script says."""
        how = self.answers.get(r.games + 1, "take")
        kind, text = r.press_until(("roll%d" if how == "take" else "cube%d") % me, ("TAKE", "DROP"))
        return kind

    def _play(self):
        r = self.robot
        me = self.side
        r.length = int(self.sim.settings["length"])
        r.start_game(True)
        rolled = False  # this turn began with a ROLL (not the opening's throw)
        for _turn in range(600):
            side = r.side
            n = self.plays[0]
            self.plays[0] += 1
            if side == me:
                cut = rolled and self._point("thrown")
                # (after the cut the player plays the throw shown before it: a board of a
                # two-board match stores a throw at once, so it comes back with it)
                play = runner(r, me)
                r.turn_pos = bytearray(r.pos)
                r.make_play(me, play)
                time.sleep(r.settle)
                held = self._hold_relay() if self._due("played") else None
                kind, text = r.press_until("roll%d" % me, ("PLAY", "CHOICE"), tries=20 if cut else 5)
                if kind == "CHOICE":
                    r.choose(me, text)
                    r.expect(("PLAY",))
                self.confirmed[n] = time.monotonic()  # (its console line: the play journaled)
                if held is not None:
                    self._posted(len(held[1]))  # the host has it, the relay does not
                self._point("played")
                if held is not None:
                    self.relay.http.url = held[0]
            else:
                if rolled:
                    self._point("other thrown")
                plays = movegen.plays(r.pos, side, r.dice[0], r.dice[1])
                if plays and plays[0][0]:  # (a dance shows no plan: the board passes)
                    plan = plan_shown(self.sim, side)
                    self.shown[n] = time.monotonic()
                    r.make_play(side, plan)
                r.expect(("PLAY",))
            rolled = False
            if B.count(r.pos, side, 0) == 15:
                if self._game_over(r.expect(("GAME_END",))[1]):
                    return
                continue
            r.side = 1 - side
            while True:  # a roll (or a double, taken or dropped, first)
                if r.side == me:
                    g = r.games + 1
                    if self._due("asked"):
                        self.reached["asked"] = self.reached.get("asked", 0) + 1
                        self._asked(r, me)
                        # the roll comes with the other board's share, once this host is back
                        # (JOINT ASKED); a DOUBLE or RESIGN here is a press the board took
                        kind, text = r.expect(("ROLL", "DOUBLE", "RESIGN", "GAME_END"))
                    elif g in self.doubles and g not in self.doubled and self._may_double():
                        self.doubled.add(g)
                        r.press_until("cube%d" % me, ("DOUBLE",))
                        self._point("doubled")
                        kind, text = r.expect(("TAKE", "DROP"))  # the other player, through the link
                    else:
                        kind, text = r.press_until("roll%d" % me, ("ROLL",), tries=20)
                else:
                    kind, text = r.expect(("ROLL", "DOUBLE"))
                    if kind == "DOUBLE":
                        self._point("double shown")
                        kind = self._answer(r, me)
                if kind == "DROP":
                    if self._game_over(r.expect(("GAME_END",))[1]):
                        return
                    break
                if kind == "ROLL":
                    nums = [int(x) for x in text.split()]
                    r.dice = (nums[1], nums[2])
                    rolled = True
                    break
        raise RuntimeError("the match did not end")


def game_hash(data):
    """The match itself (a journal's bytes): every game record, not the board's own ids, seeds
    and shares -- the hash both hosts print at the end (gammon.remote.match_hash)."""
    return remote.match_hash(record.decode_stream(data))


def signature_lines(what, fps):
    """What ``gammon remote verify`` says of each board's ``what`` ("journal",
    "transcript") when both parts are signed by the keys of fingerprints ``fps``."""
    line = "side %d's board's %s, part %d (side %d's host): key %s's signature holds"
    return [line % (board, what, i + 1, i, fps[i]) for board in (0, 1) for i in (0, 1)]


def check_signed(boards, paths):
    """Both boards' journals (files ``paths``, side 0's first) prove both hosts' parts: ``gammon
    remote verify`` names each host's key in each journal, and ``gammon verify``'s reading of
    each journal alone (``check_parts``) finds both proofs holding, by those keys. Returns
    remote verify's message; AssertionError (what was read) otherwise."""
    from gammon.commands import dice as dice_cmd

    fps = [b.fingerprint for b in boards]
    assert fps[0] != fps[1]
    ok, msg = remote_cmd.verify(remote_cmd.load(paths[0]), remote_cmd.load(paths[1]))
    for line in signature_lines("journal", fps):
        assert ok and line in msg, msg
    for path in paths:
        (m,) = dice_cmd.matches_from_journal(Path(path).read_bytes(), path)
        lines, bad, signed = dice_cmd.check_parts(m, [])
        assert not bad and signed == {0: fps[0], 1: fps[1]}, lines + bad
    return msg


def play(
    servers,
    event,
    tmp_path,
    env,
    roms=(True, True),
    length=1,
    cube=((), ()),
    cuts=(),
    heaps=(None, None),
    relay_cut=None,
    turn_cuts=(None, None),
):
    """One match between two boards through the relays of ``servers`` (two ``ClubServer``),
    tokens from ``event(host, rate)``, files under ``tmp_path``; ``env``: pytest's monkeypatch
    or anything with ``setenv`` (the hosts' config folder). ``roms``, ``heaps``: each board's
    simulator (``True``: the ROM image, ``"board"``: the board model); ``cube``: each board's
    doubles and answers (``Board``); ``cuts``, ``relay_cut``: watchers (``watch(board, stop)``)
    run beside the match; ``turn_cuts``: each board's power cuts its player makes at points of
    a turn, ``{point: nth}`` (``CUT_POINTS``). Returns ``(boards, journals)``: each board's
    journal as its host fetched it; ``boards[0].latency``: confirm-to-LEDs seconds of every play, sorted.
    RuntimeError when the match does not end on both boards."""
    env.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    relays = (
        remote.Relay(servers[0].url, event("a", rate=20_000)),
        remote.Relay(servers[1].url, event("b", rate=20_000)),
    )
    relays[1].join(relays[0].create(0))
    boards = [
        Board(i, tmp_path, relays[i], roms[i], length, cube[i], cube[1 - i], heaps[i], turn_cuts[i])
        for i in (0, 1)
    ]
    boards[1].redouble = True  # (black doubles only once it owns the cube)
    boards[0].other, boards[1].other = boards[1], boards[0]
    stop = threading.Event()
    try:
        for b in boards:
            b.start()
        threads = [
            threading.Thread(target=f, daemon=True) for b in boards for f in (b.run_host, b.run_player)
        ]
        for cut, b in zip(cuts, boards):
            threading.Thread(target=cut.watch, args=(b, stop), daemon=True).start()
        if relay_cut is not None:
            threading.Thread(target=relay_cut.watch, args=(boards[0], stop), daemon=True).start()
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads[1::2]:  # the players
            t.join(max(0.1, t0 + MATCH_S - time.monotonic()))
        tail = "\n\n".join(
            "board %d: %s\nhost:\n%s\nconsole:\n%s"
            % (b.side, b.errors, b.out.getvalue()[-1500:], "\n".join(b.sim.log[-25:]))
            for b in boards
        )
        if not all(b.done and not b.errors for b in boards):
            raise RuntimeError("the match did not end on both boards:\n" + tail)
        for t in threads[0::2]:  # the hosts see the match end
            t.join(max(0.1, t0 + MATCH_S - time.monotonic()))
        if any(t.is_alive() for t in threads):
            raise RuntimeError("a host did not see the match end:\n" + tail)
        played_s = time.monotonic() - t0
        datas = []
        for b in boards:  # each board's journal as its host fetches it (its link: the match over)
            b.heap_mark("played")
            c = b.host.client
            datas.append(c.fetch_game(c.list_games()[-1]["id"], resume=False))
            c.close()
            b.heap_mark("fetched", 0.6)
            if b.heap:
                print(b.heap_report())
        print(
            "%d games, score %s, played in %.1f s" % (boards[0].robot.games, boards[0].robot.score, played_s)
        )
        lat = sorted(
            b.shown[n] - a.confirmed[n]
            for a, b in (boards, boards[::-1])
            for n in b.shown
            if n in a.confirmed
        )
        if lat:  # a figure for docs/remote.md, not a check: the machine's load decides it
            print(
                "confirm on one board -> its play on the other's LEDs (status line), %d plays: "
                "median %.3f s, p90 %.3f s, max %.3f s"
                % (len(lat), lat[len(lat) // 2], lat[int(len(lat) * 0.9)], lat[-1])
            )
        boards[0].latency, boards[0].played_s = lat, played_s
        return boards, datas
    finally:
        stop.set()
        for b in boards:
            b.sim.stop()
