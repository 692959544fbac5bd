"""Playing the computer on the board alone (``app.opponent``), driven like a player does:
checkers moved (sensor counts), buttons pressed. The computer's chooser is injected (the
generator's first legal play here; pubeval on the device), so each test knows its play.

On MicroPython these also run through tests/host/test_controller_mpy.py, on the board model at
the board's 64k."""

import ctl_helpers as H
from app import controller as C
from app import opponent as O
from app import rules
from app import search as S
from bg import leds as L
from bg import recognize as R


class _Spy:
    """A chooser that remembers what it was asked and answered (by default the first legal
    play)."""

    def __init__(self, choose=None):
        self.asked = 0
        self.last = None
        self.choose = choose or H.first_play

    def __call__(self, pos, side, d1, d2):
        self.asked += 1
        self.last = self.choose(pos, side, d1, d2)
        return self.last


def _vs(comp=1, seed=3, drain=None, choose=None, **kw):
    c = H.make(computer=comp, **kw)
    spy = _Spy(choose)
    c.opp = O.Opponent(spy)
    r = H.Robot(c, seed, drain=drain)
    return c, r, spy


def _follow(c, r):
    """Move the computer's checkers as its LEDs say (``opp.plan``), one step at a time. A
    step between two full rows (6 or more) is invisible to the sensors: the board may read
    the play's end a step early and record it then."""
    o = c.opp
    plan = o.plan
    side = c.side
    for k in range(0, len(plan), 2):
        if c.phase == C.MOVING and c.side == side:
            assert o.stage >= k // 2, (plan, k, o.stage)
        rules._board.apply_step(r.pos, side, plan[k], plan[k + 1])
        r.sense()
    assert c.phase != C.MOVING or c.side != side
    return plan


class _Tape:
    def __init__(self):
        self.start = None
        self.n = 0
        self.plays = [0, 0]  # PLAY records per side
        self.throws = bytearray()
        self.parts = []
        self.reveal = None

    def __call__(self, k, f):
        self.n += 1
        if k == C.K_MATCH_START:
            self.start = f
        elif k == C.K_SEED_PART:
            self.parts.append((f[0], f[2]))
        elif k == C.K_OPENING:
            self.throws.extend(bytes(f[1]))
        elif k == C.K_ROLL:
            self.throws.extend(bytes((f[1], f[2])))
        elif k == C.K_PLAY:
            self.plays[f[0]] += 1
        elif k == C.K_SEED_REVEAL:
            self.reveal = f[0]


def _to_opening(c, r):
    r.set_start()
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)


def test_whole_match_against_pubeval_to_the_end_with_verifiable_dice():
    from bg import dice

    tape = _Tape()
    c, r, spy = _vs(1, 5, tape, S.chooser("pubeval"), length=3)
    r.set_start()
    assert r.press(0, C.ROLL)
    games = turns = 0
    while c.phase != C.MATCH_OVER:
        turns += 1
        assert turns < 2000
        if c.phase == C.GAME_OVER:
            assert r.press(0, C.ROLL)
        if c.phase == C.OPENING:
            games += 1
            _to_opening(c, r)
        if c.phase == C.AWAIT_ROLL:
            assert c.side == 0  # the computer never waits for a press to roll
            assert not r.press(1, C.ROLL)  # its buttons are its own
            assert r.press(0, C.ROLL)
        if c.phase == C.MOVING and c.side == 0:
            r.play_turn()
        elif c.phase == C.MOVING:
            asked = spy.asked
            plan = _follow(c, r)
            assert plan == spy.last and spy.asked == asked  # the chooser's play, asked once
    assert max(c.mt.score) >= 3 and games >= 1 and tape.plays[1] > 10 and tape.plays[0] > 10
    ms = tape.start
    assert ms[3] & C.OPT_COMPUTER[1] and not ms[3] & C.OPT_COMPUTER[0] and ms[8] == "pubeval"
    m = dice.SeedMixer()
    for s, p in tape.parts:
        m.add(s, p)
    t = tape.throws
    rolls = (t[i : i + 2] for i in range(0, len(t), 2))
    ok, _, msg = dice.verify_transcript(ms[0], ms[9], tape.reveal, m.digest(), rolls)
    assert ok, msg


def _computer_to_move(comp=1):
    c, r, spy = _vs(comp, 7, length=5)
    r.set_start()
    assert r.press(0, C.ROLL)
    _to_opening(c, r)
    for _ in range(6):
        if c.phase == C.MOVING and c.side == comp and c.opp.plan:
            return c, r, spy
        if c.phase == C.MOVING and c.side == comp:
            _follow(c, r)
        elif c.phase == C.MOVING:
            r.play_turn()
        if c.phase == C.AWAIT_ROLL:
            r.press(c.side, C.ROLL)
    raise AssertionError("the computer never had a play")


def test_a_different_play_on_the_computers_turn_is_refused_and_nothing_is_lost():
    board, v = H.view()
    c, r, spy = _computer_to_move()
    side = c.side
    before = list(c.outbox)
    start = bytearray(r.pos)
    # the player makes another legal play for the computer (the generator's last one)

    other = H.Robot(c, 9).pick_play()
    while S.same_play(c.turn_start, side, other, c.opp.plan, (bytearray(52), bytearray(52))):
        other = H.Robot(c, other[0] + len(other)).pick_play()
    assert not S.same_play(c.turn_start, side, other, c.opp.plan, (bytearray(52), bytearray(52)))
    rules.apply_steps(r.pos, side, other)
    r.sense()
    assert c.phase == C.MOVING and c.side == side and c.outbox == before
    assert c.opp.wrong and (c.opp.missing or c.opp.extra) and c.message == "not the computer's play"
    assert not r.press(side, C.ROLL) and not r.press(1 - side, C.ROLL)  # no press records it
    assert c.outbox == before
    v.paint(c, r.now)
    assert c.opp.missing  # a checker of the computer's play is missing somewhere
    for row in range(28):
        if c.opp.missing >> row & 1:  # yellow, slow pulse: never dark
            assert v.p.get(v.p.row_led(row)) != (0, 0, 0), row
    # put it back and make the computer's play: recorded, as the recogniser read it
    r.pos[:] = start
    r.sense()
    assert not c.opp.wrong
    plan = _follow(c, r)
    k, f = c.outbox[len(before)]
    assert k == C.K_PLAY and f[0] == side and f[2] == 0
    assert S.same_play(c.turn_start, side, f[1], plan, (bytearray(52), bytearray(52)))
    assert c.outbox[: len(before)] == before


def test_the_computers_play_shows_step_by_step_on_the_leds():
    board, v = H.view()
    c, r, spy = _computer_to_move()
    side = c.side
    plan = c.opp.plan
    col = L.SIDE_COLOURS[side]
    for k in range(0, len(plan), 2):
        v.paint(c, r.now)
        to_led = v.p._step_led(side, plan[k + 1])
        got = v.p.get(to_led)
        hit = c.opp.hits[k // 2]
        assert got != (0, 0, 0), (k, plan)
        if not hit:
            assert (got[0] > got[2]) == (col[0] > col[2]), (got, col)
        rules._board.apply_step(r.pos, side, plan[k], plan[k + 1])
        r.sense()
        if c.phase != C.MOVING or c.side != side:
            break
    assert c.side != side or c.phase != C.MOVING  # the last step recorded the play


def test_coach_shows_the_choosers_play_and_hides_it_again():
    board, v = H.view()
    c, r, spy = _vs(1, 11, length=5)
    r.set_start()
    assert r.press(0, C.ROLL)
    _to_opening(c, r)
    while not (c.phase == C.MOVING and c.side == 0 and c.last_play is not None):
        if c.phase == C.MOVING and c.side == 1:
            _follow(c, r)
        elif c.phase == C.MOVING:
            r.play_turn()
        if c.phase == C.AWAIT_ROLL:
            r.press(0, C.ROLL)
    asked = spy.asked
    assert r.press(0, C.ROLL, C.LONG)  # the coach gesture: nothing recorded
    o = c.opp
    assert o.coaching and spy.asked == asked + 1 and o.plan == spy.last
    if o.plan:
        v.paint(c, r.now)
        g = v.p.get(v.p._step_led(0, o.plan[-1]))
        assert g[1] > g[0] and g != (0, 0, 0)  # bluish green
    assert r.press(0, C.ROLL, C.LONG) and not o.coaching and o.plan is None
    assert not r.press(1, C.ROLL, C.LONG)  # not the computer's


def test_opening_coach_shows_the_book_play_and_learning_mode_judges_it():
    from bg import aids

    c, r, spy = _vs(1, 2, length=5, learn=True)
    r.set_start()
    assert r.press(0, C.ROLL)
    while True:
        _to_opening(c, r)
        if c.side == 0:
            break
        _follow(c, r)  # the computer won the opening: play on until the game ends? no: resign
        assert r.press(0, C.CUBE, C.LONG)  # the player resigns (the computer accepts at once)
        assert c.phase == C.GAME_OVER and r.press(0, C.ROLL)
    d1, d2 = c.dice[0], c.dice[1]
    assert r.press(0, C.ROLL, C.LONG)
    book = aids.opening_move(d1, d2)
    assert c.opp.plan == book
    # the player makes the book play: the tray LED says "best"
    board, v = H.view()
    rules.apply_steps(r.pos, 0, book)
    r.sense()
    assert r.press(0, C.ROLL)
    assert c.opp.verdict is not None and c.opp.verdict[:2] == (0, True)
    v.paint(c, r.now)
    assert v.p.get(board.tray_led[0])[1] > v.p.get(board.tray_led[0])[0]  # bluish green
    v.paint(c, r.now + O.VERDICT_MS + 1)
    assert c.opp.verdict is None


def test_learning_mode_says_when_a_play_was_not_the_best():
    c, r, spy = _vs(1, 4, length=5, learn=True)
    r.set_start()
    assert r.press(0, C.ROLL)
    seen = 0
    for _ in range(40):
        if c.phase == C.OPENING:
            _to_opening(c, r)
        if c.phase == C.MOVING and c.side == 1:
            _follow(c, r)
        elif c.phase == C.MOVING:
            start = bytes(c.turn_start)
            opening = c.last_play is None
            d1, d2 = c.dice[0], c.dice[1]
            play = r.pick_play()
            r.play_turn(play)
            if opening or not play:
                continue
            best = H.first_play(start, 0, d1, d2)  # what the injected chooser answers
            same = S.same_play(start, 0, play, best, (bytearray(52), bytearray(52)))
            assert c.opp.verdict[:2] == (0, same) and tuple(c.opp.verdict[3]) == tuple(best)
            seen |= 1 if same else 2
            if seen == 3:
                return
        if c.phase == C.AWAIT_ROLL:
            r.press(0, C.ROLL)
        if c.phase == C.GAME_OVER:
            r.press(0, C.ROLL)
    assert seen & 2  # at least one play that was not the chooser's


def test_cube_policy_takes_by_the_race_and_never_doubles():
    c, r, spy = _computer_to_move(1)
    o = c.opp
    pos = bytearray(52)
    pos[5] = 15  # side 0: 15 on its 6-point (90 pips)
    pos[25 + 5] = 15  # side 1: 90 pips
    assert o.takes(pos, 1)
    pos[25 + 5] = 5
    pos[25 + 11] = 10  # 150 pips: more than 12 % behind
    assert not o.takes(pos, 1)
    # on its turn the computer rolled at once: it never offered the cube
    assert c.phase == C.MOVING and c.side == 1


def test_a_double_is_answered_and_a_resume_keeps_the_computers_side():
    tape = []
    c, r, spy = _computer_to_move(1)
    _follow(c, r)
    assert c.phase == C.AWAIT_ROLL and c.side == 0 and c.may_double
    assert r.press(0, C.CUBE)
    # early in the game the race is close: the computer takes (the cube is 2, its own)
    assert c.phase == C.AWAIT_ROLL and c.mt.cube == 2 and c.mt.owner == 1
    assert c.outbox[-2:] == [(C.K_DOUBLE, (0, 2)), (C.K_TAKE, (1,))]
    tape = list(c.outbox)
    d = H.make()  # a power cut: the journal replays into a board with default settings
    d.resume(iter(tape), c.board_seed())
    assert d.settings.computer == 1 and d.settings.names[1] == "pubeval"
    d.opp = O.Opponent(H.first_play)
    d.board(rules.counts_of(r.pos, bytearray(rules.NLOC), d.cap), r.now)
    assert d.phase == C.AWAIT_ROLL and d.side == 0  # the human's roll: nothing happened
    r.press(0, C.ROLL)
    d.button(0, C.ROLL)
    assert c.outbox[-1] == d.outbox[-1]


def test_settings_refuse_a_third_side():
    try:
        C.Settings(computer=2)
    except ValueError as e:
        assert "computer" in str(e)
    else:
        raise AssertionError("computer=2 accepted")
    s = C.Settings(computer=0, names=("ann", "bob"))
    assert s.names == ("pubeval", "bob") and s.flags() & C.OPT_COMPUTER[0]


def test_view_marks_a_hit_step_take_the_blot_away_first():
    board, v = H.view()
    c, r, spy = _vs(1, 1, length=5)
    c.opp = O.Opponent(lambda pos, side, d1, d2: (13, 7, 7, 6))
    # side 1 plays 6-1: 13/7* hits a blot of side 0 (its 18-point), then 7/6
    pos = bytearray(52)
    pos[25 + 13 - 1] = 2
    pos[25 + 24 - 1] = 13
    pos[18 - 1] = 1
    pos[6 - 1] = 14
    r.set_start()
    assert r.press(0, C.ROLL) and c.phase == C.OPENING  # the match begins (the fold has it)
    while c.phase == C.OPENING:
        assert r.press(0, C.ROLL)  # the opening throw: a game is in progress
    H.roll_at(c, pos, 1, 6, 1)  # then the game is here, side 1 (the computer) to play 6-1
    r.pos[:] = pos
    r.sense()
    o = c.opp
    assert o.plan == (13, 7, 7, 6) and o.hits[0] == 1 and o.stage == 0
    v.paint(c, r.now)
    bar0 = v.p.row_led(R.ROW_BAR0)  # side 0's bar: put the hit blot here (yellow pulse)
    blot = v.p.row_led(R.row_of(1, 7))  # the blot still on its point: take away (vermillion)
    assert v.p.get(bar0) != (0, 0, 0)
    g = v.p.get(blot)
    assert g == (0, 0, 0) or g[0] > g[2]  # blinking vermillion (dark half the time)
    from13 = v.p.row_led(R.row_of(1, 13))
    # the blot goes to the bar: the step is a plain step again, the bar no longer asks
    r.pos[18 - 1] = 0
    r.pos[24] = 1
    r.sense()
    v.paint(c, r.now)
    assert c.opp.stage == 0 and v.p.get(bar0) == (0, 0, 0)
    assert v.p.get(v.p.row_led(R.row_of(1, 7))) != (0, 0, 0)  # the to-point, steady
    # as the LEDs asked: a hand mid-hit, never "illegal", however long the player takes
    r.now += 2000
    r.sense()
    assert not c.show_errors(r.now) and c.illegal_since is None and c.message == ""
    v.paint(c, r.now)
    assert v.p.get(v.p.row_led(R.row_of(1, 7))) != (0, 0, 0)  # still the plan, no errors
    rules._board.apply_step(r.pos, 1, 13, 7)
    r.pos[24] = 1
    r.sense()
    assert c.opp.stage == 1 and from13 >= 0
    rules._board.apply_step(r.pos, 1, 7, 6)
    r.sense()
    assert c.phase == C.AWAIT_ROLL and c.side == 0 and c.outbox[-1][0] == C.K_PLAY


def test_house_opening_the_computer_throws_its_half_and_keeps_its_throw():
    for comp in (0, 1):
        c, r, spy = _vs(comp, 3, length=3, house=True)
        r.set_start()
        assert r.press(1 - comp, C.ROLL)  # the match starts
        for _ in range(12):
            if c.phase != C.OPENING:
                break
            r.press(1 - comp, C.ROLL)  # the player throws its half; the computer its own
        if c.phase == C.CHOICE:  # the player started: its choice (the computer keeps its own)
            assert c.side != comp and r.press(c.side, C.ROLL)
        assert c.phase == C.MOVING, c.phase
        assert (c.dice[0], c.dice[1]) == c.mt.opening.dice  # the starter plays the kept throw
        if c.side == comp:
            assert c.opp.plan is not None


def test_a_power_cut_during_the_computers_turn_brings_back_the_same_throw_and_play():
    c, r, spy = _computer_to_move(1)
    plan = c.opp.plan
    dice = (c.dice[0], c.dice[1])
    # the journal holds a roll only with its play (one TURN record): the cut loses the roll
    stored = list(c.outbox)
    assert stored[-1][0] == C.K_ROLL and stored[-1][1][0] == 1
    stored.pop()
    d = H.make()
    d.opp = O.Opponent(H.first_play)
    d.resume(iter(stored), c.board_seed())
    assert d.phase == C.AWAIT_ROLL and d.side == 1
    d.board(rules.counts_of(r.pos, bytearray(rules.NLOC), d.cap), r.now)  # the first reading
    assert d.phase == C.MOVING and (d.dice[0], d.dice[1]) == dice and d.opp.plan == plan
    assert d.outbox[-1] == c.outbox[-1]  # the same ROLL record


def test_the_devices_computer_setting_plays_the_next_match_after_a_resumed_one():
    """The board was set to play black while a two-player match was on the journal: that
    match resumes two-player (its records say so), and the next match is against the
    computer."""
    c = H.make(length=1)
    r = H.Robot(c, 5)
    r.set_start()
    assert r.press(0, C.ROLL) and r.press(0, C.ROLL) and c.phase == C.MOVING
    tape = list(c.outbox)
    d = H.make(computer=1, length=1)  # the restart with the new setting
    d.resume(iter(tape), c.board_seed())
    assert d.settings.computer == -1 and d.phase == C.MOVING  # the match keeps its own
    r.c = d
    r.sense()
    side = d.side
    assert d.intent(side, C.I_RESIGN, 1, r.now) and d.intent(1 - side, C.I_ACCEPT, None, r.now)
    assert d.phase == C.MATCH_OVER
    del d.outbox[:]
    r.set_start()
    assert r.press(0, C.ROLL) and d.phase == C.IDLE  # match over: back to idle
    assert r.press(0, C.ROLL) and d.phase == C.OPENING
    k, f = d.outbox[0]
    assert k == C.K_MATCH_START and f[3] & C.OPT_COMPUTER[1] and f[8] == "pubeval", f
    assert d.settings.computer == 1


def _thinking(c, r):
    """The app's engine task: the wanted best play in slices, then ``thought``."""
    o = c.opp
    for _ in range(5000):
        if not o.wants(c):
            return
        if o.think(c, 64):
            c.thought(r.now)
    raise AssertionError("the engine task never finished")


def test_the_computer_shows_its_play_in_every_match_of_a_session():
    """Turns are counted per match (``throws``): a computer's turn of a later match is not
    answered with an earlier match's best play of that turn number, and the computer's
    opening play is searched (the book is the coach's, for a player) -- the app's engine
    task computes it in slices, pubeval, as on the board."""
    from bg import engine as movegen

    c = H.make(computer=1, length=1)
    c.sliced = True
    c.opp = O.Opponent()
    r = H.Robot(c, 6)
    shown = 0
    for _match in range(6):
        r.set_start()
        while c.phase in (C.MATCH_OVER, C.IDLE):
            assert r.press(0, C.ROLL)
        _to_opening(c, r)
        if c.side == 0:
            r.play_turn()  # then the computer throws by itself
        _thinking(c, r)
        assert c.phase == C.MOVING and c.side == 1, (c.phase, c.side)
        assert c.opp.showing(c), "match %d: the computer's play is not on the LEDs" % _match
        d1, d2 = c.dice[0], c.dice[1]
        assert movegen.is_legal(c.turn_start, 1, d1, d2, c.opp.plan), (_match, c.opp.plan, d1, d2)
        shown += 1
        _follow(c, r)
        assert c.phase == C.AWAIT_ROLL and c.side == 0
        assert r.press(0, C.CUBE, C.LONG)  # the human resigns, the computer accepts at once
        assert c.phase == C.MATCH_OVER, c.phase
    assert shown == 6
