"""``gammon play``'s host half without a board: ``gammon.brain`` (GNU Backgammon's decisions
for the computer's side, the board's turn counter) and ``gammon.commands.play.Player`` (the
loop: HELLO, the live match, decisions, heartbeats, refusals, a dropped link) against a scripted
client. The whole product, firmware included, is tests/host/test_play_sim.py."""

import io

import ctl_helpers as H
import pytest
import scripted_board
from app import controller as C
from bg import board, record
from bg import engine as movegen
from bg import link as P
from bg import match as bgmatch
from bg.link import decide as D
from export_helpers import MatchWriter, random_match
from gammon import analyze, model
from gammon.brain import Brain, Follow
from gammon.cli import UserError
from gammon.commands import play as PL
from gammon.link import LinkError


def _records(data):
    """Each action as the board publishes it: a ROLL and its PLAY apart (the journal's compact
    TURN records are the file's, not the live watch's)."""
    return [bytes(record.encode(k, f)) for k, f in record.decode_stream(data)]


# --- the board's turn counter --------------------------------------------------------------


@pytest.mark.parametrize("house", [False, True], ids=["standard", "house-opening"])
def test_follow_counts_the_throws_as_the_boards_controller_does(house):
    """The DECIDE turn is the controller's ``throws``: wherever the computer can be asked a
    decision, the host's count equals the board's (opening ties, the house opening's two
    throws, doubles, whole games of a match)."""
    for seed in (1, 2, 3):
        _throws_checked(seed, house)


class _Checked(H.Robot):
    """A robot player after whose every move and press the host's count is the board's."""

    def __init__(self, ctl, seed, follow):
        H.Robot.__init__(self, ctl, seed, drain=follow.feed)
        self.follow = follow
        self.checks = 0

    def _drained(self, r):
        out = H.Robot._drained(self, r)
        if self.c.phase in (C.AWAIT_ROLL, C.MOVING, C.DOUBLED):  # where a DECIDE can be asked
            # (not in the house opening: side 0's throw is counted before it is recorded)
            assert self.follow.throws == self.c.throws, (self.follow.throws, self.c.throws)
            self.checks += 1
        return out


def _throws_checked(seed, house):
    f = Follow()
    c = H.make(length=3, house=house)
    r = _Checked(c, seed, f)
    r.set_start()
    assert r.press(0, C.ROLL)
    for _ in range(4):
        if c.phase == C.MATCH_OVER:
            break
        r.play_game(double_every=7)
        if c.phase == C.GAME_OVER:
            assert r.press(0, C.ROLL)
    assert f.throws > 20 and r.checks > 100


def test_follow_matches_the_controller_after_every_turn():
    f = Follow()
    c = H.make(length=1)
    r = H.Robot(c, 4, drain=lambda k, fl: f.feed(k, fl))
    r.set_start()
    assert r.press(0, C.ROLL)
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)
    turns = 0
    while c.phase not in (C.GAME_OVER, C.MATCH_OVER):
        if c.phase == C.AWAIT_ROLL:
            assert r.press(c.side, C.ROLL)
        assert f.throws == c.throws and f.r.mt.side == c.side
        r.play_turn()
        turns += 1
        assert f.throws == c.throws
    assert turns > 10


# --- GNU Backgammon's decisions -------------------------------------------------------------


def test_every_play_is_legal_and_gnubgs_own_when_its_tuple_is_whole():
    gnubg = analyze._gnubg()
    seen = {"whole": 0, "bear-off": 0}
    for seed in (3, 4):
        data, _ = random_match(seed)
        f = Follow()
        brains = (Brain(0), Brain(1))
        gen = movegen.MoveGen()
        for k, fl in record.decode_stream(data):
            f.feed(k, fl)
            mt = f.r.mt
            if mt.phase != bgmatch.F_MOVING or f.r.g is None:
                continue
            d1, d2 = mt.dice[0], mt.dice[1]
            kind, turn, steps = brains[mt.side].decide(f)
            assert kind == "play" and turn == f.throws
            assert gen.is_legal(mt.pos, mt.side, d1, d2, steps) or (
                not steps and gen.no_play(mt.pos, mt.side, d1, d2)
            )
            g = f.r.g
            ci = gnubg.cubeinfo(mt.cube, mt.owner, mt.side, f.r.m.length, tuple(g.score), int(g.crawford), 0)
            best = gnubg.findbestmoves(
                gnubg.positionfromid(__import__("bg.ids", fromlist=["x"]).position_id(mt.pos, mt.side)),
                ci,
                gnubg.evalcontext(1, 0, 1, 1, 0.0),
                (d1, d2),
            )
            if not best:
                assert steps == ()
                continue
            mv = analyze._gnubg_steps(best[0]["move"])
            try:
                want = gen.apply(bytearray(mt.pos), mt.side, mv)
                whole = bool(gen.recognize(mt.pos, mt.side, d1, d2, want))
            except ValueError:
                whole = False
            if whole:
                seen["whole"] += 1
                assert gen.apply(bytearray(mt.pos), mt.side, steps) == want
            else:
                seen["bear-off"] += 1  # the module cut the tuple at a checker borne off
    assert seen["whole"] > 100 and seen["bear-off"] > 0, seen


def test_a_play_bearing_off_before_its_last_step_is_whole():
    """gnubg's Python module returns 5/off 5/off 5/off 5/off as (5,): the brain must still send
    the whole play (gnubg_nn's choice, checked legal)."""
    f = Follow()
    w = MatchWriter(1, length=0, flags=0)
    data = bytes(w.out)
    for k, fl in record.decode_stream(data):
        f.feed(k, fl)
    pos = board.from_points({1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {13: 2, 12: 13})
    f.r.mt.pos[:] = pos
    b = Brain(0)

    class _R:  # the replay's parts the play reads
        mt = f.r.mt
        m = f.r.m
        g = type("G", (), {"score": (0, 0), "crawford": False})()

    f.r.mt.side = 0
    for d in ((5, 5), (5, 3), (6, 6)):
        f.r.mt.dice[0], f.r.mt.dice[1] = d
        steps = b.play(_R)
        assert movegen.MoveGen().is_legal(pos, 0, d[0], d[1], steps), (d, steps)
        assert len(steps) == (8 if d[0] == d[1] else 4)


def _position_state(pos_side0, pos_side1, length=5, score=(0, 0), cube=1, owner=-1):
    """A Follow standing at side 0's turn before its throw, at this position and score."""
    f = Follow()
    w = MatchWriter(1, length=length, flags=record.OPT_CRAWFORD)
    for k, fl in record.decode_stream(bytes(w.out)):
        f.feed(k, fl)
    f.r.mt.score[:] = score  # (as if earlier games had been played)
    crawford = record.GAME_CRAWFORD if f.r.mt.next_is_crawford() else 0
    f.feed(record.GAME_START, (1, score[0], score[1], crawford))
    mt = f.r.mt
    mt.pos[:] = board.from_points(pos_side0, pos_side1)
    mt.phase = bgmatch.F_AWAIT
    mt.side = 0
    mt.turn = 0
    mt.rolled = False
    mt.cube = cube
    mt.owner = owner
    return f


def test_the_cube_doubles_a_big_race_lead_and_the_trailer_drops():
    # side 0: 20 pips left against 80: doubling is right, the taker should drop
    f = _position_state({1: 5, 2: 5, 3: 2}, {6: 5, 5: 5, 4: 5})
    b0, b1 = Brain(0), Brain(1)
    kind, _, yes = b0.decide(f)
    assert kind == "cube" and yes
    f.r.mt.double(0)
    f.r.mt.phase = bgmatch.F_DOUBLED
    kind, _, take = b1.decide(f)
    assert kind == "cube" and not take


def test_the_cube_waits_in_an_even_position_and_never_doubles_past_the_match():
    start = {6: 5, 8: 3, 13: 5, 24: 2}
    f = _position_state(start, start)
    assert Brain(0).decide(f) == ("cube", f.throws, False)
    # 2-away with the cube at 2: the cube already wins the match for it, a double is pointless
    f = _position_state({1: 5, 2: 5, 3: 2}, {6: 5, 5: 5, 4: 5}, length=5, score=(3, 0), cube=2, owner=0)
    assert Brain(0).decide(f) == ("cube", f.throws, False)


def test_no_cube_question_in_the_crawford_game():
    f = _position_state({1: 5, 2: 5, 3: 2}, {6: 5, 5: 5, 4: 5}, length=5, score=(4, 0))
    assert f.r.mt.crawford
    assert Brain(0).decide(f) is None


def test_the_brain_checks_its_arguments():
    with pytest.raises(ValueError):
        Brain(2)
    with pytest.raises(ValueError):
        Brain(0, plies=3)
    assert Brain(1, 2).name == "gnubg 2-ply"


# --- the loop against a scripted board ------------------------------------------------------


class _Board(scripted_board.Board):
    """The live match of ``data``, ``shown`` records journaled, the host the computer
    (``gammon play``'s HELLO)."""

    def __init__(self, data, shown=8):
        scripted_board.Board.__init__(self, _records(data), shown, hello=b"\x01gnubg 0-ply")


_Client = scripted_board.Client


class _Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.5
        return self.t


def _match():
    data, _ = random_match(11, length=1)
    return data


def test_the_player_sends_a_decision_at_each_of_the_computers_turns():
    b = _Board(_match())
    out = io.StringIO()
    p = PL.Player(b.client, Brain(1), out, sleep=lambda s: None, clock=_Clock())
    assert p.run(matches=1) == 1
    f = Follow()
    want = []
    for i, rec in enumerate(b.recs):
        for k, fl in record.decode_stream(rec):
            f.feed(k, fl)
        d = Brain(1).decide(f)
        if d is not None and i + 1 >= b.shown:  # from the copy the host fetched on
            want.append(d)
    plays = [d for d in b.decisions if d[0] == D.DEC_PLAY]
    assert len(plays) == len([d for d in want if d[0] == "play"]) > 5
    for (_kind, body), d in zip(plays, [d for d in want if d[0] == "play"]):
        assert body[:2] == d[1].to_bytes(2, "little") and tuple(body[2:]) == d[2]
    text = out.getvalue()
    assert "plays" in text and "match over" in text


def test_a_quiet_match_keeps_the_board_waiting_with_a_hello_every_few_seconds():
    data = _match()
    b = _Board(data, shown=len(_records(data)) // 2)
    b.recs = b.recs[: b.shown]  # nothing happens at the board
    clock = _Clock()
    p = PL.Player(b.client, Brain(1), io.StringIO(), sleep=lambda s: None, clock=clock)
    assert p.run(idle=40) == 0
    # the first HELLO, then one per HEARTBEAT_S of the clock (which the loop advanced)
    assert b.hellos >= 1 + int(clock.t // PL.HEARTBEAT_S) - 1 and b.hellos >= 3


def test_a_refused_decision_brings_the_boards_copy_again_and_no_loop():
    b = _Board(_match())
    b.refuse = 1
    out = io.StringIO()
    p = PL.Player(b.client, Brain(1), out, sleep=lambda s: None, clock=_Clock())
    assert p.run(matches=1) == 1
    # two looks at the board's copy (before and after the watch turns on) at the start, and
    # two after the refusal: nothing was journaled meanwhile, the copies agreed at once
    assert p.refused == 1 and b.fetches == 4 and "did not take it" in out.getvalue()


def _computers_turn(recs, after):
    """The first record count from ``after`` on at which the board waits for the computer."""
    f = Follow()
    for i, rec in enumerate(recs):
        f.feed_bytes(rec)
        if i + 1 >= after and Brain(1).decide(f) is not None:
            return i + 1
    raise AssertionError("the computer never decides")


class _Counting(PL.Player):
    def __init__(self, *a, **k):
        PL.Player.__init__(self, *a, **k)
        self.copies = 0

    def _resync(self):
        self.copies += 1
        PL.Player._resync(self)


def test_a_record_journaled_between_the_copy_and_the_watch_is_not_missed():
    """The player confirms the record that hands the computer its turn right after the host
    read the board's copy, before the watch was on: it is in neither the copy nor the events,
    and the board then waits for the computer. The host looks at the copy again with the watch
    on and decides (before: it waited with the board until its own computer decided)."""
    data = _match()
    recs = _records(data)
    k = _computers_turn(recs, 10)
    b = _Board(data, shown=k - 1)
    b.during_copy = {1: "after"}
    b.waits = k
    p = PL.Player(b.client, Brain(1), io.StringIO(), sleep=lambda s: None, clock=_Clock())
    assert p.run(matches=1, idle=5) == 1
    f = Follow()
    for rec in recs[:k]:
        f.feed_bytes(rec)
    kind, turn, value = Brain(1).decide(f)
    assert b.decisions[0][1][:2] == turn.to_bytes(2, "little") and b.fetches >= 4


def test_a_matchs_end_journaled_between_the_copy_and_the_watch_is_seen():
    """The last play and the match's end are confirmed right after the host read the board's
    copy, before the watch was on: the board's list then shows no live match. The host copies
    the match it began with to its end (before: the next copy found no live match, and the
    host followed none)."""
    data = _match()
    recs = _records(data)
    last = max(i for i, r in enumerate(recs) if r[:1] == bytes([record.PLAY]))
    b = _Board(data, shown=last)
    b.during_copy = {1: "rest"}
    p = PL.Player(b.client, Brain(1), io.StringIO(), sleep=lambda s: None, clock=_Clock())
    p._open()
    assert b.list_games()[0]["finished"] and p.over()
    whole = Follow()
    whole.feed_bytes(data)
    assert p.follow.throws == whole.throws and p.follow.r.mt.score == whole.r.mt.score


def test_after_lost_events_no_record_comes_twice():
    """The board's queue overflowed (events lost): the host takes the board's copy again. A
    record the board published as the watch went off is in that copy and still in the link's
    queue: it is dropped, not fed again (before: an out-of-turn record, and another copy)."""
    data = _match()
    b = _Board(data)
    b.lost_at = 30
    b.before_off = True
    p = _Counting(b.client, Brain(1), io.StringIO(), sleep=lambda s: None, clock=_Clock())
    assert p.run(matches=1) == 1
    assert not b.before_off  # the worst moment came
    assert p.copies == 2  # the start, the lost events: none for a record seen twice
    whole = Follow()
    whole.feed_bytes(data)
    assert p.follow.throws == whole.throws  # (its last record, the match's end, not waited for)
    assert p.follow.r.mt.score == whole.r.mt.score and p.follow.r.mt.phase == bgmatch.F_MATCH_OVER


def test_a_dropped_link_is_joined_again_and_the_match_goes_on():
    b = _Board(_match())
    b.drop_at = 20
    tries = []

    def connect():
        tries.append(1)
        if 2 <= len(tries) <= 3:
            raise LinkError("cannot connect to the board")
        return b.client()

    waits = []
    out = io.StringIO()
    p = PL.Player(connect, Brain(1), out, sleep=waits.append, clock=_Clock())
    assert p.run(matches=1) == 1
    assert p.reconnects == 1 and len(tries) == 4 and waits == [1.0, 2.0, 4.0]
    text = out.getvalue()
    assert "link lost" in text and "not yet" in text and "link back" in text


def test_a_match_without_a_computer_on_that_side_is_a_clear_error():
    class _NoClient(_Client):
        def decide(self, kind, body=b""):
            raise LinkError("wrong state: the match in progress has no computer on that side", P.E_STATE)

    b = _Board(_match())
    p = PL.Player(lambda: _NoClient(b), Brain(1), io.StringIO(), sleep=lambda s: None, clock=_Clock())
    with pytest.raises(UserError, match="between matches"):
        p.run(matches=1)


def test_a_match_taken_over_credits_gnubg_in_the_library_and_the_mat(tmp_path, monkeypatch):
    """The board's records name its own computer (or a player) for the side ``gammon play``
    took over: the library, its list and the .mat export name GNU Backgammon after it."""
    from gammon import model
    from gammon.formats import mat
    from gammon.library import Library

    monkeypatch.setenv("GAMMON_HOME", str(tmp_path))
    data = _match()
    b = _Board(data)
    credits = []
    p = PL.Player(
        b.client,
        Brain(1),
        io.StringIO(),
        sleep=lambda s: None,
        clock=_Clock(),
        credit=lambda *a: credits.append(a),
    )
    assert p.run(matches=1) == 1
    m = model.load_match(data)
    assert credits == [(m.id_hex, 1, "gnubg 0-ply")]  # once per match
    first = m.names[1]
    with Library.open() as lib:
        lib.credit(*credits[0])  # before the match is synced: kept for it
        lib.store(data)
        lib.credit(*credits[0])  # again: no second mention
        want = "%s, then gnubg 0-ply" % first
        assert lib.get(m.id_hex).players[1] == want
        assert lib.load(m.id_hex).names == (m.names[0], want)
        assert '[Player 2 "%s"]' % want in mat.export(lib.load(m.id_hex))
        lib.credit(m.id_hex, 1, "gnubg 2-ply")  # a later session at another strength
        assert lib.get(m.id_hex).players[1] == "%s, then gnubg 0-ply, then gnubg 2-ply" % first
        assert lib.get(m.id_hex).players[0] == m.names[0]


def test_learn_says_gnubgs_verdict_after_each_of_the_players_plays():
    """``gammon play --learn``: after each play of the player (not the computer's), one line
    with GNU Backgammon's verdict -- the best play, or the equity lost and the best play."""
    from gammon.analyze import play_judge

    b = _Board(_match())
    out = io.StringIO()
    p = PL.Player(b.client, Brain(1), out, sleep=lambda s: None, clock=_Clock(), judge=play_judge())
    assert p.run(matches=1) == 1
    m = model.load_match(b"".join(b.recs))
    fed = model.load_match(b"".join(b.recs[: b.shown]))
    before = sum(1 for g in fed.games for a in g.actions if a.kind == "play" and a.side == 0)
    mine = [a for g in m.games for a in g.actions if a.kind == "play" and a.side == 0][before:]
    lines = [x for x in out.getvalue().splitlines() if " -- " in x]
    assert len(lines) == len(mine) > 3, (lines, len(mine))
    for line, a in zip(lines, mine):
        assert line.startswith("%s played %s -- " % (m.names[0], a.text or "no move")), line
        assert line.endswith(("had no choice", "made GNU Backgammon's best play", ")")), line
    assert any("equity lost by" in x and "(best: " in x for x in lines), lines
