"""Two boards, one match, each player at their simulator's page in headless Chromium: two
simulators (the real firmware with its socket link and its page server), each board's host
running ``remote_player`` (what ``gammon remote play`` runs) through the club's real relay
(PostgreSQL, two server processes: the same session fixtures as the other club tests). Every
checker is moved by a mouse drag on a page and every button is clicked there: each player
plays their own side, and moves the other player's checkers as their page's LEDs show them.
Each page says whose turn it is and, in words, what the player at the other board played;
after some turns the player on roll resigns from their page and the other accepts on theirs.
Both journals then hold the same match, and both hosts show the same match hash: the hash of
the journals' game records."""

import random
import re
import threading
import time

import remote_helpers as RH
import test_browser_sim as T  # the page's drivers: browser, drags, LEDs
from bg import board as B
from bg import engine as movegen
from bg import record
from gammon import remote

from tools.sim import demo, server
from tools.sim import remote_match as S
from tools.sim import status as words

PLAYS = 8  # plays dragged on both pages before the resignation (a dance counts as one)
MATCH_S = 150  # far more than it takes on two loaded cores


class PagePlayer(demo.Player):
    """A player at the page: every checker moved by a mouse drag, every button clicked
    (``demo.Player`` reads the firmware's console for what the board confirmed)."""

    def __init__(self, sim, rng, d):
        demo.Player.__init__(self, sim, rng, step_ms=0)
        self.d = d

    def press(self, name):
        T._click(self.d, name)

    def hand_move(self, a, b):
        T._drag(self.d, a, b)

    def start_game(self, first):
        self.d.find_element("id", "setup-start").click()
        T._wait(
            lambda: self.d.execute_script("return sim.locs[5].length") == 5,
            what="checkers set up on the page",
        )
        self.pos = B.start_position()
        time.sleep(self.settle)
        if first:
            self.press_until("roll0", ("MATCH_START",))
        while True:
            kind, text = self.press_until("roll0", ("OPENING",))
            d = [int(x) for x in re.findall(r"\d", text.split(" ", 1)[1])]
            if d[0] != d[1]:
                self.side = 0 if d[0] > d[1] else 1
                self.dice = (d[0], d[1])
                return


def _text(d, el_id):
    return d.find_element("id", el_id).text


class PageBoard(S.Board):
    """``S.Board`` whose player sits at the simulator's page."""

    def start(self):
        self.d, self.prof = T._browser("1400,1300")
        self.httpd = server.serve(self.sim, port=0)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        S.Board.start(self)
        self.d.get("http://127.0.0.1:%d/" % self.httpd.server_address[1])
        T._wait(lambda: self.d.execute_script("return document.body.dataset.ready"), 20, "page ready")
        self.robot = PagePlayer(self.sim, random.Random(11 + self.side), self.d)
        self.seen = []  # what the page said while the other player was to play

    def stop(self):
        for f in (self.d.quit, self.httpd.shutdown, self.httpd.server_close):
            try:
                f()
            except Exception:  # noqa: BLE001, S110 - tearing down what may not have started
                pass

    def _remote_play(self, side):
        """The other player's play, as the page shows it: whose turn, the play in words, its
        points on the LEDs. Returns the play (the status line's plan)."""
        r = self.robot
        them = words.SIDES[side] + " (remote)"
        end = time.monotonic() + 60
        while True:  # the page while it waits for them
            nxt = _text(self.d, "next")
            self.seen.append(nxt)
            st = self.sim._st
            pl = st.get("pl")
            if st.get("ph") == 4 and st.get("s") == side and pl and not pl[1]:
                plan = tuple(pl[0])
                break
            assert time.monotonic() < end, "the remote play never showed:\n" + "\n".join(self.sim.log[-15:])
            time.sleep(0.1)
        self.shown[self.plays[0] - 1] = time.monotonic()
        said = "%s played %d-%d: %s" % (them, r.dice[0], r.dice[1], words.play_words(r.pos, side, plan))
        T._wait(lambda: said in _text(self.d, "next"), 10, repr(said) + " on the page")
        assert "move those checkers as the LEDs show" in _text(self.d, "next")
        assert them in _text(self.d, "st-turn"), _text(self.d, "st-turn")
        # the points the checkers go to light up (point LEDs are numbered as white counts)
        want = {t if side == 0 else 25 - t for t in plan[1::2] if t}
        lit = set()
        T._wait(lambda: lit.update(self._lit_points()) or want <= lit, 5, "%s lit" % sorted(want))
        return plan

    def _lit_points(self):
        return self.d.execute_script(
            "return Array.from(document.querySelectorAll('circle.led[data-kind=\"point\"]'))"
            ".filter(e => e.dataset.lit).map(e => Number(e.dataset.index))"
        )

    def _play(self):
        r = self.robot
        me = self.side
        r.length = 1
        r.start_game(True)
        for n in range(PLAYS):
            side = r.side
            self.plays[0] += 1
            if side == me:
                T._wait(lambda: words.SIDES[me] in _text(self.d, "st-turn"), 10, "my turn on the page")
                play = S.runner(r, me)
                r.turn_pos = bytearray(r.pos)
                r.make_play(me, play)
                time.sleep(r.settle)
                kind, text = r.press_until("roll%d" % me, ("PLAY", "CHOICE"))
                if kind == "CHOICE":
                    r.choose(me, text)
                    r.expect(("PLAY",))
                self.confirmed[self.plays[0] - 1] = time.monotonic()
            else:
                plays = movegen.plays(r.pos, side, r.dice[0], r.dice[1])
                if plays and plays[0][0]:  # (a dance shows no plan: the board passes)
                    r.make_play(side, self._remote_play(side))
                r.expect(("PLAY",))
            r.side = 1 - side
            if n == PLAYS - 1:
                break
            if r.side == me:
                kind, text = r.press_until("roll%d" % me, ("ROLL",), tries=20)
            else:
                kind, text = r.expect(("ROLL",))
            nums = [int(x) for x in text.split()]
            r.dice = (nums[1], nums[2])
        # the player on roll resigns from the page (CUBE held, then ROLL sends the offer);
        # the other player accepts on theirs
        them = words.SIDES[1 - me] + " (remote)"
        if r.side == me:
            self.d.find_element("id", "resign%d" % me).click()
            T._wait(lambda: "ROLL sends the offer" in _text(self.d, "next"), 10, "the offer on the page")
            r.press_until("roll%d" % me, ("RESIGN",))
            T._wait(lambda: "waiting for %s to accept" % them in _text(self.d, "next"), 10, "the wait")
        else:
            r.expect(("RESIGN",))
            T._wait(lambda: "%s offers to resign" % them in _text(self.d, "next"), 10, "their offer")
            r.press_until("roll%d" % me, ("RESIGN_ACCEPT",))
        r.expect(("MATCH_END",))
        T._wait(lambda: "match over" in _text(self.d, "next"), 10, "the match's end on the page")


def test_two_pages_play_a_game_by_drags_through_the_relay(servers, event, tmp_path, monkeypatch):
    monkeypatch.setenv("GAMMON_CONFIG_DIR", str(tmp_path / "cfg"))
    relays = (
        remote.Relay(servers[0].url, event("a", rate=20_000)),
        remote.Relay(servers[1].url, event("b", rate=20_000)),
    )
    relays[1].join(relays[0].create(0))
    boards = [PageBoard(i, tmp_path, relays[i]) for i in (0, 1)]
    try:
        for b in boards:
            b.start()
        threads = [
            threading.Thread(target=f, daemon=True) for b in boards for f in (b.run_host, b.run_player)
        ]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(0.1, t0 + MATCH_S - time.monotonic()))
        tail = "\n\n".join(
            "board %d: %s\nhost:\n%s\nconsole:\n%s"
            % (b.side, b.errors, b.out.getvalue()[-1500:], "\n".join(b.sim.log[-25:]))
            for b in boards
        )
        assert all(b.done and not b.errors for b in boards), tail
        assert not any(t.is_alive() for t in threads), tail
        played_s = time.monotonic() - t0
        datas = []
        for b in boards:
            c = b.host.client
            datas.append(c.fetch_game(c.list_games()[-1]["id"], resume=False))
            c.close()
        # the same match in both journals, remote verify passes, both hosts' parts signed and
        # both keys named in both journals, nothing refused
        h = RH.boards_agree(boards, datas, tmp_path)
        for b in boards:  # each host shows it
            assert "match hash %s (the other board shows the same)" % h[:16] in b.out.getvalue()
        kinds = [k for k, _f in record.decode_stream(datas[0])]
        assert kinds.count(record.PLAY) == PLAYS and record.RESIGN_ACCEPT in kinds
        for b in boards:
            # the page said whom it waited for while the other player was to play
            assert any("waiting for" in x and "(remote)" in x for x in b.seen), b.seen[-5:]
        print("a game of %d plays by drags on two pages, %.1f s; match hash %s" % (PLAYS, played_s, h))
    finally:
        for b in boards:
            b.sim.stop()
            if hasattr(b, "d"):
                b.stop()
